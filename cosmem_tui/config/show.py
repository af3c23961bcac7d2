"""``cosmem config show``: each setting of a resolution, its value (secrets masked) and
where it came from, with what applies when nothing sets it."""

from __future__ import annotations

from typing import Any

from cosmem_tui.config.files import DEFAULT_REFRESH_S
from cosmem_tui.config.settings import Resolved, public_names, secret_source
from cosmem_tui.config.themes import DEFAULT_THEME
from cosmem_tui.core.session import default_workspace_path
from cosmem_tui.core.tail_rate import DEFAULT_FLOOD_SHARE
from cosmem_tui.sources.cosmos.settings import (  # plain data, no SDK
    ENV_CONNECTION_STRING,
    ENV_KEY,
    default_auth,
    redact,
)
from cosmem_tui.sources.request_budget import DEFAULT_RU_BUDGET

SECRET_MASK = "***"


def show_rows(resolved: Resolved) -> list[dict[str, str]]:
    """Each setting, its value (secrets masked) and where it came from."""
    rows = [
        {
            "setting": "config_file",
            "value": str(resolved.file.path),
            "source": _file_state(resolved),
        },
        {"setting": "profile", "value": resolved.profile or "", "source": resolved.profile_origin},
    ]
    defaults = default_values(resolved)
    for public in public_names():
        value = _display(resolved.value(public))
        source = resolved.origins[public]
        if source == "default" and not value:
            value = defaults.get(public, "")  # what applies, not a blank
        rows.append({"setting": public, "value": value, "source": source})
    rows.append(_secret_row(resolved))
    return rows


def default_values(resolved: Resolved) -> dict[str, str]:
    """What a setting is when nothing sets it: the value the code falls back to. The
    settings without one are in ``NO_DEFAULT``, which says what happens instead."""
    settings, env = resolved.settings, resolved.env
    auth = default_auth(
        bool(env.get(ENV_KEY) or settings.key_env),
        bool(env.get(ENV_CONNECTION_STRING) or settings.connection_string_env),
    )
    return {
        "workspace": str(default_workspace_path()),  # the demo workspace
        "auth": auth,  # key or connection-string when their variable is set, else aad
        "key_env": ENV_KEY,
        "connection_string_env": ENV_CONNECTION_STRING,
        "refresh_s": _display(DEFAULT_REFRESH_S),
        "tail_flood_share": _display(DEFAULT_FLOOD_SHARE),
        "ru_budget": _display(DEFAULT_RU_BUDGET),
        "theme": DEFAULT_THEME,
    }


NO_DEFAULT = {
    "profile": "(none)",
    "schema": "(none: the one the workspace records, else detected)",
    "endpoint": "(none: a local workspace is read)",
    "database": "(none)",
    "container": "(none)",
    "tenant_id": "(none: the identity's home tenant)",
    "resource_id": "(none: no telemetry; the demo simulates it)",
    "workspace_id": "(none: no hot tenants from the logs)",
    "keys": "(none: the built-in keys)",
    "secret": "(none)",
}


def _file_state(resolved: Resolved) -> str:
    where = "env COSMEM_CONFIG" if resolved.env.get("COSMEM_CONFIG") else "default"
    return where if resolved.file.exists else f"{where} (does not exist)"


def _display(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        text = ", ".join(f"{k}={v}" for k, v in value.items())
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = f"{value:g}"
    else:
        text = str(value)
    return redact(text)


def _secret_row(resolved: Resolved) -> dict[str, str]:
    source = secret_source(resolved)
    if source is None:
        return {"setting": "secret", "value": "", "source": "none (Entra ID sign-in)"}
    variable = source[0]
    state = SECRET_MASK if resolved.env.get(variable) else "(not set)"
    return {"setting": "secret", "value": state, "source": f"env {variable}"}
