"""The settings model and where each value comes from: flag > environment > profile > default.

pydantic-settings does the merging: the flags are the init arguments, then one source
for the environment (the variables in ``files.ENV``), then one for the selected profile
of the TOML file, then the model's defaults. Each source is also asked on its own, so
``cosmem config show`` can say which one a value came from.

The file::

    default_profile = "dev"

    [profiles.dev]
    workspace = "~/work/dev.sqlite"

    [profiles.prod]
    endpoint = "https://contoso.documents.azure.com:443/"
    key_env = "PROD_COSMOS_KEY"   # the name of a variable, never the key itself
    theme = "production"

    [profiles.prod.keys]
    "app.quit" = "ctrl+q"

Every problem is a ``ConfigError`` of one line naming the file, the key and what is
expected; no value that could be a secret is ever repeated in it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from cosmem_tui.config.files import (
    ENV,
    REFRESH_FLOOR_S,
    ConfigError,
    config_file,
    profile_requested,
    read_toml,
)
from cosmem_tui.config.themes import theme_names
from cosmem_tui.sources.cosmos.settings import (  # plain data, no SDK
    ENV_CONNECTION_STRING,
    ENV_KEY,
    AuthMode,
    default_auth,
    redact,
)

# AuthMode's values, written out for the type checker (a test holds the two together).
AuthName = Literal["aad", "device-code", "key", "connection-string"]
# Names that would put a secret in the file: refused with a pointer to ``key_env``.
SECRET_KEYS = frozenset(
    {"key", "account_key", "connection_string", "password", "secret", "token", "client_secret"}
)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Fields(BaseModel):
    """What a profile may set (every setting is optional: unset means the next level)."""

    model_config = ConfigDict(populate_by_name=True)

    workspace: Path | None = None
    schema_name: str | None = Field(default=None, alias="schema")
    endpoint: str | None = None
    database: str | None = None
    container: str | None = None
    auth: AuthName | None = None
    tenant_id: str | None = None
    key_env: str | None = None
    connection_string_env: str | None = None
    resource_id: str | None = None
    workspace_id: str | None = None
    # The Azure OpenAI embeddings deployment that turns recall's --text into a query
    # vector (sources/embeddings.py; signed in with Entra ID, never an API key).
    embeddings_endpoint: str | None = None
    embeddings_deployment: str | None = None
    refresh_s: float | None = None
    # The tail's flood warning: one tenant writing more than this share of the changes.
    tail_flood_share: float | None = None
    ru_budget: float | None = None
    theme: str | None = None
    keys: dict[str, str] = Field(default_factory=dict)
    allow_writes: bool = False
    # The demo's live workload (its simulated agents write the demo while it is shown);
    # false: the demo stays as built, as --still.
    demo_live: bool = True

    @field_validator("workspace")
    @classmethod
    def _home(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None

    @field_validator("embeddings_endpoint")
    @classmethod
    def _embeddings_endpoint(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https://[^/\s]+", value):
            raise ValueError("expected the https:// endpoint of an Azure OpenAI resource")
        return value

    @field_validator("embeddings_deployment")
    @classmethod
    def _embeddings_deployment(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", value):
            raise ValueError("expected the name of an embeddings deployment")
        return value

    @field_validator("refresh_s")
    @classmethod
    def _refresh(cls, value: float | None) -> float | None:
        if value is not None and not (REFRESH_FLOOR_S <= value < math.inf):
            raise ValueError(f"expected a number of seconds, at least {REFRESH_FLOOR_S:g}")
        return value

    @field_validator("tail_flood_share")
    @classmethod
    def _flood_share(cls, value: float | None) -> float | None:
        if value is not None and not (0 < value <= 1):
            raise ValueError("expected a share above 0 and at most 1 (e.g. 0.5)")
        return value

    @field_validator("ru_budget")
    @classmethod
    def _budget(cls, value: float | None) -> float | None:
        if value is not None and not (0 < value < math.inf):
            raise ValueError("expected a positive number")
        return value

    @field_validator("theme")
    @classmethod
    def _theme(cls, value: str | None) -> str | None:
        if value is None:
            return value
        names = theme_names()
        if value not in names:
            raise ValueError(f"expected one of the themes {', '.join(names)}")
        return value

    @field_validator("key_env", "connection_string_env")
    @classmethod
    def _variable(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError("expected the name of an environment variable (not its value)")
        return value


class Profile(Fields):
    """One ``[profiles.NAME]`` table: an unknown key is a mistake, not something ignored."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ConfigFileModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default_profile: str | None = None
    profiles: dict[str, Profile] = Field(default_factory=dict)


