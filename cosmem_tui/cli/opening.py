"""Opening a headless command's session from its invocation, running the command in it,
and closing it: the ``--ledger`` file, the RU budget's question on a terminal, the
overruns said at the end.

The three openers are what a ``SessionCommand`` names as ``opens``: a memory store (a
workspace or a Cosmos container), telemetry alone (``hot``, ``throttle``), or the
doctor's session (opened without a read, so a missing role is reported, not fatal).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cosmem_tui.cli import terminal
from cosmem_tui.cli.command import CliError, SessionCommand
from cosmem_tui.config.invocation import Invocation, monitor_settings, session_options
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK, EXIT_OVER_BUDGET
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.core.text import visible
from cosmem_tui.model import BudgetQuestion

if TYPE_CHECKING:
    from cosmem_tui.core.ledger_file import LedgerFile


async def store_session(invocation: Invocation) -> Session:
    """The session most commands read: a workspace (the demo's by default) or a Cosmos
    container; on a terminal the RU budget asks before it is passed."""
    options = session_options(invocation)
    _say_demo_build(options)
    # Sign-in prompts (device code) and the like go to stderr, never into the output.
    from cosmem_tui.compose import open_session  # the stores load when a session opens

    session = await open_session(options, notice=terminal.notice)
    if terminal.on_a_terminal():
        session.ledger.set_confirmer(_ask_budget)
    return session


async def telemetry_session(invocation: Invocation) -> Session:
    """``hot`` and ``throttle``: Azure Monitor alone when it is configured (no Cosmos
    endpoint needed), else the session the other commands open (the demo's simulator)."""
    monitor = monitor_settings(invocation)
    if monitor is None or invocation.workspace is not None:
        return await store_session(invocation)
    from cosmem_tui.compose import open_telemetry_session

    session = await open_telemetry_session(monitor, auth=invocation.auth, notice=terminal.notice)
    for note in session.notes:  # what opening found: not a Cosmos account, no region
        print(f"cosmem: {visible(note)}", file=sys.stderr)
    return session


async def doctor_session(invocation: Invocation) -> Session:
    """``doctor``: a Cosmos container opened without a read (so a missing role is reported,
    not fatal), Azure Monitor alone, or the workspace the other commands open."""
    from cosmem_tui.compose import open_doctor_session

    options = session_options(invocation, telemetry_alone=True)
    _say_demo_build(options)
    return await open_doctor_session(options, auth=invocation.auth, notice=terminal.notice)


def _say_demo_build(options: SessionOptions) -> None:
    if options.needs_demo_build():
        print(f"cosmem: creating the demo workspace at {options.workspace_path} …", file=sys.stderr)


async def _ask_budget(question: BudgetQuestion) -> bool:
    """Headless runs on a terminal ask before passing the RU budget; pipes never do."""
    return await terminal.ask(f"{visible(question.describe())} [y/N] ")


# -- running a command in its session -----------------------------------------------------


def check_workspace_path(path: Path | None) -> None:
    """--workspace names a file: a folder gets a one-line answer naming the file to give."""
    if path is None or not path.is_dir():
        return
    found = sorted(path.glob("*.sqlite"))
    example = found[0] if len(found) == 1 else path / "workspace.sqlite"
    raise CliError(f"{path} is a directory; give a workspace file (e.g. {example})")


def check_write_flags(command: SessionCommand, invocation: Invocation, yes: bool) -> None:
    """A write is refused before any request (refused writes cost nothing): without
    --allow-writes, or with no terminal to confirm on and no --yes."""
    if not invocation.allow_writes:
        raise CliError(
            f"{command.name} changes data: add --allow-writes (the console is read-only without it)"
        )  # the line is "cosmem: pin changes data …", the prefix written once
    if not yes and not terminal.on_a_terminal():
        raise CliError(
            f"{command.name}: no terminal to confirm on; add --yes to write from a script"
        )


def ledger_file(path: Path | None) -> LedgerFile | None:
    if path is None:
        return None
    from cosmem_tui.core.ledger_file import LedgerFile  # only for a run that keeps one

    try:
        return LedgerFile(path)
    except OSError as exc:
        raise CliError(f"--ledger {path}: {exc.strerror or exc}") from None


def run_command(command: SessionCommand, args: argparse.Namespace, invocation: Invocation) -> int:
    """Check what can be checked without a request, then run the command in its session."""
    check_workspace_path(invocation.workspace)
    if command.writes:
        check_write_flags(command, invocation, yes=args.yes)
    status = asyncio.run(run_in_session(command, args, invocation))
    sys.stdout.flush()
    return status


async def run_in_session(
    command: SessionCommand, args: argparse.Namespace, invocation: Invocation
) -> int:
    """Open the command's session, run it, close it; the exit status says what the output
    lacks (an overrun of the budget, a ledger file that failed)."""
    ledger = ledger_file(invocation.ledger)  # before the session: a bad path costs no request
    try:
        session = await command.opens(invocation)
        if ledger is not None:
            ledger.attach(session.ledger)  # with what opening the session requested
        if getattr(args, "verbose", False) and session.has_store:
            why = session.schema_why(invocation.schema)  # always says why
            print(f"cosmem: schema {visible(f'{session.schema.name} ({why})')}", file=sys.stderr)
        try:
            # The ledger's default cause; steps that say more (list, count) say it inside.
            with session.ledger.caused_by(f"cosmem {command.name}"):
                status = await command.run(session, args, sys.stdout)
        finally:
            await session.close()
            over_budget = _report_overruns(session)
    finally:
        if ledger is not None:
            ledger.close()
    if over_budget and status == EXIT_OK:
        status = EXIT_OVER_BUDGET  # whole output, but the budget was passed unasked
    if ledger is not None and ledger.error is not None:
        print(f"cosmem: --ledger {visible(str(ledger.path))}: {ledger.error}", file=sys.stderr)
        return status or EXIT_ERROR
    return status


def _report_overruns(session: Session) -> bool:
    """One stderr line per call that took the session past its RU budget unasked."""
    overruns = session.ledger.overruns()
    for overrun in overruns[:5]:
        print(f"cosmem: over the RU budget: {visible(overrun.describe())}", file=sys.stderr)
    if len(overruns) > 5:
        print(f"cosmem: … and {len(overruns) - 5:,} more calls over it", file=sys.stderr)
    return bool(overruns)
