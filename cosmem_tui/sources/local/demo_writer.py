"""The handle the demo's live workload writes its own workspace through, and no other file.

The console never writes a user's workspace or an account unasked; the demo is the one
file it owns (built from the seed in the user data dir). While the demo is on screen its
simulated agents (``core/demo/live.py``) write turns into it, and this is the only way
they can: ``DemoWorkspaceWriter.open`` refuses a file that is not a demo build (no
``demo_manifest``), one whose derived columns were made for another schema, and a WAL
file (its readers open it ``immutable`` and would never see a write).

A tick is one transaction of the change log (``WorkspaceWriter.changes``): every item
write due since the last tick, each with its change row, committed at the tick's time
(a second, in the console), and how far the workload has written (``live_through``),
so an interrupted tick leaves all of it or none, and two consoles on one demo never
write the same second twice. These are the simulated account's own writes, not the
console's requests: they are not in the session's request ledger (the simulated
telemetry counts them) and need no ``--allow-writes``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cosmem_tui.model import JsonValue
from cosmem_tui.model.changes import ChangeOp
from cosmem_tui.schemas import FieldPath, Schema, SchemaError, get_schema
from cosmem_tui.sources.errors import Conflict, NotFound, WorkspaceError
from cosmem_tui.sources.local.change_log import ChangeBatch
from cosmem_tui.sources.local.keys import pk_text, schema_signature
from cosmem_tui.sources.local.workspace_writer import WorkspaceWriter
from cosmem_tui.sources.query_texts import load_query

TAIL_ITEMS = 4  # a thread's newest items handed to a create (its index, its retention)
PURGE_SCAN_AHEAD_S = 60  # the purge candidates are read for this far ahead, once a minute

Body = dict[str, JsonValue]
# From a thread's newest visible items (newest first) and the write's time: the item to
# store (a create: a new item; a replace: the new version of the first), or None to skip.
BodyMaker = Callable[[Sequence[Mapping[str, JsonValue]], int], Body | None]


class NotTheDemo(WorkspaceError):
    """A file the live workload must not write: only the demo's own workspace."""


@dataclass(frozen=True, slots=True)
class LiveWrite:
    at: int  # epoch seconds: when the simulated agent writes
    op: ChangeOp  # CREATE, REPLACE or DELETE
    key: tuple[JsonValue, ...]  # the partition key values of its thread
    make: BodyMaker | None = None  # a create's or a replace's new body


@dataclass(frozen=True)
class LiveBatch:
    """One tick: the writes due in (``start``, ``end``] and the purges due by ``end``."""

    start: int
    end: int
    writes: Sequence[LiveWrite]
    purge_lag: Callable[[str], int]  # seconds between an item's expiry and its purge, by id
    purge_floor: int  # expiries at or before it are left as they are (the demo's own past)
    min_lag: int  # no purge lag is shorter (the candidates' query bound)
    max_purges: int  # at most this many a tick: a backlog is purged over the next ones
    protected: frozenset[tuple[JsonValue, ...]] = frozenset()  # keys never written


@dataclass(frozen=True, slots=True)
class LiveChange:
    op: ChangeOp
    at: int  # its commit time
    item_id: str
    key: tuple[JsonValue, ...]


@dataclass
class LiveApplied:
    """What a batch wrote, in commit order (empty when another console had written it)."""

    through: int | None
    changes: list[LiveChange] = field(default_factory=list)


