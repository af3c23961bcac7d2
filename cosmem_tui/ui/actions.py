"""What an action is: its keys, hints, help, ``:`` commands and palette entry, once.

Each ``UiAction`` says once what it is: an id (``browse.open``), its default keys, what
it does, where it applies (the views, or everywhere), its short footer hint, its ``:``
command if it has one and how that command's words are read, and whether the palette
lists it. Everything the user reads about keys is generated from the ``Registry`` and
the app's keymap (rebinding by id), so nothing about keys is written twice.

Actions are declared where the code that runs them is: each view's in its package's
``spec.py`` (with its ``ViewSpec``), the families several views take in
``ui/shared_actions.py``, the app's own in ``ui/registry.py``, which collects them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

from cosmem_tui.core.text import one_line
from cosmem_tui.model.keys import split_names
from cosmem_tui.schemas import Schema
from cosmem_tui.ui.commands import Mistake, ParsedCommand, Parser, SwitchView, Typed

if TYPE_CHECKING:
    from textual.screen import Screen

# How the help and the hints write Textual key names.
_SHOWN = {
    "down": "↓",
    "up": "↑",
    "left": "←",
    "right": "→",
    "enter": "Enter",
    "escape": "Esc",
    "pagedown": "PgDn",
    "pageup": "PgUp",
    "home": "Home",
    "end": "End",
    "slash": "/",
    "colon": ":",
    "question_mark": "?",
    "space": "space",
    "tab": "Tab",
}


def show_key(key: str) -> str:
    """``ctrl+f`` → ``ctrl+f``, ``question_mark`` → ``?``, ``pagedown`` → ``PgDn``."""
    key = key.strip()
    if key in _SHOWN:
        return _SHOWN[key]
    if key.startswith("f") and key[1:].isdigit():
        return key.upper()
    return key


_SHORT = {"enter": "⏎", "escape": "esc", "slash": "/", "colon": ":", "question_mark": "?"}


def short_key(key: str) -> str:
    """The footer's compact form: ``⏎``, ``esc``, ``^p``."""
    key = key.strip()
    if key in _SHORT:
        return _SHORT[key]
    if key.startswith("ctrl+") and len(key) == 6:
        return "^" + key[-1]
    return show_key(key)


def show_keys(keys: str) -> str:
    return "  ".join(show_key(k) for k in keys.split(",") if k.strip())


@dataclass(frozen=True)
class CommandSpec:
    """How an action is typed after ``:`` (``tenant NAME``)."""

    names: tuple[str, ...]  # the first is shown; the others are accepted too
    args: tuple[str, ...] = ()  # placeholders for the help: NAME, ID, [TENANT] …
    help: str = ""

    @property
    def usage(self) -> str:
        return " ".join((f":{self.names[0]}", *self.args))


@dataclass(frozen=True)
class UiAction:
    id: str
    keys: str  # Textual key names, comma separated ("" for command-only actions)
    action: str  # the Textual action it runs ("open", "app.switch_view('requests')")
    description: str
    group: str  # help section
    views: frozenset[str] | None = None  # None: everywhere
    hint: str | None = None  # the footer hint ("open"); None: not in the footer
    hint_rank: int = 9  # footer order: what matters most first (the line is cut when narrow)
    commands: tuple[CommandSpec, ...] = ()
    palette: bool = True
    priority: bool = False  # runs in the app's key loop (browse keys: typed-ahead order)
    writes: bool = False  # a guarded write: offered only in a session that allows writes
    # A family several views take (ui/shared_actions.py): the registry applies the
    # action to the views whose ``ViewSpec.takes`` names it.
    family: str = ""
    parse: Parser | None = None  # what its command's words mean (None: it takes none)

    def applies_to(self, view: str | None) -> bool:
        return self.views is None or (view is not None and view in self.views)

    def binding(self, keys: str | None = None) -> Binding:
        return Binding(
            keys or self.keys,
            self.action,
            self.description,
            show=False,
            priority=self.priority,
            id=self.id,
        )


@dataclass(frozen=True)
class ViewSpec:
    """What a view package declares (``views/<name>/spec.py``), as plain data: reading it
    imports no screen. The screen class is named, imported when the view is first shown."""

    name: str  # the mode name and the ":" command, e.g. "requests"
    title: str
    keys: str  # the default keys that switch to it
    screen: str  # "package.module:Class"
    description: str  # what the view shows: the help says it beside its command
    takes: frozenset[str] = frozenset()  # the shared action families it takes
    actions: tuple[UiAction, ...] = ()  # its own, declared beside the code that runs them
    help_note: str = ""  # a paragraph its help ends with (what its columns mean…)

    def screen_class(self) -> type[Screen[None]]:
        module, _, name = self.screen.partition(":")
        found: type[Screen[None]] = getattr(importlib.import_module(module), name)
        return found


