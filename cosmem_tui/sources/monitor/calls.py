"""The one runner every Azure Monitor call goes through: hold-off, deadline, ledger, errors.

``MonitorCalls.run`` runs one logical call (one metrics query, one logs query, the ARM
read):

1. while the service is held off (it answered 429/529 and asked for a pause), the call
   is not sent at all: it fails at once as THROTTLED, saying how long is left;
2. it binds the call for the ledger (``wire``: one record per HTTP attempt) and runs
   under a deadline (``asyncio.timeout``) — past it, UNREACHABLE, and the attempt in
   flight is recorded as *no answer*;
3. a failure becomes a ``MonitorFailure``; a 429/529 holds that service off for the
   Retry-After it sent (or a default), never the other services and never the
   Cosmos account's own hold-off.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from cosmem_tui.model import Clock
from cosmem_tui.model.telemetry import ProblemKind
from cosmem_tui.sources.holdoff import HoldOff
from cosmem_tui.sources.monitor.failures import MonitorFailure, Service, translate
from cosmem_tui.sources.monitor.settings import MonitorSettings
from cosmem_tui.sources.monitor.wire import Binding, bind
from cosmem_tui.sources.request_ledger import RequestLedger

T = TypeVar("T")
DEFAULT_HOLD_OFF_S = 30.0  # a throttle that did not say how long to wait


class MonitorCalls:
    def __init__(self, ledger: RequestLedger, settings: MonitorSettings, clock: Clock) -> None:
        self.ledger = ledger
        self.settings = settings
        self.clock = clock
        # Measured on the session's clock (frozen in tests); no jitter: callers are not
        # parked here, they get an answer at once.
        timer: Callable[[], float] = getattr(clock, "perf", time.monotonic)
        self._holds = {service: HoldOff(jitter=0.0, monotonic=timer) for service in Service}

    def held_for(self, service: Service) -> float:
        """Seconds the service is still held off (0: calls may go out)."""
        return self._holds[service].pause_s()

    def hold(self, service: Service, seconds: float | None) -> None:
        wait = DEFAULT_HOLD_OFF_S if seconds is None else max(seconds, 1.0)
        self._holds[service].throttled(wait * 1000.0)

    def held(self, service: Service) -> MonitorFailure:
        wait = self.held_for(service)
        return MonitorFailure(
            ProblemKind.THROTTLED,
            f"{service.label} throttled the console: not asked again for {wait:,.0f} s",
            "the console waits out the pause the service asked for",
            retry_after_s=wait,
        )

    async def run(
        self,
        service: Service,
        operation: str,
        target: str,
        send: Callable[[], Awaitable[T]],
    ) -> T:
        """Run ``send`` (which makes SDK requests) as one call; raises ``MonitorFailure``."""
        if self.held_for(service) > 0:
            raise self.held(service)
        ledger = self.ledger
        binding = Binding(
            ledger, operation, service.scope, target, ledger.next_call(), RequestLedger.cause()
        )
        deadline = asyncio.timeout(self.settings.timeout_s)
        try:
            async with deadline:
                with bind(binding):
                    result = await send()
        except asyncio.CancelledError:
            binding.no_answer(cancelled=True)  # the caller went away: the answer is unused
            raise
        except TimeoutError:
            if not deadline.expired():
                raise self._failure(TimeoutError(), service) from None
            binding.no_answer(cancelled=False)
            raise MonitorFailure(
                ProblemKind.UNREACHABLE,
                f"{service.label} did not answer within {self.settings.timeout_s:g} s",
                "the console asks again on the next refresh",
            ) from None
        except MonitorFailure:
            raise
        except Exception as exc:
            raise self._failure(exc, service) from exc
        if binding.last_status not in (429, 529):
            self._holds[service].answered()
        return result

    def _failure(self, exc: BaseException, service: Service) -> BaseException:
        failure = translate(exc, service, self.settings, now=self.clock.now())
        if failure is None:
            return exc  # a bug: keep its traceback
        if failure.kind is ProblemKind.THROTTLED:
            self.hold(service, failure.retry_after_s)
        return failure