class DemoWorkspaceWriter(WorkspaceWriter):
    """``mode=rw`` on the demo workspace only (see the module docstring)."""

    _schema: Schema
    _pk_paths: tuple[FieldPath, ...]
    _scanned_to: int | None = None  # the purge candidates are known up to this expiry
    _pending: list[tuple[int, str, str]]  # (purge time, pk, id), soonest first

    @classmethod
    def open_demo(cls, path: Path) -> DemoWorkspaceWriter:
        writer = cls.open(path)
        assert isinstance(writer, DemoWorkspaceWriter)
        try:
            writer._check_demo()
        except BaseException:
            writer.close()
            raise
        return writer

    def _check_demo(self) -> None:
        if not self.meta("demo_manifest") or not self.meta("demo_generation"):
            raise NotTheDemo(
                f"{self.path} is not the demo workspace: the live workload writes only there"
            )
        name = self.meta("schema") or ""
        try:
            schema = get_schema(name)
        except SchemaError:
            raise NotTheDemo(f"{self.path}: its schema {name!r} is not a built-in one") from None
        if self.meta("derived_for") != schema_signature(schema):
            raise NotTheDemo(f"{self.path}: its keys were not derived for schema {name!r}")
        if not self.logs_changes:
            raise NotTheDemo(f"{self.path} predates the change log: cosmem demo --reset")
        self._schema = schema
        self._pending = []
        self._pk_paths = tuple(FieldPath.parse(p) for p in self.container.partition_key.paths)

    def live_through(self) -> int | None:
        """How far the workload has written (None: it never ran on this file)."""
        value = self.meta("live_through")
        return int(value) if value is not None and value.lstrip("-").isdigit() else None

    def begin_live(self, at: int) -> int:
        """Start the workload's clock at ``at`` unless it has one; the one in effect."""
        through = self.live_through()
        if through is not None:  # read without a transaction: a tick writes only when due
            return through
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                through = self.live_through()
                if through is None:
                    self._db.execute(load_query("local", "live_through"), {"through": str(at)})
                    through = at
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return through

    def apply(self, batch: LiveBatch) -> LiveApplied:
        """Every write and purge due in the batch, in one transaction of the change log
        (``WorkspaceWriter.changes``): each item write with its change row, at the
        batch's end (a tick is a second in the console), and ``live_through``."""
        with self.changes(self._schema, batch.end) as log:
            applied = self._apply(batch, log)
        return applied

    # -- inside the transaction -------------------------------------------------------------

    def _apply(self, batch: LiveBatch, log: ChangeBatch) -> LiveApplied:
        through = self.live_through()
        if through is None or through >= batch.end:
            return LiveApplied(None)  # not started, or another console wrote this span
        floor = max(batch.start, through)
        protected = {pk_text(key) for key in batch.protected}
        applied = LiveApplied(batch.end)
        for pk, item_id in self._purges(batch, protected):
            try:
                log.purge(tuple(json.loads(pk)), item_id)
            except (NotFound, Conflict):  # deleted, or written again (not expired) since
                continue
        for write in batch.writes:
            if floor < write.at <= batch.end and pk_text(write.key) not in protected:
                self._write(write, log, batch.end)
        applied.changes = [
            LiveChange(done.op, log.crts, done.item_id, done.partition_key) for done in log.written
        ]
        self._db.execute(load_query("local", "live_through"), {"through": str(batch.end)})
        return applied

    def _purges(self, batch: LiveBatch, protected: set[str]) -> list[tuple[str, str]]:
        """(pk, id) of each item that expired since ``purge_floor`` whose lag has passed.

        The candidates are read once a minute (``PURGE_SCAN_AHEAD_S``: one pass over the
        items), not every tick; one that was replaced or deleted since is skipped."""
        until = batch.end - batch.min_lag
        if self._scanned_to is None or until > self._scanned_to:
            limit = batch.max_purges * 4
            rows = self._db.execute(
                load_query("local", "live_purge_candidates"),
                {"floor": batch.purge_floor, "until": until + PURGE_SCAN_AHEAD_S, "limit": limit},
            ).fetchall()
            self._pending = sorted(
                (int(expires_at) + max(batch.min_lag, batch.purge_lag(item_id)), pk, item_id)
                for pk, item_id, expires_at in rows
                if pk not in protected
            )
            # A backlog longer than the limit: read on from the last expiry next tick.
            full = len(rows) == limit
            self._scanned_to = int(rows[-1][2]) - 1 if full else until + PURGE_SCAN_AHEAD_S
        due = [(pk, item_id) for at, pk, item_id in self._pending if at <= batch.end]
        due = due[: batch.max_purges]
        self._pending = self._pending[len(due) :] if due else self._pending
        return due

    def _tail(self, pk: str, at: int, limit: int) -> list[Body]:
        rows = self._db.execute(
            load_query("local", "live_thread_tail"), {"pk": pk, "now": at, "limit": limit}
        ).fetchall()
        return [json.loads(body) for (body,) in rows]

    def _write(self, write: LiveWrite, log: ChangeBatch, now: int) -> None:
        pk = pk_text(write.key)
        if write.op is ChangeOp.DELETE:
            row = self._db.execute(
                load_query("local", "live_oldest_expiring"), {"pk": pk, "now": now}
            ).fetchone()
            if row is not None:
                log.delete(write.key, str(row[0]))
            return
        assert write.make is not None
        tail = self._tail(pk, now, TAIL_ITEMS if write.op is ChangeOp.CREATE else 1)
        if write.op is ChangeOp.REPLACE and not tail:
            return
        body = write.make(tail, now)
        if body is None:
            return
        if write.op is ChangeOp.CREATE:
            log.create(body)
        else:
            log.replace(body)
