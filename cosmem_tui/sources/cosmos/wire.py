"""Every HTTP response of the SDK becomes one ledger record.

The client is built with ``raw_response_hook=on_response``, which azure-core calls for
every response on the wire: query pages, the SDK's own query-plan requests and
partition-range reads, and error answers (429s included). The call being served is
found through a context variable bound around each attempt (``bind``), so concurrent
calls never mix up their records. An attempt that ends without any answer (a timeout,
a cancellation, a refused connection) gets one record of its own (``Binding.no_answer``).

The client is also built with ``raw_request_hook=on_request``, the last gate before the
wire: a request with a write verb (PUT, PATCH, DELETE, or a POST that is not a query)
is refused unless it belongs to a call declared as a write, in a session that allows
writes. Nothing a read path does can send one, even by mistake. The gate also looks at
the URL as the HTTP layer will send it (dot segments resolved, the way aiohttp's yarl
does): a request whose path would change on the way is refused, and a declared write
of one item must go to that item's own URL (``…/docs/ID``) — so an id such as ``..``
can never turn a DELETE of an item into a DELETE of its container.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

from yarl import URL

from cosmem_tui.model import Kind, RequestCharge, Scope
from cosmem_tui.sources.errors import WritesNotAllowed
from cosmem_tui.sources.request_ledger import RequestLedger

CHARGE = "x-ms-request-charge"
ACTIVITY = "x-ms-activity-id"
RETRY_AFTER = "x-ms-retry-after-ms"
SUB_STATUS = "x-ms-substatus"
ITEM_COUNT = "x-ms-item-count"
QUERY_PLAN = "x-ms-cosmos-is-query-plan-request"
IS_QUERY = "x-ms-documentdb-isquery"
RANGE_ID = "x-ms-documentdb-partitionkeyrangeid"
CHANGE_FEED = "A-IM"  # a read of the change feed (either mode): a page, like a query's


@dataclass
class Binding:
    """One attempt of one logical call: where its responses are recorded."""

    ledger: RequestLedger
    operation: str
    scope: Scope
    target: str
    call: int
    attempt: int
    background: bool
    cause: str
    write: bool = False  # a declared write (CosmosCalls.call(write=True)): may send one
    item_id: str | None = None  # a point operation's item: its writes go to its URL only
    responses: int = 0
    throttles: int = 0
    items: int = 0
    last_status: int = 0
    last_retry_after_ms: float | None = None
    last_sub_status: int | None = None  # of the last 429: its cause
    # Set when the attempt is over. The SDK starts background tasks of its own (account
    # refreshes), which inherit the context — and this binding — of the call that
    # started them: their responses are still recorded, but as the SDK's own.
    closed: bool = False
    _last_at: float = -1.0

    def __post_init__(self) -> None:
        self._last_at = self.ledger.timer()

    def _elapsed_ms(self) -> float:
        now = self.ledger.timer()
        elapsed = (now - self._last_at) * 1000.0
        self._last_at = now  # the SDK sends one request at a time within an attempt
        return elapsed

    def record(
        self,
        *,
        kind: Kind,
        status: int,
        request_units: float = 0.0,
        items: int = 0,
        activity_id: str | None = None,
        retry_after_ms: float | None = None,
        range_id: str | None = None,
        cancelled: bool = False,
        own: bool = False,
        sub_status: int | None = None,
    ) -> None:
        scope = self.scope if kind in (Kind.QUERY, Kind.POINT, Kind.WRITE) else Scope.METADATA
        target = f"{self.target} · range {range_id}" if range_id else self.target
        operation = self.operation
        if self.closed and not own:
            operation, scope, target = "sdk-background", Scope.METADATA, f"after {self.operation}"
        self.ledger.record(
            RequestCharge(
                operation=operation,
                scope=scope,
                request_units=request_units,
                duration_ms=self._elapsed_ms(),
                item_count=items,
                status=status,
                simulated=False,
                target=target,
                activity_id=activity_id,
                retry_after_ms=retry_after_ms,
                kind=kind,
                attempt=self.attempt,
                call=self.call,
                cancelled=cancelled,
                cause=self.cause,
                at=self.ledger.clock.now(),
                background=self.background,
                sub_status=sub_status,
            )
        )

    def no_answer(self, *, cancelled: bool) -> None:
        """The attempt ended without an answer for its last request: record that request."""
        kind = Kind.QUERY if self.responses else self._first_kind()
        self.record(kind=kind, status=0, cancelled=cancelled, own=True)

    def _first_kind(self) -> Kind:
        return (
            Kind.POINT
            if self.scope is Scope.POINT
            else (Kind.METADATA if self.scope is Scope.METADATA else Kind.QUERY)
        )


_CURRENT: ContextVar[Binding | None] = ContextVar("cosmem_wire_binding", default=None)


@contextmanager
def bind(binding: Binding) -> Iterator[Binding]:
    token = _CURRENT.set(binding)
    try:
        yield binding
    finally:
        binding.closed = True
        _CURRENT.reset(token)


def retry_after_ms(headers: Any) -> float | None:
    raw = headers.get(RETRY_AFTER) if headers is not None else None
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def sub_status(headers: Any) -> int | None:
    """The answer's ``x-ms-substatus`` (None when absent or malformed)."""
    raw = headers.get(SUB_STATUS) if headers is not None else None
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def is_write(method: str, headers: Any) -> bool:
    """Does this request change data? Every verb but GET/HEAD, save query POSTs."""
    method = method.upper()
    if method in ("GET", "HEAD", "OPTIONS"):
        return False
    if method == "POST":
        return not (headers.get(IS_QUERY) or headers.get(QUERY_PLAN))
    return True  # PUT, PATCH, DELETE, and anything unknown


