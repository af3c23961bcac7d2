"""The history panel (browse's ``i``): what the change feed holds about a turn or a thread.

It opens at once saying what it reads, reads the history in a worker (one scoped read
series through the ledger, ``core/history.py``) and shows, oldest first, each event —
when, what (created, replaced and what changed, deleted, expired with its expiry and
its purge) — and, above them, where the history is silent and what the mode cannot
show. Item text (ids, order values, previews) is data: plain ``Text`` of escaped
characters (``core/text.py``), never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from cosmem_tui.core.history import history_service
from cosmem_tui.core.history_report import event_words, note_lines, op_words
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line, visible
from cosmem_tui.model import Meter, ThreadRef
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.model.history import History
from cosmem_tui.model.keys import value_text
from cosmem_tui.model.times import utc_text
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text, plain
from cosmem_tui.ui.scroll_panel import SCROLL_KEYS, ScrollPanel

PREVIEW = 120  # characters of a version's text shown under its event
TIME = "%Y-%m-%d %H:%M:%S"
TONES = {
    ChangeOp.CREATE: "green",
    ChangeOp.REPLACE: "cyan",
    ChangeOp.WRITE: "cyan",
    ChangeOp.DELETE: "red",
    ChangeOp.EXPIRED: "yellow",
}


def history_text(history: History, tenant_label: str) -> Text:
    """The panel's body: a summary line, the notes, then one entry per event."""
    text = Text()
    what = f"item {history.item_id} of " if history.item_id is not None else ""
    text.append(visible(f"{what}{history.ref.describe(tenant_label)}"), style="bold")
    mode = "all versions and deletes" if history.mode.sees_deletes else "latest version"
    text.append(f"\n{len(history.events):,} events · {mode}")
    text.append(f" · {history.requests} feed reads, {history.request_units:,.1f} RU\n")
    for line in note_lines(history):
        text.append("• ", style="dim")
        text.append(visible(line) + "\n", style="italic")
    if not history.events:
        text.append("\nno change of it in what the feed holds\n", style="dim")
    for event in history.events:
        text.append("\n")
        text.append(utc_text(event.time, TIME), style="bold")
        text.append("  ")
        text.append(op_words(event.op), style=TONES[event.op])
        if history.item_id is None:
            text.append(f"  {one_line(event.item_id, 40, exact=True)}")
        if event.order is not None:
            text.append(f"  turn {one_line(value_text(event.order), 20, exact=True)}")
        text.append(f"  lsn {event.lsn}\n", style="dim")
        words = event_words(event)
        if words != op_words(event.op):  # more than the op it repeats
            text.append("  " + visible(words) + "\n")
        if event.preview:
            text.append("  " + one_line(event.preview, PREVIEW) + "\n", style="dim")
    return text


class HistoryPanel(ScrollPanel):
    """One item's or one thread's history; ``Esc``, ``q`` or ``i`` closes it."""

    BINDINGS: ClassVar = [Binding("escape,q,i", "dismiss", "close"), *SCROLL_KEYS]
    SCROLL_ID = "history"

    def __init__(
        self,
        session: Session,
        ref: ThreadRef,
        item_id: str | None,
        *,
        read: Callable[[History], None] | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.ref = ref
        self.item_id = item_id
        self.read = read  # told of the history once it is read (browse's gap markers)
        self.history: History | None = None
        self.loader = Loader(self, "history")

    @property
    def title_text(self) -> str:
        label = self.session.schema.tenant_label
        what = f"item {self.item_id}" if self.item_id is not None else self.ref.describe(label)
        return f"history of {what}"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="history") as scroll:
            scroll.border_title = plain(self.title_text)
            yield Static(Text("reading the change feed…", style="dim"), id="history-body")

    def on_mount(self) -> None:
        super().on_mount()
        service = history_service(self.session)
        ref, item_id = self.ref, self.item_id
        self.loader.start(
            self.session,
            lambda: service.history(ref, item_id),
            self._shown,
            self._failed,
            cause="browse: history",
        )

    def _shown(self, history: History, cost: Meter) -> None:
        self.history = history
        body = self.query_one("#history-body", Static)
        body.update(history_text(history, self.session.schema.tenant_label))
        self.scroll.border_title = plain(f"{self.title_text} · {cost_text(cost)}")
        if self.read is not None:
            self.read(history)

    def _failed(self, error: str) -> None:
        body = self.query_one("#history-body", Static)
        body.update(Text(f"the history could not be read: {visible(error)}", style="red"))
