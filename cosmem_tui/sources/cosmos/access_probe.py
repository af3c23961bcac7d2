"""Which data actions this identity has on the container, tried without reading any item.

Four requests, each through the session's one runner (ledger, budget, hold-off,
deadline), in the order the SDK itself needs them:

1. the account document (``GET /``, what the SDK reads before anything else) and
2. the container's properties (``GET dbs/…/colls/…``): ``readMetadata``;
3. a point read of an id under a key no agent writes (``cosmem-doctor-probe``): the
   service answers 404 when the identity may read items, 403 when it may not
   (``items/read``);
4. ``SELECT VALUE COUNT(1) FROM c`` scoped to that same key: a count, never an item, and
   one partition (``executeQuery``);
5. that key's change feed from now, latest version (``readChangeFeed``): a 304, never an
   item;
6. the same in all-versions-and-deletes mode: a 304 when the container offers the mode,
   a 400 when it does not (no permission of its own: ``ALL_VERSIONS_MODE``).

A 403 from Cosmos DB's RBAC carries a sub-status in 5300–5306 (named in
``model.substatus.SUB_STATUS_NAMES``, after the .NET SDK's ``SubStatusCodes``: 5301 a
metadata request, 5302 a data request by name) and a message naming the action ("… does
not have required RBAC permissions to perform action [X] on resource [Y]"): both are
kept, so the fix names the role for exactly what was refused. A firewall or "local auth
disabled" 403 names no action and is reported as what it says.

Writes are never tried: the doctor sends no write verb (the wire guard would refuse
one anyway), so what writes need is said, not probed.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from azure.cosmos.exceptions import CosmosHttpResponseError

from cosmem_tui.model import Scope
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
from cosmem_tui.model.entities import ContainerProperties
from cosmem_tui.sources.cosmos.account import CosmosAccount
from cosmem_tui.sources.cosmos.calls import CosmosCalls
from cosmem_tui.sources.cosmos.container import container_properties
from cosmem_tui.sources.cosmos.failures import first_line
from cosmem_tui.sources.errors import StoreError

PROBE_VALUE = "cosmem-doctor-probe"  # an id and a key value no agent writes
_ACTION = re.compile(r"perform action \[([^\]]+)\]")
COUNT_QUERY = "SELECT VALUE COUNT(1) FROM c"
_HTTP_ANSWERS = (400, 401, 403, 404, 429, 503)  # a failure the service answered


@dataclass(frozen=True, slots=True)
class _Answer:
    access: Access
    status: int
    sub_status: int | None = None
    named_action: str | None = None
    message: str = ""
    body: Any = None


def named_action(message: object) -> str | None:
    """The data action a Cosmos DB 403 says the principal lacks, if it names one."""
    found = _ACTION.search(str(message))
    return found.group(1).replace("\\/", "/") if found else None


def _answered(exc: CosmosHttpResponseError) -> _Answer | None:
    """A 404 (nothing there, as intended) or a 403 as an answer; anything else is None."""
    status = int(exc.status_code or 0)
    if status == 404:
        return _Answer(Access.ALLOWED, 404, exc.sub_status, message="no such item, as intended")
    if status == 403:
        return _Answer(
            Access.DENIED,
            403,
            exc.sub_status,
            named_action(exc.message),
            first_line(exc.message),
        )
    return None


class CosmosAccessProbe:
    """The data-plane probes of one container (see the module doc)."""

    def __init__(self, account: CosmosAccount) -> None:
        settings = account.settings
        self._account = account
        self._settings = settings
        self._container = account.container(settings.database, settings.container)
        self._calls = CosmosCalls(account.ledger, settings, self._container)

    async def probe(self) -> AccessReport:
        settings = self._settings
        where = f"{settings.database}/{settings.container}"
        account = await self._try(
            READ_METADATA,
            "the account document (GET /)",
            "doctor: read-account",
            Scope.METADATA,
            settings.account,
            self._account.enter,
            budgeted=False,
        )
        if account.access is not Access.ALLOWED:
            # The SDK reads the account before any other request: nothing else can go.
            return AccessReport((account,), container_failure=self._failure(account))
        read, raw = await self._read_container(where)
        probes = [account, read]
        if raw is None:
            return AccessReport(tuple(probes), container_failure=self._failure(read))
        props = container_properties(settings.database, raw)
        key = self._absent_key(props)
        probes.append(await self._point_read(key, where))
        probes.append(await self._count(key, where))
        latest = await self._change_feed(key, where, all_versions=False)
        probes.append(latest)
        if latest.access is Access.ALLOWED:
            probes.append(await self._change_feed(key, where, all_versions=True))
        return AccessReport(tuple(probes), container=props)

    # -- the probes ---------------------------------------------------------------------

    async def _read_container(self, where: str) -> tuple[DataActionProbe, dict[str, Any] | None]:
        got: list[dict[str, Any]] = []

        async def read() -> None:
            got.append(dict(await self._container.read()))

        probe = await self._try(
            READ_METADATA,
            f"the container's properties (GET {where})",
            "doctor: read-container",
            Scope.METADATA,
            where,
            read,
            budgeted=False,
        )
        return probe, (got[0] if got and probe.status == 200 else None)

    async def _point_read(self, key: Any, where: str) -> DataActionProbe:
        async def read() -> None:
            await self._container.read_item(
                item=PROBE_VALUE, partition_key=key, priority=self._settings.priority
            )

        return await self._try(
            ITEMS_READ,
            f"a point read of an absent item ({PROBE_VALUE!r} in {where})",
            "doctor: read-item",
            Scope.POINT,
            f"{PROBE_VALUE} in {where}",
            read,
            estimate_ru=1.0,
        )

    async def _count(self, key: Any, where: str) -> DataActionProbe:
        async def count() -> None:
            pages: Any = self._container.query_items(
                COUNT_QUERY, partition_key=key, priority=self._settings.priority
            ).by_page()
            async for page in pages:
                async for _ in page:
                    pass

        return await self._try(
            EXECUTE_QUERY,
            f"{COUNT_QUERY} in the absent key {PROBE_VALUE!r} (one partition, no item)",
            "doctor: count",
            Scope.PARTITION,
            f"{PROBE_VALUE} in {where}",
            count,
            estimate_ru=3.0,
        )

    async def _change_feed(self, key: Any, where: str, *, all_versions: bool) -> DataActionProbe:
        mode = "AllVersionsAndDeletes" if all_versions else "LatestVersion"
        container: Any = self._container

        async def read() -> None:
            pages: Any = container.query_items_change_feed(
                partition_key=key, start_time="Now", mode=mode, priority="Low"
            ).by_page()
            async for page in pages:
                async for _ in page:
                    pass

        return await self._try(
            ALL_VERSIONS_MODE if all_versions else READ_CHANGE_FEED,
            f"the {mode} change feed of the absent key {PROBE_VALUE!r} from now (no item)",
            "doctor: change-feed",
            Scope.PARTITION,
            f"{PROBE_VALUE} in {where}",
            read,
            estimate_ru=2.0,
            refused=400 if all_versions else None,
        )

    # -- one probe through the runner ------------------------------------------------------

    async def _try(
        self,
        action: str,
        what: str,
        operation: str,
        scope: Scope,
        target: str,
        send: Callable[[], Awaitable[Any]],
        *,
        budgeted: bool = True,
        estimate_ru: float | None = None,
        refused: int | None = None,
    ) -> DataActionProbe:
        """``refused``: a status that says no as a 403 does (the mode is not offered)."""

        async def attempt() -> _Answer:
            try:
                await send()
            except CosmosHttpResponseError as exc:
                if refused is not None and exc.status_code == refused:
                    return _Answer(
                        Access.DENIED, refused, exc.sub_status, message=first_line(exc.message)
                    )
                answer = _answered(exc)
                if answer is None:
                    raise  # the runner translates it (401, 503, 429 hold-off …)
                return answer
            return _Answer(Access.ALLOWED, 200)

        ledger = self._account.ledger
        with ledger.meter() as meter:
            try:
                answer = await self._calls.call(
                    operation,
                    scope,
                    target,
                    attempt,
                    budgeted=budgeted,
                    estimate_ru=estimate_ru,
                )
            except StoreError as exc:  # no verdict: sign-in, network, deadline, budget
                status = exc.status if exc.status in _HTTP_ANSWERS else 0
                answer = _Answer(Access.FAILED, status, message=exc.message)
        if answer.access is Access.ALLOWED and not meter.requests:
            # The SDK read the account document when the session opened: no request now.
            answer = _Answer(Access.ALLOWED, 200, message="read when this session opened")
        return DataActionProbe(
            action=action,
            access=answer.access,
            what=what,
            status=answer.status,
            sub_status=answer.sub_status,
            named_action=answer.named_action,
            message=answer.message,
            cost=Cost.of(meter),
        )

    def _absent_key(self, props: ContainerProperties) -> Any:
        levels = len(props.partition_key.paths) or 1
        return [PROBE_VALUE] * levels if props.partition_key.hierarchical else PROBE_VALUE

    @staticmethod
    def _failure(probe: DataActionProbe) -> ReadFailure:
        kind = "forbidden" if probe.access is Access.DENIED else "error"
        return ReadFailure(kind, probe.message or f"{probe.status} from the account")
