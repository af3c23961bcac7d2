"""The change feed of a Cosmos container: ``CosmosStore.read_changes``.

One read is one call per *part* of the scope, each through the store's runner (budget,
hold-off, deadline, one ledger record per HTTP response), at Low priority:

* a thread: its full partition key (one logical partition);
* a tenant: its key prefix (hierarchical keys) or its key (a tenant-keyed container);
  a tenant that is not the key's first level has no feed of its own, so it is read
  like the container and filtered;
* the container: every feed range (physical partition), a fan-out each part of which
  is admitted on its own, like the other container-wide reads (read side by side, as
  many at once as the runner lets background calls go).

The SDK (azure-cosmos 4.17.1, ``query_items_change_feed``) keeps each part's position
as its own base64 continuation — the etag of each physical range it covers, following
splits itself. The store's continuation wraps those, with the mode and the scope, in an
opaque token of its own. Each read merges the parts' pages in commit order (time,
then LSN) and settles a page it handed out only in part (``_settle``), so a tail loses
and repeats nothing. A part that answered 304 for every range it covers is
*not modified*; the read is ``not_modified`` when every part was. What the service
answers is always checked against the scope: a version outside it is not the scope's
(the npm peer cannot scope a feed by key, see ``tests/peer``).

All-versions-and-deletes mode starts only now or from a continuation; a container
without it answers 400, which becomes ``FeedUnavailable`` with ``ALL_VERSIONS_FIX``
(the same fix ``cosmem doctor`` names in ``feed.all_versions``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import JsonValue, Scope
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
from cosmem_tui.model.keys import InvalidKey
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.schemas import FieldPath, SchemaError
from cosmem_tui.sources.changes import (
    body_of_partition_key,
    in_scope,
    ref_of_body,
    removal_change,
    version_change,
)
from cosmem_tui.sources.cosmos.calls import Route
from cosmem_tui.sources.cosmos.feed_merge import FeedRow, PartRead, all_of, merge, part_page
from cosmem_tui.sources.cosmos.feed_modes import ALL_VERSIONS_FIX, RETENTION_FIX
from cosmem_tui.sources.cosmos.feed_position import (
    FeedPart,
    FeedPosition,
    int_or_none,
    resumable,
    scope_key,
)
from cosmem_tui.sources.cosmos.store_part import StorePart
from cosmem_tui.sources.errors import BadRequest

if TYPE_CHECKING:
    from cosmem_tui.sources.cosmos.calls import CosmosCalls

OPERATION = "change-feed"
PRIORITY = "Low"  # a tail is background work: it yields to the application


class ChangeFeedReads(StorePart):
    """The change feed half of ``CosmosStore`` (a mixin: it uses the store's runner)."""

    if TYPE_CHECKING:  # provided by CosmosStore
        _calls: CosmosCalls

    async def read_changes(
        self,
        scope: TtlScope,
        *,
        mode: FeedMode,
        start: FeedStart | None = None,
        continuation: str | None = None,
        max_items: int = 100,
        background: bool = True,
    ) -> ChangePage:
        if max_items < 1:
            raise ValueError(f"max_items must be at least 1, got {max_items}")
        limit = min(max_items, MAX_CHANGES_PER_READ)
        await self._ready()
        key = scope_key(scope)
        if continuation is not None:
            position = FeedPosition.decode(continuation)
            if position.mode is not mode:
                raise ValueError(
                    f"the continuation is of the {position.mode.value} mode, not {mode.value}"
                )
            if position.scope != key:
                raise ValueError("the continuation belongs to another scope")
        else:
            start = start or FeedStart.now()
            if not start.allowed_in(mode):
                raise ValueError(
                    "the all-versions-and-deletes change feed starts only now or from a "
                    f"continuation, not {start.describe()}"
                )
            parts = [FeedPart(route, None) for route in await self._feed_parts(scope, background)]
            position = FeedPosition(mode, key, start, parts)
        return await self._read_position(scope, position, limit, background)

    async def _feed_parts(self, scope: TtlScope, background: bool) -> list[Route]:
        schema = self._schema
        if scope.thread is not None:
            values = schema.partition_key_for(scope.thread)
            return [Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))]
        if scope.tenant is not None:
            if not schema.has_tenant_level:
                raise SchemaError(f"schema {schema.name} has no {schema.tenant_label}s")
            route = self._tenant_route(scope.tenant)
            if route is not None:
                return [route]
        ranges = await self._calls.feed_ranges(background=background)
        return [Route(Scope.RANGE, feed_range=r) for r in ranges]

    async def _read_position(
        self, scope: TtlScope, position: FeedPosition, limit: int, background: bool
    ) -> ChangePage:
        """Every part is read (a start from now must be taken by all at once: a part
        first read later would start later, and lose what was written between), then
        their pages are merged in commit order and the first ``limit`` handed out. A part
        whose page was handed out whole moves on; one handed out in part is settled
        (``_settle``)."""
        queues: list[list[FeedRow]] = []
        page_size = part_page(limit, len(position.parts))
        # The parts are read side by side (the runner lets two background calls go at
        # once). A page handed out in part is read again: ask for what went out too,
        # so what follows it is a whole page.
        reads = await all_of(
            self._read_part(
                position,
                part,
                page_size + (part.skipped if part.skip is not None else 0),
                background,
            )
            for part in position.parts
        )
        for part, read in zip(position.parts, reads, strict=True):
            share = read.request_units / len(read.rows) if read.rows else 0.0
            queue = []
            for raw in read.rows:
                row = self._row_of(position.mode, raw, share)
                if part.skip is not None and row.lsn <= part.skip:
                    continue  # handed out by an earlier read of this same page
                if not self._row_in_scope(position.mode, row, scope):
                    row = FeedRow(None, row.lsn, row.commit_time)  # used up, never handed out
                queue.append(row)
            queues.append(queue)
        picked, consumed = merge(queues, reads, limit)
        # Records only for what is handed out: the rest of a page may be read again.
        taken = [c for c in (self._change_of(position.mode, r) for r in picked) if c is not None]
        settled = 0.0  # what reading partly handed-out pages again cost
        for index, part in enumerate(position.parts):
            read, used = reads[index], consumed[index]
            if used == len(queues[index]):  # the whole page is out: move on
                part.token, part.skip, part.skipped = read.token, None, 0
            elif used:  # only its start is out
                count = len(read.rows) - len(queues[index]) + used
                last = queues[index][used - 1].lsn
                settled += await self._settle(position, part, read, count, last, background)
        return ChangePage(
            changes=tuple(taken),
            continuation=position.encode(),
            mode=position.mode,
            not_modified=all(r.not_modified for r in reads),
            request_units=sum(r.request_units for r in reads) + settled,
        )

    async def _settle(
        self,
        position: FeedPosition,
        part: FeedPart,
        read: PartRead,
        count: int,
        last: int,
        background: bool,
    ) -> float:
        """A page handed out in part: its first ``count`` rows went out. Read just those
        again, for the position right after them; if they are not the same rows any
        more (in latest-version mode an item written again moves on), the part keeps its
        position and skips what went out (``skip``) when it reads the page again."""
        expected = [self._row_of(position.mode, r, 0.0).lsn for r in read.rows[:count]]
        again = await self._read_part(position, part, count, background)
        got = [self._row_of(position.mode, r, 0.0).lsn for r in again.rows]
        if got == expected and again.token is not None:
            part.token, part.skip, part.skipped = again.token, None, 0
        else:
            part.skip, part.skipped = last, count
        return again.request_units

    async def _read_part(
        self, position: FeedPosition, part: FeedPart, page_size: int, background: bool
    ) -> PartRead:
        container: Any = self._calls.container  # the SDK's overloads cannot type **options
        seen: list[tuple[Mapping[str, Any], bool]] = []  # each answer: headers, 304?

        def hook(headers: Mapping[str, Any], body: Any) -> None:
            # The SDK hands the headers object it then rewrites: its "etag" ends as the
            # part's whole base64 continuation. A 304 has no body.
            seen.append((headers, body is None))

        options: dict[str, Any] = {
            "max_item_count": page_size,
            "priority": PRIORITY,
            "response_hook": hook,
        }
        if part.token is not None:
            options["continuation"] = part.token
        else:
            options.update(part.route.options())
            options["mode"] = position.mode.wire_name
            options["start_time"] = _start_time(position.start)

        async def send() -> list[dict[str, Any]]:
            pages: Any = container.query_items_change_feed(**options).by_page()
            try:
                page = await pages.__anext__()
            except StopAsyncIteration:
                return []
            return [dict(row) async for row in page]

        target = self._part_target(part)
        try:
            with self.ledger.meter() as cost:
                rows = await self._calls.call(
                    OPERATION, part.route.scope, target, send, background=background
                )
        except BadRequest as exc:
            if position.mode is FeedMode.ALL_VERSIONS:
                raise self._unavailable(part, str(exc)) from None
            raise
        token = None
        for headers, _ in reversed(seen):
            etag = headers.get("etag")
            if isinstance(etag, str) and etag:
                token = etag
                break
        if token is None:  # no answer carried a position: keep the old one
            token = part.token
        elif position.start.kind is StartKind.TIME:
            token = resumable(token)
        not_modified = bool(seen) and all(empty for _, empty in seen) and not rows
        return PartRead(rows, token, not_modified, cost.request_units, len(rows) >= page_size)

    def _unavailable(self, part: FeedPart, said: str) -> FeedUnavailable:
        if part.token is not None:
            return FeedUnavailable(
                FeedMode.ALL_VERSIONS,
                "the service refused to resume the all-versions-and-deletes change feed "
                f"({said}): the saved position is older than the retention window, or the "
                "mode was turned off",
                RETENTION_FIX + "; if it is refused again, " + ALL_VERSIONS_FIX,
            )
        return FeedUnavailable(
            FeedMode.ALL_VERSIONS,
            f"this container does not offer the all-versions-and-deletes change feed ({said}); "
            "deletes and TTL expiries are not visible",
            ALL_VERSIONS_FIX,
        )

    def _part_target(self, part: FeedPart) -> str:
        route = part.route
        if route.feed_range is not None:
            raw = route.feed_range.get("Range", route.feed_range)
            lo = raw.get("min", "") if isinstance(raw, Mapping) else ""
            hi = raw.get("max", "") if isinstance(raw, Mapping) else ""
            return f"change feed · feed range [{lo}, {hi})"
        return f"change feed · partition key {json.dumps(route.partition_key)}"

    # -- what the feed returned, as records ------------------------------------------------

    def _row_of(self, mode: FeedMode, row: Mapping[str, Any], share: float) -> FeedRow:
        """Where a returned document sits in the feed (LSN, commit time), before any
        record is built of it."""
        if mode is FeedMode.LATEST:
            ts = int_or_none(row.get("_ts")) or 0
            return FeedRow(row, int_or_none(row.get("_lsn")) or 0, ts, share)
        meta = row.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        return FeedRow(
            row, int_or_none(meta.get("lsn")) or 0, int_or_none(meta.get("crts")) or 0, share
        )

    def _row_in_scope(self, mode: FeedMode, row: FeedRow, scope: TtlScope) -> bool:
        """Is the document the scope's? (The npm peer answers a key's feed unscoped.)
        The mode says what the document is: an item's own fields never do."""
        if scope.tenant is None and scope.thread is None:
            return True
        body = row.body
        if body is None:
            return False
        schema = self._schema
        try:
            if mode is FeedMode.LATEST:
                ref = ref_of_body(schema, body)
            else:
                meta = body.get("metadata")
                current = body.get("current")
                if isinstance(current, Mapping):
                    ref = ref_of_body(schema, current)
                elif isinstance(meta, Mapping):
                    key = self._deleted_key(meta.get("partitionKey"))
                    ref = ref_of_body(schema, body_of_partition_key(schema, key))
                else:
                    return False
        except InvalidKey:
            return False
        probe = Change(row.lsn, ChangeOp.WRITE, row.commit_time, "", ref, ())
        return in_scope(probe, scope.tenant, scope.thread)

    def _change_of(self, mode: FeedMode, picked: FeedRow) -> Change | None:
        schema = self._schema
        row, share = picked.body, picked.share
        if row is None:
            return None
        if mode is FeedMode.LATEST:
            lsn = int_or_none(row.get("_lsn"))
            item = self._item(row)
            return version_change(
                schema,
                row,
                lsn=lsn if lsn is not None else 0,
                op=ChangeOp.WRITE,
                partition_key=item.partition_key,
                request_units=share,
            )
        meta = row.get("metadata")
        if not isinstance(meta, Mapping):
            return None
        lsn = int_or_none(meta.get("lsn")) or 0
        crts = int_or_none(meta.get("crts"))
        previous = int_or_none(meta.get("previousImageLSN"))
        operation = str(meta.get("operationType", "")).lower()
        if operation == "delete":
            key = self._deleted_key(meta.get("partitionKey"))
            return removal_change(
                schema,
                str(meta.get("id", "")),
                key,
                lsn=lsn,
                commit_time=crts or 0,
                ttl_expired=meta.get("timeToLiveExpired") is True,
                previous_lsn=previous,
                request_units=share,
            )
        current = row.get("current")
        if not isinstance(current, Mapping):
            return None
        op = ChangeOp.CREATE if operation == "create" else ChangeOp.REPLACE
        return version_change(
            schema,
            current,
            lsn=lsn,
            op=op,
            commit_time=crts,
            partition_key=self._item(current).partition_key,
            previous_lsn=previous,
            request_units=share,
        )

    def _deleted_key(self, raw: Any) -> tuple[JsonValue, ...]:
        """A delete's partition key: a map of each key property's name to its value
        (every level of a hierarchical key), in the container's path order."""
        paths = self._schema.partition_key
        if isinstance(raw, list):
            return tuple(raw)
        if not isinstance(raw, Mapping):
            return (raw,) if raw is not None else ()
        values: list[JsonValue] = []
        for text in paths:
            path = FieldPath.parse(text)
            for name in (text, text.lstrip("/"), str(path.parts[-1])):
                if name in raw:
                    values.append(raw[name])
                    break
            else:
                return tuple(raw.values())
        return tuple(values)


def _start_time(start: FeedStart) -> Any:
    if start.kind is StartKind.BEGINNING:
        return "Beginning"
    if start.kind is StartKind.TIME:
        assert start.at is not None
        return datetime.fromtimestamp(start.at, tz=UTC)
    return "Now"
