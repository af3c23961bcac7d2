"""The data-plane probes of a local workspace: no RBAC, one modelled metadata read.

A workspace is a SQLite file opened read-only; nothing can deny a read of it but the
file system, which the session's opening already passed. The probe reads the
container's properties the way the store does (one modelled request, marked ``sim``),
so the doctor reports the workspace's TTL and policies from what it holds, and says of
each data action that it does not apply here.
"""

from __future__ import annotations

from cosmem_tui.model import ThreadRef
from cosmem_tui.model.changes import FeedMode, FeedStart, FeedUnavailable
from cosmem_tui.model.doctor import (
    ALL_VERSIONS_MODE,
    EXECUTE_QUERY,
    ITEMS_READ,
    READ_CHANGE_FEED,
    READ_METADATA,
    Access,
    AccessReport,
    Cost,
    DataActionProbe,
    ReadFailure,
)
from cosmem_tui.model.keys import Key
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.sources.errors import StoreError
from cosmem_tui.sources.store import MemoryStore

PROBE_VALUE = "cosmem-doctor-probe"  # a key no agent writes (as the Cosmos probe's)
LOCAL_ACTIONS = (READ_METADATA, ITEMS_READ, EXECUTE_QUERY)


class LocalAccessProbe:
    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    async def probe(self) -> AccessReport:
        with self._store.ledger.meter() as meter:
            try:
                props = await self._store.container_properties()
            except StoreError as exc:
                return AccessReport((), container_failure=ReadFailure("error", exc.message))
        cost = Cost.of(meter)
        probes = tuple(
            DataActionProbe(
                action=action,
                access=Access.LOCAL,
                what="a local workspace (a read-only SQLite file): no data-plane roles",
                cost=cost if action == READ_METADATA else Cost(),
            )
            for action in LOCAL_ACTIONS
        )
        return AccessReport((*probes, *await self._change_log()), container=props)

    async def _change_log(self) -> tuple[DataActionProbe, ...]:
        """The workspace's change log, read from now (nothing an agent wrote comes back):
        it serves both modes, or neither when the file predates it."""
        what = f"the change log of the absent thread {PROBE_VALUE!r}, read from now"
        schema = self._store.schema
        absent = ThreadRef(
            Key.of(PROBE_VALUE) if schema.has_tenant_level else None,
            Key([PROBE_VALUE] * len(schema.thread_paths)),
        )
        with self._store.ledger.meter() as meter:
            try:
                await self._store.read_changes(
                    TtlScope.of_thread(absent),
                    mode=FeedMode.ALL_VERSIONS,
                    start=FeedStart.now(),
                    max_items=1,
                )
            except FeedUnavailable as exc:
                denied = DataActionProbe(
                    ALL_VERSIONS_MODE, Access.DENIED, what, message=f"{exc.reason} — {exc.fix}"
                )
                return (
                    DataActionProbe(READ_CHANGE_FEED, Access.DENIED, what, message=exc.reason),
                    denied,
                )
            except StoreError as exc:
                failed = DataActionProbe(
                    ALL_VERSIONS_MODE, Access.FAILED, what, message=exc.message
                )
                return (
                    DataActionProbe(READ_CHANGE_FEED, Access.FAILED, what, message=exc.message),
                    failed,
                )
        cost = Cost.of(meter)
        return (
            DataActionProbe(READ_CHANGE_FEED, Access.LOCAL, what, cost=cost),
            DataActionProbe(ALL_VERSIONS_MODE, Access.ALLOWED, what),
        )
