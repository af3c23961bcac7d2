"""The doctor's verdicts: every console capability, what it needs, and whether it has it.

A registry of capabilities (``CAPABILITIES``), each naming the checks it *requires*
(any missing → blocked; any that cannot be read → unknown) and the checks that only
*improve* it (one missing → degraded), and when the session asks for it (a blocked
capability the session is configured for makes ``cosmem doctor`` fail). The checks are
in ``core/doctor_checks.py``; the evidence they read is gathered by
``core/doctor_service.py``. Pure: evidence in, report out, no request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cosmem_tui.core import doctor_checks_azure  # noqa: F401  (registers its checks)
from cosmem_tui.core.doctor_checks import CHECKS
from cosmem_tui.model.doctor import (
    Backend,
    CapabilityRow,
    CheckResult,
    CheckStatus,
    Cost,
    DoctorEvidence,
    DoctorReport,
    NeedKind,
    Reading,
    TelemetryKind,
    Verdict,
)

Asked = Callable[[DoctorEvidence], bool]


def _store(e: DoctorEvidence) -> bool:
    return e.session.backend is not Backend.NONE


def _metrics(e: DoctorEvidence) -> bool:
    return e.session.telemetry is not TelemetryKind.NONE


def _logs(e: DoctorEvidence) -> bool:
    kind = e.session.telemetry
    return kind is TelemetryKind.SIMULATED or (
        kind is TelemetryKind.AZURE and bool(e.session.workspace_id)
    )


def _writes(e: DoctorEvidence) -> bool:
    return e.session.writes_allowed


def _never(e: DoctorEvidence) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Capability:
    id: str
    title: str
    requires: tuple[str, ...]
    improves: tuple[str, ...] = ()
    asked: Asked = _never
    upcoming: bool = False  # not in the console yet: reported, never asked for
    telemetry: bool = False  # answered by telemetry (simulated on the demo)
    shows: tuple[str, ...] = ()  # checks shown with it that do not change its verdict


DATA = ("setting.container", "data.metadata", "data.query")
# What a working capability's evidence line shows: the access it rests on, not a setting.
SHOWN = frozenset({NeedKind.DATA_ACTION, NeedKind.ROLE, NeedKind.DIAGNOSTIC})
SPEED = ("account.merge", "account.priority")

CAPABILITIES: tuple[Capability, ...] = (
    Capability("browse", "browse", (*DATA, "schema.fits"), ("data.read", *SPEED), _store),
    Capability("counts", "counts", (*DATA, "schema.fits"), SPEED, _store),
    Capability("search", "search", (*DATA, "schema.fits"), SPEED, _store),
    Capability(
        "lifecycle", "lifecycle forecast", (*DATA, "schema.fits", "container.ttl"), SPEED, _store
    ),
    Capability(
        "throughput",
        "throughput metrics",
        ("monitor.configured", "monitor.reader"),
        ("throughput.mode", "arm.reader"),
        _metrics,
        telemetry=True,
        shows=("account.burst", "throughput.buckets"),
    ),
    Capability(
        "hot-tenants",
        "hot tenants",
        ("monitor.configured", "logs.configured", "logs.reader", "diag.pk_ru"),
        ("throughput.mode", "monitor.reader"),
        _logs,
        telemetry=True,
        shows=("diag.setting",),
    ),
    Capability(
        "throttles-by-key",
        "429s by key",
        ("monitor.configured", "logs.configured", "logs.reader", "diag.pk_ru", "diag.data_plane"),
        ("diag.data_plane_requests",),
        _logs,
        telemetry=True,
        shows=("diag.setting",),
    ),
    Capability(
        "storage-by-key",
        "storage by key",
        ("monitor.configured", "logs.configured", "logs.reader", "diag.pk_stats"),
        (),
        _logs,
        telemetry=True,
        shows=("diag.setting",),
    ),
    Capability(
        "writes",
        "guarded writes",
        (*DATA, "schema.fits", "setting.writes", "data.read", "data.write"),
        ("account.merge",),
        _writes,
    ),
    Capability(
        "change-feed",
        "all-versions change feed",
        ("setting.container", "data.change_feed", "feed.all_versions"),
        (),
        # Why it is served or not, as the account's ARM features say (the verdict is the
        # data plane's own answer in feed.all_versions, which reads these too).
        shows=("account.backup", "account.all_versions", "account.merge"),
    ),
    Capability(
        "vector-search",
        "recall probe (vector / full-text)",
        ("setting.container", "policy.vector", "policy.embedding"),
        ("policy.full_text",),
    ),
)


def _verdict(
    required: list[CheckResult], improving: list[CheckResult]
) -> tuple[Verdict, CheckResult | None]:
    """The verdict and the check that decides it (None: every check passed)."""
    for result in required:
        if result.status is CheckStatus.MISSING:
            return Verdict.BLOCKED, result
    for result in required:
        if result.status is CheckStatus.UNKNOWN:
            return Verdict.UNKNOWN, result
    for result in improving:
        if result.status is CheckStatus.MISSING:
            return Verdict.DEGRADED, result
    return Verdict.WORKS, None


def _row(cap: Capability, results: dict[str, CheckResult], e: DoctorEvidence) -> CapabilityRow:
    required = [results[c] for c in cap.requires]
    improving = [results[c] for c in cap.improves]
    verdict, decider = _verdict(required, improving)
    if decider is None:  # works: the last access it needed, as read
        met = [r for r in required if r.need in SHOWN and r.status is CheckStatus.OK]
        last = (met or required)[-1]
        evidence = f"{last.title}: {last.evidence}"
        fix = ""
    else:
        evidence = f"{decider.title}: {decider.evidence}"
        fix = decider.fix
    return CapabilityRow(
        capability=cap.id,
        title=cap.title,
        verdict=verdict,
        asked=cap.asked(e) and not cap.upcoming,
        upcoming=cap.upcoming,
        simulated=cap.telemetry and e.session.telemetry is TelemetryKind.SIMULATED,
        evidence=evidence,
        fix=fix,
        checks=tuple(required + improving + [results[c] for c in cap.shows]),
    )


def readings(e: DoctorEvidence) -> list[Reading[Any]]:
    """Every read the evidence holds (each once: the report's cost adds these up)."""
    found: list[Reading[Any] | None] = [
        e.access,
        e.account,
        e.offer,
        e.diagnostics,
        e.metrics,
        e.tables,
    ]
    return [r for r in found if r is not None]


def diagnose(e: DoctorEvidence, *, at: float) -> DoctorReport:
    """Every check over the evidence, then every capability's verdict (registry order)."""
    results = {check_id: check.run(e) for check_id, check in CHECKS.items()}
    rows = tuple(_row(cap, results, e) for cap in CAPABILITIES)
    cost = Cost()
    for reading in readings(e):
        cost = cost + reading.cost
    label = e.session.label
    if e.session.database and e.session.container:
        label += f" · {e.session.database}/{e.session.container}"
    notes: list[str] = []
    if e.session.demo:
        notes.append(
            "the embedded demo: a local workspace and a simulated workload — no Azure "
            "account, so roles, diagnostic settings and account features cannot be checked"
        )
    return DoctorReport(
        label=label,
        rows=rows,
        checks=tuple(results.values()),
        cost=cost,
        at=at,
        demo=e.session.demo,
        notes=tuple(notes),
    )
