"""The typed invocation: one run's settings, flag > environment > profile > default, each
with where it came from, and the one function that makes ``SessionOptions`` of it.

The command line (``cli``) hands in its flags as ``Flags``; the console's ``:profile NAME``
(``config.profiles``) resolves a profile with no flags. Both get an ``Invocation``, and
``session_options`` turns either into what ``compose`` opens, so a setting is read in
one place whoever asks.

Without a config file, a profile or a settings-only variable (``files.settings_needed``)
the flags and the environment are read here directly and pydantic is never loaded (the
headless start-up path); otherwise ``settings.resolve`` merges the four levels and checks
every value.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from cosmem_tui.config.files import ENV, ConfigError, settings_needed
from cosmem_tui.config.themes import check_theme
from cosmem_tui.core.session import SessionOptions

if TYPE_CHECKING:
    from cosmem_tui.config.settings import Resolved
    from cosmem_tui.model.recall import EmbeddingsDeployment
    from cosmem_tui.sources.cosmos.settings import CosmosSettings
    from cosmem_tui.sources.monitor.settings import MonitorSettings

# Settings that are also command-line options of the same name.
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
# Settings whose variables the sources' own settings read (COSMOS_ENDPOINT, …): a value
# from one of them is in the invocation (it is in effect) but reaches the sources as the
# environment, so their messages name the variable, and it alone asks for no account
# beside --workspace (a shell that exports COSMOS_ENDPOINT can still open a workspace).
READ_BY_SOURCES = ("endpoint", "database", "container", "resource_id", "workspace_id")


class SettingsConflict(Exception):
    """Settings that cannot go together (a workspace and an endpoint): one line, exit 1."""


class Flags(NamedTuple):
    """What the command line gave, typed (None: not given); argparse stays in ``cli``.

    A NamedTuple, immutable like a frozen dataclass, but built at import without
    generating and compiling its methods: this module loads on every start-up.
    """

    workspace: Path | None = None
    schema: str | None = None
    endpoint: str | None = None
    database: str | None = None
    container: str | None = None
    auth: str | None = None
    resource_id: str | None = None
    workspace_id: str | None = None
    ru_budget: float | None = None
    theme: str | None = None
    allow_writes: bool = False
    still: bool = False  # --still: the demo's live workload off
    profile: str | None = None
    timeout: float | None = None
    ledger: Path | None = None
    # The telemetry source's other options by key (--region, --cloud, --metrics-endpoint…).
    telemetry: Mapping[str, str] = MappingProxyType({})

    def settings(self) -> dict[str, Any]:
        """The settings given as flags, by setting name (None: not given)."""
        values: dict[str, Any] = {name: getattr(self, name) for name in FLAG_SETTINGS}
        values["allow_writes"] = True if self.allow_writes else None
        values["demo_live"] = False if self.still else None
        return values


class Invocation(NamedTuple):
    """The settings of one run, each value the one in effect, ``origins`` saying where it
    came from ("flag", "env VAR", "profile NAME in FILE", "default"), as ``cosmem config
    show`` prints them. Immutable; a NamedTuple for the same start-up reason as ``Flags``."""

    workspace: Path | None = None
    schema: str | None = None
    endpoint: str | None = None
    database: str | None = None
    container: str | None = None
    auth: str | None = None
    resource_id: str | None = None
    workspace_id: str | None = None
    ru_budget: float | None = None
    theme: str | None = None
    allow_writes: bool = False
    demo_live: bool = True  # the demo's live workload writes while it is on screen
    refresh_s: float | None = None  # a profile's live-view interval (None: the views' own)
    tail_flood_share: float | None = None  # the tail's flood warning (None: its default)
    # A profile's Azure OpenAI embeddings deployment (recall's --text as a vector).
    embeddings_endpoint: str | None = None
    embeddings_deployment: str | None = None
    keymap: Mapping[str, str] = MappingProxyType({})  # action id → keys
    timeout: float | None = None
    ledger: Path | None = None
    telemetry: Mapping[str, str] = MappingProxyType({})
    profile: str | None = None  # the profile in use
    # A config file, a profile or a settings-only variable was read: the console offers
    # the file's profiles to switch to.
    configured: bool = False
    # What the Cosmos and telemetry settings read: the process environment, with a
    # profile's key_env and tenant_id applied (see ``cosmos_environment``).
    environment: Mapping[str, str] = os.environ
    origins: Mapping[str, str] = MappingProxyType({})

    def __repr__(self) -> str:  # the environment holds secrets (COSMOS_KEY): never shown
        shown = (f"{k}={v!r}" for k, v in zip(self._fields, self, strict=True))
        return f"Invocation({', '.join(s for s in shown if not s.startswith('environment='))})"

    def origin(self, name: str) -> str:
        return self.origins.get(name, "default")

    def named(self, name: str) -> Any:
        """The value, unless it came from a variable the sources read themselves."""
        if name in READ_BY_SOURCES and self.origin(name).startswith("env "):
            return None
        return getattr(self, name)


def resolve(
    flags: Flags,
    *,
    env: Mapping[str, str] | None = None,
    known_actions: Callable[[], Iterable[str]] | None = None,
) -> Invocation:
    """The invocation of ``flags`` over ``env`` (the process environment) over the profile.

    ``known_actions``: the ids a profile's ``keys`` may name, checked when given (the UI
    will bind them; a headless command ignores keys). One ``ConfigError`` line for any
    bad value, file or profile.
    """
    env = os.environ if env is None else env
    if flags.theme is not None:
        check_theme(flags.theme)
    if not settings_needed(flags.profile, env):
        return _from_flags(flags, env)
    from cosmem_tui.config.settings import resolve as resolve_settings

    resolved = resolve_settings(flags.settings(), flags.profile, env)
    return _from_settings(flags, resolved, known_actions)


def for_run(flags: Flags, known_actions: Callable[[], Iterable[str]] | None = None) -> Invocation:
    """``resolve``, and the profile's tenant put where azure-identity looks for it: what a
    run (the command line's, or a profile switched to in the console) does first."""
    invocation = resolve(flags, known_actions=known_actions)
    if invocation.configured:
        export_tenant(invocation.environment)
    return invocation


def _from_flags(flags: Flags, env: Mapping[str, str]) -> Invocation:
    """No config in play: the flags, then the few variables read as they are (none of the
    settings-only ones is set, or the settings model would be reading them)."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for name, value in flags.settings().items():
        if value is not None:
            values[name], origins[name] = value, "flag"
        elif name in READ_BY_SOURCES and env.get(ENV[name]):
            values[name], origins[name] = env[ENV[name]], f"env {ENV[name]}"
        else:
            origins[name] = "default"
    return Invocation(
        **values,
        timeout=flags.timeout,
        ledger=flags.ledger,
        telemetry=dict(flags.telemetry),
        environment=env,
        origins=origins,
    )


def _from_settings(
    flags: Flags, resolved: Resolved, known_actions: Callable[[], Iterable[str]] | None
) -> Invocation:
    settings = resolved.settings
    if settings.keys and known_actions is not None:
        from cosmem_tui.config.settings import check_keys

        check_keys({resolved.profile or "": settings}, known_actions, str(resolved.file.path))
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    given = flags.settings()
    for name in (*FLAG_SETTINGS, "allow_writes", "demo_live"):
        origin = resolved.origins[name]
        # A flag as given (the model would expand ~ in a path the shell left alone).
        value = given[name] if origin == "flag" else resolved.value(name)
        values[name], origins[name] = value, origin
    origins["refresh_s"] = resolved.origins["refresh_s"]
    origins["tail_flood_share"] = resolved.origins["tail_flood_share"]
    origins["keys"] = resolved.origins["keys"]
    for name in ("embeddings_endpoint", "embeddings_deployment"):
        origins[name] = resolved.origins[name]
    return Invocation(
        **values,
        refresh_s=settings.refresh_s,
        tail_flood_share=settings.tail_flood_share,
        embeddings_endpoint=settings.embeddings_endpoint,
        embeddings_deployment=settings.embeddings_deployment,
        keymap=dict(settings.keys),
        timeout=flags.timeout,
        ledger=flags.ledger,
        telemetry=dict(flags.telemetry),
        profile=resolved.profile,
        configured=True,
        environment=cosmos_environment(resolved),
        origins=origins,
    )


def cosmos_environment(resolved: Resolved) -> dict[str, str]:
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
            name = "key_env" if variable == settings.key_env else "connection_string_env"
            raise ConfigError(f"{resolved.where(name)}: {variable} is not set")
        env[target] = value
    if settings.tenant_id and not env.get(ENV["tenant_id"]):
        env[ENV["tenant_id"]] = settings.tenant_id
    return env


def export_tenant(env: Mapping[str, str]) -> None:
    """azure-identity reads AZURE_TENANT_ID from the process environment itself."""
    tenant = env.get(ENV["tenant_id"])
    if tenant and not os.environ.get(ENV["tenant_id"]):
        os.environ[ENV["tenant_id"]] = tenant


# -- what compose opens -------------------------------------------------------------------


def session_options(invocation: Invocation, *, telemetry_alone: bool = False) -> SessionOptions:
    """A workspace, or a Cosmos container when an endpoint is named (a setting or the
    environment); ``telemetry_alone``: telemetry settings without a container are let
    through (the doctor checks them on their own)."""
    from cosmem_tui.sources.cosmos.settings import (  # only options parsing: no SDK
        ENV_CONNECTION_STRING,
        ENV_ENDPOINT,
        settings_from_options,
    )

    env = invocation.environment
    named = any(invocation.named(n) for n in ("endpoint", "database", "container", "auth"))
    from_env = any(env.get(n) for n in (ENV_ENDPOINT, ENV_CONNECTION_STRING))
    if invocation.workspace is not None and named:
        raise SettingsConflict(
            "--workspace reads a local file; it cannot be combined with --endpoint"
        )
    cosmos = None
    if invocation.workspace is None and (named or from_env):
        tuning: dict[str, Any] = {}
        if invocation.ru_budget is not None:
            tuning["ru_budget"] = invocation.ru_budget
        if invocation.timeout is not None:
            tuning["timeout_s"] = invocation.timeout
        cosmos = settings_from_options(
            endpoint=invocation.named("endpoint"),
            database=invocation.named("database"),
            container=invocation.named("container"),
            auth=invocation.auth,
            env=env,
            **tuning,
        )
    monitor = monitor_settings(invocation, cosmos)
    alone = telemetry_alone and invocation.workspace is None
    if monitor is not None and cosmos is None and not alone:
        raise SettingsConflict(
            "Azure Monitor settings (--resource-id, --workspace-id, COSMEM_*) go with a "
            "Cosmos container (--endpoint); 'cosmem hot' and 'cosmem throttle' need only them"
        )
    return SessionOptions(
        workspace=invocation.workspace,
        schema=invocation.schema,
        cosmos=cosmos,
        telemetry=monitor,
        allow_writes=invocation.allow_writes,
        live_demo=invocation.demo_live,
        embeddings=embeddings_deployment(invocation),
    )


def embeddings_deployment(invocation: Invocation) -> EmbeddingsDeployment | None:
    """The profile's embeddings deployment: both keys, or neither (one alone is refused)."""
    endpoint, deployment = invocation.embeddings_endpoint, invocation.embeddings_deployment
    if endpoint is None and deployment is None:
        return None
    if endpoint is None or deployment is None:
        given, missing = (
            ("embeddings_endpoint", "embeddings_deployment")
            if deployment is None
            else ("embeddings_deployment", "embeddings_endpoint")
        )
        raise SettingsConflict(f"the profile sets {given} but not {missing}: give both")
    from cosmem_tui.model.recall import EmbeddingsDeployment

    return EmbeddingsDeployment(endpoint, deployment)


def monitor_settings(
    invocation: Invocation, cosmos: CosmosSettings | None = None
) -> MonitorSettings | None:
    """Azure Monitor settings from the invocation over the COSMEM_* environment (None:
    none); the metrics and logs are filtered to the container being read."""
    from cosmem_tui.sources.monitor.settings import resolve as resolve_monitor

    flags: dict[str, str | None] = dict(invocation.telemetry)
    flags["resource_id"] = invocation.named("resource_id")
    flags["workspace_id"] = invocation.named("workspace_id")
    flags["database"] = invocation.named("database") or (cosmos.database if cosmos else None)
    flags["container"] = invocation.named("container") or (cosmos.container if cosmos else None)
    timeout = invocation.timeout
    flags["timeout"] = str(timeout) if timeout is not None else None
    return resolve_monitor(flags, invocation.environment)


def profile_invocation(
    name: str, known_actions: Callable[[], Iterable[str]] | None = None
) -> Invocation:
    """A profile of the config file over the environment and the defaults, as a run with
    ``--profile NAME`` and no other flag resolves it (``:profile NAME`` in the console)."""
    return for_run(Flags(profile=name), known_actions)
