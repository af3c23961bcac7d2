"""What the hot tenants view declares, as plain data: its name, keys and actions
(the screen, ``screen.py``, runs them)."""

from __future__ import annotations

from cosmem_tui.ui.actions import UiAction, ViewSpec
from cosmem_tui.ui.shared_actions import LISTS, LIVE, TABLES
from cosmem_tui.ui.telemetry.spec import TELEMETRY

HOT = frozenset({"hot"})

# What the columns measure (rows.py draws them): the help ends with it, the README says
# the same.
COLUMNS_HELP = (
    "RU: spent in the window. PEAK/S: its busiest second, all its partitions together. "
    "RU%: its share of the container's RU. BUDGET: the RU it was served in its busiest "
    "second on its partition, against that partition's share of the provisioned RU/s. "
    "A throttled request is not served (it consumes no RU), so BUDGET tops out at about "
    "100 %: from 95 % the partition was full in that second and 429s are being answered "
    "(red); below, a key can still get 429s from its neighbours on the partition or from "
    "bursts shorter than a second — the 429 LOGGED column counts them where logged: a "
    "throttled request charges nothing and may have no row in the RU log, so its 429 "
    "names no key; the notes say how many of the window's 429s those are. STORAGE: only "
    "the largest keys of each partition are logged, so a tenant's is a lower bound (≥); "
    "a blank is not zero. PARTITION: the partitions it touched, the busiest first."
)

ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "hot.drill",
        "right,l",
        "drill",
        "drill in: the keys (threads) of the tenant",
        "Hot tenants",
        HOT,
        hint="keys",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "hot.open",
        "enter,o",
        "open_in_browse",
        "open the tenant (or thread) in the browse view",
        "Hot tenants",
        HOT,
        hint="browse",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "hot.back",
        "escape,left,h",
        "back",
        "back: clear the filter, then back to the tenants",
        "Hot tenants",
        HOT,
        hint="back",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "hot.sort",
        "s",
        "cycle_sort",
        "sort by the next column (RU, peak, budget, 429, storage, name)",
        "Hot tenants",
        HOT,
        hint="sort",
        hint_rank=4,
        priority=True,
    ),
)

SPEC = ViewSpec(
    "hot",
    "Hot tenants",
    "H",
    "cosmem_tui.ui.views.hot.screen:HotScreen",
    "which tenant spends the RU: keys by RU with their shares, live",
    takes=frozenset({LISTS, LIVE, TABLES, TELEMETRY}),
    actions=ACTIONS,
    help_note=COLUMNS_HELP,
)
