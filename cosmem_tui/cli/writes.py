"""The guarded writes: ``pin``, ``set-ttl``, ``erase-thread``.

Each is planned from a fresh read, shown, confirmed on the terminal (``--yes`` for
scripts; an erase only when the thread id is typed out), applied If-Match the ETag just
read, and recorded in the audit log before and after. ``opening`` refuses them before
any request without ``--allow-writes`` (the declarations say ``writes=True``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

from cosmem_tui.cli import opening, options, terminal
from cosmem_tui.cli.browse import thread_ref
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.core.exit_status import EXIT_CONFLICT, EXIT_ERROR, EXIT_OK, EXIT_PARTIAL
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import visible

if TYPE_CHECKING:
    from cosmem_tui.core.write_log import Interrupt
    from cosmem_tui.core.writes import WriteService
    from cosmem_tui.model import ThreadRef
    from cosmem_tui.model.writes import WritePlan


async def run_pin(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    writes = _writes(session, args)
    ref, item_id = await _item(session, args, list(args.names))
    return await _apply(session, writes, await writes.plan_pin(ref, item_id), args.yes, out)


async def run_set_ttl(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    writes = _writes(session, args)
    names = list(args.names)
    if len(names) < 2:
        raise CliError("usage: cosmem set-ttl [TENANT] THREAD ID SECONDS")
    seconds = _ttl_argument(names.pop())
    ref, item_id = await _item(session, args, names)
    plan = await writes.plan_ttl(ref, item_id, seconds)
    return await _apply(session, writes, plan, args.yes, out)


async def run_erase(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    """An erase cannot be undone: confirmed only by typing the thread id, its progress on
    one line while the items go."""
    writes = _writes(session, args)
    ref = await thread_ref(session, list(args.names), "erase-thread", must_exist=True)
    plan = await writes.plan_erase(ref)
    typed = plan.ref.thread.text
    return await _apply(session, writes, plan, args.yes, out, typed, terminal.ProgressLine())


def _writes(session: Session, args: argparse.Namespace) -> WriteService:
    if session.writes is None:  # opening refuses before opening a session; a backstop
        raise CliError(f"{args.command} needs --allow-writes")
    return session.writes


async def _item(
    session: Session, args: argparse.Namespace, names: list[str]
) -> tuple[ThreadRef, str]:
    """``[TENANT] THREAD ID``: the thread (which must exist) and the item's id."""
    if len(names) < 2:
        raise CliError(f"usage: cosmem {args.command} [TENANT] THREAD ID")
    item_id = names.pop()
    return await thread_ref(session, names, args.command, must_exist=True), item_id


async def _apply(
    session: Session,
    writes: WriteService,
    plan: WritePlan,
    yes: bool,
    out: TextIO,
    typed: str | None = None,
    progress: terminal.ProgressLine | None = None,
) -> int:
    """Show the plan, confirm it (``typed``: only by typing that), apply, report."""
    from cosmem_tui.core.write_log import Interrupt  # loaded by the commands that write
    from cosmem_tui.core.writes import describe_plan
    from cosmem_tui.model.writes import WriteStatus

    for line in describe_plan(plan, session.clock.now(), str(writes.audit.path)):
        print(f"cosmem: {visible(line)}", file=sys.stderr)
    if not await _confirmed(yes, typed):
        print("cosmem: nothing was written", file=sys.stderr)
        return EXIT_ERROR
    interrupt = Interrupt()
    with _stop_on_signals(interrupt):
        outcome = await writes.apply(
            plan,
            None if progress is None else _erase_progress(progress),
            interrupt,
        )
    # The audit log is complete by now; a terminal that went away (SIGHUP) must not turn
    # the report into a traceback.
    if progress is not None:
        progress.done()
    terminal.report(visible(outcome.message), out)
    unit = "RU sim" if outcome.simulated else "RU"
    terminal.report(
        f"cosmem: {outcome.status.value}: {len(outcome.done_ids):,} item(s) written, "
        f"{outcome.request_units:,.1f} {unit}; audit log {writes.audit.path}",
    )
    return {
        WriteStatus.DONE: EXIT_OK,
        WriteStatus.CONFLICT: EXIT_CONFLICT,
        WriteStatus.STOPPED: EXIT_PARTIAL,
        WriteStatus.INCOMPLETE: EXIT_PARTIAL,
        WriteStatus.UNKNOWN: EXIT_PARTIAL,
    }.get(outcome.status, EXIT_ERROR)


def _erase_progress(line: terminal.ProgressLine) -> Callable[[int, int], None]:
    def progress(deleted: int, total: int) -> None:
        line.show(f"deleted {deleted:,} of {total:,}")

    return progress


@contextlib.contextmanager
def _stop_on_signals(interrupt: Interrupt) -> Iterator[None]:
    """While a write is applied, ctrl+c, SIGTERM and SIGHUP ask it to stop between two
    requests (the request in flight ends, the closing audit line is written) instead of
    killing the process mid-request."""
    loop = asyncio.get_running_loop()
    caught: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        if interrupt.reason is None:
            terminal.report(f"\ncosmem: {sig.name}: stopping after the request in flight")
        interrupt.request(sig.name)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop, sig)
            caught.append(sig)
    try:
        yield
    finally:
        for sig in caught:
            loop.remove_signal_handler(sig)


def _ttl_argument(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CliError(
            f"SECONDS must be a whole number (-1 for never, or 1..2147483647), not {text!r}"
        ) from None


async def _confirmed(yes: bool, typed: str | None = None) -> bool:
    """--yes, else a y on the terminal (``opening.check_write_flags`` made sure there is
    one); an erase, which cannot be undone, only when the thread id ``typed`` is typed."""
    if yes:
        return True
    if typed is None:
        return await terminal.ask("write this? [y/N] ")
    from cosmem_tui.core.writes import typed_consent

    thread: str = typed
    return await terminal.ask(
        f"type the thread id ({visible(thread)}) to erase it: ",
        lambda answer: typed_consent(answer, thread),
    )


# -- declarations -------------------------------------------------------------------------

_WHAT = {
    "pin": ("pin an item as long-term memory (ttl -1)", "[TENANT] THREAD ID", run_pin),
    "set-ttl": ("give an item a new ttl in seconds", "[TENANT] THREAD ID SECONDS", run_set_ttl),
    "erase-thread": (
        "delete every item of one thread (a deletion request)",
        "[TENANT] THREAD",
        run_erase,
    ),
}


def _write_arguments(usage: str) -> options.AddOptions:
    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("names", nargs="+", metavar=usage)
        options.allow_writes(parser)
        parser.add_argument(
            "--yes", action="store_true", help="do not ask: the write is confirmed (scripts)"
        )

    return add


COMMANDS = tuple(
    SessionCommand(
        name,
        f"{text}; needs --allow-writes",
        (_write_arguments(usage), options.source),
        run,
        opening.store_session,
        description=f"{text[0].upper()}{text[1:]}. Shows what will change and asks on the "
        "terminal (--yes for scripts; without a terminal and without --yes it refuses). "
        "Written If-Match the ETag just read: a concurrent change is reported (exit 4), "
        "never overwritten. Every write is recorded in the audit log "
        "($XDG_DATA_HOME/cosmem/audit.jsonl).",
        writes=True,
    )
    for name, (text, usage, run) in _WHAT.items()
)
