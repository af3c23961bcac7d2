"""``MonitorTelemetry``: the ``Telemetry`` contract over Azure Monitor for one Cosmos account.

``open_monitor`` builds it from ``MonitorSettings``, the session's Gateway and its one
async credential (shared, never closed here), and finds the account's region — the
``--region`` setting, else the region the caller read from the Cosmos account, else one
ARM read of the resource (which also refuses a resource that is not a Cosmos account).
A ``--metrics-endpoint`` without ``{region}`` needs no region, so nothing asks ARM: a
network where ARM cannot be reached (a private link) still gets its metrics. Without
ARM and without a region, the logs are still answered and every metrics answer names
what is missing and how to give it; a lookup that could not reach ARM is tried again
after ``MIN_REFRESH_S``, not on every question of the same refresh.

Metrics and logs answer one ``MetricAnswer`` / ``LogAnswer`` per question, in order, and
never raise: every failure is a problem on the answers it concerns (``about`` names the
question), each service is held off on its own after a 429/529, and every HTTP attempt is
one record in the ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cosmem_tui.model import Clock
from cosmem_tui.model.telemetry import (
    LogAnswer,
    LogQuery,
    MetricAnswer,
    MetricQuery,
    ProblemKind,
    TelemetryAbout,
    TelemetryProblem,
)
from cosmem_tui.sources.cosmos.region import normalise_region
from cosmem_tui.sources.gateway import Gateway
from cosmem_tui.sources.monitor.arm import read_account
from cosmem_tui.sources.monitor.calls import MonitorCalls
from cosmem_tui.sources.monitor.clients import MonitorClients, RetrySettings
from cosmem_tui.sources.monitor.failures import MonitorFailure
from cosmem_tui.sources.monitor.logs import LogsSource, about
from cosmem_tui.sources.monitor.metrics import query_metrics
from cosmem_tui.sources.monitor.settings import MonitorSettings

MIN_REFRESH_S = 60.0  # metrics move once a minute and every call is billed
REGION_FIX = (
    "pass --region (e.g. --region eastus), or a --metrics-endpoint without {region}: "
    "then ARM is not asked"
)
# Failures of the region lookup worth trying again on a later call; the others need a fix.
_TRANSIENT = (ProblemKind.UNREACHABLE, ProblemKind.THROTTLED)


def _unexpected(exc: Exception, about_: str) -> TelemetryProblem:
    """A failure nobody foresaw: still an answer, never an exception out of the source."""
    return TelemetryProblem(
        ProblemKind.QUERY_ERROR,
        f"unexpected {type(exc).__name__}: {exc}",
        "this is a bug in the console: please report it",
        about_,
    )


class MonitorTelemetry:
    def __init__(
        self,
        settings: MonitorSettings,
        *,
        gateway: Gateway,
        credential: Any,
        clock: Clock,
        transport: Any = None,
        retry: RetrySettings | None = None,
        region_hint: str | None = None,
    ) -> None:
        self._settings = settings
        self._gateway = gateway
        self._clock = clock
        self._clients = MonitorClients(settings, credential, transport=transport, retry=retry)
        self._calls = MonitorCalls(gateway, settings, clock)
        self._logs = LogsSource(self._calls, self._clients, settings)
        self._region = settings.region
        if self._region is None and region_hint:
            try:
                self._region = normalise_region(region_hint)
            except ValueError:
                self._region = None  # a hint that is no region: ask ARM instead
        self._region_failure: MonitorFailure | None = None
        self._region_failed_at: float | None = None
        self._not_cosmos: MonitorFailure | None = None

    # -- what it is ---------------------------------------------------------------------

    @property
    def settings(self) -> MonitorSettings:
        return self._settings

    @property
    def gateway(self) -> Gateway:
        return self._gateway

    @property
    def region(self) -> str | None:
        return self._region

    @property
    def calls(self) -> MonitorCalls:
        """The runner (ledger, hold-offs) other reads of this account share (the doctor's)."""
        return self._calls

    @property
    def clients(self) -> MonitorClients:
        return self._clients

    @property
    def about(self) -> TelemetryAbout:
        mode = self._logs.mode
        return TelemetryAbout(
            label=f"Azure Monitor · {self._settings.account}",
            simulated=False,
            resource_id=self._settings.resource_id,
            workspace_id=self._settings.workspace_id,
            has_logs=self._settings.workspace_id is not None,
            log_mode=mode.value if mode is not None else "",
            min_refresh_s=MIN_REFRESH_S,
        )

    def problems(self) -> list[TelemetryProblem]:
        """What opening found wrong (the account is not Cosmos, its region is unknown)."""
        found = [f for f in (self._not_cosmos, self._region_failure) if f is not None]
        return [f.problem("account") for f in found]

    # -- the region -----------------------------------------------------------------------

    async def locate(self) -> None:
        """Find the region from ARM unless it is known or not needed; failures are kept,
        not raised."""
        if not self._settings.needs_region:
            return  # the metrics host is given whole: ARM is never asked
        if self._region is not None or self._not_cosmos is not None:
            return
        try:
            account = await read_account(self._calls, self._clients, self._settings)
        except MonitorFailure as failure:
            if failure.kind is ProblemKind.NOT_COSMOS:
                self._not_cosmos = failure
            else:
                self._region_failed_at = self._clock.now()
                self._region_failure = MonitorFailure(
                    failure.kind,
                    f"the account's region is unknown: {failure.message}",
                    REGION_FIX + (f"; else {failure.fix}" if failure.fix else ""),
                    retry_after_s=failure.retry_after_s,
                )
            return
        self._region, self._region_failure = account.region, None

    def _locate_again(self) -> bool:
        """Whether a failed region lookup is worth another ARM read now: a transient one,
        once ``MIN_REFRESH_S`` has passed (the same refresh asks several questions)."""
        failure = self._region_failure
        if failure is None:
            return True
        if failure.kind not in _TRANSIENT or self._region_failed_at is None:
            return False
        return self._clock.now() - self._region_failed_at >= MIN_REFRESH_S

    # -- the questions --------------------------------------------------------------------

    async def metrics(self, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        needs_region = self._settings.needs_region
        if needs_region and self._region is None and self._locate_again():
            await self.locate()
        answers = []
        for query in queries:
            name = f"metrics: {query.name}"
            unknown = needs_region and self._region is None
            blocker = self._not_cosmos or (self._region_failure if unknown else None)
            if blocker is not None or unknown:
                failure = blocker or MonitorFailure(
                    ProblemKind.QUERY_ERROR, "the account's region is unknown", REGION_FIX
                )
                answers.append(MetricAnswer(query, problem=failure.problem(name)))
                continue
            try:
                series, problem = await query_metrics(
                    query,
                    calls=self._calls,
                    clients=self._clients,
                    region=self._region,
                    resource_id=self._settings.resource_id,
                    database=self._settings.database,
                    container=self._settings.container,
                )
            except MonitorFailure as failure:
                answers.append(MetricAnswer(query, problem=failure.problem(name)))
            except Exception as exc:
                answers.append(MetricAnswer(query, problem=_unexpected(exc, name)))
            else:
                answers.append(MetricAnswer(query, series, problem))
        return answers

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        if self._not_cosmos is not None:
            failure = self._not_cosmos
            return [LogAnswer(q, problem=failure.problem(about(q.name))) for q in queries]
        try:
            return await self._logs.answer(queries)
        except Exception as exc:
            return [LogAnswer(q, problem=_unexpected(exc, about(q.name))) for q in queries]

    async def close(self) -> None:
        """Close the clients; the credential is the session's and stays open."""
        await self._clients.close()


async def open_monitor(
    settings: MonitorSettings,
    *,
    gateway: Gateway,
    credential: Any,
    clock: Clock,
    transport: Any = None,
    region_hint: str | None = None,
    retry: RetrySettings | None = None,
) -> MonitorTelemetry:
    """The Azure Monitor source for ``settings``, its region found (see the module doc).

    ``region_hint`` is the Cosmos account's region when a Cosmos session is open
    (``CosmosStore.account_region``); ``transport`` an azure-core async transport (tests).
    Never raises for what Azure answers: see ``problems()``.
    """
    telemetry = MonitorTelemetry(
        settings,
        gateway=gateway,
        credential=credential,
        clock=clock,
        transport=transport,
        retry=retry,
        region_hint=region_hint,
    )
    await telemetry.locate()
    return telemetry
