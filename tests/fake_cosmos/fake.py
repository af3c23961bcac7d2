"""``FakeGateway``: the in-process Cosmos DB gateway, started on its own thread.

The aiohttp server runs on a private event loop in a daemon thread, so a sync client,
an async client on the test's loop, a CLI subprocess or a Textual app can all talk to
it at once, and a test can seed, step the clock or inject faults while a request is in
flight. It listens on ``https://127.0.0.1:<free port>`` with a self-signed certificate
the SDK accepts for 127.0.0.1 without settings.

    with FakeGateway() as gw:
        gw.create_container("db", "memory", partition_key=["/tenantId", "/threadId"],
                            ranges=4, split_inside=[["acme"]], default_ttl=-1)
        gw.seed("db", "memory", items)
        client = CosmosClient(gw.endpoint, gw.key)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any

from aiohttp import web

from tests.fake_cosmos.clock import ClockLike, FakeCosmosClock
from tests.fake_cosmos.faults import Faults
from tests.fake_cosmos.ranges import KeyDefinition, boundary_inside_prefix
from tests.fake_cosmos.server import FakeCosmosApp
from tests.fake_cosmos.store import Container, PartitionRange, Store
from tests.fake_cosmos.tls import server_context
from tests.fake_cosmos.wire_log import RequestLog

# The emulator's well-known key: any key is accepted, this one keeps real emulators working.
KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
START_TIMEOUT_S = 10.0


class FakeCosmos:
    """A fake Cosmos DB account: store, faults, request log and an HTTPS endpoint."""

    def __init__(
        self,
        *,
        ranges: int = 4,
        clock: ClockLike | None = None,
        tls: bool = True,
        require_auth: bool = True,
        max_visits_per_page: int | None = None,
        enforce_offers: bool = False,
        partition_merge: bool = False,
    ) -> None:
        self.clock: Any = clock if clock is not None else FakeCosmosClock()
        self.store = Store(self.clock, default_ranges=ranges)
        self.faults = Faults()
        self.log = RequestLog()
        self.app = FakeCosmosApp(
            self.store,
            self.faults,
            self.log,
            require_auth=require_auth,
            max_visits_per_page=max_visits_per_page,
            enforce_offers=enforce_offers,
            partition_merge=partition_merge,
        )
        self.faults.on_hang_release = self.app.release_hung
        self.key = KEY
        self.endpoint = ""
        self._tls = tls
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> FakeCosmos:
        if self._thread is not None:
            return self
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="fake-cosmos-gateway", daemon=True
        )
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(timeout=START_TIMEOUT_S)
        return self

    async def _serve(self) -> None:
        self._runner = web.AppRunner(self.app.application(), access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        context = server_context() if self._tls else None
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=context)
        await site.start()
        port = self._runner.addresses[0][1]
        scheme = "https" if self._tls else "http"
        self.endpoint = f"{scheme}://127.0.0.1:{port}"
        self.app.endpoint = self.endpoint

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self.faults.release()
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), loop).result(
                timeout=START_TIMEOUT_S
            )
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=START_TIMEOUT_S)
        loop.close()
        self._loop = self._thread = self._runner = None

    def __enter__(self) -> FakeCosmos:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- resources ---------------------------------------------------------------------------

    def create_database(self, database: str, *, throughput: int | None = None) -> None:
        self.store.create_database(database, throughput=throughput, exist_ok=True)

    def create_container(
        self,
        database: str,
        container: str,
        *,
        partition_key: str | Sequence[str] = "/tenantId",
        ranges: int | None = None,
        boundaries: Sequence[str] | None = None,
        split_inside: Iterable[Sequence[Any]] = (),
        split_at: str = "20",
        default_ttl: int | None = None,
        indexing_policy: Mapping[str, Any] | None = None,
        throughput: int | None = None,
        vector_embedding_policy: Mapping[str, Any] | None = None,
        full_text_policy: Mapping[str, Any] | None = None,
        vector_quantum: float | None = None,
        all_versions: bool = True,
        purge_lag_s: float = 0.0,
        retention_s: float | None = None,
    ) -> Container:
        """A container with ``ranges`` physical ranges (evenly spread), or explicit EPK
        ``boundaries``. Each prefix in ``split_inside`` (e.g. ``["acme"]`` on
        ``[/tenantId, /threadId]``) gets a boundary inside it — prefix EPK + ``split_at`` —
        replacing the nearest even one, so that tenant spans two ranges.

        ``vector_embedding_policy`` / ``full_text_policy``: the container's policies, as
        the service returns them. ``vector_quantum``: the approximate vector index (an
        ORDER BY VectorDistance without brute force ranks by vectors rounded to this), so
        an index can miss true neighbours (``search.py``).

        The change feed (``change_log``): ``all_versions`` False refuses the
        all-versions-and-deletes mode (400, as a container without it); TTL purges come
        ``purge_lag_s`` after expiry; ``retention_s`` is the all-versions retention
        window (None: everything is kept)."""
        paths = (partition_key,) if isinstance(partition_key, str) else tuple(partition_key)
        key = KeyDefinition(paths, "MultiHash" if len(paths) > 1 else "Hash")
        inside = [boundary_inside_prefix(key, prefix, split_at) for prefix in split_inside]
        self.store.create_database(database, exist_ok=True)
        made = self.store.create_container(
            database,
            container,
            key,
            ranges=ranges,
            boundaries=list(boundaries) if boundaries is not None else None,
            split_inside=inside,
            default_ttl=default_ttl,
            indexing_policy=indexing_policy,
            throughput=throughput,
            extra={
                **(
                    {"vectorEmbeddingPolicy": dict(vector_embedding_policy)}
                    if vector_embedding_policy is not None
                    else {}
                ),
                **(
                    {"fullTextPolicy": dict(full_text_policy)}
                    if full_text_policy is not None
                    else {}
                ),
            },
        )
        if vector_quantum is not None:
            made.vector_quantum = vector_quantum
        made.feed.all_versions = all_versions
        made.feed.purge_lag_s = purge_lag_s
        made.feed.retention_s = retention_s
        if throughput is not None:
            self.faults.container_throughput(made.rid, float(throughput))
        return made

    def container(self, database: str, container: str) -> Container:
        return self.store.container(database, container)

    def seed(self, database: str, container: str, items: Iterable[Mapping[str, Any]]) -> int:
        """Insert (upsert) items directly, without HTTP; ``_ts`` defaults to the clock."""
        target = self.store.container(database, container)
        with self.store.lock:
            return target.seed(items, self.clock.now())

    def purge(self, database: str, container: str) -> int:
        """Run the TTL purge step now (it also runs before each write and feed read)."""
        target = self.store.container(database, container)
        with self.store.lock:
            return target.purge(self.clock.now())

    def split(
        self, database: str, container: str, range_id: str, at: str
    ) -> tuple[PartitionRange, PartitionRange]:
        """Split a physical range at an EPK (the SDK learns of it through a 410)."""
        with self.store.lock:
            return self.store.container(database, container).split(range_id, at)

    def range_of(self, database: str, container: str, key: Sequence[Any] | Any) -> str:
        """The id of the range holding a full partition key (a value or a list of them)."""
        target = self.store.container(database, container)
        values = list(key) if isinstance(key, list | tuple) else [key]
        return target.range_for(target.key.epk(values)).id

    def ranges_of_prefix(self, database: str, container: str, prefix: Sequence[Any]) -> list[str]:
        """Ids of the ranges a hierarchical prefix spans."""
        target = self.store.container(database, container)
        lo, hi = target.key.prefix_range(list(prefix))
        return [r.id for r in target.overlapping(lo, hi)]

    def visible_items(self, database: str, container: str) -> list[dict[str, Any]]:
        target = self.store.container(database, container)
        now = self.clock.now()
        with self.store.lock:
            return [d.body for d in target.all_docs() if target.visible(d, now)]
