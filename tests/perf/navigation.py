"""Requests and RU per navigation step: the real console on the fake Cosmos server.

    python -m tests.perf.navigation [--write]

Drives the real app (Textual's Pilot) over a Cosmos session on the in-process fake
server, with Azure Monitor (the Azure fake, real SDK clients) beside it, through one
fixed script (open with the tenant list counted, open a tenant, a thread, page down its
turns, back, ``/`` filter, the hot tenants, throughput and lifecycle views, back to
browse, refresh once) and counts, per step, the ledger's records by kind (metadata,
query, point read, query plan, partition key ranges; Azure Monitor calls apart) and the
RU they were charged. The fakes are the cross-check: the Cosmos fake's wire log must
hold exactly the requests the ledger recorded, at the same charges, and the Azure fake
as many calls as the ledger's monitor records, or the run fails.

Everything that could move a count is fixed: the data, the fake's clock and the app's
(a ``FrozenClock``: no TTL or age ever changes), the terminal size (the counts follow
the rows on screen), the listing cache (a fresh directory), the budget (far above
what the walk spends, so admission never holds anything back) and the waits (each step
ends only when no worker runs and the ledger has stopped growing; nothing depends on
how long a step takes). ``--write`` rewrites ``navigation_requests.txt`` with what was
measured; ``test_navigation_requests.py`` fails when a step differs from it.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosmem_tui.model import FrozenClock, Kind, RequestCharge
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from tests.helpers import exchange
from tests.test_cli_telemetry import NOW

TABLE = Path(__file__).with_name("navigation_requests.txt")
SIZE = (120, 40)  # the terminal: the counts follow the rows on screen
# The fake's clock and the app's, frozen: the minute the Azure fake's metrics answer for.
ANCHOR = NOW
BUDGET_RU = 100_000.0  # far above the walk: admission never holds a request back
REFRESH_S = 3600.0  # the live views' loop: never due during a walk, however slow the machine
# The ledger's kinds, in the table's column order, with the fake's name for each.
KINDS = (
    (Kind.METADATA, "metadata"),
    (Kind.QUERY, "query"),
    (Kind.POINT, "point"),
    (Kind.QUERY_PLAN, "query-plan"),
    (Kind.RANGES, "pkranges"),
    (Kind.MONITOR, "monitor"),  # Azure Monitor (metrics, logs, ARM): the Azure fake's
)
COSMOS_KINDS = tuple(kind for kind, _ in KINDS if kind is not Kind.MONITOR)
COLUMNS = ("step", "requests", *(name for _, name in KINDS), "RU")


def dataset() -> list[dict[str, Any]]:
    """Twelve tenants of different sizes; acme has four threads, the first of 150 turns
    (more than one page of the turn list)."""
    items: list[dict[str, Any]] = []
    for n in range(12):
        tenant = f"tenant-{n:02d}"
        for h in range(1 + n % 3):
            items += [exchange(tenant, f"thread-{h}", i, _ts=int(ANCHOR) - 3600) for i in range(4)]
    for h, turns in enumerate((150, 20, 8, 3)):
        thread = f"t{h}"
        items += [
            exchange("acme", thread, i, text=f"turn of {thread}", _ts=int(ANCHOR) - 7200 + i)
            for i in range(turns)
        ]
    return items


@dataclass(frozen=True)
class StepCount:
    """What one step sent: requests by kind and the RU charged."""

    step: str
    by_kind: tuple[int, ...]  # in the order of KINDS
    ru: float

    @property
    def requests(self) -> int:
        return sum(self.by_kind)

    def row(self) -> tuple[str, ...]:
        return (self.step, str(self.requests), *map(str, self.by_kind), f"{self.ru:.2f}")


def count_of(step: str, records: list[RequestCharge]) -> StepCount:
    kinds = Counter(r.kind for r in records)
    unknown = set(kinds) - {kind for kind, _ in KINDS}
    if unknown:
        raise AssertionError(f"{step}: requests of a kind the table has no column for: {unknown}")
    # RU are Cosmos's: a monitor call's charge counts in its own unit (none is billed).
    ru = round(sum(r.request_units for r in records if r.kind in COSMOS_KINDS), 2)
    return StepCount(step, tuple(kinds[kind] for kind, _ in KINDS), ru)


def cross_check(
    step: str, records: list[RequestCharge], wire: list[Any], monitor_sent: int
) -> None:
    """The fakes answered exactly what the ledger recorded: the same Cosmos requests by
    kind, at the same total charge, and as many Azure Monitor calls (a request outside
    the ledger, or one it lost, fails)."""
    ledger = Counter(dict(KINDS)[r.kind] for r in records if r.kind in COSMOS_KINDS)
    answered = Counter(entry.kind for entry in wire)
    if ledger != answered:
        raise AssertionError(
            f"{step}: the ledger recorded {dict(ledger)}, the wire {dict(answered)}"
        )
    monitor = sum(1 for r in records if r.kind is Kind.MONITOR)
    if monitor != monitor_sent:
        raise AssertionError(
            f"{step}: the ledger recorded {monitor} Azure Monitor calls, "
            f"the Azure fake answered {monitor_sent}"
        )
    recorded = round(sum(r.request_units for r in records if r.kind in COSMOS_KINDS), 2)
    charged = round(sum(entry.charge for entry in wire), 2)
    if recorded != charged:
        raise AssertionError(f"{step}: the ledger charged {recorded} RU, the fake {charged} RU")


def settings_for(fake: Any) -> CosmosSettings:
    fake.clock.set(ANCHOR)
    fake.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=-1
    )
    fake.seed("db", "memory", dataset())
    return CosmosSettings(
        endpoint=fake.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=fake.key,
        ru_budget=BUDGET_RU,
    )


def forget_routing_maps(endpoint: str) -> None:
    """The SDK keeps partition key range maps per endpoint for the whole process, shared
    by every client of it; a client another test left open on an endpoint whose port the
    fake now reuses would spare this walk its range reads. Emptied, the walk starts as in
    a fresh process (the contents only: a client that still holds the entry refills it)."""
    from azure.cosmos._routing.aio import routing_map_provider

    with routing_map_provider._shared_cache_lock:
        for cached, maps in routing_map_provider._shared_routing_map_cache.items():
            if cached.rstrip("/") == endpoint.rstrip("/"):
                maps.clear()


async def until(pilot: Any, condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout  # a bound for a shared machine, not a timing
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the screen")
        await pilot.pause(0.02)


async def quiet(pilot: Any, fake: Any, azure: Any) -> None:
    """No worker running, and neither the ledger nor either fake grew over two rounds."""
    from tests.ui.conftest import settle

    app = pilot.app
    seen = (-1, -1, -1)
    steady = 0
    while steady < 2:
        await settle(pilot)
        now = (len(app.session.ledger.records()), len(fake.log), len(azure.sent))
        steady = steady + 1 if now == seen else 0
        seen = now


def azure_answering() -> Any:
    """The Azure fake with the answers ``cosmem hot`` / ``cosmem throttle`` are tested with."""
    from tests.sources.monitor.azure_fake import AzureFake
    from tests.sources.monitor.test_logs import Workspace
    from tests.test_cli_telemetry import metrics_answer

    azure = AzureFake()
    azure.answer("metrics", metrics_answer)
    azure.answer("logs", Workspace().responder())
    return azure


async def walk(fake: Any, work_dir: Path) -> list[StepCount]:
    """The navigation script, step by step, counted."""
    from cosmem_tui.compose import open_cosmos_session
    from cosmem_tui.core.throughput import Container
    from cosmem_tui.sources.monitor.telemetry import open_monitor
    from cosmem_tui.ui.app import CosmemApp
    from cosmem_tui.ui.views.browse.levels import Level
    from cosmem_tui.ui.views.browse.screen import BrowseScreen
    from cosmem_tui.ui.views.hot.screen import HotScreen
    from cosmem_tui.ui.views.lifecycle.screen import LifecycleScreen
    from cosmem_tui.ui.views.throughput.screen import ThroughputScreen
    from cosmem_tui.ui.widgets.row_list import RowList
    from tests.sources.monitor.azure_fake import FakeCredential
    from tests.sources.monitor.conftest import FAST_RETRY
    from tests.test_cli_telemetry import settings as monitor_settings
    from tests.ui.telemetry_sources import services

    settings = settings_for(fake)
    forget_routing_maps(settings.endpoint)
    clock = FrozenClock(ANCHOR)

    azure = azure_answering()

    async def open_it() -> Any:
        session = await open_cosmos_session(
            settings, "lab", clock, work_dir / "schemas", cache_root=work_dir / "listings"
        )
        # Azure Monitor beside the container, its calls in the session's ledger (the
        # key session would otherwise sign in to Azure for it).
        source = await open_monitor(
            monitor_settings(database="db", container="memory"),
            ledger=session.ledger,
            credential=FakeCredential(),
            clock=clock,
            transport=azure.transport(),
            retry=FAST_RETRY,
        )
        session.closers.append(source.close)
        session.use_telemetry(services(source, clock, Container("db", "memory", key_levels=2)))
        return session

    app = CosmemApp(clock=clock, session_factory=open_it, refresh_s=REFRESH_S)
    counts: list[StepCount] = []
    async with app.run_test(size=SIZE) as pilot:
        shown = app.browse
        assert isinstance(shown, BrowseScreen)
        browse: BrowseScreen = shown  # (named once for the steps below)

        def records() -> list[RequestCharge]:
            assert app.session is not None
            return app.session.ledger.records()

        seen = [0, 0, 0]

        async def step(name: str, act: Callable[[], Awaitable[None]]) -> None:
            await act()
            await quiet(pilot, fake, azure)
            recorded = records()[seen[0] :]
            wire = fake.log.entries()[seen[1] :]
            monitor_sent = len(azure.sent) - seen[2]
            seen[:] = [seen[0] + len(recorded), seen[1] + len(wire), len(azure.sent)]
            cross_check(name, recorded, wire, monitor_sent)
            counts.append(count_of(name, recorded))

        def tenants() -> RowList:
            return browse.query_one("#tenants", RowList)

        async def start() -> None:
            await until(pilot, lambda: app.session is not None and tenants().row_count == 13)

        def press(*keys: str, reaches: Callable[[], bool]) -> Callable[[], Awaitable[None]]:
            """Press the keys and wait for the screen they lead to: a step that did not
            happen must not pass as one that cost nothing."""

            async def act() -> None:
                await pilot.press(*keys)
                await until(pilot, reaches)

            return act

        def shows(screen: type[Any]) -> Callable[[], bool]:
            return lambda: isinstance(app.screen, screen)

        def at_threads() -> bool:
            return app.screen is browse and browse.level is Level.THREADS

        async def open_tenant() -> None:
            await pilot.press("slash", *"acme", "enter", "enter")
            await until(pilot, lambda: len(browse.thread_column.threads) == 4)

        async def open_thread() -> None:
            await pilot.press("enter")
            await until(pilot, lambda: browse.level is Level.TURNS)

        await step("open: tenant list with counts", start)
        await step("open a tenant (acme)", open_tenant)
        await step("open a thread (its turns)", open_thread)
        turns = browse.turn_column

        def loaded() -> int:
            return turns.window.loaded if turns.window is not None else 0

        first_page = loaded()
        await step(
            "page down to the next page",
            press(*["pagedown"] * 4, reaches=lambda: loaded() > first_page),
        )
        await step("back to the threads", press("escape", reaches=at_threads))
        threads = browse.thread_column
        filtered = press("slash", *"t1", "enter", reaches=lambda: threads.filter_text == "t1")
        await step("/ filter the threads", filtered)
        await step("hot tenants view", press("H", reaches=shows(HotScreen)))
        await step("throughput view", press("T", reaches=shows(ThroughputScreen)))
        await step("lifecycle view", press("L", reaches=shows(LifecycleScreen)))
        await step("back to browse", press("B", reaches=at_threads))
        await step("refresh once", press("r", reaches=at_threads))
    return counts


def measure() -> list[StepCount]:
    from tests.fake_cosmos.fake import FakeCosmos

    with tempfile.TemporaryDirectory() as tmp, FakeCosmos() as fake:
        return asyncio.run(walk(fake, Path(tmp)))


def format_table(counts: list[StepCount]) -> str:
    rows = [COLUMNS, *(count.row() for count in counts)]
    total = StepCount(
        "total",
        tuple(sum(c.by_kind[i] for c in counts) for i in range(len(KINDS))),
        round(sum(c.ru for c in counts), 2),
    )
    rows.append(total.row())
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def read_table(text: str) -> list[StepCount]:
    """The table's steps (the header and the total line are left out)."""
    counts = []
    for line in text.splitlines()[1:]:
        if not line.strip() or line.startswith("total "):
            continue
        words = line.split()
        numbers = words[-(len(KINDS) + 2) :]
        name = " ".join(words[: -(len(KINDS) + 2)])
        counts.append(StepCount(name, tuple(int(n) for n in numbers[1:-1]), float(numbers[-1])))
    return counts


def main() -> None:
    write = sys.argv[1:] == ["--write"]
    text = format_table(measure())
    print(text, end="")
    if write:
        TABLE.write_text(text)


if __name__ == "__main__":
    main()
