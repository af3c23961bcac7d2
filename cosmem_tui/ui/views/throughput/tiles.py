"""The tiles of the throughput view, each fed by the questions it names.

Each tile takes a small frozen slice of the ``ThroughputReport`` (so an unchanged
slice redraws nothing) and draws it at its size; a problem with one of its questions
is drawn in the tile itself, with its fix, above whatever data did arrive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cosmem_tui.model.telemetry import (
    MetricPoint,
    OperationThrottles,
    RangeLoad,
    Span,
    TelemetryProblem,
    ThroughputReport,
    Window,
)
from cosmem_tui.ui.telemetry.reports import claimed, problem_text
from cosmem_tui.ui.widgets.charts import (
    Line,
    Seg,
    bar_chart,
    block,
    joined,
    short_number,
    spark,
    time_axis,
    wrap,
)
from cosmem_tui.ui.widgets.row_list import Tone
from cosmem_tui.ui.widgets.tile import Tile

# The questions of the throughput report (MetricQuery.name), by the tile they feed.
RU_QUESTIONS = ("ru", "capacity")
RANGE_QUESTIONS = ("normalized_by_range",)
THROTTLE_QUESTIONS = ("throttles_by_operation",)
LATENCY_QUESTIONS = ("latency",)
STATUS_QUESTIONS = ("requests_by_status",)
TILE_QUESTIONS = (
    RU_QUESTIONS + RANGE_QUESTIONS + THROTTLE_QUESTIONS + LATENCY_QUESTIONS + STATUS_QUESTIONS
)

FULL = 100.0  # normalised RU: a physical partition used its whole budget in some second


def problem_lines(problems: Sequence[TelemetryProblem], width: int, most: int) -> list[Line]:
    lines: list[Line] = []
    for problem in problems:
        for text in wrap(problem_text(problem), width):
            lines.append([(text, "bad")])
    if len(lines) > most:
        lines = [*lines[: max(0, most - 1)], [("⚠ … more problems: see the status line", "bad")]]
    return lines


def values(points: Sequence[MetricPoint]) -> list[float | None]:
    return [p.value for p in points]


def known(points: Sequence[MetricPoint]) -> list[float]:
    return [p.value for p in points if p.value is not None]


def latest(points: Sequence[MetricPoint]) -> float | None:
    for point in reversed(points):
        if point.value is not None:
            return point.value
    return None


def load_tone(percent: float) -> Tone:
    if percent >= FULL:
        return "bad"
    return "warn" if percent >= 80.0 else "good"


def full_since(points: Sequence[MetricPoint]) -> float | None:
    """The first minute of the run at 100 % that lasts to the newest minute with data."""
    since: float | None = None
    for point in points:
        if point.value is not None:
            since = (since if since is not None else point.at) if point.value >= FULL else None
    return since


# -- RU/s used against provisioned ------------------------------------------------------------


@dataclass(frozen=True)
class RuData:
    points: tuple[MetricPoint, ...]
    capacity: tuple[MetricPoint, ...]
    provisioned: float | None
    autoscale: bool
    span: Span
    window: Window
    problems: tuple[TelemetryProblem, ...]

    @classmethod
    def of(cls, report: ThroughputReport) -> RuData:
        return cls(
            report.ru_per_s,
            report.capacity,
            report.provisioned_ru_s,
            report.autoscale,
            report.span,
            report.window,
            claimed(report.problems, "metrics", RU_QUESTIONS),
        )

    def capacity_line(self) -> list[float | None]:
        """The provisioned RU/s in force at each minute (capacity moves per 5 minutes)."""
        steps = sorted((p.at, p.value) for p in self.capacity if p.value is not None)
        out: list[float | None] = []
        for point in self.points:
            value = self.provisioned
            for at, step in steps:
                if at <= point.at:
                    value = step
            out.append(value)
        return out

    def subtitle(self) -> str:
        seen = known(self.points)
        if not seen:
            return ""
        now = latest(self.points) or 0.0
        parts = [f"now {now:,.0f}", f"peak {max(seen):,.0f}"]
        if self.provisioned:
            kind = "autoscale max" if self.autoscale else "provisioned"
            parts.append(f"╌ {kind} {self.provisioned:,.0f} RU/s")
        else:
            parts[-1] += " RU/s"
        return " · ".join(parts)


class RuChart(Tile[RuData]):
    LABEL = 6

    def draw(self, data: RuData, width: int, height: int) -> list[Line]:
        lines = problem_lines(data.problems, width, max(1, height - 3))
        seen = known(data.points)
        if not seen:
            if not data.problems:
                lines.append([(f"no RU data in the last {data.window.label}", "dim")])
            return lines
        rows = height - len(lines) - 1  # the last line is the time axis
        chart_width = width - self.LABEL - 1
        if rows < 1 or chart_width < 4:
            return [*lines, spark(values(data.points), width)]
        limits = data.capacity_line()
        ceiling = max(max(seen), max((v for v in limits if v), default=0.0)) * 1.1 or 1.0

        def tone(value: float, limit: float | None) -> Tone:
            if limit:
                if value >= limit:
                    return "bad"
                if value >= 0.8 * limit:
                    return "warn"
            return "accent"

        bars = bar_chart(
            values(data.points), chart_width, rows, ceiling=ceiling, line=limits, tone_of=tone
        )
        step = ceiling / rows
        for n, bar in enumerate(bars):
            bottom = (rows - 1 - n) * step
            # The row the capacity line runs in is labelled with it, never with the
            # ceiling: a number beside the ╌ line reads as what is provisioned.
            if data.provisioned and bottom <= data.provisioned < bottom + step:
                label = short_number(data.provisioned)
            elif n == 0:
                label = short_number(ceiling)
            elif n == rows - 1:
                label = "0"
            else:
                label = ""
            lines.append([(label.rjust(self.LABEL) + " ", "dim"), *bar])
        axis = time_axis(data.span.start, data.span.end, chart_width, back=data.window.label)
        lines.append([(" " * (self.LABEL + 1), ""), *axis])
        return lines


# -- normalised RU by physical partition ------------------------------------------------------


@dataclass(frozen=True)
class RangeData:
    ranges: tuple[RangeLoad, ...]
    window: Window
    problems: tuple[TelemetryProblem, ...]

    @classmethod
    def of(cls, report: ThroughputReport) -> RangeData:
        return cls(
            report.ranges, report.window, claimed(report.problems, "metrics", RANGE_QUESTIONS)
        )

    def full(self) -> list[RangeLoad]:
        return [r for r in self.ranges if (r.peak or 0.0) >= FULL]


def heat_row(ranges: Sequence[RangeLoad], width: int, most_lines: int = 2) -> list[Line]:
    """Every physical partition's latest normalised RU, in range order: labelled cells
    when they fit on a line, else one shaded cell each (on up to ``most_lines``)."""
    cells = [(r.range_id, latest(r.points)) for r in ranges]
    labelled: list[Seg] = []
    for n, (range_id, level) in enumerate(cells):
        if n:
            labelled.append(("  ", ""))
        if level is None:
            labelled.append((f"{range_id} · —", "dim"))
        else:
            labelled.append((f"{range_id} {block(level / FULL)}{level:.0f}%", load_tone(level)))
    if sum(len(text) for text, _ in labelled) <= width:
        return [joined(labelled)]
    room = max(1, width * most_lines)
    shown = cells if len(cells) <= room else cells[: room - 4]
    shaded: list[Seg] = [
        (block(level / FULL), load_tone(level)) if level else ("▁" if level == 0 else "·", "dim")
        for _id, level in shown
    ]
    if len(shown) < len(cells):
        shaded.append((f" +{len(cells) - len(shown)}", "dim"))
    return [joined(shaded[start : start + width]) for start in range(0, len(shaded), width)]


class RangeHeat(Tile[RangeData]):
    def draw(self, data: RangeData, width: int, height: int) -> list[Line]:
        lines = problem_lines(data.problems, width, max(1, height - 1))
        if not data.ranges:
            if not data.problems:
                lines.append([(f"no partition data in the last {data.window.label}", "dim")])
            return lines
        lines.extend(heat_row(data.ranges, width, 1 if height - len(lines) < 3 else 2))
        hottest = sorted(
            data.ranges,
            key=lambda r: (-(r.peak or 0.0), -(latest(r.points) or 0.0), r.range_id),
        )
        label = max(len(r.range_id) for r in hottest[: max(0, height - len(lines))] or hottest[:1])
        for load in hottest[: max(0, height - len(lines))]:
            peak = load.peak or 0.0
            since = full_since(load.points)
            tail = f" {peak:3.0f}%" + (" now" if since is not None else "")
            room = width - label - 1 - len(tail)
            if room < 4:
                lines.append([(f"{load.range_id} {tail.strip()}", load_tone(peak))])
                continue
            bars = spark(values(load.points), room, top=FULL, tone_of=load_tone)
            lines.append(
                [(load.range_id.rjust(label) + " ", "dim"), *bars, (tail, load_tone(peak))]
            )
        return lines


# -- 429s per minute by operation ------------------------------------------------------------


@dataclass(frozen=True)
class ThrottleData:
    throttles: tuple[OperationThrottles, ...]
    throttled: int
    requests: int
    window: Window
    problems: tuple[TelemetryProblem, ...]

    @classmethod
    def of(cls, report: ThroughputReport) -> ThrottleData:
        return cls(
            report.throttles,
            report.throttled,
            report.requests,
            report.window,
            claimed(report.problems, "metrics", THROTTLE_QUESTIONS),
        )


class ThrottleTile(Tile[ThrottleData]):
    def draw(self, data: ThrottleData, width: int, height: int) -> list[Line]:
        lines = problem_lines(data.problems, width, max(1, height - 1))
        shown = [t for t in data.throttles if t.total]
        if not shown:
            if not data.problems:
                lines.append([(f"no 429s in the last {data.window.label}", "good")])
            return lines
        room = height - len(lines)
        cut = len(shown) > room
        listed = shown[: room - 1] if cut else shown[:room]
        name = min(14, max(len(t.operation) for t in listed)) if listed else 0
        top = max((max(known(t.points), default=0.0) for t in listed), default=0.0)
        for one in listed:
            total = f" {one.total:>7,}"
            bars_width = width - name - 1 - len(total)
            operation = one.operation[:name].ljust(name)
            if bars_width < 4:
                lines.append([(f"{operation}{total}", "bad")])
                continue
            bars = spark(values(one.points), bars_width, top=top, tone_of=lambda _v: "bad")
            lines.append([(operation + " ", ""), *bars, (total, "bad")])
        if cut:
            rest = sum(t.total for t in shown[len(listed) :])
            more = len(shown) - len(listed)
            lines.append([(f"+{more} more operations: {rest:,} × 429", "dim")])
        return lines


# -- server-side latency ----------------------------------------------------------------------


@dataclass(frozen=True)
class LatencyData:
    """Server-side latency in each connection mode: gateway (Python and JS clients, the
    console) and direct (.NET and Java), asked together and shown apart."""

    gateway: tuple[MetricPoint, ...]
    direct: tuple[MetricPoint, ...]
    window: Window
    problems: tuple[TelemetryProblem, ...]

    @classmethod
    def of(cls, report: ThroughputReport) -> LatencyData:
        return cls(
            report.latency_gateway_ms,
            report.latency_direct_ms,
            report.window,
            claimed(report.problems, "metrics", LATENCY_QUESTIONS),
        )


NO_DIRECT = "no requests (direct mode: .NET and Java SDKs only)"


def latency_line(mode: str, points: Sequence[MetricPoint], width: int, empty: str) -> Line:
    """``gateway ▂▃▅ now 5.2 · avg 4.1 · peak 9.0 ms``, the sparkline where there is room."""
    seen = known(points)
    label = f"{mode:<8}"
    if not seen:
        return [(label, ""), (empty, "dim")]
    now = latest(points) or 0.0
    summary = f" now {now:,.1f} · avg {sum(seen) / len(seen):,.1f} · peak {max(seen):,.1f} ms"
    room = width - len(label) - len(summary)
    if room < 4:
        return [(label, ""), (summary.strip(), "")]
    return [(label, ""), *spark(values(points), room), (summary, "")]


class LatencyTile(Tile[LatencyData]):
    def draw(self, data: LatencyData, width: int, height: int) -> list[Line]:
        lines = problem_lines(data.problems, width, max(1, height - 1))
        if not known(data.gateway) and not known(data.direct):
            if not data.problems:
                lines.append([(f"no latency data in the last {data.window.label}", "dim")])
            return lines
        rows = [
            latency_line("gateway", data.gateway, width, "no requests"),
            latency_line("direct", data.direct, width, NO_DIRECT),
        ]
        if height - len(lines) < 2:  # one line: the mode that has data, gateway first
            rows = [rows[0] if known(data.gateway) else rows[1]]
        return [*lines, *rows]


# -- requests by status code ------------------------------------------------------------------


@dataclass(frozen=True)
class StatusData:
    totals: tuple[tuple[str, int], ...]
    requests: int
    throttled: int
    window: Window
    problems: tuple[TelemetryProblem, ...]

    @classmethod
    def of(cls, report: ThroughputReport) -> StatusData:
        return cls(
            report.status_totals,
            report.requests,
            report.throttled,
            report.window,
            claimed(report.problems, "metrics", STATUS_QUESTIONS),
        )


def status_tone(code: str) -> Tone:
    if code == "429" or code.startswith("5"):
        return "bad"
    if code.startswith("4"):
        return "warn"
    return "good" if code.startswith("2") else ""


class StatusTile(Tile[StatusData]):
    def draw(self, data: StatusData, width: int, height: int) -> list[Line]:
        lines = problem_lines(data.problems, width, max(1, height - 1))
        if not data.totals:
            if not data.problems:
                lines.append([(f"no requests in the last {data.window.label}", "dim")])
            return lines
        # 429s first (what the view is for), then the rest by how many.
        ordered = sorted(data.totals, key=lambda kv: (kv[0] != "429", -kv[1], kv[0]))
        line: Line = []
        used = 0
        for code, count in ordered:
            share = f" ({100 * count / data.requests:.1f}%)" if data.requests else ""
            cell = f"{code} {count:,}{share if code == '429' else ''}"
            gap = 3 if line else 0
            if line and used + gap + len(cell) > width:
                lines.append(line)
                line, used, gap = [], 0, 0
                if len(lines) >= height:
                    break
            if gap:
                line.append((" · ", "dim"))
            line.append((cell, status_tone(code)))
            used += gap + len(cell)
        if line and len(lines) < height:
            lines.append(line)
        return lines
