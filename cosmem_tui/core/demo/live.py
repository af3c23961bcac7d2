"""The demo is alive: while it is on screen, its simulated agents write the demo workspace.

**One rhythm.** The simulated telemetry (``sources/simulated/``) models the account's
requests per tenant and second: daily rhythms, noise, and the hot tenant's bursts every
15 minutes. The live workload writes a sample of the very requests it counts
(``sources/simulated/writes.py``: each tenant's served Creates, Upserts and Deletes of a
minute): one turn per ``CREATES_PER_TURN`` creates, one replace per
``UPSERTS_PER_REPLACE`` upserts, one delete per ``DELETES_PER_DELETE`` deletes, rounded
by a hash of (tenant, minute). So the browse counts, the change log, the lifecycle and
the telemetry move together: the hot tenant writes the most, and bursts when the hot
tenant view says it does. Within a tenant each write picks a thread by its weight in
the workload (its size), as the telemetry shares the tenant's demand out.

**What is written** (``live_items.py``): a new turn continues a thread (next turn index,
the thread's retention); a replace writes the thread's newest item again (its TTL
clock restarts); a delete removes the thread's oldest item that would expire. An item
whose ``_ts + ttl`` has passed is purged ``PURGE_LAG_S`` later (a lag drawn per item),
logged as expired, as the service's TTL purge trails expiry. Expiries from before the
demo was built are left as the generator made them (the recall probe's expired case is
one), and the planted threads (malformed, hostile, recall) are never written.

**Cost.** Everything is a function of (seed, minute), planned a minute at a time; a
tick is one transaction (``DemoWorkspaceWriter.apply``): the writes due since the last
tick, their change-log rows and how far it has written. A console reopened later
catches up at most ``MAX_CATCH_UP_S``. The app ticks it from a worker while the demo
label is on screen and closes it with the session (``ui/live_demo.py``).
"""

from __future__ import annotations

import hashlib
import threading
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from cosmem_tui.core.demo.live_items import next_turn, patched_turn
from cosmem_tui.core.demo.manifest import DemoManifest
from cosmem_tui.model import Clock, JsonValue
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.sources.local.demo_writer import (
    BodyMaker,
    DemoWorkspaceWriter,
    LiveApplied,
    LiveBatch,
    LiveWrite,
)
from cosmem_tui.sources.local.keys import pk_text
from cosmem_tui.sources.simulated.rhythm import MINUTE_S, mix, unit
from cosmem_tui.sources.simulated.workload import Workload
from cosmem_tui.sources.simulated.writes import tenant_writes

# The sample of the telemetry's requests written into the workspace. The demo's account
# serves ~18 creates a second: written whole, the file would grow ~90 MB an hour.
# benchmarks/live_demo.py measures what this sample costs.
CREATES_PER_TURN = 80.0  # ~0.3 turns a second steady, ~1.5 in a burst
UPSERTS_PER_REPLACE = 400.0
DELETES_PER_DELETE = 400.0
PURGE_LAG_S = (20, 300)  # a TTL purge trails the expiry by this much (drawn per item)
MAX_PURGES_PER_TICK = 200  # a backlog (a demo reopened days later) goes over a few ticks
MAX_CATCH_UP_S = 60  # reopened later: only the last minute is written, not the gap

_SALT_COUNT, _SALT_SECOND, _SALT_THREAD, _SALT_DRAW = 0x11CE, 0x5EC0, 0x7EAD, 0xD7A3
_OPS = (
    (ChangeOp.CREATE, CREATES_PER_TURN),
    (ChangeOp.REPLACE, UPSERTS_PER_REPLACE),
    (ChangeOp.DELETE, DELETES_PER_DELETE),
)


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    at: int  # epoch seconds
    op: ChangeOp
    key: tuple[JsonValue, ...]  # the thread's partition key values
    tenant: int  # the tenant's index in the workload's key set
    draw: int  # the seed of its item's words and ids


def protected_keys(manifest: DemoManifest) -> frozenset[tuple[JsonValue, ...]]:
    """The planted threads, which the tests and the README point at: never written."""
    keys: set[tuple[JsonValue, ...]] = set()
    for planted in (manifest.malformed, manifest.hostile):
        if planted.get("tenant") and planted.get("thread"):
            keys.add((planted["tenant"], planted["thread"]))
    recall = manifest.recall
    for name in ("thread", "other_thread"):
        if recall.get("tenant") and recall.get(name):
            keys.add((recall["tenant"], recall[name]))
    return frozenset(keys)