class Settings(BaseSettings, Fields):
    """The resolved settings of a run (sources chosen per call by ``_settings_class``)."""

    model_config = SettingsConfigDict(populate_by_name=True, extra="ignore")


@dataclass(frozen=True)
class ConfigFile:
    path: Path
    exists: bool
    model: ConfigFileModel

    @property
    def profiles(self) -> tuple[str, ...]:
        return tuple(self.model.profiles)

    def names_text(self) -> str:
        if not self.exists:
            return f"{self.path} does not exist (cosmem config init writes one)"
        if not self.model.profiles:
            return f"{self.path} has no profiles"
        return "the profiles are " + ", ".join(self.model.profiles)


def read_file(path: Path) -> ConfigFile:
    """The file, checked whole (every profile, not only the one in use)."""
    if not path.exists():
        return ConfigFile(path, False, ConfigFileModel())
    data = read_toml(path)
    try:
        return ConfigFile(path, True, ConfigFileModel.model_validate(data))
    except ValidationError as exc:
        raise ConfigError(f"{path}: {describe(exc.errors()[0])}") from None
    except RecursionError:  # a value nested deeper than validation walks
        raise ConfigError(f"{path}: a setting is nested too deeply to check") from None


def check_keys(
    profiles: Mapping[str, Fields], known_actions: Callable[[], Iterable[str]], where: str
) -> None:
    """Every rebound action id names an action of the console (the UI knows the ids)."""
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


def describe(error: ErrorDetails, prefix: str = "") -> str:
    """``profiles.prod.ru_budget: expected a positive number, got "lots"``."""
    where = ".".join(str(part) for part in error["loc"])
    where = f"{prefix}{where}" if prefix else where
    name = str(error["loc"][-1]) if error["loc"] else ""
    kind = error["type"]
    if kind == "extra_forbidden":
        if name in SECRET_KEYS:
            return (
                f"{where}: secrets never go in the file; name the environment variable "
                'that holds it instead (key_env = "PROD_COSMOS_KEY", connection_string_env)'
            )
        return f"{where}: unknown setting (the settings are {', '.join(public_names())})"
    expected = _EXPECTED.get(kind)
    if expected is None:
        message = str(error.get("msg", "invalid"))
        expected = message.removeprefix("Value error, ")
        if kind == "literal_error":
            expected = f"expected one of {', '.join(_literal_choices(name))}"
    given = error.get("input")
    got = "" if isinstance(given, dict | list) else f", got {_shown(given)}"
    return f"{where}: {expected}{got}"


_EXPECTED = {
    "float_parsing": "expected a positive number",
    "float_type": "expected a positive number",
    "finite_number": "expected a positive number",
    "bool_parsing": "expected true or false",
    "bool_type": "expected true or false",
    "string_type": "expected a string",
    "dict_type": "expected a table",
    "path_type": "expected a path (a string)",
    "missing": "required",
}


def _literal_choices(name: str) -> tuple[str, ...]:
    return tuple(mode.value for mode in AuthMode) if name == "auth" else ()


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    text = redact(text)
    return text if len(text) <= 60 else text[:57] + "…"


def public_names() -> list[str]:
    return [info.alias or name for name, info in Fields.model_fields.items()]


# -- sources -------------------------------------------------------------------------------


