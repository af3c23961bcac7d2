"""What the telemetry views share: windows, problems placed where their tile is, labels.

A ``TelemetryProblem`` says which question it concerns in ``about``
(``"metrics: ru"``, ``"logs: key_usage"``); the views show it in the tile that
question feeds, with its fix, and only problems no tile claims go to the view's own
problem line. Nothing here fetches: the views' refresh loops do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from cosmem_tui.core.session import Session
from cosmem_tui.model import Key
from cosmem_tui.model.telemetry import (
    HotKeysReport,
    KeyLevel,
    ProblemKind,
    TelemetryAbout,
    TelemetryProblem,
    ThroughputReport,
    Window,
)
from cosmem_tui.model.times import utc_text

WINDOWS = tuple(Window)

NOT_CONFIGURED = (
    "No telemetry for this session: the throughput and hot-tenant views read Azure "
    "Monitor.\n\n"
    "Name the Cosmos DB account with --resource-id "
    "/subscriptions/…/resourceGroups/…/providers/Microsoft.DocumentDB/databaseAccounts/NAME "
    "(or COSMEM_RESOURCE_ID): that turns on the metrics (RU/s, 429s, partitions, latency).\n\n"
    "Name the Log Analytics workspace its diagnostic logs go to with --workspace-id GUID "
    "(or COSMEM_WORKSPACE_ID): hot tenants come from the PartitionKeyRUConsumption log.\n\n"
    "The signed-in identity needs Monitoring Reader on the account and Log Analytics "
    "Reader on the workspace. The demo workspace has a simulated workload."
)


def next_window(window: Window) -> Window:
    return WINDOWS[(WINDOWS.index(window) + 1) % len(WINDOWS)]


class ThroughputReports(Protocol):
    """What the throughput view asks of the session's throughput service."""

    @property
    def about(self) -> TelemetryAbout: ...

    async def report(self, window: Window, *, region: str | None = None) -> ThroughputReport: ...


class HotKeyReports(Protocol):
    """What the hot-tenants view (and browse's load column) ask of the hot-keys service."""

    @property
    def about(self) -> TelemetryAbout: ...

    async def report(
        self,
        window: Window,
        *,
        level: KeyLevel = KeyLevel.TENANT,
        tenant: Key | None = None,
        region: str | None = None,
    ) -> HotKeysReport: ...


def throughput_of(session: Session | None) -> ThroughputReports | None:
    """The session's throughput service; None without telemetry (no --resource-id)."""
    return session.throughput if session is not None else None


def hot_keys_of(session: Session | None) -> HotKeyReports | None:
    return session.hot_keys if session is not None else None


def forget_answers(session: Session | None) -> None:
    """``ctrl+r``: the next refresh asks the source again instead of reusing answers."""
    reader = session.telemetry if session is not None else None
    if reader is not None:
        reader.forget()


def concerns(problem: TelemetryProblem, kind: str, names: Iterable[str]) -> bool:
    """Does ``problem`` concern one of the questions ``names`` of ``kind`` ("metrics")?"""
    prefix, _, name = problem.about.partition(":")
    return prefix.strip().lower() == kind and name.strip().lower() in set(names)


def claimed(
    problems: Sequence[TelemetryProblem], kind: str, names: Iterable[str]
) -> tuple[TelemetryProblem, ...]:
    wanted = set(names)
    return tuple(p for p in problems if concerns(p, kind, wanted))


def problem_text(problem: TelemetryProblem, *, with_about: bool = False) -> str:
    """``⚠ what happened — what fixes it`` (the tile's name only where it is not obvious)."""
    text = problem.describe() if with_about else problem.message
    if not with_about and problem.fix:
        text = f"{problem.message} — {problem.fix}"
    return f"⚠ {text}"


def is_unconfigured(problems: Sequence[TelemetryProblem]) -> bool:
    return any(p.kind is ProblemKind.NOT_CONFIGURED for p in problems)


def utc(epoch: float | None, *, seconds: bool = False) -> str:
    return utc_text(epoch, "%H:%M:%S UTC" if seconds else "%H:%M UTC")


def source_text(about: TelemetryAbout) -> str:
    """The label, and "simulated workload" whenever it is (never left to be guessed)."""
    label = about.label
    if about.simulated and "simulated" not in label.lower():
        label = f"{label} (simulated workload)"
    return label
