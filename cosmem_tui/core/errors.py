"""Lookup failures a user causes by naming something that is not there."""

from __future__ import annotations


class LookupFailed(LookupError):
    @property
    def message(self) -> str:
        return str(self.args[0])


class UnknownTenant(LookupFailed):
    pass


class UnknownThread(LookupFailed):
    pass


class UnknownItem(LookupFailed):
    pass


class WriteRefused(LookupFailed):
    """A write the console will not make as asked (an invalid ttl, nothing to erase, no
    audit log): one line for the user, nothing written."""


def is_expected(exc: BaseException) -> bool:
    """True for failures a person causes or meets (bad names, service errors, bad schemas)."""
    from cosmem_tui.schemas import SchemaError
    from cosmem_tui.sources.errors import StoreError

    return isinstance(exc, LookupFailed | StoreError | SchemaError)


def describe(exc: BaseException) -> str:
    """One line for any failure: what a person can act on, or the bug's name and text."""
    if is_expected(exc):
        return getattr(exc, "message", None) or str(exc)
    return f"unexpected error: {type(exc).__name__}: {exc}"
