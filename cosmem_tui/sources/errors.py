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

    def __init__(self, message: str, *, retry_after_ms: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_ms = retry_after_ms


class WorkspaceError(StoreError):
    """A local workspace file that is missing, unreadable or not a workspace."""

    status = 400
