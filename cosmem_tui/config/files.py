"""Where the config file lives, and whether a run needs the settings model at all.

No pydantic here: this is on every start-up path.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cosmem_tui.core.session import config_dir

ENV_CONFIG = "COSMEM_CONFIG"  # the config file's path, instead of the user config dir's
ENV_PROFILE = "COSMEM_PROFILE"  # the profile to use, instead of the file's default_profile
FILE_NAME = "config.toml"

# The environment variable of each setting (a flag beats it, it beats the profile).
# Settings without one are read from flags and profiles only: writes are never switched
# on by an inherited variable, and key bindings belong in the file.
ENV: dict[str, str] = {
    "workspace": "COSMEM_WORKSPACE",
    "schema": "COSMEM_SCHEMA",
    "endpoint": "COSMOS_ENDPOINT",
    "database": "COSMOS_DATABASE",
    "container": "COSMOS_CONTAINER",
    "auth": "COSMEM_AUTH",
    "tenant_id": "AZURE_TENANT_ID",
    "resource_id": "COSMEM_RESOURCE_ID",
    "workspace_id": "COSMEM_WORKSPACE_ID",
    "refresh_s": "COSMEM_REFRESH_S",
    "tail_flood_share": "COSMEM_TAIL_FLOOD_SHARE",
    "ru_budget": "COSMEM_RU_BUDGET",
    "theme": "COSMEM_THEME",
}
# No live view polls faster, whoever sets its interval (a profile, a flag, a command):
# over SSH a faster loop is a repaint the link pays for, and requests the account does.
REFRESH_FLOOR_S = 2.0
DEFAULT_REFRESH_S = 5.0  # a live view's interval when nothing sets one
# Variables only the settings model reads (the others are also read by the code that
# existed before profiles): when one is set, the model is loaded even without a file,
# and its value is written into the command line's options.
MODEL_ONLY = (
    "workspace",
    "schema",
    "auth",
    "refresh_s",
    "tail_flood_share",
    "ru_budget",
    "theme",
)


class ConfigError(Exception):
    """A one-line problem with the config file, a profile or a setting (exit status 2)."""


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML table in ``path``; anything wrong with it is one ``ConfigError`` naming it.

    ``tomllib`` parses arrays and inline tables recursively, so a file nested some
    thousands deep raised ``RecursionError`` out of every command that reads the file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = f":{found.group(1)}" if found else ""
        what = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"{path}{line}: invalid TOML: {what}") from None
    except RecursionError:
        raise ConfigError(
            f"{path}: invalid TOML: arrays or tables nested too deeply to read "
            "(a config is a few levels deep)"
        ) from None


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """``$COSMEM_CONFIG``, else ``config.toml`` in the user config dir."""
    env = os.environ if env is None else env
    named = env.get(ENV_CONFIG)
    return Path(named).expanduser() if named else config_dir() / FILE_NAME


def profile_requested(
    flag: str | None, env: Mapping[str, str] | None = None
) -> tuple[str, str] | None:
    """The profile the flag or the environment names, and which of them named it."""
    env = os.environ if env is None else env
    if flag:
        return flag, "flag --profile"
    if env.get(ENV_PROFILE):
        return env[ENV_PROFILE], f"env {ENV_PROFILE}"
    return None


def settings_needed(profile: str | None, env: Mapping[str, str] | None = None) -> bool:
    """Does this run read the settings model (and so load pydantic)?"""
    env = os.environ if env is None else env
    if profile_requested(profile, env) is not None or config_file(env).exists():
        return True
    return any(env.get(ENV[name]) for name in MODEL_ONLY)
