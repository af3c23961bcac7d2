"""``cosmem history``: what the change feed still holds about one item or one thread.

One record per event (created, replaced with what changed, deleted, expired with both
its expiry and its purge). Where the history is silent — before the oldest feed
position the console saved, outside the feed's retention, what latest-version mode
cannot show and how to enable it, a read that stopped at its request budget — and
what the item itself says now are told on stderr, as every command says what its
output lacks; a short history exits 3.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from cosmem_tui.cli import opening, options
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.core.session import Session


async def run_history(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    from cosmem_tui.cli.browse import thread_ref
    from cosmem_tui.core.exit_status import EXIT_OK, EXIT_PARTIAL
    from cosmem_tui.core.history import history_service
    from cosmem_tui.core.history_report import (
        HISTORY_FIELDS,
        HISTORY_TABLE_FIELDS,
        history_row,
        note_lines,
    )
    from cosmem_tui.core.output import Output
    from cosmem_tui.core.text import visible

    names: list[str] = list(args.names)
    thread_names = 2 if session.schema.has_tenant_level else 1
    if len(names) not in (thread_names, thread_names + 1):
        usage = "TENANT THREAD [ID]" if thread_names == 2 else "THREAD [ID]"
        raise CliError(f"usage: cosmem history {usage}")
    item_id = names[thread_names] if len(names) > thread_names else None
    ref = await thread_ref(session, names[:thread_names], "history")
    service = history_service(session)
    with session.ledger.caused_by("cosmem history"):
        history = await service.history(ref, item_id)
    with Output(args.format, HISTORY_FIELDS, HISTORY_TABLE_FIELDS, out) as output:
        for event in history.events:
            output.write(history_row(event, output.fmt))
    label = session.schema.tenant_label
    mode = "all-versions" if history.mode.sees_deletes else "latest-version"
    what = f"item {item_id} of " if item_id is not None else ""
    print(
        f"cosmem: history of {visible(what + ref.describe(label))}: "
        f"{len(history.events):,} events, {mode} mode, "
        f"{history.requests} feed reads, {history.request_units:,.2f} RU",
        file=sys.stderr,
    )
    for line in note_lines(history):
        print(f"cosmem: note: {visible(line)}", file=sys.stderr)
    return EXIT_OK if history.complete else EXIT_PARTIAL


def _history_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names",
        nargs="+",
        metavar="[TENANT] THREAD [ID]",
        help="tenant and thread (just the thread for schemas without tenants), then an "
        "item id for one item's history",
    )


COMMANDS = (
    SessionCommand(
        "history",
        "what the change feed still holds about one item or thread: created, replaced "
        "(what changed), deleted, expired (when it expired and when it was purged)",
        (_history_arguments, options.source, options.monitor, options.verbose, options.output),
        run_history,
        opening.store_session,
    ),
)
