"""Browsing commands: ``tenants``, ``threads``, ``turns``, ``search``.

A listing of top-level keys (tenants, or the threads of a schema without tenants) lists
every name, then counts them while the budget lasts; whatever the output lacks is said on
stderr and in the exit status, so a short list never passes for the whole one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator
from typing import Any, TextIO

from cosmem_tui.cli import opening, options
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.cli.terminal import ProgressLine
from cosmem_tui.core import records
from cosmem_tui.core.directory import CountState, Listing
from cosmem_tui.core.exit_status import EXIT_OK, EXIT_PARTIAL
from cosmem_tui.core.output import Output
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import visible
from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.sources.errors import BudgetSpent


async def run_tenants(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    schema = session.schema
    if not schema.has_tenant_level:
        raise CliError(f"schema {schema.name} has no tenant level; use 'cosmem threads'")
    label = f"{schema.tenant_label}s"
    listing, counts = await _list_top_level(session, args, label)
    titles = {"tenant": schema.tenant_label}  # "USER" on user-keyed schemas
    with Output(
        args.format, records.TENANT_FIELDS, records.TENANT_FIELDS, out, titles=titles
    ) as output:
        for key in _ordered(listing.keys, counts, args.sort):
            state = counts.get(key)
            output.write(records.tenant_row(key, state.counts if state else None, output.fmt))
    return _report_listing(session, listing, counts, label)


async def run_threads(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    schema = session.schema
    if not schema.has_tenant_level:
        if args.tenant is not None:
            raise CliError(f"schema {schema.name} has no tenant level; run 'cosmem threads' alone")
        return await _top_level_threads(session, args, out)
    if args.tenant is None:
        raise CliError(
            f"name a {schema.tenant_label}: cosmem threads {schema.tenant_label.upper()}"
        )
    with session.ledger.caused_by("cosmem threads"):
        _, threads = await session.browse.threads_named(args.tenant)
    titles = {"tenant": schema.tenant_label}
    fields, table = records.THREAD_FIELDS, records.THREAD_TABLE_FIELDS
    with Output(args.format, fields, table, out, titles=titles) as output:
        for thread in threads:
            output.write(records.thread_row(thread, output.fmt))
    return EXIT_OK


async def _top_level_threads(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    """Schemas without tenants: the threads are the top-level keys (listed, then counted)."""
    listing, counts = await _list_top_level(session, args, "threads")
    fields = records.TOP_THREAD_FIELDS
    table = tuple(f for f in fields if f != "pseudo")
    with Output(args.format, fields, table, out) as output:
        for key in _ordered(listing.keys, counts, args.sort):
            state = counts.get(key)
            output.write(records.top_thread_row(key, state.counts if state else None, output.fmt))
    return _report_listing(session, listing, counts, "threads")


async def thread_ref(
    session: Session, names: list[str], command: str = "turns", *, must_exist: bool = False
) -> ThreadRef:
    """The thread ``names`` give (``[TENANT] THREAD`` as the schema has it); ``must_exist``:
    an unknown tenant or thread is named as such now (one page of one turn), never taken
    later for a missing item or an empty thread."""
    schema = session.schema
    if schema.has_tenant_level:
        if len(names) != 2:
            raise CliError(f"usage: cosmem {command} {schema.tenant_label.upper()} THREAD …")
        ref = await session.browse.resolve(names[0], names[1])
    elif len(names) != 1:
        raise CliError(
            f"schema {schema.name} has no tenant level: usage: cosmem {command} THREAD …"
        )
    else:
        ref = await session.browse.resolve(None, names[0])
    if must_exist:
        await session.browse.first_page(ref, page_size=1)
    return ref


async def run_turns(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    ref = await thread_ref(session, args.names)
    now = session.clock.now()

    async def turns() -> AsyncIterator[Any]:
        if args.last is not None:
            for turn in await session.browse.last_turns(ref, args.last):
                yield turn
        else:
            async for turn in session.browse.iter_turns(ref):
                yield turn

    walk = turns()
    # The first page names an unknown tenant or thread: before any output, so stdout
    # holds no "[]" or header beside the error.
    first = await anext(walk, None)
    with Output(args.format, records.TURN_FIELDS, records.TURN_TABLE_FIELDS, out) as output:
        if first is not None:
            output.write(records.turn_row(first, now, output.fmt))
        async for turn in walk:
            output.write(records.turn_row(turn, now, output.fmt))
    return EXIT_OK


async def run_search(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    from cosmem_tui.core.thread_search import ThreadSearch

    if len(args.names) < 2:
        raise CliError("usage: cosmem search [TENANT] THREAD TEXT")
    *names, text = args.names
    ref = await thread_ref(session, names, "search")
    try:
        search = ThreadSearch(session.browse, ref, text)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # An unknown thread is told before the search spends anything (one item, one page):
    # an empty search of a thread that does not exist is no empty result.
    await session.browse.first_page(ref, page_size=1)
    now = session.clock.now()
    hit = await search.hit(0)
    with Output(args.format, records.TURN_FIELDS, records.TURN_TABLE_FIELDS, out) as output:
        index = 0
        while hit is not None:
            index += 1
            output.write(records.turn_row(hit.turn, now, output.fmt))
            hit = await search.hit(index)
    if not search.exhausted:  # only empty pages for a long stretch: say the list is short
        print("cosmem: the search stopped before the end of the thread", file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_OK


# -- a listing of top-level keys ----------------------------------------------------------


async def _list_top_level(
    session: Session, args: argparse.Namespace, label: str
) -> tuple[Listing, dict[Key, CountState]]:
    """Every top-level key, then counts while the budget lasts (see the README)."""
    directory = session.browse.directory
    line = ProgressLine()

    def progress(listing: Listing) -> None:
        if not line.enabled:
            return
        ranges = (
            f", partition {listing.ranges_done} of {listing.ranges_total}"
            if listing.ranges_total > 1
            else ""
        )
        line.show(
            f"listing {label}: {len(listing.keys):,} so far{ranges}, "
            f"{session.ledger.spent_ru:,.1f} RU"
        )

    with session.ledger.caused_by(f"cosmem {args.command}: list {label}"):
        listing = await directory.list(fresh=True, progress=progress)
    line.done()
    failure = listing.failure
    if failure is not None and not listing.keys and not isinstance(failure, BudgetSpent):
        raise failure  # nothing listed at all: a plain failure, not a short list
    counts: dict[Key, CountState] = {}
    if not args.no_counts:
        with session.ledger.caused_by(f"cosmem {args.command}: count {label}"):
            for key in listing.keys:
                counts[key] = await directory.count(key)
    return listing, counts


def _ordered(keys: tuple[Key, ...], counts: dict[Key, CountState], by: str) -> list[Key]:
    """Keys in the order asked for; keys without counts last, in key order."""
    if by == "name" or not counts:
        return list(keys)

    def rank(key: Key) -> tuple[int, float]:
        state = counts.get(key)
        known = state.counts if state is not None else None
        if known is None:
            return 1, 0.0
        value = known.items if by == "items" else (known.last_activity or 0)
        return 0, -float(value)

    return sorted(keys, key=rank)  # stable: equal ranks keep key order


def _report_listing(
    session: Session, listing: Listing, counts: dict[Key, CountState], label: str
) -> int:
    """Say on stderr what the output lacks; the exit status of a short listing."""
    skipped = [k for k, c in counts.items() if c.error == "budget spent"]
    silent = [k for k, c in counts.items() if c.silent]
    failed = [
        k
        for k, c in counts.items()
        if c.counts is None and c.error != "budget spent" and not c.silent
    ]
    request_ledger = session.ledger
    if silent:  # said once: the first count met the silence, the rest were not sent
        print(
            f"cosmem: {visible(request_ledger.silence or 'the account stopped answering')}: counts "
            f"of {len(silent):,} {label} were not fetched (null); run it again once it answers",
            file=sys.stderr,
        )
    if skipped:
        per_key = max((c.request_units for c in counts.values() if c.counts), default=3.0)
        enough = request_ledger.spent_ru + per_key * len(skipped)
        print(
            f"cosmem: counts of {len(skipped):,} {label} would pass the RU budget of "
            f"{request_ledger.budget_ru or 0:,.0f} RU: they are null; rerun with "
            f"--ru-budget {enough:,.0f} to count them all (or --no-counts)",
            file=sys.stderr,
        )
    for key in failed[:5]:
        print(
            f"cosmem: counts of {visible(key.text)} failed: {visible(counts[key].error or '')}",
            file=sys.stderr,
        )
    if len(failed) > 5:
        print(f"cosmem: … counts of {len(failed) - 5:,} more {label} failed", file=sys.stderr)
    for note in session.listing_notes():
        print(f"cosmem: note: {note}", file=sys.stderr)
    if listing.complete:
        return EXIT_PARTIAL if silent else EXIT_OK
    ranges = (
        f" ({listing.ranges_done} of {listing.ranges_total} partitions listed)"
        if listing.ranges_total
        else ""
    )
    hint = ""
    if listing.needed_ru is not None:
        hint = (
            f"; --ru-budget {request_ledger.spent_ru + listing.needed_ru:,.0f} would let it finish"
        )
    print(
        f"cosmem: the list is INCOMPLETE: {len(listing.keys):,} {label} listed{ranges} before "
        f"it stopped: {visible(listing.stopped or 'stopped')}{hint}",
        file=sys.stderr,
    )
    return EXIT_PARTIAL


# -- declarations -------------------------------------------------------------------------


def _tenant_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tenant", nargs="?", help="the tenant (omit for schemas without one)")


def _turns_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names",
        nargs="+",
        metavar="[TENANT] THREAD",
        help="tenant and thread (just the thread for schemas without tenants)",
    )
    parser.add_argument(
        "--last", type=options.positive_int, metavar="N", help="only the newest N turns (N ≥ 1)"
    )


def _search_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names",
        nargs="+",
        metavar="[TENANT] THREAD TEXT",
        help="tenant and thread (just the thread for schemas without tenants), then the text",
    )


READING = (options.source, options.monitor, options.verbose, options.output)

COMMANDS = (
    SessionCommand(
        "tenants",
        "list tenants with thread and item counts",
        (options.counts("items"), *READING),
        run_tenants,
        opening.store_session,
    ),
    SessionCommand(
        "threads",
        "list the threads of a tenant",
        (_tenant_argument, options.counts("active"), *READING),
        run_threads,
        opening.store_session,
    ),
    SessionCommand(
        "turns",
        "list the turns of a thread, oldest first",
        (_turns_arguments, *READING),
        run_turns,
        opening.store_session,
    ),
    SessionCommand(
        "search",
        "the turns of a whole thread whose text contains TEXT (ignoring case), "
        "found on the server with one single-partition query",
        (_search_arguments, *READING),
        run_search,
        opening.store_session,
    ),
)
