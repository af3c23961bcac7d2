"""What the doctor view declares, as plain data: its name, keys and actions
(the screen, ``screen.py``, runs them)."""

from __future__ import annotations

from cosmem_tui.ui.actions import UiAction, ViewSpec
from cosmem_tui.ui.shared_actions import BACK, LISTS, TABLES

DOCTOR = frozenset({"doctor"})

ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "doctor.run",
        "r",
        "run_doctor",
        "check again (metadata only; every request in the ledger)",
        "Doctor",
        DOCTOR,
        hint="check again",
        hint_rank=1,
    ),
)

SPEC = ViewSpec(
    "doctor",
    "Doctor",
    "D",
    "cosmem_tui.ui.views.doctor.screen:DoctorScreen",
    ("what this account lets the console do: each capability's verdict, evidence and fix"),
    takes=frozenset({BACK, LISTS, TABLES}),
    actions=ACTIONS,
)
