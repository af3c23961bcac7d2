"""Switching profiles in a running console (``:profile NAME``): the profile resolved into an
invocation, as ``cosmem --profile NAME`` would resolve it, and the session options made
from it. No pydantic until a profile is chosen."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from cosmem_tui.config.files import ConfigError, config_file
from cosmem_tui.config.invocation import (
    Invocation,
    SettingsConflict,
    profile_invocation,
    session_options,
)
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.sources.errors import StoreError


@dataclass(frozen=True)
class ProfileChoice:
    """A profile made ready to open: its invocation (over the environment and the
    defaults, not the first run's flags) and the session options made from it."""

    invocation: Invocation
    options: SessionOptions

    @property
    def name(self) -> str:
        return self.invocation.profile or ""

    @property
    def theme(self) -> str | None:
        return self.invocation.theme

    @property
    def keymap(self) -> Mapping[str, str]:
        return self.invocation.keymap

    @property
    def refresh_s(self) -> float | None:
        return self.invocation.refresh_s

    @property
    def tail_flood_share(self) -> float | None:
        return self.invocation.tail_flood_share


class ConfigProfiles:
    """The profiles of the config file; ``known_actions``: the ids a profile's keys may
    rebind (the UI's registry)."""

    def __init__(self, known_actions: Callable[[], Iterable[str]]) -> None:
        self._known_actions = known_actions

    def names(self) -> tuple[str, ...]:
        path = config_file()
        if not path.exists():  # the palette asks on every open: no pydantic for nothing
            return ()
        from cosmem_tui.config.settings import read_file

        try:
            return read_file(path).profiles
        except ConfigError:
            return ()

    def choose(self, name: str) -> ProfileChoice:
        """The profile's invocation and session options; a ``ConfigError`` of one line if
        it cannot be used (no such profile, a bad value, a key variable not set)."""
        invocation = profile_invocation(name, self._known_actions)
        try:
            options = session_options(invocation)
        except (SettingsConflict, StoreError) as exc:  # a bad endpoint, a workspace too
            message = getattr(exc, "message", None) or str(exc)
            raise ConfigError(f"profile {name}: {message}") from None
        return ProfileChoice(invocation, options)
