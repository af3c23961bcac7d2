"""Telemetry commands: ``throttle`` (Azure Monitor metrics) and ``hot`` (partition keys by
RU from the diagnostic logs), simulated on the demo workspace.

Both need only the Azure Monitor settings, not a Cosmos endpoint (``opening``'s
``telemetry_session``). The headline and the problems go to stderr, so stdout stays
machine-readable; a part that failed makes the exit status say the output is short.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from cosmem_tui.cli import opening, options
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.core import records
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK, EXIT_PARTIAL
from cosmem_tui.core.output import Output
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import visible
from cosmem_tui.model import Key
from cosmem_tui.model.telemetry_choices import DEFAULT_KEYS_TOP, KeyLevel

if TYPE_CHECKING:  # the telemetry model loads with the session's telemetry
    from cosmem_tui.model.telemetry import TelemetryAbout, TelemetryProblem

NO_TELEMETRY = (
    "no telemetry for this session: name the account with --resource-id (or "
    "COSMEM_RESOURCE_ID) and its Log Analytics workspace with --workspace-id "
    "(or COSMEM_WORKSPACE_ID); the demo workspace has a simulated workload"
)


async def run_throttle(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    service = session.throughput
    if service is None:
        raise CliError(NO_TELEMETRY)
    from cosmem_tui.core.throughput import series_rows  # loaded by the command that uses it

    report = await service.report(args.window, region=getattr(args, "region_view", None))
    with Output(args.format, records.THROUGHPUT_FIELDS, records.THROUGHPUT_FIELDS, out) as output:
        for row in series_rows(report):
            output.write(row)
    return report_telemetry(report.source, report.headline, report.problems, bool(report.series))


async def run_hot(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    service = session.hot_keys
    if service is None:
        raise CliError(NO_TELEMETRY)
    # A name read as everywhere (42 the number, '"42"' the string; the first reading
    # with requests wins); one with none is checked against the store, when there is
    # one, so an unknown tenant is an error, not an idle one.
    readings: tuple[Key | None, ...] = (None,)
    if args.tenant is not None:
        readings = Key.readings(args.tenant)
    for tenant in readings:
        report = await service.report(
            args.window,
            level=KeyLevel(args.level),
            tenant=tenant,
            top=args.top,
            region=getattr(args, "region_view", None),
        )
        if report.rows:
            break
    if args.tenant is not None and not report.rows:
        if session.has_store:  # an idle tenant is an empty result, an unknown one an error
            await session.browse.threads_named(args.tenant)  # or UnknownTenant
        else:
            print(
                f"cosmem: no requests of tenant {visible(args.tenant)} logged in the window; "
                "without a Cosmos container the name cannot be checked",
                file=sys.stderr,
            )
    with Output(args.format, records.HOT_FIELDS, records.HOT_FIELDS, out) as output:
        for usage in report.rows:
            output.write(records.hot_record(usage, report.level, typed=output.fmt == "json"))
    notes = [c for c in report.caveats if c.startswith("top ")]
    for note in notes:  # a cut list must never pass for the whole one
        print(f"cosmem: {note} (raise --top to see more)", file=sys.stderr)
    if report.lag_note:  # the newest minutes of the window may not be logged yet
        print(f"cosmem: {visible(report.lag_note)}", file=sys.stderr)
    if report.throttle_note:  # "throttled" counts 429s where logged: say what it leaves out
        print(f"cosmem: {visible(report.throttle_note)}", file=sys.stderr)
    from cosmem_tui.core.hot_keys_notes import console_note

    if own := console_note(report):  # the console's own load is in the keys' RU too
        print(f"cosmem: {visible(own)}", file=sys.stderr)
    status = report_telemetry(report.source, report.headline, report.problems, bool(report.rows))
    return status or (EXIT_PARTIAL if notes else EXIT_OK)


def report_telemetry(
    source: TelemetryAbout,
    headline: str,
    problems: tuple[TelemetryProblem, ...],
    has_data: bool,
) -> int:
    """Headline and problems on stderr (stdout stays machine-readable); exit 3 when a
    part failed and the output is short, 1 when nothing came."""
    label = (
        f"{source.label} (simulated)"
        if source.simulated and "simul" not in source.label
        else source.label
    )
    from cosmem_tui.core.throughput import problem_lines

    print(f"cosmem: {visible(label)}: {visible(headline)}", file=sys.stderr)
    for line in problem_lines(problems):  # one line per cause, naming what it concerns
        print(f"cosmem: {visible(line)}", file=sys.stderr)
    if problems and not has_data:
        return EXIT_ERROR
    return EXIT_PARTIAL if problems else EXIT_OK


# -- declarations -------------------------------------------------------------------------


def _hot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "tenant",
        nargs="?",
        help="only this tenant's keys (its threads); omit for tenants",
    )
    parser.add_argument(
        "--level",
        choices=[level.value for level in KeyLevel],
        default=KeyLevel.TENANT.value,
        help="group by tenant (the first level of the key) or by the whole key "
        "(default tenant; naming a tenant implies key)",
    )
    parser.add_argument(
        "--top",
        type=options.positive_int,
        default=DEFAULT_KEYS_TOP,
        metavar="N",
        help=f"at most N keys, cut where the logs are (default {DEFAULT_KEYS_TOP:,})",
    )


WINDOWED = (
    options.window_option,
    options.region_view,
    options.monitor,
    options.source,
    options.output,
)

COMMANDS = (
    SessionCommand(
        "throttle",
        "RU/s, 429s, normalised RU per partition and latency from Azure Monitor "
        "metrics (simulated on the demo)",
        WINDOWED,
        run_throttle,
        opening.telemetry_session,
    ),
    SessionCommand(
        "hot",
        "partition keys by RU in the window from the diagnostic logs (simulated on "
        "the demo): the hot tenant, its share and its 429s",
        (_hot_arguments, *WINDOWED),
        run_hot,
        opening.telemetry_session,
    ),
)
