"""The action families several views take, as plain data.

A view takes a family by naming it in its ``ViewSpec.takes``; the registry
(``ui/registry.py``) applies each family's actions to the views that take it, and
``view_bindings`` binds them on those views' screens. A new view takes what it needs
here without editing any list of views. The families, and what runs them:

- ``lists``: moving in the focused list, ``/`` filter, ``v`` detail, ``y`` copy
  (``ViewScreen``, ``ui/view.py``);
- ``back``: Esc, which first clears what narrows the list (``ViewScreen``; the hot
  tenants view has its own back, to the tenants);
- ``tables``: ``e`` exports the table shown (``ViewScreen``);
- ``live``: pause and refresh now, on a view with a refresh loop (each such view);
- ``telemetry``: the window and the region (``ui/telemetry/spec.py``, run by
  ``TelemetryScreen``).
"""

from __future__ import annotations

from textual.binding import BindingType

from cosmem_tui.ui.actions import UiAction, ViewSpec
from cosmem_tui.ui.telemetry.spec import TELEMETRY_ACTIONS

LISTS = "lists"
BACK = "back"
TABLES = "tables"
LIVE = "live"

# -- moving in a list (every view with lists) ------------------------------------------
MOVE_ACTIONS: tuple[UiAction, ...] = (
    UiAction("list.down", "down,j", "cursor_down", "next row", "Move", family=LISTS, priority=True),
    UiAction("list.up", "up,k", "cursor_up", "previous row", "Move", family=LISTS, priority=True),
    UiAction(
        "list.page_down",
        "pagedown,ctrl+f,space",
        "page_down",
        "next page",
        "Move",
        family=LISTS,
        priority=True,
    ),
    UiAction(
        "list.page_up",
        "pageup,ctrl+b",
        "page_up",
        "previous page",
        "Move",
        family=LISTS,
        priority=True,
    ),
    UiAction("list.first", "home,g", "first", "first row", "Move", family=LISTS, priority=True),
    UiAction(
        "list.last",
        "end,G",
        "last",
        "last row (the newest turn)",
        "Move",
        family=LISTS,
        priority=True,
    ),
    UiAction(
        "list.filter",
        "slash",
        "filter",
        "filter the focused list",
        "Move",
        family=LISTS,
        hint="filter",
        hint_rank=3,
        priority=True,
    ),
    UiAction(
        "list.back",
        "escape,h,left",
        "back",
        "back: first clear the filter (or narrowing), then up a level",
        "Move",
        family=BACK,
        hint="back",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "list.detail",
        "v",
        "row_detail",
        "the selected row in full: every field, scrollable (an open turn: all its text)",
        "Move",
        family=LISTS,
        hint="detail",
        hint_rank=3,
        priority=True,
    ),
)

# -- live views --------------------------------------------------------------------------
LIVE_ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "live.pause",
        "p",
        "toggle_pause",
        "pause or resume the live refresh",
        "Live",
        family=LIVE,
        hint="pause",
        hint_rank=3,
    ),
    UiAction(
        "live.refresh",
        "ctrl+r",
        "refresh_now",
        "refresh now",
        "Live",
        family=LIVE,
        hint="refresh",
        hint_rank=4,
    ),
)

# -- export and copy (ui/table_export.py) ------------------------------------------------
TABLE_ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "table.export",
        "e",
        "export_table",
        "export the table shown (filter honoured) to a CSV or JSON file",
        "Export",
        family=TABLES,
        hint="export",
        hint_rank=8,
        priority=True,
    ),
    UiAction(
        "table.copy",
        "y",
        "copy_row",
        "copy the selected row (a turn: its raw item) as JSON to the clipboard (OSC 52)",
        "Export",
        family=LISTS,
        hint="copy",
        hint_rank=8,
        priority=True,
    ),
)

FAMILY_ACTIONS = MOVE_ACTIONS + TELEMETRY_ACTIONS + LIVE_ACTIONS + TABLE_ACTIONS


def view_bindings(spec: ViewSpec) -> list[BindingType]:
    """A view's BINDINGS: the families it takes and its own actions (priority ones run
    in the app's key loop); the app binds the actions that apply everywhere."""
    taken = [action for action in FAMILY_ACTIONS if action.family in spec.takes]
    own = [action for action in spec.actions if action.views is not None]
    return [action.binding() for action in taken + own if action.keys]
