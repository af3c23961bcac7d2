"""What the browse view declares, as plain data: its name, keys, actions and ``:``
commands (the screen, ``screen.py``, runs them; ``commands.py`` reads their words)."""

from __future__ import annotations

from cosmem_tui.ui.actions import CommandSpec, UiAction, ViewSpec
from cosmem_tui.ui.shared_actions import BACK, LISTS, TABLES
from cosmem_tui.ui.views.browse.commands import (
    parse_erase,
    parse_expiring,
    parse_pin,
    parse_search,
    parse_set_ttl,
    parse_tenant,
    parse_tenants,
    parse_thread,
)

BROWSE = frozenset({"browse"})

NUMBERING = (
    "Turns are named by their order value as stored: turn 0 is the item whose order field "
    "(turnIndex) is 0, in the # column, the breadcrumbs and the detail alike; "
    "'turn — (no order value)' is an item without one. Threads ordered by a time number "
    "their rows instead: #1 the oldest (-1 the newest, until the thread is loaded)."
)

ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "browse.open",
        "enter,l,right",
        "open",
        "open: drill into the row",
        "Browse",
        BROWSE,
        hint="open",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "browse.reload",
        "r",
        "reload",
        "reload the focused list",
        "Browse",
        BROWSE,
        hint="reload",
        hint_rank=8,
        priority=True,
    ),
    UiAction(
        "browse.search",
        "S",
        "search_thread",
        "search the whole thread on the server for the / filter text (or :search TEXT)",
        "Browse",
        BROWSE,
        commands=(CommandSpec(("search",), ("TEXT",), "search the open thread on the server"),),
        priority=True,
        parse=parse_search,
    ),
    UiAction(
        "browse.next_hit",
        "n",
        "next_hit",
        "next hit of the thread search",
        "Browse",
        BROWSE,
        priority=True,
    ),
    UiAction(
        "browse.previous_hit",
        "N",
        "previous_hit",
        "previous hit of the thread search",
        "Browse",
        BROWSE,
        priority=True,
    ),
    UiAction(
        "browse.count",
        "c",
        "count_shown",
        "count the rows on screen (asks past the budget)",
        "Browse",
        BROWSE,
        priority=True,
    ),
    UiAction(
        "browse.tenant",
        "",
        "open_tenant_prompt",
        "open a tenant's threads",
        "Browse",
        BROWSE,
        commands=(CommandSpec(("tenant", "user"), ("NAME",), "open a tenant's threads"),),
        palette=False,
        parse=parse_tenant,
    ),
    UiAction(
        "browse.thread",
        "",
        "open_thread_prompt",
        "open a thread",
        "Browse",
        BROWSE,
        commands=(
            CommandSpec(("thread",), ("ID",), "open a thread of the current tenant"),
            CommandSpec(("thread",), ("TENANT", "ID"), "open a thread of any tenant"),
        ),
        palette=False,
        parse=parse_thread,
    ),
    UiAction(
        "browse.tenants",
        "",
        "show_tenants",
        "back to the tenant list",
        "Browse",
        BROWSE,
        commands=(CommandSpec(("tenants", "users"), (), "back to the tenant list"),),
        parse=parse_tenants,
    ),
    # -- into the recall view (the turn under the cursor, or the open one) ------------------
    UiAction(
        "browse.recall_like",
        "m",
        "recall_like",
        "what does this recall? the turn's embedding as the agent's query (:recall --like)",
        "Browse",
        BROWSE,
        hint="recall",
        hint_rank=9,  # after the keys every list has: at 80 columns they keep their place
        priority=True,
    ),
    UiAction(
        "browse.why_not",
        "W",
        "why_not",
        "why not this? the turn as an item the recall probe should have found",
        "Browse",
        BROWSE,
        priority=True,
    ),
    UiAction(
        "browse.history",
        "i",
        "history",
        "history: what the change feed holds about the turn (on a gap marker or a thread "
        "row: the thread) — created, replaced, deleted, expired and purged",
        "Browse",
        BROWSE,
        priority=True,
    ),
    # -- guarded writes (offered only with --allow-writes) -----------------------------------
    UiAction(
        "write.pin",
        "P",
        "pin",
        "pin the turn as long-term memory (ttl -1), after a confirmation",
        "Write",
        BROWSE,
        hint="pin",
        hint_rank=10,
        commands=(CommandSpec(("pin",), (), "pin the current turn as long-term memory"),),
        priority=True,
        writes=True,
        parse=parse_pin,
    ),
    UiAction(
        "write.set_ttl",
        "E",
        "set_ttl",
        "give the turn a new ttl in seconds, after a confirmation",
        "Write",
        BROWSE,
        commands=(CommandSpec(("set-ttl",), ("SECONDS",), "give the current turn a new ttl"),),
        priority=True,
        writes=True,
        parse=parse_set_ttl,
    ),
    UiAction(
        "write.erase",
        "X",
        "erase_thread",
        "erase the thread: delete every item of it, after a confirmation",
        "Write",
        BROWSE,
        hint="erase",
        hint_rank=11,
        commands=(CommandSpec(("erase-thread",), (), "delete every item of the current thread"),),
        priority=True,
        writes=True,
        parse=parse_erase,
    ),
    UiAction(
        "browse.expiring",
        "x",
        "narrow_expiring",
        "only the turns expiring within 1h, then 24h, 7d, all",
        "Browse",
        BROWSE,
        commands=(
            CommandSpec(("expiring",), ("1h|24h|7d|off",), "narrow the turns to those expiring"),
        ),
        priority=True,
        parse=parse_expiring,
    ),
)

SPEC = ViewSpec(
    "browse",
    "Browse",
    "B",
    "cosmem_tui.ui.views.browse.screen:BrowseScreen",
    "tenants → threads → turns → one turn",
    takes=frozenset({LISTS, BACK, TABLES}),
    actions=ACTIONS,
    help_note=NUMBERING,
)