def view_actions(views: Iterable[ViewSpec]) -> tuple[UiAction, ...]:
    """Each view's own switching action (``B``, ``:browse``…)."""
    return tuple(
        UiAction(
            f"view.{v.name}",
            v.keys,
            f"app.switch_view('{v.name}')",
            f"switch to the {v.title.lower()} view",
            "Views",
            commands=(CommandSpec((v.name,), (), v.description),),
            parse=_switch_to(v.name),
        )
        for v in views
    )


def _switch_to(name: str) -> Parser:
    def parse(typed: Typed) -> ParsedCommand | None:
        return None if typed.args else SwitchView(name)

    return parse


@dataclass
class Registry:
    """The actions and the keymap (id → keys) that overrides their default keys."""

    actions: tuple[UiAction, ...]
    keymap: dict[str, str] = field(default_factory=dict)
    writes_allowed: bool = False  # the session's: write actions are offered only then

    def get(self, action_id: str) -> UiAction:
        for action in self.actions:
            if action.id == action_id:
                return action
        raise KeyError(action_id)

    def keys(self, action_id: str) -> str:
        return self.keymap.get(action_id) or self.get(action_id).keys

    def first_key(self, action_id: str) -> str:
        """The key an action is shown by (the first it is bound to; '' when unbound)."""
        return self.keys(action_id).split(",")[0]

    def offered(self, action: UiAction) -> bool:
        return self.writes_allowed or not action.writes

    def for_view(self, view: str | None) -> list[UiAction]:
        return [a for a in self.actions if a.applies_to(view) and self.offered(a)]

    def bindings(self, view: str | None, *, app_level: bool) -> list[BindingType]:
        """Bindings for a view's screen (its own actions) or the app (everywhere ones)."""
        chosen = [
            a
            for a in self.actions
            if a.keys and ((a.views is None) if app_level else (a.views is not None))
        ]
        if not app_level:
            chosen = [a for a in chosen if a.applies_to(view)]
        return [a.binding() for a in chosen]

    def hints(self, view: str | None) -> str:
        """The footer line: ``↓ j move · Enter open · …`` for the actions that have a hint."""
        return " · ".join(self.hint_parts(view))

    def hint_parts(
        self, view: str | None, applies: Callable[[str], bool] | None = None
    ) -> list[str]:
        """Each footer hint (``e export``), most important first; ``applies`` (an action
        id → does it do something here, now) leaves out the hints that do not."""
        parts = []
        hinted = [
            a
            for a in self.for_view(view)
            if a.hint is not None and self.keys(a.id) and (applies is None or applies(a.id))
        ]
        for action in sorted(hinted, key=lambda a: a.hint_rank):
            parts.append(f"{short_key(self.first_key(action.id))} {action.hint}")
        return parts

    def commands(self, view: str | None) -> list[tuple[CommandSpec, UiAction]]:
        return [(c, a) for a in self.for_view(view) for c in a.commands]

    def command_named(self, name: str, view: str | None) -> list[tuple[CommandSpec, UiAction]]:
        return [(c, a) for c, a in self.commands(view) if name in c.names]

    def rebind(self, keymap: Mapping[str, str]) -> None:
        for action_id in keymap:
            self.get(action_id)  # an unknown id is a mistake, not a silent no-op
        self.keymap.update(keymap)

    def parse(
        self,
        line: str,
        view: str | None,
        schema: Schema | None = None,
        current_tenant: str | None = None,
    ) -> ParsedCommand | None:
        """What ``line`` asks for in ``view``; None for an empty line.

        Words split at white space, but a JSON value is one word (``split_names``), so a
        key printed with spaces in it (``"x y"``, ``{"role": "system"}``) can be typed."""
        words = split_names(line.strip().lstrip(":"))
        if not words:
            return None
        verb, args = words[0].lower(), tuple(words[1:])
        label = schema.tenant_label if schema is not None else "tenant"
        matches = self.command_named(verb, view)
        if not matches and schema is not None and verb in (label, f"{label}s"):
            # The schema's own word for its top level (":user alice" on user-keyed schemas).
            plural = verb == f"{label}s"
            matches = self.command_named("tenants" if plural else "tenant", view)
        if not matches:
            return self._elsewhere(verb) or Mistake(
                f"unknown command: {one_line(line, 40)} (try :help)"
            )
        action = matches[0][1]
        if action.parse is not None:
            parsed = action.parse(Typed(line, args, schema, current_tenant))
            if parsed is not None:
                return parsed
        usage = " or ".join(c.usage for c, _ in matches)
        return Mistake(f"usage: {usage}")

    def _elsewhere(self, verb: str) -> Mistake | None:
        """A command of another view: its usage and where it works, not "unknown command"."""
        found = [
            (command, action)
            for action in self.actions
            if self.offered(action)
            for command in action.commands
            if verb in command.names
        ]
        if not found:
            return None
        usage = " or ".join(command.usage for command, _ in found)
        views = sorted({view for _, action in found for view in action.views or ()})
        if not views:
            return Mistake(f"usage: {usage}")
        where = " or ".join(f"the {view} view (:{view})" for view in views)
        return Mistake(f"usage: {usage}, in {where}")
