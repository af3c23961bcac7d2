"""The throughput view (``:throttle``, ``T``): is the account throttling, where, since when.

For the on-call engineer, from the platform metrics (per minute): the headline (429s,
which physical partition is at 100 % and since when, the busiest minute against what
is provisioned), RU/s used against provisioned over the window, normalised RU per
physical partition as a heat row, 429s per minute by operation, server-side latency
and requests by status. Windows of 15 min, 1 h and 24 h (``w``).

A live view on the platform's refresh loop: it asks the session's throughput service
on every tick while it is on screen (never while hidden, paused or under a dialog);
the service reuses answers younger than its source's refresh, and each tile redraws
only when its slice of the report changed, so an idle dashboard writes next to
nothing. A problem with one question is shown in the tile that question feeds, with
its fix; the other tiles go on.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from cosmem_tui.core import records
from cosmem_tui.core.table_export import ExportTable
from cosmem_tui.core.text import one_line
from cosmem_tui.model.telemetry import TelemetryAbout, ThroughputMode, ThroughputReport
from cosmem_tui.ui.shared_actions import view_bindings
from cosmem_tui.ui.telemetry.live_view import Line1, TelemetryScreen
from cosmem_tui.ui.telemetry.reports import (
    NOT_CONFIGURED,
    concerns,
    problem_text,
    source_text,
    throughput_of,
    utc,
)
from cosmem_tui.ui.view import VIEW_CSS
from cosmem_tui.ui.views.throughput.spec import SPEC
from cosmem_tui.ui.views.throughput.tiles import (
    TILE_QUESTIONS,
    LatencyData,
    LatencyTile,
    RangeData,
    RangeHeat,
    RuChart,
    RuData,
    StatusData,
    StatusTile,
    ThrottleData,
    ThrottleTile,
)

TALL = 32  # from this many lines the partition and 429 tiles get more rows
TALLER = 50  # and from this many (200×60), rows for ten partitions or operations


class ThroughputScreen(TelemetryScreen[ThroughputReport]):
    VIEW = SPEC.name
    LOOP_NAME = "throughput"
    BINDINGS: ClassVar = view_bindings(SPEC)

    DEFAULT_CSS = (
        VIEW_CSS
        + """
    ThroughputScreen { layout: vertical; }
    #headline { height: auto; max-height: 3; padding: 0 1; text-style: bold; }
    #headline.bad { color: $error; }
    #headline.good { color: $success; }
    #source { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
    #problems { height: auto; max-height: 3; padding: 0 1; color: $error; display: none; }
    #dashboard { height: 1fr; }
    #ru { height: 1fr; min-height: 5; }
    #row-b { height: 5; }
    #row-c { height: 4; }
    #row-b > Tile, #row-c > Tile { width: 1fr; }
    #unconfigured { height: 1fr; padding: 1 2; border: round $warning; display: none; }
    """
    )

    def compose(self) -> ComposeResult:
        yield from self.compose_chrome_top()
        yield Line1(id="headline")
        yield Line1(id="source")
        yield Line1(id="problems")
        with Vertical(id="dashboard"):
            yield RuChart(id="ru")
            with Horizontal(id="row-b"):
                yield RangeHeat(id="ranges")
                yield ThrottleTile(id="throttles")
            with Horizontal(id="row-c"):
                yield LatencyTile(id="latency")
                yield StatusTile(id="statuses")
        yield Static(Text(NOT_CONFIGURED), id="unconfigured")
        yield from self.compose_chrome_bottom()

    def on_mount(self) -> None:
        self.titles()  # before the base class shows the status it kept for now
        self.show_status()
        self.query_one("#headline", Line1).say(Text("opening the session…"))
        super().on_mount()

    def on_resize(self) -> None:
        tall = self.size.height >= TALL
        taller = self.size.height >= TALLER
        self.query_one("#row-b").styles.height = 13 if taller else 8 if tall else 5
        self.query_one("#row-c").styles.height = 5 if tall else 4

    # -- the telemetry view's parts ----------------------------------------------------------

    def source(self) -> TelemetryAbout | None:
        service = throughput_of(self.session)
        return service.about if service is not None else None

    async def ask(self) -> ThroughputReport:
        service = throughput_of(self.session)
        assert service is not None
        return await service.report(self.window, region=self.chosen_region)

    def unconfigured(self) -> None:
        self.query_one("#dashboard").display = False
        self.query_one("#unconfigured").display = True
        self.query_one("#headline", Line1).say(Text("no telemetry configured", "bold"))
        self.query_one("#source", Line1).say(Text(""))

    def question_changed(self) -> None:
        self.titles()
        super().question_changed()

    def put(self, report: ThroughputReport) -> None:
        self.report = report
        headline = self.query_one("#headline", Line1)
        headline.set_class(bool(report.throttled), "bad")
        headline.set_class(not report.throttled, "good")
        mark = "⚠ " if report.throttled else ""
        headline.say(Text(mark + one_line(report.headline)))
        self.query_one("#source", Line1).say(Text(one_line(self.source_line(report))))
        self.show_other_problems(report)
        self.query_one(RuChart).show(RuData.of(report))
        self.query_one(RangeHeat).show(RangeData.of(report))
        self.query_one(ThrottleTile).show(ThrottleData.of(report))
        self.query_one(LatencyTile).show(LatencyData.of(report))
        self.query_one(StatusTile).show(StatusData.of(report))
        self.titles()

    def source_line(self, report: ThroughputReport) -> str:
        """Where the numbers come from: the source, the region shown (on an account with
        several), the metrics host's region and why that one, the offer when it is not
        the container's own, and how fresh the data is."""
        parts = [source_text(report.source)]
        if len(report.regions) > 1 and report.region:
            parts.append(f"region {report.region} ({report.region_note})")
        account = report.account
        if account.metrics_region and not report.source.simulated:
            parts.append(f"metrics of {account.metrics_region} ({account.metrics_region_from})")
        offer = report.offer
        if offer.mode is ThroughputMode.SHARED:
            parts.append(f"RU/s shared by {offer.owner or 'the database'}")
        elif offer.mode is ThroughputMode.SERVERLESS:
            parts.append("serverless: no provisioned RU/s")
        # Metrics only: the resource logs' 3–10 min delay is the hot view's to tell.
        parts.append(f"per minute, data as of {utc(report.data_as_of)}")
        return " · ".join(parts)

    def show_other_problems(self, report: ThroughputReport) -> None:
        """Problems no tile claims (a source-wide failure, an unnamed question)."""
        rest = [p for p in report.problems if not concerns(p, "metrics", TILE_QUESTIONS)]
        widget = self.query_one("#problems", Line1)
        widget.display = bool(rest)
        widget.say(Text("\n".join(one_line(problem_text(p, with_about=True)) for p in rest)))

    def status_text(self) -> str | None:
        # A tile too small for its problem ends with "see the status line": it is here whole.
        base = super().status_text()
        report = self.report
        if base is None or report is None or not self.asked(report):
            return base
        tiles = [p for p in report.problems if concerns(p, "metrics", TILE_QUESTIONS)]
        return " · ".join([*(problem_text(p, with_about=True) for p in tiles), base])

    def titles(self) -> None:
        window = self.window.label
        report = self.report if self.report is not None and self.asked(self.report) else None
        ru_sub = RuData.of(report).subtitle() if report is not None else ""
        self.query_one(RuChart).set_titles(f"RU/s used vs provisioned · last {window}", ru_sub)
        ranges = RangeData.of(report) if report is not None else None
        counts = []
        if ranges is not None and ranges.ranges:
            counts.append(f"{len(ranges.ranges)} ranges")
            if full := ranges.full():
                counts.append(f"{len(full)} at 100 %")
        self.query_one(RangeHeat).set_titles("partitions · normalised RU", " · ".join(counts))
        throttled = f"{report.throttled:,} × 429" if report is not None and report.throttled else ""
        self.query_one(ThrottleTile).set_titles(
            f"429s per minute by operation · {window}", throttled
        )
        self.query_one(LatencyTile).set_titles("server-side latency by connection mode · avg/min")
        total = f"{report.requests:,} requests" if report is not None else ""
        self.query_one(StatusTile).set_titles(f"requests by status · {window}", total)

    def export_table(self) -> tuple[ExportTable, str] | None:
        """Every series of the report, as ``cosmem throttle`` writes them."""
        report = self.report
        if report is None:
            return None
        from cosmem_tui.core.throughput import series_rows

        rows = series_rows(report)
        table = ExportTable("throughput", records.THROUGHPUT_FIELDS, lambda _fmt: rows)
        return table, ""
