"""What the request ledger view declares, as plain data (it has no actions of its own:
the list keys, export and copy, and the live loop's pause and refresh)."""

from __future__ import annotations

from cosmem_tui.ui.actions import ViewSpec
from cosmem_tui.ui.shared_actions import BACK, LISTS, LIVE, TABLES

SPEC = ViewSpec(
    "requests",
    "Requests",
    "R",
    "cosmem_tui.ui.views.requests.screen:RequestsScreen",
    "every request this session made: the ledger, live",
    takes=frozenset({LISTS, BACK, TABLES, LIVE}),
)
