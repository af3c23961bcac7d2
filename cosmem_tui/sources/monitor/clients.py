"""The three Azure Monitor clients, built one way: the session's credential, the ledger
policy, bounded retries, and (in tests) an injected azure-core transport.

* ``azure.monitor.querymetrics.aio.MetricsClient`` on the account's regional host,
  one per host (built when the region is known, or at once for a ``--metrics-endpoint``
  without ``{region}``);
* ``azure.monitor.query.aio.LogsQueryClient`` on the Log Analytics endpoint;
* a plain ``AsyncPipelineClient`` for the ARM reads (the account, its throughput).

Hosts and token audiences come from the settings' cloud (``--cloud``); an audience is
replaced only when set on its own (``metrics_audience``, ``logs_audience``). The
console always hands each client its audience: ``LogsQueryClient`` would otherwise ask
a token for whatever host ``--logs-endpoint`` names (a private link), which Entra ID
does not issue. For the public cloud these are the SDKs' own defaults. TLS
verification is left to the transport's defaults, so SSL_CERT_FILE and friends keep
working; the credential is the session's, closed by the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from azure.core import AsyncPipelineClient
from azure.core.pipeline import policies
from azure.monitor.query.aio import LogsQueryClient
from azure.monitor.querymetrics.aio import MetricsClient

from cosmem_tui import __version__
from cosmem_tui.sources.monitor.settings import MonitorSettings
from cosmem_tui.sources.monitor.wire import BoundedRetry, LedgerPolicy

USER_AGENT = f"cosmem/{__version__}"


@dataclass(frozen=True, slots=True)
class RetrySettings:
    """azure-core retries per call: few, short, and never a long Retry-After sleep."""

    total: int = 2  # retries after the first attempt (azure-core's default is 10)
    backoff_factor: float = 0.5  # seconds: 0.5, 1, 2 … between attempts without Retry-After
    backoff_max_s: float = 4.0
    max_wait_s: float = 3.0  # a longer Retry-After fails the call (and holds the service off)

    def policy(self) -> BoundedRetry:
        return BoundedRetry(
            max_wait_s=self.max_wait_s,
            retry_total=self.total,
            retry_backoff_factor=self.backoff_factor,
            retry_backoff_max=self.backoff_max_s,
        )


class MonitorClients:
    def __init__(
        self,
        settings: MonitorSettings,
        credential: Any,
        *,
        transport: Any = None,
        retry: RetrySettings | None = None,
    ) -> None:
        self._settings = settings
        self._credential = credential
        self._transport = transport
        self._retry = retry or RetrySettings()
        self._metrics: dict[str, MetricsClient] = {}
        self._logs: LogsQueryClient | None = None
        self._arm: AsyncPipelineClient[Any, Any] | None = None

    def _options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "retry_policy": self._retry.policy(),
            "per_retry_policies": [LedgerPolicy()],  # a fresh one per pipeline
            "user_agent": USER_AGENT,
        }
        if self._transport is not None:
            options["transport"] = self._transport
        return options

    def metrics(self, region: str | None) -> MetricsClient:
        endpoint = self._settings.metrics_url(region)
        client = self._metrics.get(endpoint)
        if client is None:
            options = self._options()
            options["audience"] = self._settings.metrics_token_audience
            client = self._metrics[endpoint] = MetricsClient(endpoint, self._credential, **options)
        return client

    def logs(self) -> LogsQueryClient:
        if self._logs is None:
            options = self._options()
            options["endpoint"] = self._settings.logs_url
            options["audience"] = self._settings.logs_token_audience
            self._logs = LogsQueryClient(self._credential, **options)
        return self._logs

    def arm(self) -> AsyncPipelineClient[Any, Any]:
        if self._arm is None:
            pipeline = [
                policies.RequestIdPolicy(),
                policies.HeadersPolicy(),
                policies.UserAgentPolicy(user_agent=USER_AGENT),
                policies.ContentDecodePolicy(),
                policies.AsyncRedirectPolicy(),
                self._retry.policy(),
                LedgerPolicy(),
                policies.AsyncBearerTokenCredentialPolicy(
                    self._credential, self._settings.cloud.arm_scope
                ),
                policies.NetworkTraceLoggingPolicy(),
            ]
            options: dict[str, Any] = {}
            if self._transport is not None:
                options["transport"] = self._transport
            self._arm = AsyncPipelineClient(self._settings.arm_url, policies=pipeline, **options)
        return self._arm

    async def close(self) -> None:
        """Close the clients (not the credential: the session owns it)."""
        clients: list[Any] = [*self._metrics.values(), self._logs, self._arm]
        self._metrics, self._logs, self._arm = {}, None, None
        for client in clients:
            if client is not None:
                await client.close()
