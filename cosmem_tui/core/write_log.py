"""The audit lines of one guarded write, and how a write is asked to stop.

``Log`` writes the lines every write shares the shape of: an *intent* before each
request (refused, and the request not sent, when the disk has no room for what follows),
a *result* after it, a *verify* when a re-read settles a request that got no answer.
``Interrupt`` carries a stop request (SIGTERM, SIGHUP, ctrl+c) to a running erase,
which honours it between two requests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cosmem_tui.core.audit import AuditLog, iso_now
from cosmem_tui.model import Clock
from cosmem_tui.model.writes import ItemOutcome

Progress = Callable[[int, int], None]  # (deleted so far, confirmed total)


class Interrupt:
    """A request to stop a write between two requests: SIGTERM, SIGHUP, ctrl+c.

    The request in flight is never abandoned (its answer decides what the log says);
    the erase stops before the next one and writes its closing line."""

    def __init__(self) -> None:
        self.reason: str | None = None

    def request(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason


class Log:
    """The audit lines of one write, each with the write's common fields (``base``)."""

    def __init__(self, audit: AuditLog, clock: Clock, base: dict[str, Any]) -> None:
        self.audit = audit
        self.clock = clock
        self.base = base

    def line(self, *, reserve: bool = False, **fields: Any) -> None:
        record = {"at": iso_now(self.clock.now()), **self.base, **fields}
        self.audit.append(record, reserve=reserve)

    def intent(self, operation: str, item_id: str, etag: str, **fields: Any) -> None:
        """Before a request: what is about to be sent. Raises (nothing sent) if not logged."""
        self.line(
            reserve=True,
            event="intent",
            operation=operation,
            id=item_id,
            ids=[item_id],
            etag_before=etag,
            **fields,
        )

    def result(
        self,
        event: str,
        item_id: str,
        *,
        status: int,
        outcome: ItemOutcome,
        reason: str | None = None,
        **fields: Any,
    ) -> None:
        if reason:
            fields["reason"] = reason
        self.line(
            event=event,
            id=item_id,
            ids=[item_id],
            status=status,
            outcome=outcome.value,
            **fields,
        )

    def verify(self, item_id: str, outcome: ItemOutcome, reason: str) -> None:
        """What a re-read says of a request that got no answer."""
        self.line(event="verify", id=item_id, ids=[item_id], outcome=outcome.value, reason=reason)
