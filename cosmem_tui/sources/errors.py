"""Errors a person can cause or meet: each carries a one-line message to show as is."""

from __future__ import annotations


class StoreError(Exception):
    """A request the store could not serve. ``status`` follows HTTP (Cosmos) codes."""

    status: int = 500

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.__class__.__name__


class NotFound(StoreError):
    status = 404


class BadRequest(StoreError):
    status = 400


class Throttled(StoreError):
    status = 429

    def __init__(
        self,
        message: str,
        *,
        retry_after_ms: float | None = None,
        sub_status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after_ms = retry_after_ms
        self.sub_status = sub_status  # why (model.substatus.throttle_cause)


class WorkspaceError(StoreError):
    """A local workspace file that is missing, unreadable or not a workspace."""

    status = 400


class Unauthorized(StoreError):
    """401: the account rejected the key or token (or no credential could sign in)."""

    status = 401


class Forbidden(StoreError):
    """403: signed in, but not allowed (missing data-plane role, firewall, disabled key auth)."""

    status = 403


class Unavailable(StoreError):
    """503: the service is temporarily unable to serve the request."""

    status = 503


class ConnectionFailed(StoreError):
    """No answer at all: wrong endpoint, DNS failure, refused connection, TLS failure."""

    status = 0


class RequestTimedOut(ConnectionFailed):
    """The service did not answer in time."""

    status = 408


class ServerSilent(ConnectionFailed):
    """Background work not sent: the account stopped answering (a request in flight got
    no answer within its deadline). A foreground action still tries; an answer ends it."""

    status = 0


class PartitionKeyMismatch(StoreError):
    """The container's partition key is not the one the selected schema expects."""

    status = 400


class BudgetSpent(StoreError):
    """The session's RU budget is spent: background work stops; a declined foreground action.

    ``needed_ru`` is what the refused work was expected to cost, so a message can say
    which budget would have let it finish.
    """

    status = 0

    def __init__(self, message: str, *, spent_ru: float, budget_ru: float, needed_ru: float):
        super().__init__(message)
        self.spent_ru = spent_ru
        self.budget_ru = budget_ru
        self.needed_ru = needed_ru


class InvalidItemId(StoreError):
    """An id a point operation cannot address (``sources/item_ids.py``): nothing was sent."""

    status = 400


class Conflict(StoreError):
    """412: the item changed after it was read (its ETag moved); nothing was written."""

    status = 412


class WritesNotAllowed(StoreError):
    """A write the session may not send: it was opened without --allow-writes.

    Raised before anything goes on the wire; no ledger record (nothing was sent).
    """

    status = 0
