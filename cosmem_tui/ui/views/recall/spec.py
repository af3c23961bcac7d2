"""What the recall view declares, as plain data: its name, keys and actions (the screen,
``screen.py``, runs them; ``commands.py`` reads their words). Browse's two keys into it
("what does this recall?", "why not this?") are declared in browse's spec."""

from __future__ import annotations

from cosmem_tui.ui.actions import CommandSpec, UiAction, ViewSpec
from cosmem_tui.ui.shared_actions import BACK, LISTS, TABLES
from cosmem_tui.ui.views.recall.commands import parse_expect, parse_recall

RECALL = frozenset({"recall"})

COLUMNS_NOTE = (
    "Hits are ranked as the agent's own query ranks them: SCORE is the VectorDistance "
    "(cosine and dot product: larger is closer; euclidean: smaller), VEC and TXT the "
    "item's rank in the vector-only and text-only probes, FUSED the reciprocal-rank "
    "fusion computed here (an approximation: the service's RRF constant is not "
    "documented), EXACT whether an exact (brute-force) search has it in its top k too. "
    "Each expected item gets one line: the first reason it is not recalled, its "
    "evidence and what finding out cost; Tab moves to those lines, and the selected "
    "one's evidence is then written out whole. Vectors are never shown whole."
)

ACTIONS: tuple[UiAction, ...] = (
    UiAction(
        "recall.probe",
        "",
        "app.switch_view('recall')",
        "what the agent's own retrieval query recalls, and why not an expected item",
        "Recall",
        commands=(
            CommandSpec(
                ("recall",),
                ("[TENANT [THREAD]]", "[--like ID|--text WORDS]", "[--k N]", "[--expect ID]"),
                "recall probe: the ranked hits and why an expected item is not among them "
                "(alone: the view)",
            ),
        ),
        palette=False,
        parse=parse_recall,
    ),
    UiAction(
        "recall.open",
        "enter,l,right",
        "open_in_browse",
        "open the hit (or the expected item) in browse",
        "Recall",
        RECALL,
        hint="open",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "recall.rerun",
        "r",
        "rerun",
        "probe again, as of now",
        "Recall",
        RECALL,
        hint="probe again",
        hint_rank=8,
        priority=True,
    ),
    UiAction(
        "recall.expect",
        "",
        "expect_prompt",
        "why is an item not recalled? name it as expected",
        "Recall",
        RECALL,
        commands=(CommandSpec(("expect",), ("ID",), "why the probe does not recall item ID"),),
        palette=False,
        parse=parse_expect,
    ),
)

SPEC = ViewSpec(
    "recall",
    "Recall",
    "M",
    "cosmem_tui.ui.views.recall.screen:RecallScreen",
    "what the agent's memory query recalls, and why not the item expected",
    takes=frozenset({BACK, LISTS, TABLES}),
    actions=ACTIONS,
    help_note=COLUMNS_NOTE,
)
