"""What each HTTP response of the SDK tells the Gateway: charge, activity id, throttling.

The client is built with ``raw_response_hook=on_response``, which azure-core calls for
every response on the wire, retries and the SDK's own routing reads included. The
request being served is found through a context variable bound around each Gateway
ticket, so concurrent requests (per-tenant counts run side by side) never mix up
their charges.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from cosmem_tui.model import Throttling
from cosmem_tui.sources.gateway import Gateway, RequestTicket

CHARGE = "x-ms-request-charge"
ACTIVITY = "x-ms-activity-id"
RETRY_AFTER = "x-ms-retry-after-ms"


@dataclass
class Binding:
    ticket: RequestTicket
    gateway: Gateway
    operation: str
    target: str
    responses: int = 0
    throttles: int = 0


_CURRENT: ContextVar[Binding | None] = ContextVar("cosmem_wire_binding", default=None)


@contextmanager
def bind(ticket: RequestTicket, gateway: Gateway, operation: str, target: str) -> Iterator[Binding]:
    binding = Binding(ticket, gateway, operation, target)
    token = _CURRENT.set(binding)
    try:
        yield binding
    finally:
        _CURRENT.reset(token)


def retry_after_ms(headers: Any) -> float | None:
    raw = headers.get(RETRY_AFTER) if headers is not None else None
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def on_response(response: Any) -> None:
    """azure-core ``raw_response_hook``: attribute one wire response to its ticket."""
    binding = _CURRENT.get()
    if binding is None:
        return
    http = response.http_response
    headers = http.headers
    binding.responses += 1
    charge = headers.get(CHARGE)
    if charge:
        with suppress(ValueError):  # a malformed header must not break the request
            binding.ticket.charge(float(charge))
    activity = headers.get(ACTIVITY)
    if activity:
        binding.ticket.activity_id = activity
    if http.status_code == 429:
        binding.throttles += 1
        wait = retry_after_ms(headers)
        binding.ticket.retry_after_ms = wait
        # The SDK sleeps for `wait` and retries; if it gives up instead, the caller
        # reports the final 429 (see calls.call), so "retrying" is right until then.
        binding.gateway.note_throttle(
            Throttling(binding.operation, binding.target, binding.throttles, wait, retrying=True)
        )
