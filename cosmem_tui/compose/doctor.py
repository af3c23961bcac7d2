"""The doctor every session has, built on first use (``Session.doctor``): its facts
(what the session was pointed at and told) and the parts it reads through."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import Clock
from cosmem_tui.sources.request_ledger import RequestLedger

if TYPE_CHECKING:
    from cosmem_tui.core.doctor_service import DoctorService

# The ``SessionFacts`` fields that name the account (a telemetry backend's ``names``).
_NAMES = (
    "account",
    "resource_id",
    "subscription",
    "resource_group",
    "workspace_id",
    "database",
    "container",
)


def doctor_service(
    names: Mapping[str, str | None],
    ledger: RequestLedger,
    clock: Clock,
    *,
    parts: Mapping[str, Any],
    **facts: Any,
) -> DoctorService:
    """A ``DoctorService`` over ``SessionFacts(**facts)`` with the account's ``names``
    (``facts`` win), reading through ``parts`` (access, inspector, telemetry, schema…)."""
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.model.doctor import SessionFacts

    named = {key: value for key, value in names.items() if key in _NAMES}
    return DoctorService(SessionFacts(**{**named, **facts}), ledger, clock, **parts)
