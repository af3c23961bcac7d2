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
