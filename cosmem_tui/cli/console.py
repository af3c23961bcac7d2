"""``cosmem`` with no command: the terminal UI, started with the invocation's settings.

Textual is imported only here, and only when the console starts: every headless command
loads without it.
"""

from __future__ import annotations

import argparse

from cosmem_tui.cli.command import PlainCommand
from cosmem_tui.cli.opening import check_workspace_path, ledger_file
from cosmem_tui.config.invocation import Invocation


def action_ids() -> list[str]:
    """What a profile's ``keys`` may name (the registry lives in the UI)."""
    from cosmem_tui.ui.registry import the_registry

    return [action.id for action in the_registry().actions]


def run_console(args: argparse.Namespace, invocation: Invocation | None) -> int:
    assert invocation is not None  # declared with settings=True
    check_workspace_path(invocation.workspace)
    ledger = ledger_file(invocation.ledger)
    if ledger is not None:
        ledger.close()  # only a check that the file can be written: the app opens it
    from cosmem_tui.ui.app import run_app  # textual is only imported for the TUI

    return run_app(invocation)


CONSOLE = PlainCommand(
    "",
    "the terminal UI (cosmem with no command)",
    (),
    run_console,
    settings=True,
    tui=True,
)
