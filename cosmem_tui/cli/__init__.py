"""The ``cosmem`` command: the TUI by default, headless subcommands for runbooks.

Every headless command prints a readable table, or ``--json`` (one JSON array on
stdout) or ``--csv``. Problems a user can cause end as one line on stderr and an exit
status, never a traceback.

``main`` parses and dispatches; each command module (``browse``, ``telemetry``,
``container``, ``writes``, ``config``, ``workspace``) declares its commands as data;
``options`` holds the option groups they share, ``opening`` opens a command's session
from its invocation, ``terminal`` is what a command says to the person at the terminal.
"""

from cosmem_tui.cli.main import build_parser, main
from cosmem_tui.core.exit_status import (
    EXIT_CONFLICT,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_OVER_BUDGET,
    EXIT_PARTIAL,
    EXIT_USAGE,
)

__all__ = [
    "EXIT_CONFLICT",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_OVER_BUDGET",
    "EXIT_PARTIAL",
    "EXIT_USAGE",
    "build_parser",
    "main",
]
