"""``MonitorTelemetry``: the ``Telemetry`` contract over Azure Monitor for one Cosmos account.

``open_monitor`` builds it from ``MonitorSettings``, the session's ledger and its one
async credential (shared, never closed here), and finds the region of the metrics host:
the ``--region`` setting, else ARM's ``location`` of the resource (one read, which also
refuses a resource that is not a Cosmos account). Azure Monitor keeps a resource's
metrics in the resource's region, which is often not the Cosmos write region, so the
write region the caller read from the Cosmos account (``region_hint``) is used only
when ARM cannot be read, and ``account()`` says which one was used. Every metrics answer
is checked against the region Azure says the data came from (``resource_region``): a
different one is said, and the next calls go there. A ``--metrics-endpoint`` without
``{region}`` needs no region, so the metrics never wait on ARM: a network where ARM
cannot be reached (a private link) still gets its metrics. Without ARM and without a
region, the logs are still answered and every metrics answer names what is missing and
how to give it; a lookup that could not reach ARM is tried again after
``MIN_REFRESH_S``, not on every question of the same refresh.

``account()`` answers the account's regions and write region (ARM, else the Cosmos
write region alone) and the container's offer (ARM throughputSettings: the
container's, else its database's; serverless accounts have none and are not asked).

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
    AccountFacts,
    LogAnswer,
    LogQuery,
    MetricAnswer,
    MetricQuery,
    Offer,
    ProblemKind,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputMode,
)
from cosmem_tui.sources.cosmos.region import normalise_region
from cosmem_tui.sources.monitor.arm import AccountResource, read_account, read_offer
from cosmem_tui.sources.monitor.calls import MonitorCalls
from cosmem_tui.sources.monitor.clients import MonitorClients, RetrySettings
from cosmem_tui.sources.monitor.failures import MonitorFailure
from cosmem_tui.sources.monitor.logs import LogsSource, about
from cosmem_tui.sources.monitor.metrics import query_metrics
from cosmem_tui.sources.monitor.settings import MonitorSettings
from cosmem_tui.sources.request_ledger import RequestLedger

MIN_REFRESH_S = 60.0  # metrics move once a minute and every call is billed
ACCOUNT_REUSE_S = 300.0  # regions and offers change rarely; each read is an ARM call
REGION_FIX = (
    "pass --region (e.g. --region eastus), or a --metrics-endpoint without {region}: "
    "then ARM is not asked"
)
FROM_SETTING = "--region"
FROM_ARM = "ARM location"
FROM_ENDPOINT = "--metrics-endpoint"
FROM_ANSWER = "the region Azure Monitor answered from"
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
        ledger: RequestLedger,
        credential: Any,
        clock: Clock,
        transport: Any = None,
        retry: RetrySettings | None = None,
        region_hint: str | None = None,
    ) -> None:
        self._settings = settings
        self._ledger = ledger
        self._clock = clock
        self._clients = MonitorClients(settings, credential, transport=transport, retry=retry)
        self._calls = MonitorCalls(ledger, settings, clock)
        self._logs = LogsSource(self._calls, self._clients, settings)
        self._region = settings.region
        self._region_from = FROM_SETTING if settings.region else ""
        self._write_hint: str | None = None  # the Cosmos account's write region
        if region_hint:
            try:
                self._write_hint = normalise_region(region_hint)
            except ValueError:
                self._write_hint = None  # a hint that is no region: ARM alone, then
        self._region_failure: MonitorFailure | None = None
        self._region_failed_at: float | None = None
        self._not_cosmos: MonitorFailure | None = None
        self._account: AccountResource | None = None
        self._account_failure: MonitorFailure | None = None
        self._account_read_at: float | None = None
        self._offers: dict[tuple[str, str | None], tuple[float, Offer, MonitorFailure | None]] = {}

    # -- what it is ---------------------------------------------------------------------

    @property
    def settings(self) -> MonitorSettings:
        return self._settings

    @property
    def ledger(self) -> RequestLedger:
        return self._ledger

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

    @property
    def region_from(self) -> str:
        """Where the metrics host's region came from (``FROM_*``, or the write region)."""
        return self._region_from

    def problems(self) -> list[TelemetryProblem]:
        """What opening found wrong (the account is not Cosmos, its region is unknown, or
        only the write region is known)."""
        found = [f for f in (self._not_cosmos, self._region_failure) if f is not None]
        problems = [f.problem("account") for f in found]
        if self._region_from.startswith("the write region") and self._account_failure:
            problems.append(self._fallback_problem(self._account_failure))
        return problems

    def _fallback_problem(self, failure: MonitorFailure) -> TelemetryProblem:
        return TelemetryProblem(
            failure.kind,
            f"metrics asked of {self._region}, the Cosmos write region: ARM could not be "
            f"read for the account's own region ({failure.message}); on an account whose "
            "resource lives elsewhere (or after a failover) they may be empty",
            "pass --region with the account's location "
            "(az cosmosdb show -g GROUP -n ACCOUNT --query location)",
            "account",
        )

    # -- the region -----------------------------------------------------------------------

    async def locate(self) -> None:
        """Find the metrics host's region unless it is known or not needed: ARM's
        location, else the Cosmos write region; failures are kept, not raised."""
        if not self._settings.needs_region:
            self._region_from = FROM_ENDPOINT
            return  # the metrics host is given whole: the metrics never wait on ARM
        if self._region is not None or self._not_cosmos is not None:
            return
        await self._read_account()
        if self._account is not None:
            self._region, self._region_from = self._account.region, FROM_ARM
            self._region_failure = None
            return
        failure = self._account_failure
        if failure is None or failure.kind is ProblemKind.NOT_COSMOS:
            return
        if self._write_hint is not None:
            self._region = self._write_hint
            self._region_from = "the write region (ARM not readable)"
            self._region_failure = None
            return
        self._region_failed_at = self._clock.now()
        self._region_failure = MonitorFailure(
            failure.kind,
            f"the account's region is unknown: {failure.message}",
            REGION_FIX + (f"; else {failure.fix}" if failure.fix else ""),
            retry_after_s=failure.retry_after_s,
        )

    async def _read_account(self) -> None:
        """One ARM read of the account, kept ``ACCOUNT_REUSE_S`` (a failure: a minute)."""
        read_at = self._account_read_at
        if read_at is not None and self._not_cosmos is None:
            age = self._clock.now() - read_at
            if age < (ACCOUNT_REUSE_S if self._account is not None else MIN_REFRESH_S):
                return
        if self._not_cosmos is not None:
            return
        self._account_read_at = self._clock.now()
        try:
            self._account = await read_account(self._calls, self._clients, self._settings)
        except MonitorFailure as failure:
            if failure.kind is ProblemKind.NOT_COSMOS:
                self._not_cosmos = failure
            if self._account is None:  # a later failure keeps what was read before
                self._account_failure = failure
            return
        self._account_failure = None

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
                series, problem, answered_from = await query_metrics(
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
                moved = self._answered_from(answered_from, name)
                answers.append(MetricAnswer(query, series, problem or moved))
        return answers

    def _answered_from(self, answered: str | None, about_: str) -> TelemetryProblem | None:
        """Azure Monitor's ``resource_region`` against the host's region: when it names
        another, say so, and send the next calls to the region it named."""
        if answered is None or self._region is None or not self._settings.needs_region:
            return None
        try:
            region = normalise_region(answered)
        except ValueError:
            return None
        if region == self._region:
            return None
        asked, how = self._region, self._region_from
        self._region, self._region_from = region, f"{FROM_ANSWER} (not {asked}: {how})"
        # Not kept by the reader (it has a problem): the next refresh asks the new host.
        return TelemetryProblem(
            ProblemKind.PARTIAL,
            f"Azure Monitor answered from {region}, not from {asked} ({how}) where it was "
            f"asked: the next refresh asks {region}",
            "pass --region " + region,
            about_,
        )

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        if self._not_cosmos is not None:
            failure = self._not_cosmos
            return [LogAnswer(q, problem=failure.problem(about(q.name))) for q in queries]
        try:
            return await self._logs.answer(queries)
        except Exception as exc:
            return [LogAnswer(q, problem=_unexpected(exc, about(q.name))) for q in queries]

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        """The account's regions and write region, where its metrics are asked, and the
        container's offer; what could not be read stays unknown, with its problem."""
        problems: list[TelemetryProblem] = []
        if self._not_cosmos is not None:
            return AccountFacts(problems=(self._not_cosmos.problem("arm: account"),))
        await self._read_account()
        account = self._account
        if account is not None and self._region_from.startswith("the write region"):
            self._region, self._region_from = account.region, FROM_ARM  # ARM answers now
        if account is None:
            failure = self._account_failure
            # Said once: when the metrics host's region is unknown for this very failure,
            # every metrics answer already says it, with the fix.
            if failure is not None and self._region_failure is None:
                problems.append(
                    TelemetryProblem(
                        failure.kind,
                        "the account's regions and throughput settings are unknown: "
                        + failure.message,
                        failure.fix,
                        "arm: account",
                        failure.retry_after_s,
                    )
                )
        write = account.write_region if account is not None else self._write_hint
        regions = account.regions if account is not None else ((write,) if write else ())
        offer = Offer()
        if account is not None and account.serverless:
            offer = Offer(ThroughputMode.SERVERLESS, owner="account " + self._settings.account)
        elif database and (account is not None or self._account_failure is None):
            offer, failure = await self._offer(database, container)
            if failure is not None:
                problems.append(
                    TelemetryProblem(
                        failure.kind,
                        f"the provisioned throughput is unknown: {failure.message}; the "
                        "ProvisionedThroughput metric stands in",
                        failure.fix,
                        "arm: throughput",
                        failure.retry_after_s,
                    )
                )
        return AccountFacts(
            regions=regions,
            write_region=write,
            metrics_region=self._region,
            metrics_region_from=self._region_from,
            offer=offer,
            problems=tuple(problems),
        )

    async def _offer(
        self, database: str, container: str | None
    ) -> tuple[Offer, MonitorFailure | None]:
        """The container's offer, kept ``ACCOUNT_REUSE_S`` (a failure: a minute)."""
        key = (database, container)
        kept = self._offers.get(key)
        now = self._clock.now()
        if kept is not None:
            read_at, offer, failure = kept
            if now - read_at < (ACCOUNT_REUSE_S if failure is None else MIN_REFRESH_S):
                return offer, failure
        try:
            offer = await read_offer(
                self._calls, self._clients, self._settings, database, container
            )
        except MonitorFailure as failure:
            previous = kept[1] if kept is not None else Offer()
            self._offers[key] = (now, previous, failure)
            return previous, failure
        self._offers[key] = (now, offer, None)
        return offer, None

    async def close(self) -> None:
        """Close the clients; the credential is the session's and stays open."""
        await self._clients.close()


async def open_monitor(
    settings: MonitorSettings,
    *,
    ledger: RequestLedger,
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
        ledger=ledger,
        credential=credential,
        clock=clock,
        transport=transport,
        retry=retry,
        region_hint=region_hint,
    )
    await telemetry.locate()
    return telemetry
