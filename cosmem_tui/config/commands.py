"""``cosmem config path|init|show|validate`` and applying a profile to a command line.

Plain ``print``: no rich, no textual. The action ids a profile may rebind are known to
the UI only, so the CLI hands them in (``known_actions``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO

from cosmem_tui.config.files import ENV, MODEL_ONLY, ConfigError, config_file, settings_needed
from cosmem_tui.config.themes import check_theme
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK

# Settings that are also command-line options of the same name (argparse dests).
FLAG_SETTINGS = (
    "workspace",
    "schema",
    "endpoint",
    "database",
    "container",
    "auth",
    "resource_id",
    "workspace_id",
    "ru_budget",
    "theme",
)
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


def add_parser(commands: Any) -> None:
    config = commands.add_parser(
        "config",
        help="config profiles: where the file is, a starter file, what is in effect, a check",
        description="Profiles live in a TOML file (cosmem config path; COSMEM_CONFIG "
        "overrides it). Precedence: flag > environment > profile > default.",
    )
    verbs = config.add_subparsers(dest="config_command", metavar="VERB", required=True)
    verbs.add_parser("path", help="print the config file's path")
    init = verbs.add_parser("init", help="write a commented starter file")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    show = verbs.add_parser(
        "show", help="each setting, its value (secrets masked) and where it came from"
    )
    show.add_argument("--json", action="store_true", help="a JSON array on stdout")
    verbs.add_parser(
        "validate", help="check the whole file: exit 0 (no file is valid), or 2 with one line"
    )


def run(
    args: argparse.Namespace,
    known_actions: Callable[[], Iterable[str]],
    out: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    verb = args.config_command
    if verb == "path":
        print(config_file(), file=out)
        return EXIT_OK
    if verb == "init":
        return _init(args, out)
    if verb == "validate":
        return _validate(known_actions, out)
    return _show(args, out)


def _init(args: argparse.Namespace, out: TextIO) -> int:
    path = config_file()
    if path.exists() and not args.force:
        print(f"cosmem: {path} exists (--force overwrites it)", file=sys.stderr)
        return EXIT_ERROR
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(STARTER, encoding="utf-8")
    print(f"wrote {path}", file=out)
    return EXIT_OK


def _validate(known_actions: Callable[[], Iterable[str]], out: TextIO) -> int:
    from cosmem_tui.config.settings import read_file

    path = config_file()
    if not path.exists():  # no file is a valid configuration: every setting's default
        print(
            f"{path}: ok: no config file, the defaults apply (cosmem config init writes one)",
            file=out,
        )
        return EXIT_OK
    config = read_file(path)
    check_keys(config.model.profiles, known_actions, str(path))
    default = config.model.default_profile
    if default is not None and default not in config.model.profiles:
        raise ConfigError(f"{path}: default_profile: no profile {default!r}; {config.names_text()}")
    names = ", ".join(config.profiles) or "none"
    print(f"{path}: ok (profiles: {names})", file=out)
    return EXIT_OK


def check_keys(
    profiles: Mapping[str, Any], known_actions: Callable[[], Iterable[str]], where: str
) -> None:
    """Every rebound action id names an action of the console."""
    wanted = [(name, p.keys) for name, p in profiles.items() if p.keys]
    if not wanted:
        return
    known = set(known_actions())
    for name, keys in wanted:
        for action_id in keys:
            if action_id not in known:
                raise ConfigError(
                    f"{where}: profiles.{name}.keys.{action_id}: no such action "
                    "(the ids are listed by ? in the console)"
                )


def _show(args: argparse.Namespace, out: TextIO) -> int:
    import json

    from cosmem_tui.config.settings import NO_DEFAULT, resolve, show_rows

    resolved = resolve(flag_values(args), getattr(args, "profile", None))
    rows = show_rows(resolved)
    if args.json:
        print(json.dumps(rows, ensure_ascii=True, indent=1), file=out)
        return EXIT_OK
    # A setting without a value says what happens without one, never a bare "-".
    values = [r["value"] or NO_DEFAULT.get(r["setting"], "(none)") for r in rows]
    width = max(len(r["setting"]) for r in rows)
    value_width = min(60, max(len(v) for v in values))
    for row, value in zip(rows, values, strict=True):
        print(f"{row['setting']:<{width}}  {value:<{value_width}}  {row['source']}", file=out)
    return EXIT_OK


# -- applying a profile to a command line ---------------------------------------------------------


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given as flags (None: not given)."""
    values = {name: getattr(args, name, None) for name in FLAG_SETTINGS}
    values["allow_writes"] = True if getattr(args, "allow_writes", False) else None
    return values


def apply(args: argparse.Namespace, known_actions: Callable[[], Iterable[str]]) -> None:
    """Fill ``args`` from the profile and the settings-only variables, flags untouched.

    Without a config file, a profile or a settings-only variable this loads nothing
    (no pydantic): only ``--theme`` is checked.
    """
    theme = getattr(args, "theme", None)
    if theme is not None:
        check_theme(theme)
    profile = getattr(args, "profile", None)
    if not settings_needed(profile):
        return
    from cosmem_tui.config.settings import resolve

    resolved = resolve(flag_values(args), profile)
    for name in (*FLAG_SETTINGS, "allow_writes"):
        origin = resolved.origins[name]
        # From the environment only what nothing else reads (COSMOS_ENDPOINT and the like
        # are still read where they were before profiles).
        if resolved.from_file(name) or (name in MODEL_ONLY and origin.startswith("env ")):
            setattr(args, name, resolved.value(name))
    settings = resolved.settings
    args.refresh_s = settings.refresh_s
    args.keymap = dict(settings.keys)
    if settings.keys and getattr(args, "command", None) is None:  # checked where used: the UI
        check_keys({resolved.profile or "": settings}, known_actions, str(resolved.file.path))
    args.profile_name = resolved.profile
    args.cosmos_env = cosmos_environment(resolved)


def cosmos_environment(resolved: Any) -> dict[str, str]:
    """The environment the Cosmos settings read: the key a profile names by ``key_env``
    (or ``connection_string_env``) appears as COSMOS_KEY (COSMOS_CONNECTION_STRING), and
    a profile's tenant as AZURE_TENANT_ID, unless the environment already sets them."""
    from cosmem_tui.config.settings import secret_source

    env = dict(resolved.env)
    settings = resolved.settings
    source = secret_source(resolved)
    if source is not None and source[0] != source[1]:
        variable, target = source
        value = env.get(variable)
        if not value:
            field = "key_env" if variable == settings.key_env else "connection_string_env"
            raise ConfigError(f"{resolved.where(field)}: {variable} is not set")
        env[target] = value
    if settings.tenant_id and not env.get(ENV["tenant_id"]):
        env[ENV["tenant_id"]] = settings.tenant_id
    return env


def use_profile(args: argparse.Namespace, known_actions: Callable[[], Iterable[str]]) -> None:
    """``apply``, and the profile's tenant put where azure-identity looks for it: what a
    run (the command line's, or a profile switched to in the console) does first."""
    apply(args, known_actions)
    env = getattr(args, "cosmos_env", None)
    if env is not None:  # None: no settings in play, so no tenant from a profile
        export_tenant(env)


def export_tenant(env: Mapping[str, str]) -> None:
    """azure-identity reads AZURE_TENANT_ID from the process environment itself."""
    tenant = env.get(ENV["tenant_id"])
    if tenant and not os.environ.get(ENV["tenant_id"]):
        os.environ[ENV["tenant_id"]] = tenant
