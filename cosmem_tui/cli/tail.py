"""``cosmem tail [TENANT [THREAD]]``: the change feed of a scope, streamed as it is written.

One record per change, as it arrives: ``--json`` writes JSON Lines (keys typed as
stored: the tenant ``42`` stays a number), otherwise a plain table whose columns are
fixed at the start so a stream never realigns. It runs ``--for SECONDS`` or until
interrupted; ctrl+c ends it with a one-line summary on stderr and exit status 0. Each
poll is background work under the session's budget: at the budget the tail stops, says
so, and exits 3 (the stream is short). In latest-version mode stderr says once what
the feed cannot show (deletes, TTL expirations) and what would show it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from cosmem_tui.cli import opening, options
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.core.exit_status import EXIT_OK, EXIT_PARTIAL
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import json_for_terminal, visible
from cosmem_tui.model.changes import Change, FeedMode, FeedStart, FeedUnavailable
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.errors import StoreError

if TYPE_CHECKING:  # the tail's machinery loads when a tail starts, not with the CLI
    from cosmem_tui.core.tail import Tail

DEFAULT_POLL_S = 1.0
MIN_POLL_S = 0.5  # a poll is a request: faster than this is load, not freshness


def since(text: str) -> FeedStart:
    """``now``, ``beginning``, or a time: ISO-8601 (``2026-05-01T12:00:00Z``) or epoch seconds."""
    word = text.strip().lower()
    if word == "now":
        return FeedStart.now()
    if word == "beginning":
        return FeedStart.beginning()
    try:
        return FeedStart.at_time(int(float(word)))
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be now, beginning, or a time (2026-05-01T12:00:00Z or epoch seconds), "
            f"not {text!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # a time without a zone is UTC
    return FeedStart.at_time(int(moment.timestamp()))


def poll_seconds(text: str) -> float:
    value = options.positive_seconds(text)
    if value < MIN_POLL_S:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_POLL_S:g} seconds, not {text}")
    return value


class Stream:
    """Where the records go: JSON Lines or the table, flushed after each poll."""

    def __init__(self, out: TextIO, fmt: str) -> None:
        self.out = out
        self.json = fmt == "json"
        self.lines = 0

    def header(self) -> None:
        from cosmem_tui.core.tail_records import table_header

        if not self.json:
            print(table_header(), file=self.out)
            self.out.flush()

    def write(self, change: Change, schema: Schema) -> None:
        from cosmem_tui.core.tail_records import change_record, table_line

        record = change_record(change, schema)
        if self.json:
            self.out.write(json_for_terminal(record) + "\n")
        else:
            self.out.write(table_line(record, change) + "\n")
        self.lines += 1

    def flush(self) -> None:
        self.out.flush()


async def run_tail(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    from cosmem_tui.core.tail import Tail, tail_bookmarks

    if len(args.names) > 2:
        raise CliError(f"usage: cosmem tail [{session.schema.tenant_label.upper()} [THREAD]]")
    mode = FeedMode(args.mode)
    try:
        with session.ledger.caused_by("cosmem tail"):
            scope = await session.lifecycle.scope_named(list(args.names))
        tail = Tail(
            session.store,
            scope,
            mode,
            clock=session.clock,
            start=args.since,
            bookmarks=tail_bookmarks(session.store),
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
    where = visible(scope.describe(session.schema.tenant_label))
    if tail.note is not None:
        print(f"cosmem: {tail.note}", file=sys.stderr)
    stream = Stream(out, args.format)
    stream.header()
    started = f"cosmem: following {where} every {args.poll:g} s; ctrl+c ends it"
    stopped_by = await _follow(tail, stream, args.for_s, args.poll, started)
    elapsed = tail.clock.now() - tail.rates.started_at
    print(
        f"cosmem: tail of {where} ({mode.value}, {tail.start.describe()}): "
        f"{tail.changes:,} changes in {elapsed:,.0f} s, {tail.pages:,} pages, "
        f"{tail.request_units:,.2f} RU; {stopped_by}",
        file=sys.stderr,
    )
    return EXIT_PARTIAL if tail.stopped is not None else EXIT_OK


async def _follow(
    tail: Tail, stream: Stream, for_s: float | None, poll_s: float, started: str
) -> str:
    """Poll until ``for_s`` has passed, ctrl+c, or the budget; why it ended. ``started``
    is said on stderr once the first poll is back (what follows is new)."""
    loop = asyncio.get_running_loop()
    interrupted = asyncio.Event()
    loop.add_signal_handler(signal.SIGINT, interrupted.set)
    loop.add_signal_handler(signal.SIGTERM, interrupted.set)
    deadline = None if for_s is None else time.monotonic() + for_s
    said_error = ""
    try:
        while not interrupted.is_set():
            polled_at = time.monotonic()
            try:
                result = await tail.poll()
            except FeedUnavailable as exc:
                raise CliError(f"the change feed is not available: {exc}") from None
            except StoreError as exc:  # one failed poll is said; the tail polls again
                message = visible(getattr(exc, "message", str(exc)))
                if message != said_error:
                    print(f"cosmem: a poll failed: {message} (polling again)", file=sys.stderr)
                said_error = message
                result = None
            else:
                said_error = ""
            if started:
                print(started, file=sys.stderr, flush=True)
                started = ""
            if result is not None:
                schema = tail.store.schema
                for change in reversed(result.fresh):  # a stream reads oldest first
                    stream.write(change, schema)
                stream.flush()
                if result.stopped is not None:
                    print(f"cosmem: {visible(result.stopped)}", file=sys.stderr)
                    return "stopped at the budget"
            wait = poll_s - (time.monotonic() - polled_at)
            if result is not None and result.held_off_s > 0:
                wait = max(wait, result.held_off_s)
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return f"--for {for_s:g} s"
                wait = min(wait, left)
            if wait > 0:
                with contextlib.suppress(TimeoutError):  # the wait is over: poll again
                    await asyncio.wait_for(interrupted.wait(), wait)
        return "interrupted"
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        loop.remove_signal_handler(signal.SIGTERM)


def _tail_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names",
        nargs="*",
        metavar="TENANT [THREAD]",
        help="a tenant, and a thread (none: the whole container; just the thread for "
        "schemas without tenants)",
    )
    parser.add_argument(
        "--json",
        dest="format",
        action="store_const",
        const="json",
        default="table",
        help="JSON Lines on stdout: one record per change",
    )
    parser.add_argument(
        "--mode",
        choices=[m.value for m in FeedMode],
        default=FeedMode.LATEST.value,
        help="latest (creates and replaces; the default) or all (all versions and deletes: "
        "deletes and TTL expirations too)",
    )
    parser.add_argument(
        "--since",
        type=since,
        default=FeedStart.now(),
        metavar="now|TIME|beginning",
        help="where to start: now (the default), a time (ISO-8601 or epoch seconds) or the "
        "beginning; all-versions mode starts only now",
    )
    parser.add_argument(
        "--for",
        dest="for_s",
        type=options.positive_seconds,
        metavar="SECONDS",
        help="stop after this long (default: until interrupted)",
    )
    parser.add_argument(
        "--poll",
        type=poll_seconds,
        default=DEFAULT_POLL_S,
        metavar="SECONDS",
        help=f"seconds between polls (default {DEFAULT_POLL_S:g}, at least {MIN_POLL_S:g})",
    )


COMMANDS = (
    SessionCommand(
        "tail",
        "stream the change feed of the container, a tenant or a thread: one record per change",
        (_tail_arguments, options.source, options.verbose),
        run_tail,
        opening.store_session,
        description=(
            "Streams the change feed as it is written: JSON Lines with --json, else a table. "
            "Runs --for SECONDS or until ctrl+c, which ends it with a summary on stderr."
        ),
    ),
)
