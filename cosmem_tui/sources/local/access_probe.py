"""The data-plane probes of a local workspace: no RBAC, one modelled metadata read.

A workspace is a SQLite file opened read-only; nothing can deny a read of it but the
file system, which the session's opening already passed. The probe reads the
container's properties the way the store does (one modelled request, marked ``sim``),
so the doctor reports the workspace's TTL and policies from what it holds, and says of
each data action that it does not apply here.
"""

from __future__ import annotations

from cosmem_tui.model.doctor import (
    EXECUTE_QUERY,
    ITEMS_READ,
    READ_METADATA,
    Access,
    AccessReport,
    Cost,
    DataActionProbe,
    ReadFailure,
)
from cosmem_tui.sources.errors import StoreError
from cosmem_tui.sources.store import MemoryStore

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
        return AccessReport(probes, container=props)
