"""Config profiles in the running console: the palette's "profile NAME" entries, what the
app asks of a profile source, and the no-color.org rule for NO_COLOR."""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from functools import partial
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from cosmem_tui.config.profiles import ProfileChoice


class Profiles(Protocol):
    def names(self) -> tuple[str, ...]: ...

    def choose(self, name: str) -> ProfileChoice:
        """The profile made ready to open; ``ConfigError`` (one line) if it cannot be."""
        ...


class ProfileHost(Protocol):
    profiles: Profiles | None
    profile_name: str | None

    def switch_profile(self, name: str) -> None: ...


class ProfileProvider(Provider):
    """``ctrl+p``: "profile NAME: switch to it" for each profile of the config file."""

    _entries: tuple[tuple[str, str], ...] = ()

    async def startup(self) -> None:
        # Once per palette open: the names come from parsing and validating the config
        # file, too dear for every keystroke; a new open reads the file afresh.
        host = cast(ProfileHost, self.app)
        if host.profiles is None:
            return
        self._entries = tuple(
            (f"profile {name}: switch to it", name)
            for name in host.profiles.names()
            if name != host.profile_name
        )

    def _run(self, name: str) -> None:
        cast(ProfileHost, self.app).switch_profile(name)

    async def discover(self) -> Hits:
        for text, name in self._entries:
            yield DiscoveryHit(text, partial(self._run, name), help=f":profile {name}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, name in self._entries:
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._run, name))


def honour_no_color(environ: MutableMapping[str, str] | None = None) -> bool:
    """no-color.org: NO_COLOR set *and not empty* means no colour. Textual turns colour
    off for any NO_COLOR, empty included, so an empty one is dropped before the app
    reads it. True when the UI will be monochrome."""
    environ = os.environ if environ is None else environ
    if "NO_COLOR" in environ and not environ["NO_COLOR"]:
        del environ["NO_COLOR"]
    return bool(environ.get("NO_COLOR"))