class _Environment(PydanticBaseSettingsSource):
    """The variables of ``files.ENV`` (an empty one counts as unset)."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        self.env = env

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        name = field.alias or field_name
        return self.env.get(ENV.get(name, "")) or None, name, False

    def __call__(self) -> dict[str, Any]:
        return {name: value for name, var in ENV.items() if (value := self.env.get(var))}


class _ProfileTable(PydanticBaseSettingsSource):
    """The selected ``[profiles.NAME]`` table (already checked against ``Profile``)."""

    def __init__(self, settings_cls: type[BaseSettings], table: Mapping[str, Any]) -> None:
        super().__init__(settings_cls)
        self.table = dict(table)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        name = field.alias or field_name
        return self.table.get(name), name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self.table)


def _settings_class(env: Mapping[str, str], table: Mapping[str, Any]) -> type[Settings]:
    class Resolving(Settings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            # Highest first: flags (init arguments), the environment, the profile.
            return (
                init_settings,
                _Environment(settings_cls, env),
                _ProfileTable(settings_cls, table),
            )

    return Resolving


# -- resolving -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Resolved:
    """The settings of a run and where each came from."""

    settings: Settings
    origins: dict[str, str]  # public name → "flag", "env VAR", "profile NAME in FILE", "default"
    file: ConfigFile
    profile: str | None
    profile_origin: str
    env: Mapping[str, str] = field(repr=False)

    def value(self, name: str) -> Any:
        return getattr(self.settings, "schema_name" if name == "schema" else name)

    def from_file(self, name: str) -> bool:
        return self.origins.get(name, "").startswith("profile ")

    def where(self, name: str) -> str:
        """For messages: ``FILE: profiles.NAME.KEY``."""
        return f"{self.file.path}: profiles.{self.profile}.{name}"


def resolve(
    flags: Mapping[str, Any],
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Resolved:
    """Settings from ``flags`` (given ones only) over ``env`` over the profile over defaults."""
    import os

    env = dict(os.environ) if env is None else dict(env)
    path = config_file(env)
    config = read_file(path)
    requested = profile_requested(profile, env)
    name: str | None = None
    if requested is not None:
        name, profile_origin = requested
    elif config.model.default_profile:
        name = config.model.default_profile
        profile_origin = f"default_profile in {path}"
    else:
        profile_origin = "none"
    table: dict[str, Any] = {}
    if name is not None:
        if name not in config.model.profiles:
            raise ConfigError(f"no profile {name!r} ({profile_origin}): {config.names_text()}")
        chosen = config.model.profiles[name]
        table = chosen.model_dump(by_alias=True, exclude_unset=True)
    given = {key: value for key, value in flags.items() if value is not None}
    cls = _settings_class(env, table)
    try:
        settings = cls(**given)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = str(error["loc"][0]) if error["loc"] else ""
        if key in given:
            raise ConfigError(f"--{key.replace('_', '-')}: {describe(error)}") from None
        if key in ENV and env.get(ENV[key]):
            detail = describe(error).split(": ", 1)[-1]
            raise ConfigError(f"{ENV[key]}: {detail}") from None
        raise ConfigError(f"{path}: {describe(error, f'profiles.{name}.')}") from None
    origins: dict[str, str] = {}
    in_env = _Environment(cls, env)()
    for public in public_names():
        if public in given:
            origins[public] = "flag"
        elif public in in_env:
            origins[public] = f"env {ENV[public]}"
        elif public in table:
            origins[public] = f"profile {name} in {path}"
        else:
            origins[public] = "default"
    return Resolved(settings, origins, config, name, profile_origin, env)


def secret_source(resolved: Resolved) -> tuple[str, str] | None:
    """(the variable the account key or connection string is read from, the standard
    variable it stands for), or None when the session signs in with Entra ID.

    Without ``auth`` the mode is ``default_auth``'s, as for ``settings_from_options``. A
    standard variable that is set beats the profile's ``key_env`` /
    ``connection_string_env`` (the environment beats the profile).
    """
    settings, env = resolved.settings, resolved.env
    key = ENV_KEY if env.get(ENV_KEY) or not settings.key_env else settings.key_env
    conn = (
        ENV_CONNECTION_STRING
        if env.get(ENV_CONNECTION_STRING) or not settings.connection_string_env
        else settings.connection_string_env
    )
    auth: str = settings.auth or default_auth(
        bool(env.get(ENV_KEY) or settings.key_env),
        bool(env.get(ENV_CONNECTION_STRING) or settings.connection_string_env),
    )
    if auth == "key":
        return key, ENV_KEY
    if auth == "connection-string":
        return conn, ENV_CONNECTION_STRING
    return None
