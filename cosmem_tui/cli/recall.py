"""``cosmem recall``: what the memory system's own retrieval query returns, and why not.

One record per line of the table: the ranked hits, then each ``--expect`` item with the
one reason it is not in the top k. What the records leave out — the scope the system
queries, recall@k of the index, the query vector's summary (never the vector), the
notes that mark guesses and approximations, the cost — is said on stderr.

A probe whose scope has no key (a schema whose system queries the whole container) is a
cross-partition fan-out: it is refused before any probe is sent unless ``--fan-out``
says yes, and the refusal gives the estimate.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cosmem_tui.cli import opening, options
from cosmem_tui.cli.browse import thread_ref
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.core import records
from cosmem_tui.core.exit_status import EXIT_OK
from cosmem_tui.core.output import Output
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import visible
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.model.recall import ProbeMode

if TYPE_CHECKING:  # the use case loads with the command that runs it, not at start-up
    from cosmem_tui.core.recall_report import RecallReport

MAX_VECTOR_FILE = 1 << 20  # a 1,536-d vector is ~30 KB of JSON: a megabyte is plenty


async def run_recall(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    from cosmem_tui.core.recall import RecallRequest

    scope = await _scope(session, args.names)
    request = RecallRequest(
        scope=scope,
        like=args.like,
        vector=_vector_file(args.vector) if args.vector is not None else None,
        text=args.text,
        k=args.k,
        mode=ProbeMode(args.mode) if args.mode else None,
        expect=tuple(args.expect or ()),
    )
    service = session.recall
    with session.ledger.caused_by("cosmem recall"):
        plan = await service.plan(request)
        if plan.fan_out:
            if not args.fan_out:
                raise CliError(
                    f"this probe covers the whole container: {len(plan.probes)} cross-partition "
                    f"queries, about {plan.estimate_ru or 0:,.1f} RU; pass --fan-out to send them"
                )
            plan = service.allow_fan_out(plan)
        report = await service.run(plan)
    with Output(args.format, records.RECALL_FIELDS, records.RECALL_TABLE_FIELDS, out) as output:
        for hit in report.hits:
            output.write(records.recall_hit_row(hit, output.fmt))
        for verdict in report.expected:
            output.write(records.recall_expected_row(verdict, output.fmt))
    _summary(session, report)
    return EXIT_OK


async def _scope(session: Session, names: list[str]) -> TtlScope:
    schema = session.schema
    if schema.has_tenant_level and len(names) == 1:
        return TtlScope.of_tenant(session.browse.key_candidates(names[0])[0])
    if schema.has_tenant_level and len(names) != 2:
        raise CliError(f"usage: cosmem recall {schema.tenant_label.upper()} [THREAD] …")
    return TtlScope.of_thread(await thread_ref(session, names, "recall"))


def _vector_file(path: Path) -> tuple[float, ...]:
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_VECTOR_FILE + 1)
    except OSError as exc:
        raise CliError(f"--vector {path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_VECTOR_FILE:
        raise CliError(f"--vector {path}: larger than {MAX_VECTOR_FILE:,} bytes")
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise CliError(f"--vector {path}: not JSON (a JSON array of numbers)") from None
    ok = isinstance(value, list) and value
    numbers = ok and all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in value
    )
    if not numbers:
        raise CliError(f"--vector {path}: expected a JSON array of finite numbers")
    return tuple(float(x) for x in value)


def _summary(session: Session, report: RecallReport) -> None:
    label = session.schema.tenant_label
    where = report.scope.describe(label)
    line = f"cosmem: {report.mode} top {report.k} in {visible(where)}"
    if report.terms:
        line += f", terms {visible(' '.join(report.terms))}"
    line += f": {len(report.hits)} hits, {report.requests} requests, {report.request_units:,.2f} RU"
    print(line, file=sys.stderr)
    if report.recall_at_k is not None:
        print(
            f"cosmem: recall@{report.k} of the vector index against exact search: "
            f"{report.recall_at_k:.2f}",
            file=sys.stderr,
        )
    if report.query_vector is not None:
        print(f"cosmem: query vector: {report.query_vector.describe()}", file=sys.stderr)
    for note in report.notes:
        print(f"cosmem: note: {visible(note)}", file=sys.stderr)
    for verdict in report.expected:
        cost = f" ({verdict.request_units:,.2f} RU to find out)"
        print(
            f"cosmem: {visible(verdict.id)}: {verdict.reason.value}: {visible(verdict.why)}{cost}",
            file=sys.stderr,
        )
        if verdict.cost_note:
            print(f"cosmem: note: {visible(verdict.cost_note)}", file=sys.stderr)


def _recall_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names",
        nargs="+",
        metavar="TENANT [THREAD]",
        help="the tenant, and a thread (just the thread for schemas without tenants)",
    )
    query = parser.add_mutually_exclusive_group()
    query.add_argument("--like", metavar="ID", help="the query vector is this item's embedding")
    query.add_argument(
        "--vector", type=Path, metavar="FILE", help="the query vector: a JSON array of numbers"
    )
    parser.add_argument(
        "--text",
        metavar="TEXT",
        help="key terms for full-text (and the query vector when an embedder is configured)",
    )
    parser.add_argument(
        "--k", type=options.positive_int, metavar="N", help="how many hits (default: the schema's)"
    )
    parser.add_argument(
        "--expect",
        nargs="+",
        metavar="ID",
        help="items the agent should have recalled: each gets the reason it was not",
    )
    parser.add_argument(
        "--mode",
        choices=[m.value for m in ProbeMode],
        help="vector, exact, text or hybrid (default: hybrid with a vector and text)",
    )
    parser.add_argument(
        "--fan-out",
        action="store_true",
        help="send a probe that covers the whole container (cross-partition) without asking",
    )


COMMANDS = (
    SessionCommand(
        "recall",
        "what the memory system's retrieval query returns for a tenant or thread, and why an "
        "expected item is not in the top k",
        (_recall_arguments, options.source, options.verbose, options.output),
        run_recall,
        opening.store_session,
    ),
)
