"""The recall view (``:recall``, ``M``): what the agent's own retrieval query recalls, and
why not the item the user remembers.

A support engineer told "it forgot X" opens, in browse, the turn the agent answered
and presses ``m`` ("what does this recall?"): that turn's embedding becomes the query
vector, and the probes the schema's retrieval section describes run as the memory
system runs them (its scope, filters, k and distance), every one through the ledger.
On the turn where X was said, ``W`` ("why not this?") marks it expected: the why-not
panel then says the first reason it is not in the top k, with its evidence and what
finding out cost. ``:recall TENANT [THREAD] (--like ID | --text WORDS) [--k N]
[--expect ID] [--mode M]`` asks the same as ``cosmem recall``.

Above the hits: the probe (mode, k, the scope the system queries, the query), the query
vector in a few numbers (never whole), how good the index is against exact search
and what it all cost, and every note the use case made (a guessed retrieval section,
the locally fused score's approximation, what made the vectors). Ids, thread keys and
evidence are item data: every cell leaves through ``safe_cells``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Meter, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import ProbeMode
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.commands import Mistake
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.view import VIEW_CSS, ViewScreen
from cosmem_tui.ui.views.recall.commands import ExpectItem, ProbeWords, read_probe
from cosmem_tui.ui.views.recall.rows import (
    HIT_COLUMNS,
    HIT_FIELDS,
    RECALL_FIELDS,
    WHY_COLUMNS,
    WHY_FIELDS,
    Rows,
    hit_rows,
    note_lines,
    summary_lines,
    why_detail,
    why_rows,
)
from cosmem_tui.ui.views.recall.spec import SPEC
from cosmem_tui.ui.widgets.hint_line import FittedLine
from cosmem_tui.ui.widgets.row_list import RowList
from cosmem_tui.ui.workers import run_async

if TYPE_CHECKING:
    from cosmem_tui.core.recall import RecallRequest
    from cosmem_tui.core.recall_report import RecallReport
    from cosmem_tui.core.table_export import ExportTable

WHY_ROWS_SHOWN = 4  # the why-not panel's most lines before it scrolls
WHY_ROWS_SHOWN_SHORT = 2  # … on a short terminal (24 lines): the hits keep their room
TALL = 30
ROW_KEYS = frozenset({"list.filter", "list.detail", "table.export", "table.copy"})
SUMMARY_LINES = 4  # the probe, its query, the query vector, the outcome


def query_words(like: str | None, text: str | None) -> str:
    if like is not None:
        return f"query: the embedding of item {like}"
    return f"query: the text '{text}'"


class RecallScreen(ViewScreen):
    VIEW = SPEC.name
    BINDINGS: ClassVar = view_bindings(SPEC)

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    RecallScreen { layout: vertical; }
    #recall-summary { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    #recall-notes { height: auto; max-height: 8; padding: 0 1; color: $text-muted; }
    #recall-hits, #recall-why { border: round $panel-lighten-2; border-title-color: $text;
                                border-subtitle-color: $text-muted; }
    #recall-hits { height: 1fr; min-height: 5; }
    #recall-why { height: 3; }
    #recall-why-detail { height: auto; max-height: 4; padding: 0 1; }
    #recall-hits:focus, #recall-why:focus { border: round $accent; }
    """
    )

    def __init__(self) -> None:
        super().__init__()
        self.loader = Loader(self, "recall")
        self.request: RecallRequest | None = None  # the probe on screen (r runs it again)
        self.asked = ""  # the probe's query in words ("like item t-42", "text 'refund'")
        self.report: RecallReport | None = None
        self.hits = Rows([])
        self.whys = Rows([])
        self.expected_refs: dict[str, ThreadRef] = {}  # expected items browse named
        self.pending_expect: tuple[str, ...] = ()  # marked before any probe ran
        self._waiting: list[tuple[str, object]] = []  # asked before the session was open
        self._list_focused: RowList | None = None

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield FittedLine(id="recall-summary")
        yield Static(id="recall-notes")
        yield RowList(HIT_COLUMNS, id="recall-hits", empty_text="no probe yet", noun="hits")
        yield RowList(WHY_COLUMNS, id="recall-why", empty_text="", noun="expected items")
        yield Static(id="recall-why-detail")
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        super().on_mount()
        hits = self.hits_list
        hits.set_title("recall")
        why = self.why_list
        why.set_title("why not")
        why.display = False
        self.query_one("#recall-why-detail", Static).display = False
        self._show_idle()
        self.set_focus(hits)

    @property
    def hits_list(self) -> RowList:
        return self.query_one("#recall-hits", RowList)

    @property
    def why_list(self) -> RowList:
        return self.query_one("#recall-why", RowList)

    # -- what to probe ---------------------------------------------------------------------

    def session_ready(self, session: Session) -> None:
        waiting, self._waiting = self._waiting, []
        for kind, value in waiting:
            if kind == "args":
                assert isinstance(value, tuple)
                self.open_with(value)
            elif kind == "like":
                assert isinstance(value, tuple)
                self.probe_like(*value)
            elif kind == "expect":
                assert isinstance(value, tuple)
                self.expect_turn(*value)

    def _ready(self, kind: str, value: object) -> bool:
        """Is the session open (and the view composed)? If not, do it when it is."""
        if self.session is None or not self.query("#recall-hits"):
            self._waiting.append((kind, value))
            return False
        return True

    def open_with(self, args: tuple[str, ...]) -> None:
        """``:recall …``: the names as browse reads them, the flags as ``cosmem recall``'s."""
        if not self._ready("args", args):
            return
        words = read_probe(args)
        if isinstance(words, Mistake):
            self.set_status(words.message, error=True)
            return
        if not words.asks:
            if words.names or words.k or words.mode:
                self.set_status("name the query: --like ID or --text WORDS", error=True)
            for item_id in words.expect:
                self.expect_item(item_id)
            return
        self._probe_named(words)

    def _probe_named(self, words: ProbeWords) -> None:
        assert self.session is not None
        service = self.session.lifecycle  # names are read as :ttl and browse read them
        generation = self.loader.bump()
        names = list(words.names)

        async def resolve() -> None:
            try:
                scope = (
                    await service.scope_named(names) if names else self.cosmem.browse_selection()
                )
            except Exception as exc:
                from cosmem_tui.ui.messages import describe_error

                self.call_later(self._named_failed, generation, describe_error(exc))
                return
            self.call_later(self._named_found, generation, scope, words)

        run_async(self, resolve, group="recall-resolve", exclusive=True, exit_on_error=False)

    def _named_found(self, generation: int, scope: TtlScope, words: ProbeWords) -> None:
        if generation != self.loader.generation:
            return
        from cosmem_tui.core.recall import RecallRequest

        expect = words.expect or self._kept_expectations()
        request = RecallRequest(
            scope=scope,
            like=words.like,
            text=words.text,
            k=words.k,
            mode=ProbeMode(words.mode) if words.mode is not None else None,
            expect=expect,
        )
        query = query_words(words.like, words.text)
        self.probe(request, query)

    def _named_failed(self, generation: int, error: str) -> None:
        if generation == self.loader.generation:
            self.set_status(error, error=True)

    def probe_like(self, ref: ThreadRef, item_id: str) -> None:
        """Browse's "what does this recall?": the turn's embedding is the query vector,
        its thread the scope named (the schema says what the system queries from it).
        Items marked expected stay expected: "it forgot X" is the same X across queries."""
        if not self._ready("like", (ref, item_id)):
            return
        from cosmem_tui.core.recall import RecallRequest

        request = RecallRequest(
            scope=TtlScope.of_thread(ref), like=item_id, expect=self._kept_expectations()
        )
        self.probe(request, query_words(item_id, None))

    def _kept_expectations(self) -> tuple[str, ...]:
        kept = self.request.expect if self.request is not None else ()
        kept += tuple(i for i in self.pending_expect if i not in kept)
        self.pending_expect = ()
        return kept

    def expect_turn(self, ref: ThreadRef, item_id: str) -> None:
        """Browse's "why not this?": the turn is expected of the probe on screen."""
        if not self._ready("expect", (ref, item_id)):
            return
        self.expected_refs[item_id] = ref
        self.expect_item(item_id)

    def expect_item(self, item_id: str) -> None:
        request = self.request
        if request is None:
            if item_id not in self.pending_expect:
                self.pending_expect += (item_id,)
            self._show_idle()
            like = show_key(self.cosmem.registry.first_key("browse.recall_like"))
            self.set_status(
                f"item {one_line(item_id, 40, exact=True)} is expected: now {like} on the turn "
                "whose recall you ask about (or :recall … --like ID | --text WORDS)"
            )
            return
        if item_id in request.expect:
            self.set_status(f"item {one_line(item_id, 40, exact=True)} is expected already")
            self._select_why(item_id)
            return
        self.probe(replace(request, expect=(*request.expect, item_id)), self.asked)

    def probe(self, request: RecallRequest, query: str) -> None:
        """Plan the probes and run them (a fan-out is asked first, by the use case)."""
        assert self.session is not None
        self.request, self.asked = request, query
        session = self.session
        self.loader.bump()
        hits = self.hits_list
        hits.border_subtitle = plain("probing…")
        hits.clear_message()
        label = self.session.schema.tenant_label
        self._summary(f"{request.scope.describe(label)} · {query} · probing…")

        async def fetch() -> RecallReport | None:
            service = session.recall  # a session without a memory store says so, here
            plan = await service.plan(request)
            if plan.fan_out:  # the whole container: the app's question, with the estimate
                confirmed = await service.confirm(plan)
                if confirmed is None:
                    return None
                plan = confirmed
            return await service.run(plan)

        self.loader.start(self.session, fetch, self._loaded, self._failed, cause="recall: probe")

    # -- what came back -------------------------------------------------------------------

    def _loaded(self, report: RecallReport | None, cost: Meter) -> None:
        assert self.session is not None
        hits = self.hits_list
        if report is None:  # the fan-out question was answered no: nothing more was sent
            hits.border_subtitle = plain("not probed")
            self.set_status("the probe was not run (a fan-out, answered no): nothing sent")
            return
        self.report = report
        current = hits.current_index
        keep = self.hits.rows[current].key if current is not None and self.hits.rows else None
        self.hits = hit_rows(report)
        hits.set_source(self.hits, empty_text=f"the probe recalls nothing (k {report.k})")
        if keep is not None and (index := self.hits.index_of(keep)) is not None:
            hits.select_index(index)
        hits.set_title(f"recalled: top {report.k}", f"{len(report.hits):,}")
        plural = "" if report.requests == 1 else "s"
        hits.border_subtitle = plain(
            f"{report.requests:,} request{plural}, {report.request_units:,.1f} RU"
        )
        self.whys = why_rows(report)
        why = self.why_list
        why.display = bool(report.expected)
        shown = WHY_ROWS_SHOWN if self.size.height >= TALL else WHY_ROWS_SHOWN_SHORT
        why.styles.height = min(len(report.expected), shown) + 3  # borders, column titles
        why.set_source(self.whys)
        self._why_detail()
        why.set_title("why not", f"{len(report.expected):,} expected")
        many = len(report.expected) > 1
        why.border_subtitle = plain("Tab: the selected line's evidence in full" if many else "")
        label = self.session.schema.tenant_label
        self._summary("\n".join(summary_lines(report, self.asked, label)))
        self._notes(note_lines(report, self._vector_notes(report)))
        self.set_status("")
        self.show_hints()

    def _vector_notes(self, report: RecallReport) -> list[str]:
        """What made the demo's vectors, when no note of the probe says it already."""
        if self.session is None or not self.session.is_demo:
            return []
        from cosmem_tui.core.demo.embedder import LABEL

        if any(LABEL in note for note in report.notes):
            return []
        return [f"{LABEL}: the demo's vectors hash words locally, no model"]

    def _failed(self, error: str) -> None:
        hits = self.hits_list
        hits.border_subtitle = plain("failed")
        if self.report is None:
            hits.set_source(Rows([]))
            key = show_key(self.cosmem.registry.first_key("recall.rerun"))
            hits.show_message(f"the probe failed: {error}\n\n{key} tries again")
        self.set_status(f"{error} · r probes again", error=True)

    def _show_idle(self) -> None:
        """Before any probe: how to ask one, where the hits will be."""
        registry = self.cosmem.registry
        like = show_key(registry.first_key("browse.recall_like"))
        why = show_key(registry.first_key("browse.why_not"))
        summary = "no probe yet"
        if self.pending_expect:
            shown = ", ".join(one_line(i, 40, exact=True) for i in self.pending_expect)
            summary += f" · expected: {shown}"
        self._summary(summary)
        self._notes([])
        self.hits_list.show_message(
            "What would the agent's own retrieval query recall, and why not the item "
            "the user remembers?\n\n"
            f"In browse, on a turn:\n  {like}  what does this recall? (the turn's embedding "
            f"is the query vector)\n  {why}  why not this? (the turn as an item the probe "
            "should recall)\n\n"
            "Or :recall TENANT [THREAD] --like ID | --text WORDS [--k N] [--expect ID]",
            tone="dim",
        )

    @on(RowList.Highlighted, "#recall-why")
    def _why_moved(self) -> None:
        self._why_detail()

    def _why_detail(self) -> None:
        """The selected expected item's verdict in full, wrapped (its line is cut): for
        the one expected item, or the line selected while the why-not lines have focus."""
        detail = self.query_one("#recall-why-detail", Static)
        report = self.report
        why = self.why_list
        index = why.current_index
        wanted = report is not None and (len(report.expected) == 1 or self.focused is why)
        if not wanted or report is None or index is None or index >= len(report.expected):
            detail.display = False
            return
        detail.display = True
        detail.update(Content(why_detail(report.expected[index])))

    def _notes(self, lines: list[str]) -> None:
        notes = self.query_one("#recall-notes", Static)
        notes.display = bool(lines)
        notes.update(Content("\n".join(lines)))  # Content: item text never parses as markup

    def _summary(self, text: str) -> None:
        summary = self.query_one("#recall-summary", FittedLine)
        summary.styles.height = min(text.count("\n") + 1, SUMMARY_LINES)  # a note per line
        summary.show(text)

    def _select_why(self, item_id: str) -> None:
        index = self.whys.index_of(item_id)
        if index is not None:
            self.why_list.select_index(index)
            self.set_focus(self.why_list)

    # -- actions ---------------------------------------------------------------------------

    def action_rerun(self) -> None:
        if self.request is None:
            self.set_status("no probe yet: m on a turn in browse, or :recall …")
            return
        self.probe(self.request, self.asked)

    def action_open_in_browse(self) -> None:
        """The hit, or the expected item browse named, opened in its thread."""
        focused = self.focused
        if focused is self.why_list:
            index = self.why_list.current_index
            if index is None or index >= len(self.whys):
                return
            item_id = self.whys.rows[index].key
            ref = self.expected_refs.get(item_id)
            if ref is None:
                self.set_status("its thread is not known here: :expect named it by id alone")
                return
            self.cosmem.show_in_browse(ref, item_id)
            return
        index = self.hits_list.current_index
        if index is None or index >= len(self.hits):
            return
        row = self.hits.rows[index]
        if row.ref is not None:
            self.cosmem.show_in_browse(row.ref, row.key)

    def hint_applies(self, action_id: str) -> bool:
        """Open and probe again only once there is a probe (and a hit to open)."""
        if action_id == "recall.open":
            return self.report is not None and bool(self.report.hits or self.report.expected)
        if action_id == "recall.rerun":
            return self.request is not None
        if action_id in ROW_KEYS:
            return self.report is not None  # before a probe there is no row to act on
        return super().hint_applies(action_id)

    def action_expect_prompt(self) -> None:
        self.open_command_bar("expect ")

    def run_view_command(self, line: str) -> None:
        match self.cosmem.registry.parse(line, self.VIEW):
            case ExpectItem(item_id):
                self.expect_item(item_id)
            case Mistake(message):
                self.set_status(message, error=True)
            case _:
                pass

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        super().on_descendant_focus(event)
        if isinstance(event.widget, RowList):
            self._list_focused = event.widget  # where the command bar gives focus back
            self._why_detail()

    def refocus(self) -> None:
        shown = self._list_focused
        self.set_focus(shown if shown is not None and shown.display else self.hits_list)

    def shown_table(self) -> ShownTable | None:
        """The focused list (``v``, ``y``): a hit, or an expected item's verdict, each as
        the record ``cosmem recall`` prints for it."""
        if self.focused is self.why_list:
            return ShownTable("recall", WHY_FIELDS, self.why_list, self.whys.record)
        return ShownTable("recall", HIT_FIELDS, self.hits_list, self.hits.record)

    def export_table(self) -> tuple[ExportTable, str] | None:
        """``e``: the hits, then the expected items, as ``cosmem recall --json`` writes
        them (a filter on either list leaves its rows out, and the note says so)."""
        if self.report is None:
            return None
        from cosmem_tui.core.table_export import ExportTable

        hits = ShownTable("recall", RECALL_FIELDS, self.hits_list, self.hits.record)
        whys = ShownTable("recall", RECALL_FIELDS, self.why_list, self.whys.record)
        filtered = bool(self.hits_list.filter_text or self.why_list.filter_text)
        table = ExportTable(
            "recall", RECALL_FIELDS, lambda fmt: hits.records(fmt) + whys.records(fmt)
        )
        return table, "filtered" if filtered else ""
