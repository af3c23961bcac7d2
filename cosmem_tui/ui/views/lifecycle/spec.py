"""What the lifecycle view declares, as plain data: its name, keys and actions
(the screen, ``screen.py``, runs them)."""

from __future__ import annotations

from cosmem_tui.ui.actions import CommandSpec, UiAction, ViewSpec
from cosmem_tui.ui.shared_actions import BACK, LISTS, TABLES
from cosmem_tui.ui.views.lifecycle.commands import parse_idle_gap, parse_scope

LIFECYCLE = frozenset({"ttl"})

ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "ttl.scope",
        "",
        "app.switch_view('ttl')",
        "the lifecycle of a tenant or thread (none: what browse has selected)",
        "Lifecycle",
        commands=(
            CommandSpec(
                ("ttl",),
                ("[TENANT [THREAD]]",),
                "lifecycle: TTL classes, forecast, soonest, long-term, idle, drift",
            ),
        ),
        palette=False,
        parse=parse_scope,
    ),
    UiAction(
        "ttl.open",
        "enter,l,right",
        "open_in_browse",
        "open the item or thread in browse",
        "Lifecycle",
        LIFECYCLE,
        hint="open",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "ttl.container",
        "f",
        "forecast_container",
        "count the whole container (a fan-out: asks first)",
        "Lifecycle",
        LIFECYCLE,
        hint="whole container",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "ttl.reload",
        "r",
        "reload",
        "count again, as of now",
        "Lifecycle",
        LIFECYCLE,
        hint="reload",
        hint_rank=8,
        priority=True,
    ),
    UiAction(
        "ttl.idle_gap",
        "",
        "idle_gap_prompt",
        "set the idle gap (seconds) after which a resume starts a new episode",
        "Lifecycle",
        LIFECYCLE,
        commands=(CommandSpec(("idle",), ("SECONDS",), "the idle gap (default 1800)"),),
        palette=False,
        parse=parse_idle_gap,
    ),
)

SPEC = ViewSpec(
    "ttl",
    "Lifecycle",
    "L",
    "cosmem_tui.ui.views.lifecycle.screen:LifecycleScreen",
    ("what expires, when and why: TTL classes, forecast, soonest, long-term, idle, drift"),
    takes=frozenset({BACK, LISTS, TABLES}),
    actions=ACTIONS,
)
