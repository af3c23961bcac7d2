"""The MemoryStore over a local workspace (SQLite), with Cosmos semantics.

SQLite work runs in a worker thread (``asyncio.to_thread``) so the UI's event
loop never waits on disk. Every call passes the request ledger with a modelled charge.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from cosmem_tui.model import (
    Clock,
    ContainerProperties,
    Item,
    ItemShape,
    Key,
    KeyCounts,
    KeyPage,
    Page,
    Scope,
    SystemClock,
    Thread,
    ThreadRef,
    TtlClass,
)
from cosmem_tui.model.changes import ChangePage, FeedMode, FeedStart
from cosmem_tui.model.lifecycle import ScopeLevel, TtlItems, TtlScope, TtlSelection, TtlSummary
from cosmem_tui.model.recall import ItemLookup, ProbeMode, RecallAnswer, RecallHit, RecallQuery
from cosmem_tui.schemas import Granularity, Schema, SchemaError
from cosmem_tui.sources.errors import BadRequest, NotFound
from cosmem_tui.sources.item_ids import check_item_id
from cosmem_tui.sources.local import lifecycle, vector_table
from cosmem_tui.sources.local import recall as probes
from cosmem_tui.sources.local.change_feed import LocalChangeFeed
from cosmem_tui.sources.local.charge import (
    DEFAULT_PHYSICAL_PARTITIONS,
    point_read_charge,
    query_charge,
)
from cosmem_tui.sources.local.keys import pk_text, sqlite_json_path
from cosmem_tui.sources.local.workspace import Workspace
from cosmem_tui.sources.request_ledger import RequestLedger, RequestTicket
from cosmem_tui.sources.shapes import shape_of, shape_spec
from cosmem_tui.sources.store import DEFAULT_PAGE_SIZE, check_page_size, check_ttl_list
from cosmem_tui.sources.text_search import check_search_text, item_matches

_SYSTEM_PROPERTIES = ("_ts", "_etag")
_SEARCH_BATCH = 200  # rows a search reads from SQLite at a time (never the whole thread)
_SHAPE_BYTES = 160  # what one projected item shape weighs on the wire (modelled charge)
_HIT_BYTES = 120  # one recall hit: id, thread key paths and a score (never the embedding)


def _encode_position(rank: int, value: Any, item_id: str) -> str:
    raw = json.dumps([rank, value, item_id], ensure_ascii=False, separators=(",", ":"))
    return "L1." + base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii")


def _decode_position(token: str) -> tuple[int, Any, str]:
    try:
        if not token.startswith("L1."):
            raise ValueError("unknown version")
        rank, value, item_id = json.loads(base64.urlsafe_b64decode(token[3:].encode("ascii")))
        if not isinstance(rank, int) or not isinstance(item_id, str):
            raise ValueError("bad position")
        return rank, value, item_id
    except (ValueError, binascii.Error, TypeError) as exc:
        raise BadRequest(f"invalid continuation token ({exc})") from None


class LocalStore:
    """Reads a workspace. Exposes no write operations: the console is read-only."""

    def __init__(
        self,
        workspace: Workspace,
        schema: Schema | None,
        *,
        ledger: RequestLedger | None = None,
        clock: Clock | None = None,
        label: str | None = None,
    ) -> None:
        self._workspace = workspace
        self._ledger = ledger or RequestLedger()
        self._clock = clock or SystemClock()
        self._label = label or f"workspace {workspace.path}"
        # None: a probe that may only sample items, to detect the schema before choosing it.
        self._schema_or_none = schema
        self._projection = schema.list_projection() if schema is not None else ()
        partitions = workspace.meta("physical_partitions")
        self._physical_partitions = int(partitions) if partitions else DEFAULT_PHYSICAL_PARTITIONS

    @classmethod
    def open(
        cls,
        path: Path,
        schema: Schema,
        *,
        ledger: RequestLedger | None = None,
        clock: Clock | None = None,
        label: str | None = None,
    ) -> LocalStore:
        workspace = Workspace.open(path)
        try:
            workspace.derive_for(schema)
        except BaseException:
            workspace.close()
            raise
        return cls(workspace, schema, ledger=ledger, clock=clock, label=label)

    @property
    def schema(self) -> Schema:
        return self._schema

    @property
    def _schema(self) -> Schema:
        if self._schema_or_none is None:
            raise SchemaError("no schema chosen yet for this workspace")
        return self._schema_or_none

    @property
    def ledger(self) -> RequestLedger:
        return self._ledger

    @property
    def label(self) -> str:
        return self._label

    @property
    def simulated(self) -> bool:
        return True

    @property
    def workspace(self) -> Workspace:
        return self._workspace

    def _now(self) -> int:
        return int(self._clock.now())

    async def container_properties(self) -> ContainerProperties:
        async with self._ledger.request("read-container", Scope.METADATA) as ticket:
            ticket.charge(1.0, simulated=True)
            return self._workspace.container

    @property
    def cache_id(self) -> str | None:
        return None  # listing a workspace is cheap: nothing to cache

    def listing_notes(self) -> list[str]:
        return []

    async def list_keys(self, cursor: str | None = None, *, since: int | None = None) -> KeyPage:
        """Every top-level key at once (one modelled cross-partition request); ``since``:
        only keys with an item written after that time."""
        if cursor is not None:
            raise BadRequest("invalid listing cursor (the local workspace lists in one page)")
        name = "list_keys_tenants" if self._schema.has_tenant_level else "list_keys_threads"
        label = f"{self._schema.tenant_label}s" if self._schema.has_tenant_level else "threads"
        async with self._ledger.request("list-keys", Scope.CROSS_PARTITION, target=label) as ticket:
            params = {"now": self._now(), "since": -1 if since is None else since}
            rows = await asyncio.to_thread(self._workspace.query, name, params)
            ticket.items = len(rows)
            ticket.charge(
                query_charge(
                    Scope.CROSS_PARTITION,
                    returned=len(rows),
                    returned_bytes=32 * len(rows),
                    scanned=len(rows),
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
        keys = sorted(Key.parse(r[0]) for r in rows)
        return KeyPage(tuple(keys), None, self._physical_partitions, self._physical_partitions)

    async def key_counts(self, key: Key, *, background: bool = True) -> KeyCounts:
        """Counts of one top-level key (one modelled request scoped to it)."""
        schema = self._schema
        if schema.has_tenant_level:
            scope, name = Scope.PREFIX, "tenant_counts"
            params: dict[str, Any] = {"tenant": key.text}
            target = f"{schema.tenant_label} {key.text}"
        else:
            scope, name = Scope.PARTITION, "thread_counts"
            params = {"thread": key.text}
            target = f"thread {key.text}"
            if schema.granularity is Granularity.SESSION and schema.messages is not None:
                name += "_sessions"  # a thread counts the messages of its session documents
                params["messages"] = sqlite_json_path(schema.messages)
        async with self._ledger.request(
            "count-key", scope, target=target, background=background
        ) as ticket:
            rows = await asyncio.to_thread(
                self._workspace.query, name, {**params, "now": self._now()}
            )
            row = rows[0]
            items = int((row[1] if schema.has_tenant_level else row[0]) or 0)
            ticket.items = 1
            ticket.charge(
                query_charge(scope, returned=1, returned_bytes=32, scanned=items), simulated=True
            )
        if schema.has_tenant_level:
            return KeyCounts(items=items, last_activity=row[2], threads=int(row[0] or 0))
        return KeyCounts(
            items=items,
            last_activity=row[1],
            short_term=int(row[2] or 0),
            long_term=int(row[3] or 0),
        )

    async def list_threads(self, tenant: Key) -> list[Thread]:
        if not self._schema.has_tenant_level:
            raise SchemaError(f"schema {self._schema.name} has no {self._schema.tenant_label}s")
        params: dict[str, Any] = {"tenant": tenant.text}
        name = "list_threads_of_tenant"
        target = f"{self._schema.tenant_label} {tenant.text}"
        if self._schema.granularity is Granularity.SESSION and self._schema.messages is not None:
            name += "_sessions"  # a thread counts the messages of its session documents
            params["messages"] = sqlite_json_path(self._schema.messages)
        async with self._ledger.request("list-threads", Scope.PREFIX, target=target) as ticket:
            rows = await asyncio.to_thread(
                self._workspace.query, name, {**params, "now": self._now()}
            )
            ticket.items = len(rows)
            ticket.charge(
                query_charge(
                    Scope.PREFIX,
                    returned=len(rows),
                    returned_bytes=96 * len(rows),
                    scanned=sum(r[1] for r in rows),
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
        arity = len(self._schema.thread_paths)
        return [
            Thread(
                ThreadRef(tenant, Key.parse(r[0], arity)),
                items=r[1],
                last_activity=r[2],
                short_term=r[3],
                long_term=r[4],
            )
            for r in rows
        ]

    @functools.cached_property
    def _turn_scope(self) -> Scope:
        """Single-partition when tenant and thread make up the whole key, else a prefix."""
        covered = {p.text for p in self._schema.thread_paths} | (
            {self._schema.tenant.text} if self._schema.tenant else set()
        )
        if set(self._schema.partition_key) <= covered:
            return Scope.PARTITION
        return Scope.PREFIX

    async def page_turns(
        self,
        ref: ThreadRef,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        newest_first: bool = False,
    ) -> Page[Item]:
        limit = check_page_size(page_size)
        if continuation is None:
            position: tuple[int, Any, str] = (99, 0, "") if newest_first else (-1, 0, "")
        else:
            position = _decode_position(continuation)
        params = {
            "thread": ref.thread.text,
            "tenant": ref.tenant.text if ref.tenant is not None else None,
            "now": self._now(),
            "rank": position[0],
            "value": position[1],
            "id": position[2],
            "limit": limit + 1,  # one extra row tells us whether another page exists
        }
        name = "turns_backward" if newest_first else "turns_forward"
        async with self._ledger.request(
            "turns-page", self._turn_scope, target=ref.describe(self._schema.tenant_label)
        ) as ticket:
            rows = await asyncio.to_thread(self._workspace.query, name, params)
            more = len(rows) > limit
            rows = rows[:limit]
            items = tuple(self._project(row) for row in rows)
            self._charge_turns(ticket, items)
        token = None
        if more and rows:
            last = rows[-1]
            token = _encode_position(last[5], last[6], last[0])
        return Page(items, token)

    def _charge_turns(
        self, ticket: RequestTicket, items: tuple[Item, ...], *, scanned: int = 0
    ) -> None:
        """A turn query's modelled charge: what it returned, and what it read to get there."""
        ticket.items = len(items)
        ticket.charge(
            query_charge(
                self._turn_scope,
                returned=len(items),
                returned_bytes=sum(len(json.dumps(i.body)) for i in items),
                scanned=scanned,
            ),
            simulated=True,
        )

    async def search_turns(
        self,
        ref: ThreadRef,
        text: str,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> Page[Item]:
        """Items of one thread whose text contains ``text``, ignoring case, in list order:
        one modelled request per page, the thread read in batches after the keyset
        position and each item checked whole, as the Cosmos store checks its candidates."""
        check_search_text(text)
        limit = check_page_size(page_size)
        position = (-1, 0, "") if continuation is None else _decode_position(continuation)
        schema = self._schema
        base = {
            "thread": ref.thread.text,
            "tenant": ref.tenant.text if ref.tenant is not None else None,
            "now": self._now(),
            "limit": _SEARCH_BATCH,
        }

        def scan() -> tuple[list[tuple[tuple[Any, ...], dict[str, Any]]], bool, int]:
            hits: list[tuple[tuple[Any, ...], dict[str, Any]]] = []  # each row and its body
            rank, value, item_id = position
            scanned = 0
            while True:
                params = {**base, "rank": rank, "value": value, "id": item_id}
                rows = self._workspace.query("turns_forward", params)
                for row in rows:
                    scanned += 1
                    doc = json.loads(row[4])
                    if item_matches(schema, doc, text):
                        hits.append((row, doc))
                        if len(hits) > limit:  # one extra hit: another page exists
                            return hits[:limit], True, scanned
                if len(rows) < _SEARCH_BATCH:
                    return hits, False, scanned
                rank, value, item_id = rows[-1][5], rows[-1][6], rows[-1][0]

        target = ref.describe(self._schema.tenant_label)
        # A search may read the whole thread page after page: it asks the budget like a
        # Cosmos query does, so the demo behaves as an account would.
        await self._ledger.admit("search-turns", target, background=False)
        async with self._ledger.request("search-turns", self._turn_scope, target=target) as ticket:
            hits, more, scanned = await asyncio.to_thread(scan)
            items = tuple(self._project(row, doc) for row, doc in hits)
            self._charge_turns(ticket, items, scanned=scanned)
        token = None
        if more and hits:
            last = hits[-1][0]
            token = _encode_position(last[5], last[6], last[0])
        return Page(items, token)

    def _project(self, row: tuple[Any, ...], doc: dict[str, Any] | None = None) -> Item:
        """The item of a row, its body cut to the list fields (``doc``: the body, parsed)."""
        item_id, pk, ts, etag, body = row[:5]
        if doc is None:
            doc = json.loads(body)
        projected = {k: doc[k] for k in self._projection if k in doc}
        for key in _SYSTEM_PROPERTIES:
            if key in doc:
                projected[key] = doc[key]
        return Item(item_id, tuple(json.loads(pk)), ts, etag, projected)

    async def read_item(self, ref: ThreadRef, item_id: str) -> Item:
        check_item_id(item_id, "a point read")  # as on Cosmos, where the URL would misroute
        pk = pk_text(self._schema.partition_key_for(ref))
        async with self._ledger.request(
            "read-item", Scope.POINT, target=f"{item_id} in {ref.describe()}"
        ) as ticket:
            rows = await asyncio.to_thread(
                self._workspace.query, "read_item", {"pk": pk, "id": item_id, "now": self._now()}
            )
            if not rows:
                ticket.charge(1.0, simulated=True)
                raise NotFound(f"no item {item_id!r} in {ref.describe(self._schema.tenant_label)}")
            item_id, pk_json, ts, etag, body = rows[0]
            ticket.items = 1
            ticket.charge(point_read_charge(len(body.encode("utf-8"))), simulated=True)
        return Item(item_id, tuple(json.loads(pk_json)), ts, etag, json.loads(body))

    async def sample_items(self, limit: int, *, max_request_units: float) -> list[Item]:
        if limit < 1:
            raise ValueError(f"sample size must be at least 1, got {limit}")
        async with self._ledger.request(
            "sample-items", Scope.CROSS_PARTITION, target=f"{limit} recent items"
        ) as ticket:
            rows = await asyncio.to_thread(
                self._workspace.query, "sample_items", {"now": self._now(), "limit": limit}
            )
            # Keep items while the modelled charge stays within budget (at least one item),
            # the way a Cosmos reader stops paging once a page takes it over budget.
            kept: list[Item] = []
            size = 0
            for item_id, pk_json, ts, etag, body in rows:
                charge = query_charge(
                    Scope.CROSS_PARTITION,
                    returned=len(kept) + 1,
                    returned_bytes=size + len(body),
                    physical_partitions=self._physical_partitions,
                )
                if kept and charge > max_request_units:
                    break
                size += len(body)
                kept.append(Item(item_id, tuple(json.loads(pk_json)), ts, etag, json.loads(body)))
            ticket.items = len(kept)
            ticket.charge(
                query_charge(
                    Scope.CROSS_PARTITION,
                    returned=len(kept),
                    returned_bytes=size,
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
        return kept

    async def sample_shapes(self, limit: int, *, max_request_units: float) -> list[ItemShape]:
        """The shapes of recent items (the advisor's sample), charged as a projection."""
        if limit < 1:
            raise ValueError(f"sample size must be at least 1, got {limit}")
        spec = shape_spec(self._schema_or_none, self._workspace.container)
        async with self._ledger.request(
            "sample-shapes", Scope.CROSS_PARTITION, target=f"shapes of {limit} recent items"
        ) as ticket:
            rows = await asyncio.to_thread(
                self._workspace.query, "sample_items", {"now": self._now(), "limit": limit}
            )
            kept: list[ItemShape] = []
            for item_id, pk_json, ts, etag, body in rows:
                charge = query_charge(
                    Scope.CROSS_PARTITION,
                    returned=len(kept) + 1,
                    returned_bytes=_SHAPE_BYTES * (len(kept) + 1),
                    scanned=len(kept) + 1,
                    physical_partitions=self._physical_partitions,
                )
                if kept and charge > max_request_units:
                    break
                item = Item(item_id, tuple(json.loads(pk_json)), ts, etag, json.loads(body))
                kept.append(shape_of(item, spec, len(body.encode("utf-8"))))
            ticket.items = len(kept)
            ticket.charge(
                query_charge(
                    Scope.CROSS_PARTITION,
                    returned=len(kept),
                    returned_bytes=_SHAPE_BYTES * len(kept),
                    scanned=len(kept),
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
        return kept

    # -- lifecycle (TTL) ------------------------------------------------------------------

    async def ttl_summary(self, scope: TtlScope, now: int) -> TtlSummary:
        """Items by TTL class and the expiry forecast: one aggregate over the scope."""
        params = {
            **lifecycle.scope_parameters(self._schema, scope),
            **lifecycle.summary_parameters(now, self._workspace.container.default_ttl),
        }
        container = scope.level is ScopeLevel.CONTAINER
        name = "ttl_summary_container" if container else "ttl_summary_scoped"
        request_scope = lifecycle.scope_of_request(scope.level, self._turn_scope)
        target = scope.describe(self._schema.tenant_label)
        async with self._ledger.request("ttl-summary", request_scope, target=target) as ticket:
            rows = await asyncio.to_thread(self._workspace.query, name, params)
            classes, forecast, last_write = lifecycle.summary_rows(rows)
            ticket.items = len(rows)
            ticket.charge(
                query_charge(
                    request_scope,
                    returned=len(rows),
                    returned_bytes=48 * len(rows),
                    scanned=sum(classes.values()),
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
        default_ttl = self._workspace.container.default_ttl
        return TtlSummary.of(scope, now, default_ttl, classes, forecast, last_write)

    async def ttl_summary_estimate(self, scope: TtlScope, now: int) -> float:
        """What ``ttl_summary(scope, now)`` will cost: the scope's size (one modelled
        index-served count), then the summary's own modelled charge for that size."""
        params = {**lifecycle.scope_parameters(self._schema, scope), "now": now}
        container = scope.level is ScopeLevel.CONTAINER
        name = "ttl_size_container" if container else "ttl_size_scoped"
        request_scope = lifecycle.scope_of_request(scope.level, self._turn_scope)
        target = f"items in {scope.describe(self._schema.tenant_label)}"
        async with self._ledger.request("ttl-size", request_scope, target=target) as ticket:
            rows = await asyncio.to_thread(self._workspace.query, name, params)
            size = int(rows[0][0] or 0)
            ticket.items = 1
            ticket.charge(
                query_charge(
                    request_scope,
                    returned=1,
                    returned_bytes=32,
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
        classes = min(len(TtlClass) - 1, size)  # a row per class found: four of five at most
        return query_charge(
            request_scope,
            returned=classes,
            returned_bytes=48 * classes,
            scanned=size,
            physical_partitions=self._physical_partitions,
        )

    async def ttl_items(
        self,
        scope: TtlScope,
        now: int,
        selection: TtlSelection,
        *,
        limit: int,
        within: int | None = None,
    ) -> TtlItems:
        """The first ``limit`` items of a lifecycle selection of a tenant or a thread."""
        limit = check_ttl_list(scope, selection, within, limit)
        params = {
            **lifecycle.scope_parameters(self._schema, scope),
            **lifecycle.kind_parameters(self._schema),
            "now": now,
            "until": now + (within or 0),
            "limit": limit,
        }
        request_scope = lifecycle.scope_of_request(scope.level, self._turn_scope)
        target = f"{selection.value} in {scope.describe(self._schema.tenant_label)}"
        name = lifecycle.SELECTION_QUERIES[selection]
        default_ttl = self._workspace.container.default_ttl
        async with self._ledger.request("ttl-items", request_scope, target=target) as ticket:
            rows = await asyncio.to_thread(self._workspace.query, name, params)
            found = lifecycle.items_from_rows(self._schema, selection, rows, default_ttl)
            ticket.items = len(rows)
            ticket.charge(
                query_charge(
                    request_scope,
                    returned=len(rows),
                    returned_bytes=160 * len(rows),
                    scanned=found.count,
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
        return found

    # -- recall probes ----------------------------------------------------------------------

    async def recall(self, query: RecallQuery) -> RecallAnswer:
        """One recall probe over the scope's items, ranked in the console: exact distances
        (this workspace has no approximate index, so VECTOR is EXACT and says so), FTS5
        ``bm25()`` for text, and for hybrid the RRF of both whole rankings (a local
        fusion: the core labels it an approximation). One modelled request."""
        scope = query.scope
        params = {**lifecycle.scope_parameters(self._schema, scope), "now": self._now()}
        name = "recall_container" if scope.level is ScopeLevel.CONTAINER else "recall_scoped"
        stored = self._workspace.vectors_path
        if stored is not None and vector_table.serves(query, stored):
            name += "_vectors"  # the same candidates, their embeddings read apart
        request_scope = lifecycle.scope_of_request(scope.level, self._turn_scope)
        target = f"{query.mode} top {query.k} in {scope.describe(self._schema.tenant_label)}"
        arity = len(self._schema.thread_paths)
        operation = f"recall-{query.mode.value}"
        await self._ledger.admit(operation, target, background=False)
        async with self._ledger.request(operation, request_scope, target=target) as ticket:
            ranked, scanned = await asyncio.to_thread(self._rank, query, name, params)
            hits = tuple(
                RecallHit(rank, hit.id, ref, score)
                for rank, (hit, score) in enumerate(ranked, start=1)
                if (ref := probes.thread_ref(hit.tenant, hit.thread, arity)) is not None
            )
            ticket.items = len(hits)
            ticket.charge(
                query_charge(
                    request_scope,
                    returned=len(hits),
                    returned_bytes=_HIT_BYTES * len(hits),
                    scanned=scanned,
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
            charge = ticket.request_units
        return RecallAnswer(query, hits, charge, 1, index_is_exact=True)

    def _rank(
        self, query: RecallQuery, name: str, params: dict[str, Any]
    ) -> tuple[list[tuple[probes.Ranked, float | None]], int]:
        """In a worker thread: the ranked hits (with their scores) and the items read."""
        scan = probes.Scan()
        if query.mode in (ProbeMode.VECTOR, ProbeMode.EXACT):
            rows = self._workspace.scan(name, params)
            found = probes.candidates(rows, query.filters, scan)
            return [(hit, hit.score) for hit in probes.top_vector(found, query)], scan.scanned
        if query.mode is ProbeMode.TEXT:
            found = probes.candidates(self._workspace.scan(name, params), query.filters, scan)
            text = self._text_ranking(
                query,
                (
                    (c.id, c.tenant, c.thread, probes.text_of(c.body, query.text_paths))
                    for c in found
                ),
            )
            return [(hit, None) for hit in text[: query.k]], scan.scanned
        # HYBRID: both whole rankings of the same candidates, from one read of the scope:
        # the texts are kept (not the bodies) while the distances are computed.
        texts: list[tuple[str, str | None, str | None, str]] = []

        def keeping_texts(found: Iterator[probes.Candidate]) -> Iterator[probes.Candidate]:
            for c in found:
                texts.append((c.id, c.tenant, c.thread, probes.text_of(c.body, query.text_paths)))
                yield c

        rows = self._workspace.scan(name, params)
        found = keeping_texts(probes.candidates(rows, query.filters, scan))
        vectors = probes.top_vector(found, query, everything=True)
        text = self._text_ranking(query, texts)
        distances = {(h.id, h.tenant, h.thread): h.score for h in vectors}
        fused = probes.fuse((vectors, text), query.k)
        return [(h, distances.get((h.id, h.tenant, h.thread))) for h, _ in fused], scan.scanned

    def _text_ranking(
        self, query: RecallQuery, texts: Iterable[tuple[str, str | None, str | None, str]]
    ) -> list[probes.Ranked]:
        """Every candidate holding one of the terms, best bm25() first."""
        workspace = self._workspace
        workspace.run_script("recall_text_create")
        try:
            workspace.execute_many(
                "recall_text_insert",
                (
                    {"id": item_id, "tenant": tenant, "thread": thread, "text": text}
                    for item_id, tenant, thread, text in texts
                ),
            )
            match = {"match": probes.match_expression(query.terms)}
            rows = workspace.query("recall_text_rank", match)
        finally:
            workspace.run_script("recall_text_drop")
        return [probes.Ranked(r[0], r[1], r[2], None) for r in rows]

    async def lookup_item(self, scope: TtlScope, item_id: str) -> ItemLookup:
        """An item by id within a tenant or a thread (or the container: a fan-out), with
        where and when it expired when only an expired copy is left (until the purge)."""
        now = self._now()
        params = {**lifecycle.scope_parameters(self._schema, scope), "id": item_id, "now": now}
        container = scope.level is ScopeLevel.CONTAINER
        name = "lookup_item_container" if container else "lookup_item_scoped"
        request_scope = lifecycle.scope_of_request(scope.level, self._turn_scope)
        target = f"{item_id} in {scope.describe(self._schema.tenant_label)}"
        arity = len(self._schema.thread_paths)
        async with self._ledger.request("lookup-item", request_scope, target=target) as ticket:
            rows = await asyncio.to_thread(self._workspace.query, name, params)
            if not rows:
                ticket.charge(1.0, simulated=True)
                return ItemLookup(item_id, request_units=1.0)
            found_id, pk_json, ts, etag, body, tenant, thread, expires_at = rows[0]
            ticket.items = 1
            ticket.charge(
                point_read_charge(len(body.encode("utf-8")))
                if scope.level is ScopeLevel.THREAD
                else query_charge(
                    request_scope,
                    returned=1,
                    returned_bytes=len(body.encode("utf-8")),
                    physical_partitions=self._physical_partitions,
                ),
                simulated=True,
            )
            charge = ticket.request_units
        ref = probes.thread_ref(tenant, thread, arity)
        if expires_at is not None and expires_at <= now:
            return ItemLookup(item_id, None, ref, int(expires_at), charge)
        item = Item(found_id, tuple(json.loads(pk_json)), ts, etag, json.loads(body))
        return ItemLookup(item_id, item, ref, None, charge)

    # -- the change feed ------------------------------------------------------------------

    @functools.cached_property
    def _change_feed(self) -> LocalChangeFeed:
        return LocalChangeFeed(
            self._workspace,
            self._schema,
            self._ledger,
            self._clock,
            thread_scope=self._turn_scope,
            physical_partitions=self._physical_partitions,
        )

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
        """One read of the workspace's change log (``change_feed.py``): one modelled
        request, admitted by the budget first."""
        return await self._change_feed.read(
            scope,
            mode=mode,
            start=start,
            continuation=continuation,
            max_items=max_items,
            background=background,
        )

    async def close(self) -> None:
        await asyncio.to_thread(self._workspace.close)
