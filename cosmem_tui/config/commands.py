"""What ``cosmem config path|init|show|validate`` do (``cli/config.py`` declares them).

Plain ``print``: no rich, no textual. The action ids a profile may rebind are known to
the UI only, so the CLI hands them in (``known_actions``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from cosmem_tui.config.files import ConfigError, config_file
from cosmem_tui.config.invocation import Flags
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK

STARTER = """\
# cosmem config profiles (cosmem config show: what is in effect and where it came from).
# Precedence: command-line flag > environment variable > profile > default.
# Secrets never go in this file: name the variable that holds them (key_env).

# The profile used when neither --profile nor COSMEM_PROFILE names one.
default_profile = "demo"

[profiles.demo]
# A local workspace (omit for the demo workspace in the user data dir).
# workspace = "~/cosmem/support.sqlite"
# schema = "auto"
theme = "cosmem-dark"
refresh_s = 5          # live views refresh every N seconds (never under 2)
# demo_live = false    # the demo without its live workload (as cosmem --still)
# tail_flood_share = 0.5  # the tail warns when one tenant writes more than this share

# [profiles.prod]
# endpoint = "https://ACCOUNT.documents.azure.com:443/"
# database = "memory"
# container = "turns"
# auth = "aad"                  # aad, device-code, key, connection-string
# tenant_id = "00000000-0000-0000-0000-000000000000"
# key_env = "PROD_COSMOS_KEY"   # auth = "key": the variable holding the account key
# resource_id = "/subscriptions/SUB/resourceGroups/GROUP/providers/Microsoft.DocumentDB/…"
# workspace_id = "00000000-0000-0000-0000-000000000000"
# ru_budget = 200
# theme = "production"          # the red skin: nobody mistakes prod for test
# allow_writes = false          # writes still ask first and are audited
#
# [profiles.prod.keys]          # action id = Textual key names (see ? in the console)
# "app.quit" = "ctrl+q"
"""


def path(out: TextIO) -> int:
    print(config_file(), file=out)
    return EXIT_OK


def init(force: bool, out: TextIO) -> int:
    target = config_file()
    if target.exists() and not force:
        print(f"cosmem: {target} exists (--force overwrites it)", file=sys.stderr)
        return EXIT_ERROR
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(STARTER, encoding="utf-8")
    print(f"wrote {target}", file=out)
    return EXIT_OK


def validate(known_actions: Callable[[], Iterable[str]], out: TextIO) -> int:
    from cosmem_tui.config.settings import check_keys, read_file

    target = config_file()
    if not target.exists():  # no file is a valid configuration: every setting's default
        print(
            f"{target}: ok: no config file, the defaults apply (cosmem config init writes one)",
            file=out,
        )
        return EXIT_OK
    config = read_file(target)
    check_keys(config.model.profiles, known_actions, str(target))
    default = config.model.default_profile
    if default is not None and default not in config.model.profiles:
        raise ConfigError(
            f"{target}: default_profile: no profile {default!r}; {config.names_text()}"
        )
    names = ", ".join(config.profiles) or "none"
    print(f"{target}: ok (profiles: {names})", file=out)
    return EXIT_OK


def show(flags: Flags, as_json: bool, out: TextIO) -> int:
    """Each setting, its value (secrets masked) and where it came from."""
    import json

    from cosmem_tui.config.settings import resolve
    from cosmem_tui.config.show import NO_DEFAULT, show_rows

    resolved = resolve(flags.settings(), flags.profile)
    rows = show_rows(resolved)
    if as_json:
        print(json.dumps(rows, ensure_ascii=True, indent=1), file=out)
        return EXIT_OK
    # A setting without a value says what happens without one, never a bare "-".
    values = [r["value"] or NO_DEFAULT.get(r["setting"], "(none)") for r in rows]
    width = max(len(r["setting"]) for r in rows)
    value_width = min(60, max(len(v) for v in values))
    for row, value in zip(rows, values, strict=True):
        print(f"{row['setting']:<{width}}  {value:<{value_width}}  {row['source']}", file=out)
    return EXIT_OK
