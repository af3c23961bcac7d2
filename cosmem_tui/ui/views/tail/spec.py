"""What the tail view declares, as plain data: its name, keys and actions (the screen,
``screen.py``, runs them)."""

from __future__ import annotations

from cosmem_tui.ui.actions import CommandSpec, UiAction, ViewSpec
from cosmem_tui.ui.shared_actions import BACK, LISTS, LIVE, TABLES
from cosmem_tui.ui.views.tail.commands import parse_scope

TAIL = frozenset({"tail"})

ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "tail.scope",
        "",
        "app.switch_view('tail')",
        "the change feed of a tenant or thread (none: what browse has selected)",
        "Tail",
        commands=(
            CommandSpec(
                ("tail",),
                ("[TENANT [THREAD]]",),
                "change-feed tail: turns as they are written, the rate, the top writers",
            ),
        ),
        palette=False,
        parse=parse_scope,
    ),
    UiAction(
        "tail.open",
        "enter",
        "open_in_browse",
        "open the change's turn in browse (or say it is gone)",
        "Tail",
        TAIL,
        hint="open",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "tail.container",
        "f",
        "tail_container",
        "the whole container's change feed (who floods it)",
        "Tail",
        TAIL,
        hint="whole container",
        hint_rank=3,
        priority=True,
    ),
    UiAction(
        "tail.mode",
        "m",
        "toggle_mode",
        "latest version ↔ all versions and deletes (starts again from now)",
        "Tail",
        TAIL,
        hint="mode",
        hint_rank=2,
        priority=True,
    ),
)

SPEC = ViewSpec(
    "tail",
    "Tail",
    "C",
    "cosmem_tui.ui.views.tail.screen:TailScreen",
    "the change feed, live: who writes, how fast, every create, replace, delete and TTL purge",
    takes=frozenset({LISTS, BACK, TABLES, LIVE}),
    actions=ACTIONS,
)