class LivePlan:
    """What the simulated agents write in each minute: a function of (seed, minute)."""

    def __init__(
        self,
        workload: Workload,
        *,
        seed: int,
        protected: Iterable[tuple[JsonValue, ...]] = (),
    ) -> None:
        self.workload = workload
        self.seed = seed
        keys = workload.keys
        skip = set(protected)
        # Per tenant: its threads (key indices) and their cumulative weights.
        self._threads: list[list[int]] = []
        self._cumulative: list[list[float]] = []
        for members in keys.members:
            chosen = [i for i in members if keys.values[i] not in skip and keys.weights[i] > 0]
            total, running = 0.0, []
            for i in chosen:
                total += keys.weights[i]
                running.append(total)
            self._threads.append(chosen)
            self._cumulative.append(running)
        self._minutes: dict[int, tuple[PlannedWrite, ...]] = {}

    def minute(self, minute: int) -> tuple[PlannedWrite, ...]:
        """Every write of ``minute``, in time order."""
        kept = self._minutes.get(minute)
        if kept is not None:
            return kept
        planned: list[PlannedWrite] = []
        start = minute * MINUTE_S
        for served in tenant_writes(self.workload, minute):
            t = served.tenant
            if not self._threads[t]:
                continue
            for n, (op, per) in enumerate(_OPS):
                wanted = (served.creates, served.upserts, served.deletes)[n] / per
                count = int(wanted + unit(self.seed, _SALT_COUNT, n, t, minute))
                for k in range(count):
                    second = int(unit(self.seed, _SALT_SECOND, n, t, minute, k) * MINUTE_S)
                    pick = unit(self.seed, _SALT_THREAD, n, t, minute, k)
                    planned.append(
                        PlannedWrite(
                            start + second,
                            op,
                            self._thread(t, pick),
                            t,
                            mix(self.seed, _SALT_DRAW, n, t, minute, k),
                        )
                    )
        planned.sort(key=lambda w: (w.at, w.tenant, w.draw))
        found = tuple(planned)
        self._minutes[minute] = found
        while len(self._minutes) > 4:
            del self._minutes[next(iter(self._minutes))]
        return found

    def between(self, start: int, end: int) -> list[PlannedWrite]:
        """The writes due in (``start``, ``end``] (whole seconds)."""
        found: list[PlannedWrite] = []
        for minute in range((start + 1) // MINUTE_S, end // MINUTE_S + 1):
            found.extend(w for w in self.minute(minute) if start < w.at <= end)
        return found

    def _thread(self, tenant: int, pick: float) -> tuple[JsonValue, ...]:
        cumulative = self._cumulative[tenant]
        at = min(len(cumulative) - 1, bisect_right(cumulative, pick * cumulative[-1]))
        return tuple(self.workload.keys.values[self._threads[tenant][at]])


def purge_lag(seed: int, item_id: str) -> int:
    """Seconds between an item's expiry and its purge: the same for an item every time."""
    low, high = PURGE_LAG_S
    digest = int.from_bytes(hashlib.blake2b(item_id.encode(), digest_size=8).digest(), "big")
    return low + mix(seed, digest) % (high - low + 1)


def _maker(write: PlannedWrite) -> BodyMaker | None:
    """How the writer makes the item of a create or a replace (a delete needs none)."""
    if write.op is ChangeOp.CREATE:
        return partial(next_turn, tenant=write.key[0], thread=write.key[-1], draw=write.draw)
    if write.op is ChangeOp.REPLACE:
        return partial(patched_turn, draw=write.draw)
    return None


class LiveDemo:
    """The demo's live workload over its own workspace (see the module docstring).

    ``step`` runs one tick (call it off the event loop; ``tick`` does); ``close`` waits
    for a tick in progress, so a transaction is either committed or never begun.
    """

    def __init__(
        self,
        writer: DemoWorkspaceWriter,
        workload: Callable[[], Workload],
        *,
        clock: Clock,
        manifest: DemoManifest,
        seed: int,
        refresh: Callable[[str, str], None] | None = None,
    ) -> None:
        self._writer = writer
        self._workload = workload
        self._clock = clock
        self._manifest = manifest
        self._seed = seed
        self._refresh = refresh
        self._plan: LivePlan | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.ticks = 0
        self.written: Counter[ChangeOp] = Counter()

    @property
    def closed(self) -> bool:
        return self._closed

    def plan(self) -> LivePlan:
        if self._plan is None:
            self._plan = LivePlan(
                self._workload(), seed=self._seed, protected=protected_keys(self._manifest)
            )
        return self._plan

    def step(self) -> LiveApplied | None:
        """Write what is due up to now, in one transaction (None: nothing was due)."""
        with self._lock:
            if self._closed:
                return None
            now = int(self._clock.now())
            through = self._writer.begin_live(now)
            start = max(through, now - MAX_CATCH_UP_S)
            if now <= start:
                return None
            plan = self.plan()
            batch = LiveBatch(
                start=start,
                end=now,
                writes=[LiveWrite(w.at, w.op, w.key, _maker(w)) for w in plan.between(start, now)],
                purge_lag=partial(purge_lag, self._seed),
                purge_floor=self._manifest.anchor,
                min_lag=PURGE_LAG_S[0],
                max_purges=MAX_PURGES_PER_TICK,
                protected=protected_keys(self._manifest),
            )
            applied = self._writer.apply(batch)
            self.ticks += 1
            for change in applied.changes:
                self.written[change.op] += 1
                if self._refresh is not None:
                    self._refresh(pk_text(change.key), change.item_id)
            return applied

    def close(self) -> None:
        """Stop for good: after the tick in progress, if any (never inside one)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._writer.close()
