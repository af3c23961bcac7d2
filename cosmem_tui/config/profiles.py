"""Switching profiles in a running console (``:profile NAME``): what the app needs to
open the profile's session and put on its look. No pydantic until a profile is chosen."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from cosmem_tui.config.files import ConfigError, config_file
from cosmem_tui.core.session import SessionOptions


@dataclass(frozen=True)
class ProfileChoice:
    """A profile resolved over the environment and the defaults (not the first run's flags)."""

    name: str
    options: SessionOptions
    theme: str | None = None
    keymap: Mapping[str, str] = field(default_factory=dict)
    refresh_s: float | None = None


class ConfigProfiles:
    """The profiles of the config file, each made into session options the way the command
    line makes them (``session_options`` is the CLI's own)."""

    def __init__(
        self,
        session_options: Callable[[argparse.Namespace], SessionOptions],
        known_actions: Callable[[], Iterable[str]],
    ) -> None:
        self._session_options = session_options
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
        """The profile's session options and look; a ``ConfigError`` of one line if it
        cannot be used (no such profile, a bad value, a key variable not set)."""
        from cosmem_tui.config.commands import FLAG_SETTINGS, use_profile

        args = argparse.Namespace(profile=name, allow_writes=False, ledger=None, timeout=None)
        for setting in FLAG_SETTINGS:
            setattr(args, setting, None)
        use_profile(args, self._known_actions)
        try:
            options = self._session_options(args)
        except ConfigError:
            raise
        except Exception as exc:  # the CLI's one-line problems (CliError, a bad endpoint)
            message = getattr(exc, "message", None) or str(exc)
            raise ConfigError(f"profile {name}: {message}") from None
        return ProfileChoice(
            name,
            options,
            theme=args.theme,
            keymap=dict(getattr(args, "keymap", {}) or {}),
            refresh_s=args.refresh_s,
        )
