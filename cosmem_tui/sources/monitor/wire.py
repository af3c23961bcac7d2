"""Every HTTP attempt to Azure Monitor becomes one ledger record; retries stay few.

* ``LedgerPolicy`` sits in each client's pipeline right after the retry policy, so it
  sees every attempt the SDK makes — the first try and each retry — and records it in
  the session's ledger: kind MONITOR, unit "call", no RU, the status (0 when no answer
  came), how long it took, and the logical call it belongs to. The call being served is
  found through a context variable bound around it (``bind``), as for Cosmos.
* ``BoundedRetry`` keeps azure-core's retry loop (500/503/504, connection errors, and
  any answer that says when to come back) but small: a couple of retries with a capped
  backoff, and no retry at all when the service asks for a longer wait than a refresh
  can afford — then the call fails as throttled and the source holds that service off.
  (azure-core's default would sleep each Retry-After and try again, ten times.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from azure.core.exceptions import ClientAuthenticationError
from azure.core.pipeline import PipelineRequest, PipelineResponse
from azure.core.pipeline.policies import AsyncHTTPPolicy, AsyncRetryPolicy

from cosmem_tui.model import Kind, RequestCharge, Scope
from cosmem_tui.sources.request_ledger import RequestLedger

UNIT = "call"  # Azure Monitor bills and limits calls, not request units
_REQUEST_ID = ("x-ms-request-id", "request-id", "x-ms-correlation-request-id")


def retry_after_s(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """The wait a response asks for, in seconds (``retry-after-ms``, ``x-ms-retry-after-ms``
    or ``Retry-After`` in seconds or as an HTTP date); None when it asks for none."""
    if not headers:
        return None
    for name in ("retry-after-ms", "x-ms-retry-after-ms"):
        raw = headers.get(name)
        if raw:
            try:
                return max(0.0, float(raw) / 1000.0)
            except ValueError:
                pass
    raw = headers.get("Retry-After") or headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


@dataclass
class Binding:
    """One logical call (one metrics query, one logs query, the ARM lookup)."""

    ledger: RequestLedger
    operation: str  # "metrics: ru", "logs: key_usage", "arm: account"
    scope: Scope
    target: str
    call: int
    cause: str
    attempts: int = 0
    last_status: int = 0
    _started: float | None = None  # the attempt in flight, if any

    def begin(self) -> None:
        self.attempts += 1
        self._started = self.ledger.timer()

    def answered(self, status: int, headers: Mapping[str, str]) -> None:
        self.last_status = status
        wait = retry_after_s(headers, self.ledger.clock.now()) if status in (429, 529) else None
        request_id = next((headers[name] for name in _REQUEST_ID if headers.get(name)), None)
        self._record(status, retry_after_ms=None if wait is None else wait * 1000.0,
                     activity_id=request_id)  # fmt: skip

    def failed(self) -> None:
        """The attempt ended without an answer (refused, reset, TLS, DNS)."""
        self._record(0)

    def abandon(self) -> None:
        """Nothing was sent (the credential could not produce a token)."""
        self._started = None

    def no_answer(self, *, cancelled: bool) -> None:
        """The call ended (deadline, or the caller went away) with an attempt in flight."""
        if self._started is not None:
            self._record(0, cancelled=cancelled)

    def _record(
        self,
        status: int,
        *,
        retry_after_ms: float | None = None,
        activity_id: str | None = None,
        cancelled: bool = False,
    ) -> None:
        started, self._started = self._started, None
        now = self.ledger.timer()
        self.ledger.record(
            RequestCharge(
                operation=self.operation,
                scope=self.scope,
                request_units=0.0,
                duration_ms=(now - started) * 1000.0 if started is not None else 0.0,
                item_count=0,
                status=status,
                simulated=False,
                target=self.target,
                activity_id=activity_id,
                retry_after_ms=retry_after_ms,
                kind=Kind.MONITOR,
                attempt=self.attempts,
                call=self.call,
                cancelled=cancelled,
                cause=self.cause,
                at=self.ledger.clock.now(),
                unit=UNIT,
            )
        )


_CURRENT: ContextVar[Binding | None] = ContextVar("cosmem_monitor_binding", default=None)


@contextmanager
def bind(binding: Binding) -> Iterator[Binding]:
    token = _CURRENT.set(binding)
    try:
        yield binding
    finally:
        _CURRENT.reset(token)


class LedgerPolicy(AsyncHTTPPolicy[Any, Any]):
    """One ledger record per HTTP attempt of the call bound with ``bind``."""

    async def send(self, request: PipelineRequest[Any]) -> PipelineResponse[Any, Any]:
        binding = _CURRENT.get()
        if binding is None:  # not sent through the runner: nothing to account it to
            return await self.next.send(request)
        binding.begin()
        try:
            response = await self.next.send(request)
        except asyncio.CancelledError:
            raise  # the runner records the attempt: it knows whether it was the deadline
        except ClientAuthenticationError:
            binding.abandon()  # the token never came, so no request went out
            raise
        except Exception:
            binding.failed()
            raise
        http = response.http_response
        binding.answered(int(http.status_code), http.headers)
        return response


class BoundedRetry(AsyncRetryPolicy[Any, Any]):
    """azure-core's retries, bounded: never a long sleep inside one refresh."""

    def __init__(self, *, max_wait_s: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._max_wait_s = max_wait_s

    def is_retry(self, settings: dict[str, Any], response: PipelineResponse[Any, Any]) -> bool:
        # azure-core retries a POST (both APIs here) only on 500/503/504 or when the answer
        # carries a Retry-After; it honours retry-after-ms when sleeping but not when
        # deciding, so every form of the header counts here.
        http = response.http_response
        wait = retry_after_s(http.headers)
        if wait is not None and http.status_code >= 400:
            return wait <= self._max_wait_s  # a long pause: hold off instead of sleeping
        return bool(super().is_retry(settings, response))
