"""Command mode (``:``): what one typed line asks for.

Pure: no widgets. A verb names a ``CommandSpec`` of an action that applies to the
current view, and that action's ``parse`` reads the words after the verb into what the
line means (``Registry.parse`` in ``ui/actions.py`` finds the action). The app's own
meanings are here; each view's live in its package (``views/browse/commands.py``…),
beside the spec that declares its commands and the screen that runs them. So the
help, the palette and the parser can never disagree about which commands exist.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cosmem_tui.schemas import Schema


class ParsedCommand:
    """What a typed line asks for: one subclass per meaning (the app's below, each
    view's in its package); the app or the view matches on it."""

    __slots__ = ()


@dataclass(frozen=True)
class Typed:
    """One typed line as an action's ``parse`` reads it."""

    line: str  # as typed
    args: tuple[str, ...]  # the words after the verb (a JSON value is one word)
    schema: Schema | None = None  # the session's, when the view has one
    current_tenant: str | None = None  # browse's open tenant, as typed text

    @property
    def label(self) -> str:
        """What the schema calls its top level: "tenant", "user"…"""
        return self.schema.tenant_label if self.schema is not None else "tenant"


# What an action makes of its words; None: they do not fit, the line's usage is the mistake.
Parser = Callable[[Typed], ParsedCommand | None]


@dataclass(frozen=True)
class Quit(ParsedCommand):
    pass


@dataclass(frozen=True)
class ShowHelp(ParsedCommand):
    pass


@dataclass(frozen=True)
class SwitchProfile(ParsedCommand):
    name: str


@dataclass(frozen=True)
class ShowSchema(ParsedCommand):
    pass


@dataclass(frozen=True)
class SwitchView(ParsedCommand):
    view: str
    args: tuple[str, ...] = ()  # what the view is asked to show (":ttl acme t1")


@dataclass(frozen=True)
class Mistake(ParsedCommand):
    message: str


def without_words(command: ParsedCommand) -> Parser:
    """An action whose command takes no words: ``command``, or its usage when given some."""

    def parse(typed: Typed) -> ParsedCommand | None:
        return None if typed.args else command

    return parse


def parse_profile(typed: Typed) -> ParsedCommand:
    return SwitchProfile(typed.args[0]) if len(typed.args) == 1 else Mistake("usage: :profile NAME")
