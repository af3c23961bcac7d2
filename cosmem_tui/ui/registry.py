"""The registry: every action, collected from where it is declared, in one order.

Views declare their own actions in their packages (``views/<name>/spec.py``), the
families several views take are in ``ui/shared_actions.py``, the app's own are here.
``ACTIONS`` puts them in the order the help, the hints (within a rank) and the
palette list them: moving in a list, each view's own (in the order of ``VIEWS``),
the telemetry window and region, the live loop, export and copy, the app's; then
each view's switching action. ``the_registry`` is what the app runs with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from cosmem_tui.ui.actions import CommandSpec, Registry, UiAction, ViewSpec, view_actions
from cosmem_tui.ui.commands import Quit, ShowHelp, ShowSchema, parse_profile, without_words
from cosmem_tui.ui.shared_actions import LIVE_ACTIONS, MOVE_ACTIONS, TABLE_ACTIONS
from cosmem_tui.ui.telemetry.spec import TELEMETRY_ACTIONS
from cosmem_tui.ui.views import VIEWS

# -- the app (CosmemApp runs these) -----------------------------------------------------------
APP_ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "app.command",
        "colon",
        "app.command_bar",
        "command mode (:tenant NAME, :requests …)",
        "App",
        hint="command",
        hint_rank=5,
        priority=True,
    ),
    UiAction(
        "app.palette",
        "ctrl+p",
        "app.command_palette",
        "command palette: every action by name",
        "App",
        hint="palette",
        hint_rank=9,
    ),
    UiAction(
        "app.help",
        "question_mark,f1",
        "app.help",
        "help: every key and command",
        "App",
        hint="help",
        hint_rank=6,
        commands=(CommandSpec(("help", "h", "?"), (), "this help"),),
        # In the app's key loop, like the browse keys: the overlay is up before the
        # keys typed after ? are handled, so they reach it rather than the list below.
        priority=True,
        parse=without_words(ShowHelp()),
    ),
    UiAction(
        "app.profile",
        "",
        "app.command_bar",
        "switch to a profile of the config file (a new session)",
        "App",
        commands=(CommandSpec(("profile",), ("NAME",), "switch to a config profile"),),
        palette=False,  # the palette lists each profile by name (ui/profiles.py)
        parse=parse_profile,
    ),
    UiAction(
        "app.schema",
        "",
        "app.schema",
        "the schema and why it was chosen",
        "App",
        commands=(CommandSpec(("schema",), (), "the schema and why it was chosen"),),
        parse=without_words(ShowSchema()),
    ),
    UiAction(
        "app.quit",
        "q",
        "app.quit",
        "quit",
        "App",
        hint="quit",
        hint_rank=7,
        commands=(CommandSpec(("q", "quit", "exit"), (), "quit"),),
        parse=without_words(Quit()),
    ),
    # ctrl+c quits as in any terminal program, even from a prompt (priority: before the
    # input's copy); Textual's own ctrl+c only says which key quits.
    UiAction("app.interrupt", "ctrl+c", "app.quit", "quit", "App", palette=False, priority=True),
)


def applied(action: UiAction, views: Iterable[ViewSpec]) -> UiAction:
    """A family's action, applied to the views that take its family."""
    if not action.family:
        return action
    return replace(action, views=frozenset(v.name for v in views if action.family in v.takes))


def collect(views: tuple[ViewSpec, ...]) -> tuple[UiAction, ...]:
    own = tuple(action for view in views for action in view.actions)
    declared = MOVE_ACTIONS + own + TELEMETRY_ACTIONS + LIVE_ACTIONS + TABLE_ACTIONS
    return tuple(applied(a, views) for a in declared + APP_ACTIONS) + view_actions(views)


ACTIONS = collect(VIEWS)


def the_registry(keymap: Mapping[str, str] | None = None) -> Registry:
    registry = Registry(ACTIONS)
    if keymap:
        registry.rebind(keymap)
    return registry
