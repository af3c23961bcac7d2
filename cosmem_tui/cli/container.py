"""Commands about the container as a whole: ``advise`` (the advisor's findings),
``doctor`` (what the account lets the console do) and ``ttl`` (items by TTL class)."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from cosmem_tui.cli import opening, options
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.core import records
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK, EXIT_PARTIAL
from cosmem_tui.core.output import Output
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import visible
from cosmem_tui.model.lifecycle import ScopeLevel
from cosmem_tui.model.telemetry_choices import Window
from cosmem_tui.sources.errors import StoreError


async def run_advise(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    advisor = session.advisor
    if advisor is None:
        raise CliError("the advisor needs a memory store (a workspace or a Cosmos container)")
    load = None
    if session.hot_keys is not None:  # with telemetry: RU per tenant feeds the hotspot rule
        try:
            load = await session.hot_keys.report(Window.M15)
        except StoreError as exc:
            print(f"cosmem: telemetry not used: {visible(exc.message)}", file=sys.stderr)
    report = await advisor.advise(load=load, count=not args.no_counts)
    fields = records.ADVICE_FIELDS
    table = ("severity", "rule", "title", "evidence", "fix")
    with Output(args.format, fields, table, out) as output:
        for finding in report.findings:
            output.write(records.advice_record(finding))
    from cosmem_tui.model.advice import Severity  # with the advisor it counts for

    counts = {s: len(report.by_severity(s)) for s in Severity}
    unit = "RU sim" if session.ledger.totals().simulated else "RU"
    print(
        f"cosmem: advisor: {len(report.findings)} findings "
        f"({', '.join(f'{n} {s.value}' for s, n in counts.items())}) from "
        f"{report.sampled:,} sampled items ({report.sample_request_units:,.1f} {unit})",
        file=sys.stderr,
    )
    for note in report.notes:
        print(f"cosmem: note: {visible(note)}", file=sys.stderr)
    # No sample where there were items to sample (the budget, a failure): the rules that
    # read items could not run, so the list is short.
    return EXIT_PARTIAL if report.sample_failed else EXIT_OK


async def run_doctor(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    doctor = session.doctor
    if doctor is None:
        raise CliError("no doctor for this session")
    report = await doctor.run()
    if args.checks:
        with Output(args.format, records.CHECK_FIELDS, records.CHECK_TABLE_FIELDS, out) as output:
            for check in report.checks:
                output.write(records.check_record(check))
    else:
        with Output(args.format, records.DOCTOR_FIELDS, records.DOCTOR_TABLE_FIELDS, out) as output:
            for row in report.rows:
                output.write(records.doctor_record(row))
    from cosmem_tui.model.doctor import Verdict

    counts = ", ".join(f"{report.count(v)} {v.value}" for v in Verdict if report.count(v))
    print(
        f"cosmem: doctor: {visible(report.label)}: {counts} · read {report.cost.describe()}",
        file=sys.stderr,
    )
    for row in report.rows:  # each fix whole (a table cuts long cells)
        if row.fix or (row.asked and row.verdict is not Verdict.WORKS):
            asked = " (asked for)" if row.asked else ""
            fix = f" — fix: {visible(row.fix)}" if row.fix else ""
            print(
                f"cosmem: {row.verdict.value}: {visible(row.title)}{asked} — "
                f"{visible(row.evidence)}{fix}",
                file=sys.stderr,
            )
    for note in (*report.notes, *session.notes):
        print(f"cosmem: note: {visible(note)}", file=sys.stderr)
    return EXIT_ERROR if report.blocked_asked() else EXIT_OK


async def run_ttl(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    from cosmem_tui.model.ttl import container_ttl_words

    service = session.lifecycle
    scope = await service.scope_named(list(args.names))
    where = scope.describe(session.schema.tenant_label)
    with session.ledger.caused_by(f"cosmem ttl: {where}"), session.ledger.meter() as cost:
        if scope.level is ScopeLevel.CONTAINER:
            report = await service.container_report()
        else:
            report = await service.report(scope, lists=False)
            service.check_found(report)
    summary = report.summary
    assert summary is not None
    typed = args.format == "json"
    fields = records.TTL_FIELDS if args.format != "table" else records.TTL_TABLE_FIELDS
    with Output(args.format, records.TTL_FIELDS, fields, out) as output:
        for record in records.ttl_records(summary, typed=typed):
            output.write(record)
    container = scope.level is ScopeLevel.CONTAINER
    fan_out = " (a fan-out over every physical partition)" if container else ""
    sim = " sim" if cost.simulated else ""
    print(
        f"cosmem: {visible(where)}{fan_out}: {container_ttl_words(report.container.default_ttl)}"
        f"; {cost.requests} requests, {cost.request_units:,.1f} RU{sim}",
        file=sys.stderr,
    )
    return EXIT_OK


# -- declarations -------------------------------------------------------------------------


def _advise_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-counts",
        action="store_true",
        help="do not count top-level keys for the skew rules (counting costs requests)",
    )


def _doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--checks",
        action="store_true",
        help="one row per check (need, status, evidence, cost, fix) instead of per capability",
    )


def _ttl_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names",
        nargs="*",
        metavar="[TENANT [THREAD]]",
        help="a tenant, a tenant and a thread (a thread alone for schemas without "
        "tenants); none: the whole container",
    )


COMMANDS = (
    SessionCommand(
        "advise",
        "the container advisor: findings (rule, severity, evidence, fix) from the "
        "container's properties and a bounded sample of item shapes",
        # RU per tenant and 429s feed the hotspot rule, as in the view
        (_advise_arguments, options.source, options.monitor, options.output),
        run_advise,
        opening.store_session,
    ),
    SessionCommand(
        "doctor",
        "what this account, container and workspace let the console do: each "
        "capability works, is degraded, blocked or unknown, with the evidence and the fix",
        (_doctor_arguments, options.source, options.monitor, options.output),
        run_doctor,
        opening.doctor_session,
        description="Checks the data-plane roles (a 403's sub-status and missing action), "
        "Monitoring Reader, Log Analytics Reader, the diagnostic settings, the throughput "
        "mode, partition merge, priority-based execution, backup and the change feed, the "
        "container's TTL, vector and full-text policies. It reads metadata only, every "
        "request in the ledger; it exits 1 only when a capability the session is "
        "configured for is blocked.",
    ),
    SessionCommand(
        "ttl",
        "items by TTL class and how many expire within 1h/24h/7d/30d, for a tenant, "
        "a thread, or the whole container",
        (_ttl_arguments, options.source, options.verbose, options.output),
        run_ttl,
        opening.store_session,
        description="Counts of the visible items by TTL class (short-term, long-term, "
        "default: inherits the container's DefaultTimeToLive, ignored: TTL is off, invalid) "
        "and how many expire within each horizon, from aggregate queries. Without a "
        "tenant it covers the whole container: a fan-out over every physical partition.",
    ),
)
