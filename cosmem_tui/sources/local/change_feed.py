"""``read_changes`` on a local workspace: its change log read as Cosmos reads a change feed.

Both modes read the ``changes`` table (``change_log.py``) after a position (an lsn):

* **latest version**: each item's current version once, where it was last written, and
  no removals (``ChangeOp.WRITE``, commit time = its ``_ts``); starts now, at a time or
  from the beginning;
* **all versions and deletes**: every create, replace, delete and TTL purge within the
  retention window, with ``crts`` and the previous change's lsn; starts only now or from
  a continuation.

A scope is an indexed column (the tenant's key, the thread's keys); a read is one
modelled request charged like a query of its scope, admitted by the budget first (as
background work by default: a tail's poll stops quietly at the budget).

The continuation is the lsn read up to, with the mode it belongs to. A short page
carries it to the log's head as it was *before* the page was read: every change up to
there was visible to the read, and a later one gets a higher lsn, so resuming loses
and repeats nothing, whatever is written meanwhile.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Final

from cosmem_tui.model import Clock, Scope
from cosmem_tui.model.changes import (
    MAX_CHANGES_PER_READ,
    Change,
    ChangeOp,
    ChangePage,
    FeedMode,
    FeedStart,
    FeedUnavailable,
    StartKind,
)
from cosmem_tui.model.lifecycle import ScopeLevel, TtlScope
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.changes import removal_change, version_change
from cosmem_tui.sources.errors import BadRequest, WorkspaceError
from cosmem_tui.sources.local import change_log, lifecycle
from cosmem_tui.sources.local.charge import feed_charge
from cosmem_tui.sources.local.workspace import Workspace
from cosmem_tui.sources.request_ledger import RequestLedger

OPERATION: Final = "change-feed"  # the name the Cosmos store records
_TOKEN: Final = "F1."
_EARLIEST: Final = -(2**63)
_REMOVAL_BYTES: Final = 96  # a delete's entry on the wire: id, key and metadata
_QUERIES: Final = {
    ScopeLevel.CONTAINER: "changes_container",
    ScopeLevel.TENANT: "changes_tenant",
    ScopeLevel.THREAD: "changes_thread",
}
PREDATES: Final = "this workspace predates the change log"
REBUILD: Final = "rebuild it (cosmem demo --reset for the demo, or cosmem import it again)"


def encode_continuation(mode: FeedMode, lsn: int) -> str:
    raw = json.dumps([mode.value, lsn], separators=(",", ":"))
    return _TOKEN + base64.urlsafe_b64encode(raw.encode("ascii")).decode("ascii")


def decode_continuation(token: str, mode: FeedMode) -> int:
    try:
        if not token.startswith(_TOKEN):
            raise ValueError("not a change feed continuation")
        name, lsn = json.loads(base64.urlsafe_b64decode(token[len(_TOKEN) :].encode("ascii")))
        if not isinstance(lsn, int) or isinstance(lsn, bool) or lsn < 0:
            raise ValueError("bad position")
    except (ValueError, binascii.Error, TypeError, UnicodeError) as exc:
        raise BadRequest(f"invalid change feed continuation ({exc})") from None
    if name != mode.value:
        raise BadRequest(f"this continuation belongs to the {name} feed, not the {mode.value} one")
    return lsn


@dataclass(frozen=True, slots=True)
class _Read:
    rows: list[tuple[Any, ...]]
    continuation: int
    retained_since: int | None


class LocalChangeFeed:
    """Reads one workspace's change log for ``LocalStore`` (same schema, ledger, clock)."""

    def __init__(
        self,
        workspace: Workspace,
        schema: Schema,
        ledger: RequestLedger,
        clock: Clock,
        *,
        thread_scope: Scope,
        physical_partitions: int,
    ) -> None:
        self._workspace = workspace
        self._schema = schema
        self._ledger = ledger
        self._clock = clock
        self._thread_scope = thread_scope
        self._physical_partitions = physical_partitions
        self._retention_s = change_log.retention_of(workspace.meta(change_log.RETENTION_META))
        started = workspace.meta(change_log.LOG_STARTED_META)
        self._log_started = int(started) if started else None

    def retained_since(self, now: int) -> int:
        """The oldest commit the history still holds: the window, or the log's start."""
        since = now - self._retention_s
        return since if self._log_started is None else max(since, self._log_started)

    async def read(
        self,
        scope: TtlScope,
        *,
        mode: FeedMode,
        start: FeedStart | None,
        continuation: str | None,
        max_items: int,
        background: bool,
    ) -> ChangePage:
        if max_items < 1:
            raise ValueError(f"a change feed read returns at least 1 change, not {max_items}")
        limit = min(max_items, MAX_CHANGES_PER_READ)
        if continuation is not None:
            after: int | None = decode_continuation(continuation, mode)
            start = None
        else:
            after = None
            start = start or FeedStart.now()
            if not start.allowed_in(mode):
                raise ValueError(
                    f"the {mode.value} feed starts only from now or a continuation, "
                    f"not {start.describe()}"
                )
        if not self._workspace.keeps_change_log:
            raise FeedUnavailable(mode, PREDATES, REBUILD)
        if scope.level is not ScopeLevel.CONTAINER and self._workspace.keys_are_shadowed:
            raise FeedUnavailable(
                mode,
                "this workspace's change log is keyed for the schema it was built with, "
                f"not {self._schema.name}: only the whole container's feed can be read",
                f"import it again with the schema {self._schema.name}",
            )
        params = lifecycle.scope_parameters(self._schema, scope)
        request_scope = lifecycle.scope_of_request(scope.level, self._thread_scope)
        target = f"{mode.value} changes of {scope.describe(self._schema.tenant_label)}"
        await self._ledger.admit(OPERATION, target, background=background)
        async with self._ledger.request(
            OPERATION, request_scope, target=target, background=background
        ) as ticket:
            read = await asyncio.to_thread(
                self._fetch, _QUERIES[scope.level], params, mode, start, after, limit
            )
            returned_bytes = sum(
                len(r[6].encode("utf-8")) if r[6] is not None else _REMOVAL_BYTES for r in read.rows
            )
            ticket.items = len(read.rows)
            ticket.charge(
                feed_charge(
                    request_scope,
                    returned_bytes=returned_bytes,
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
            charge = ticket.request_units
        share = round(charge / len(read.rows), 4) if read.rows else 0.0
        changes = tuple(self._change(row, mode, share) for row in read.rows)
        return ChangePage(
            changes,
            encode_continuation(mode, read.continuation),
            mode,
            not_modified=not changes,
            request_units=charge,
            retained_since=read.retained_since,
        )

    def _fetch(
        self,
        name: str,
        params: dict[str, Any],
        mode: FeedMode,
        start: FeedStart | None,
        after: int | None,
        limit: int,
    ) -> _Read:
        """In a worker thread: the log's head first, then the page after the position."""
        head = self._workspace.query("change_head", {})
        head_lsn = int(head[0][0]) if head else 0
        retained = self.retained_since(int(self._clock.now()))
        since = retained if mode is FeedMode.ALL_VERSIONS else _EARLIEST
        if after is None:
            assert start is not None
            if start.kind is StartKind.BEGINNING:
                after = 0
            elif start.kind is StartKind.TIME and start.at is not None:
                first = self._workspace.query("change_first_at", {"at": start.at})
                after = int(first[0][0]) - 1 if first else head_lsn
                since = max(since, start.at)
            else:
                after = head_lsn
        rows = self._workspace.query(
            name,
            {
                **params,
                "after": after,
                "since": since,
                "latest": 1 if mode is FeedMode.LATEST else 0,
                "limit": limit,
            },
        )
        if len(rows) == limit:
            position = int(rows[-1][0])
        else:  # all the log held up to its head was read: resume from there
            position = max(after, head_lsn, int(rows[-1][0]) if rows else 0)
        return _Read(rows, position, retained)

    def _change(self, row: tuple[Any, ...], mode: FeedMode, share: float) -> Change:
        lsn, op_text, pk_json, item_id, crts, previous, body = row
        partition_key = tuple(json.loads(pk_json))
        op = ChangeOp(op_text)
        if op.removes:
            return removal_change(
                self._schema,
                item_id,
                partition_key,
                lsn=lsn,
                commit_time=crts,
                ttl_expired=op is ChangeOp.EXPIRED,
                previous_lsn=previous,
                request_units=share,
            )
        if body is None:  # a build's create whose item went without the log: never skipped
            raise WorkspaceError(
                f"{self._workspace.path}: change {lsn} of item {item_id!r} lost its version"
            )
        latest = mode is FeedMode.LATEST
        return version_change(
            self._schema,
            json.loads(body),
            lsn=lsn,
            op=ChangeOp.WRITE if latest else op,
            commit_time=None if latest else crts,
            partition_key=partition_key,
            previous_lsn=None if latest else previous,
            request_units=share,
        )
