"""The hot tenants view (``:hot``, ``H``): which tenant spends the RU, and on which partition.

From the diagnostic logs (per-key RU is only there), aggregated where the logs live:
tenants first, by RU in the window, with their busiest second, their share of the
container's RU, their busiest second against their physical partition's budget (where
throttling starts), their 429s, their storage where known and their partition. ``→``
drills into a tenant's keys (its threads) and ``←`` comes back; ``Enter`` opens the
tenant (or the thread) in the browse view; ``/`` filters, ``s`` sorts, ``w`` changes
the window. Above the table, the skew headline and how far the logs reach (their newest
minutes marked incomplete); below it, the caveats (storage only for the largest keys,
a cut list) and any problem, with its fix.

A live view on the platform's refresh loop, like the throughput view. The table is a
``RowList``: 100,000 keys cost what the visible rows cost.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult

from cosmem_tui.core import records
from cosmem_tui.core.hot_keys_notes import arrival_text, delay_text
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Key
from cosmem_tui.model.telemetry import HotKeysReport, KeyLevel, TelemetryAbout
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.table_export import ShownTable
from cosmem_tui.ui.telemetry.live_view import Line1, TelemetryScreen
from cosmem_tui.ui.telemetry.reports import (
    NOT_CONFIGURED,
    concerns,
    hot_keys_of,
    problem_text,
    source_text,
    utc,
)
from cosmem_tui.ui.view import VIEW_CSS
from cosmem_tui.ui.views.hot.rows import SORTS, HotRows, browse_target, key_columns, saturated
from cosmem_tui.ui.views.hot.spec import SPEC
from cosmem_tui.ui.widgets.row_list import RowList


class HotScreen(TelemetryScreen[HotKeysReport]):
    VIEW = SPEC.name
    LOOP_NAME = "hot-keys"
    BINDINGS: ClassVar = view_bindings(SPEC)

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    HotScreen { layout: vertical; }
    #headline { height: auto; max-height: 2; padding: 0 1; text-style: bold; }
    #headline.bad { color: $error; }
    #source { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
    #keys { height: 1fr; border: round $panel-lighten-2; border-title-color: $text;
            border-subtitle-color: $text-muted; }
    #keys:focus { border: round $accent; }
    #problems { height: auto; max-height: 3; padding: 0 1; color: $error; display: none; }
    #notes { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    """
    )

    def __init__(self) -> None:
        super().__init__()
        self.tenant: Key | None = None  # drilled into (the key level), else None
        self.sort = SORTS[0]
        self.rows = HotRows((), None, self.sort)
        # The tenant level as it was when the user drilled in: restored on the way back.
        self._tenants: tuple[HotKeysReport | None, Key | None, str] = (None, None, "")
        self._titles_shown: tuple[str, str] | None = None

    @property
    def level(self) -> KeyLevel:
        return KeyLevel.KEY if self.tenant is not None else KeyLevel.TENANT

    @property
    def table(self) -> RowList:
        return self.query_one("#keys", RowList)

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield Line1(id="headline")
        yield Line1(id="source")
        yield RowList(
            key_columns(self.key_title(), self.sort), id="keys", empty_text="…", noun="keys"
        )
        yield Line1(id="problems")
        yield Line1(id="notes")
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        self.titles()  # before the base class shows the status it kept for now
        super().on_mount()
        self.set_focus(self.table)
        self.query_one("#headline", Line1).say(Text("opening the session…"))

    def key_title(self) -> str:
        """TENANT (the schema's word for it), THREAD under a tenant, else KEY."""
        session = self.session
        if session is None:
            return "TENANT" if self.tenant is None else "KEY"
        schema = session.schema
        if self.tenant is None:
            first = schema.partition_key[:1]
            if schema.tenant is not None and first == (schema.tenant.text,):
                return schema.tenant_label.upper()
            return "KEY"
        return "THREAD" if len(schema.partition_key) == 2 else "KEY"

    # -- the telemetry view's parts ----------------------------------------------------------

    def source(self) -> TelemetryAbout | None:
        service = hot_keys_of(self.session)
        return service.about if service is not None else None

    async def ask(self) -> HotKeysReport:
        service = hot_keys_of(self.session)
        assert service is not None
        return await service.report(
            self.window, level=self.level, tenant=self.tenant, region=self.chosen_region
        )

    def asked(self, report: HotKeysReport) -> bool:
        return super().asked(report) and report.level is self.level and report.tenant == self.tenant

    def unconfigured(self) -> None:
        self.query_one("#headline", Line1).say(Text("no telemetry configured", "bold"))
        self.query_one("#source", Line1).say(Text(""))
        self.table.set_source(HotRows((), None, self.sort))
        self.table.show_message(NOT_CONFIGURED, "warn")
        self.titles()

    def question_changed(self) -> None:
        what = "keys" if self.tenant is not None else "tenants"
        self.empty_table(f"asking for the {what} of the last {self.window.label}…")
        self._tenants = (None, self._tenants[1], self._tenants[2])  # another window's tenants
        super().question_changed()

    def put(self, report: HotKeysReport, *, keep: Key | None = None, fresh: bool = False) -> None:
        """Show ``report``: the cursor stays on its key (or goes to ``keep``)."""
        table = self.table
        if keep is None and not fresh:
            keep = self.current_key()
        self.report = report
        self.rows = HotRows(report.rows, report.tenant, self.sort, shares=report.total_ru > 0)
        empty = self.empty_text(report)
        if fresh:
            table.set_source(self.rows, empty_text=empty)
        else:
            table.update_source(self.rows, empty_text=empty)
        if keep is not None and (index := self.rows.index_of(keep)) is not None:
            table.select_index(index)
        usage_problems = [p for p in report.problems if concerns(p, "logs", ("key_usage",))]
        if not report.rows and usage_problems:
            table.show_message("\n".join(problem_text(p) for p in usage_problems))
        self.show_headline(report)
        self.show_notes(report)
        self.titles()

    def empty_text(self, report: HotKeysReport) -> str:
        whose = f" under {one_line(report.tenant.text, 40)}" if report.tenant is not None else ""
        return f"no keyed requests{whose} in the last {report.window.label}"

    def show_headline(self, report: HotKeysReport) -> None:
        headline = self.query_one("#headline", Line1)
        top = report.rows[:1]
        hot = any(saturated(u.partition_share) or (u.throttled or 0) for u in top)
        headline.set_class(hot, "bad")
        headline.say(Text(("⚠ " if hot else "") + one_line(report.headline)))
        parts = [source_text(report.source)]
        if len(report.regions) > 1 and report.region:
            parts.append(f"region {report.region} ({report.region_note})")
        parts.append(lag_text(report))
        parts.append(f"{report.total_ru:,.0f} RU in {report.window.label}{own_text(report)}")
        if report.partitions:
            budget = report.partitions[0].budget_ru_s
            each = f" × {budget:,.0f} RU/s" if budget else ""
            count = len(report.partitions)
            parts.append(f"{count} partition{'s' if count != 1 else ''}{each}")
        self.query_one("#source", Line1).say(Text(one_line(" · ".join(parts))))

    def show_notes(self, report: HotKeysReport) -> None:
        """Problems with their fixes (never cut off by the caveats), then the caveats."""
        problems = self.query_one("#problems", Line1)
        problems.display = bool(report.problems)
        lines = [one_line(problem_text(p, with_about=True)) for p in report.problems]
        problems.say(Text("\n".join(lines)))
        caveats = " · ".join(one_line(c) for c in report.caveats)
        self.query_one("#notes", Line1).say(Text(caveats))

    def titles(self) -> None:
        window = self.window.label
        if self.tenant is None:
            title = f"{self.key_title().lower()}s by RU · last {window}"
        else:
            title = f"keys of {one_line(self.tenant.text, 40)} by RU · last {window} · ← back"
        report = self.report if self.report is not None and self.asked(self.report) else None
        if report is not None and report.incomplete_from is not None:
            missing = report.span.end - report.incomplete_from
            title += f" · newest {delay_text(missing)} incomplete"
        parts = []
        if report is not None:
            shown, total = len(report.rows), report.keys_total
            cut = total is not None and total > shown
            parts.append(f"top {shown:,} of {total:,} keys" if cut else f"{shown:,} keys")
        parts.append(f"sorted by {self.sort.description}")
        subtitle = " · ".join(parts)
        if (title, subtitle) != self._titles_shown:  # unchanged titles must not redraw
            self._titles_shown = (title, subtitle)
            self.table.set_title(title)
            self.table.border_subtitle = plain(subtitle)

    def status_text(self) -> str | None:
        if self.table.filter_text:
            return None  # the filter's own line stays (``show_filter_status``)
        return super().status_text()

    def show_filter_status(self, target: RowList) -> None:
        self._status_shown = None
        super().show_filter_status(target)
        if not target.filter_text:
            self.show_status()

    # -- actions ---------------------------------------------------------------------------

    def current_key(self) -> Key | None:
        index = self.table.current_index
        if index is None or not self.rows.rows:
            return None
        return self.rows.usage(index).key

    def empty_table(self, loading: str) -> None:
        self.report = None
        self.rows = HotRows((), self.tenant, self.sort)
        self.table.set_columns(key_columns(self.key_title(), self.sort))
        self.table.set_source(self.rows, empty_text=loading)
        self.titles()

    def action_drill(self) -> None:
        key = self.current_key()
        if key is None or self.tenant is not None or self.source() is None:
            return
        if self.session is not None and len(self.session.schema.partition_key) < 2:
            self.set_status("this container's partition key has one level: nothing to drill into")
            return
        self._tenants = (self.report, key, self.table.filter_text)
        self.tenant = Key((key.value,))
        self.empty_table(f"asking for the keys of {one_line(self.tenant.text, 40)}…")
        self.loop.changed()
        self.show_status()

    def action_back(self) -> None:
        table = self.table
        if table.filter_text:
            table.set_filter("")
            self.show_filter_status(table)
            return
        if self.tenant is None:
            return
        report, key, filter_text = self._tenants
        self.tenant = None
        self._tenants = (None, None, "")
        if report is None or not self.asked(report):
            self.empty_table("asking for the tenants…")
        else:
            table.set_columns(key_columns(self.key_title(), self.sort))
            self.put(report, keep=key, fresh=True)  # at once, as it was; fresher data follows
            if filter_text:
                table.set_filter(filter_text)
                if key is not None and (index := self.rows.index_of(key)) is not None:
                    table.select_index(index)
                self.show_filter_status(table)
        self.loop.changed()
        self.show_status()

    def action_open_in_browse(self) -> None:
        key = self.current_key()
        session = self.session
        if key is None or session is None:
            return
        target = browse_target(session.schema, self.level, key)
        if target is None:
            self._status_shown = None
            self.set_status(
                f"{one_line(key.text, 40)} is not a {session.schema.tenant_label} or thread "
                f"of schema {session.schema.name}: its partition key does not line up",
                error=True,
            )
            return
        self.cosmem.show_in_browse(target)

    def action_cycle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        keep = self.current_key()
        table = self.table
        table.set_columns(key_columns(self.key_title(), self.sort))
        self.rows = HotRows(self.rows.rows, self.rows.tenant, self.sort, shares=self.rows.shares)
        table.update_source(self.rows)
        if keep is not None and (index := self.rows.index_of(keep)) is not None:
            table.select_index(index)
        self.titles()

    def refocus(self) -> None:
        self.set_focus(self.table)

    def shown_table(self) -> ShownTable | None:
        """The keys shown (sorted, filtered), as ``cosmem hot`` writes them."""
        report, rows = self.report, self.rows
        if report is None:
            return None
        return ShownTable(
            "hot-keys" if report.level is KeyLevel.KEY else "hot-tenants",
            records.HOT_FIELDS,
            self.table,
            lambda i, fmt: records.hot_record(rows.usage(i), report.level, typed=fmt == "json"),
        )


def lag_text(report: HotKeysReport) -> str:
    """``data as of 23:59:40 UTC (logs 3–10 min late: after 23:50 incomplete, 67 % of
    15m)``: where the logs reach, and how much of the window they may not hold yet."""
    text = f"data as of {utc(report.data_as_of, seconds=True)} (logs "
    text += f"{arrival_text(report.source)} late"
    if report.incomplete_from is not None:
        span = report.span
        share = (span.end - report.incomplete_from) / span.seconds if span.seconds else 1.0
        after = time.strftime("%H:%M", time.gmtime(report.incomplete_from))
        text += f": after {after} incomplete, {share * 100:.0f} % of {report.window.label}"
    return text + ")"


def own_text(report: HotKeysReport) -> str:
    """`` (the console's own: 80 RU)``: the part of the RU that is the console's, which the
    RU log counts as the application's — as the request log marks it (every cosmem
    console), else this session's from its ledger (``console_note`` says it in full)."""
    if report.source.simulated:
        return ""  # the console's own requests never reach a simulated account
    if report.console_ru is not None:
        return f" (the console's own: {report.console_ru:,.0f} RU)"
    if report.session_ru:
        return f" (this session's own: {report.session_ru:,.0f} RU)"
    return ""