def request_kind(method: str, url: str, headers: Any) -> Kind:
    """What an SDK request was for, from its method, path and headers."""
    if is_write(method, headers):
        return Kind.WRITE
    if headers.get(QUERY_PLAN):
        return Kind.QUERY_PLAN
    path = urlparse(url).path.rstrip("/")
    if path.endswith("/pkranges"):
        return Kind.RANGES
    if headers.get(IS_QUERY) or headers.get(CHANGE_FEED):
        return Kind.QUERY
    parts = path.strip("/").split("/")
    if method == "GET" and len(parts) >= 6 and parts[-2] == "docs":
        return Kind.POINT
    return Kind.METADATA


def _number(headers: Any, name: str) -> float:
    with suppress(TypeError, ValueError):  # a malformed header must not break the request
        return float(headers.get(name) or 0.0)
    return 0.0


def sent_path(url: str) -> str:
    """The path the HTTP layer sends for ``url``: dot segments resolved, as yarl does."""
    return URL(url).raw_path


def _segments(path: str) -> list[str]:
    return [unquote(s) for s in path.strip("/").split("/")]


def url_problem(method: str, url: str, item_id: str | None, write: bool) -> str | None:
    """Why this request must not go out as built (None: it may)."""
    given = urlparse(url).path
    sent = sent_path(url)
    if _segments(sent) != _segments(given):
        return f"{given} would be sent as {sent} (the path changes on the way)"
    if write and item_id is not None:
        parts = _segments(sent)
        own = len(parts) == 6 and parts[0::2] == ["dbs", "colls", "docs"] and parts[5] == item_id
        if not own:
            return f"{sent} is not the URL of item {item_id!r}"
    return None


def on_request(request: Any) -> None:
    """azure-core ``raw_request_hook``: refuse a write verb that is not a declared write,
    and any request whose URL is not what the call addresses."""
    http = request.http_request
    binding = _CURRENT.get()
    write = is_write(http.method, http.headers)
    problem = url_problem(
        http.method, http.url, binding.item_id if binding is not None else None, write
    )
    if problem is not None:
        raise WritesNotAllowed(f"refused to send {http.method.upper()}: {problem}")
    if not write:
        return
    if (
        binding is not None
        and binding.write
        and not binding.closed
        and binding.ledger.writes_allowed
    ):
        return
    raise WritesNotAllowed(
        f"refused to send {http.method.upper()} {urlparse(http.url).path}: "
        "not a declared write of a session opened with --allow-writes"
    )


def on_response(response: Any) -> None:
    """azure-core ``raw_response_hook``: one ledger record per HTTP response."""
    binding = _CURRENT.get()
    if binding is None:
        return
    http = response.http_response
    request = http.request
    headers = http.headers
    status = int(http.status_code)
    kind = request_kind(request.method, request.url, request.headers)
    items = int(_number(headers, ITEM_COUNT))
    if kind is Kind.POINT and status == 200:
        items = 1  # a point read answers one item and sends no item count
    wait = retry_after_ms(headers) if status == 429 else None
    cause = sub_status(headers)
    binding.responses += 1
    binding.last_status = status
    if kind is Kind.QUERY or kind is Kind.POINT:
        binding.items += items
    binding.record(
        kind=kind,
        status=status,
        request_units=_number(headers, CHARGE),
        items=items if kind in (Kind.QUERY, Kind.POINT) else 0,
        activity_id=headers.get(ACTIVITY) or None,
        retry_after_ms=wait,
        range_id=request.headers.get(RANGE_ID) or None,
        sub_status=cause,
    )
    if status == 429:
        binding.throttles += 1
        binding.last_retry_after_ms = wait
        binding.last_sub_status = cause
        binding.ledger.note_throttle(
            binding.operation, binding.target, binding.attempt, wait, sub_status=cause
        )
    else:
        binding.ledger.note_answer()
