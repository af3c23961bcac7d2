"""What the advisor view declares, as plain data: its name, keys and actions
(the screen, ``screen.py``, runs them)."""

from __future__ import annotations

from cosmem_tui.ui.actions import UiAction, ViewSpec
from cosmem_tui.ui.shared_actions import BACK, LISTS, TABLES

ADVISE = frozenset({"advise"})

ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "advise.run",
        "r",
        "run_advisor",
        "check the container again (a new sample)",
        "Advisor",
        ADVISE,
        hint="check again",
        hint_rank=1,
    ),
)

SPEC = ViewSpec(
    "advise",
    "Advisor",
    "A",
    "cosmem_tui.ui.views.advise.screen:AdviseScreen",
    "the container advisor: findings with rule, severity, evidence and fix",
    takes=frozenset({BACK, LISTS, TABLES}),
    actions=ACTIONS,
)
