"""A telemetry source that answers from a script: for the core services' arithmetic.

The sources themselves (Azure Monitor through its real clients, the simulator) have
their own tests and a shared contract suite; here only the joins and shares are tested.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cosmem_tui.model.telemetry import (
    RESOURCE_LOG_DELAY_S,
    AccountFacts,
    LogAnswer,
    LogQuery,
    MetricAnswer,
    MetricQuery,
    TelemetryAbout,
)
from cosmem_tui.sources.request_ledger import RequestLedger

# An account in one region, whose offer ARM did not tell (the metrics stand in).
ONE_REGION = AccountFacts(regions=("East US",), write_region="East US")


class ScriptedTelemetry:
    def __init__(
        self,
        *,
        metrics: Callable[[MetricQuery], MetricAnswer] | None = None,
        logs: Callable[[LogQuery], LogAnswer] | None = None,
        min_refresh_s: float = 60.0,
        log_delay_s: tuple[float, float] = RESOURCE_LOG_DELAY_S,
        account: AccountFacts = ONE_REGION,
    ) -> None:
        self._metrics = metrics or (lambda q: MetricAnswer(q))
        self._logs = logs or (lambda q: LogAnswer(q))
        self.facts = account
        self.accounts_asked = 0
        self._about = TelemetryAbout(
            label="scripted",
            simulated=True,
            min_refresh_s=min_refresh_s,
            log_delay_s=log_delay_s,
        )
        self._ledger = RequestLedger()
        self.asked: list[MetricQuery | LogQuery] = []

    @property
    def about(self) -> TelemetryAbout:
        return self._about

    @property
    def ledger(self) -> RequestLedger:
        return self._ledger

    async def metrics(self, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        self.asked.extend(queries)
        return [self._metrics(q) for q in queries]

    async def logs(self, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        self.asked.extend(queries)
        return [self._logs(q) for q in queries]

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        self.accounts_asked += 1
        return self.facts

    async def close(self) -> None:
        return None
