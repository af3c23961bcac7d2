"""What a command of ``cosmem`` is, declared as data: its name and help, the options it
takes, what it opens, whether it writes, and the function that runs it.

Each command module (``browse``, ``telemetry``, ``container``, ``writes``, ``config``,
``workspace``) declares its commands in a ``COMMANDS`` tuple; ``main`` builds the parser
and the dispatch from those tuples alone, so a command is added in its own module.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, NamedTuple, TextIO

if TYPE_CHECKING:
    from cosmem_tui.config.invocation import Invocation
    from cosmem_tui.core.session import Session

AddOptions = Callable[[argparse.ArgumentParser], None]
# A command body in a session: the session, its own parsed arguments, stdout; the status.
SessionRun = Callable[["Session", argparse.Namespace, TextIO], Awaitable[int]]
# How a command's session is opened (``opening.py``): from the invocation's settings.
Opener = Callable[["Invocation"], Awaitable["Session"]]
# A command that opens no session itself: its arguments and, when it reads settings,
# the invocation.
PlainRun = Callable[[argparse.Namespace, "Invocation | None"], int]


class CliError(Exception):
    """A one-line problem to print on stderr with exit status 1."""


# NamedTuples: immutable records like frozen dataclasses, but built at import without
# generating and compiling their methods (every start-up loads every declaration).
class SessionCommand(NamedTuple):
    """A headless command that runs in a session: ``opens`` opens it (after the settings
    are resolved and the ``--ledger`` file is checked), ``run`` prints the output.

    ``writes``: the command changes data, so it is refused before any request without
    ``--allow-writes``, or without a terminal to confirm on and without ``--yes``.
    """

    name: str
    help: str
    options: tuple[AddOptions, ...]
    run: SessionRun
    opens: Opener
    description: str | None = None
    writes: bool = False

    @property
    def settings(self) -> bool:
        return True  # a session is opened from the resolved settings

    @property
    def tui(self) -> bool:
        return False


class PlainCommand(NamedTuple):
    """A command that runs on its own (the console, ``config``, ``demo``, ``import``).

    ``settings``: the profile and the environment are resolved first (``run`` gets the
    invocation; without, None). ``tui``: it starts the terminal UI, which owns the
    terminal (the SDK debug log goes to a file) and binds a profile's keys (checked
    before it starts).
    """

    name: str
    help: str
    options: tuple[AddOptions, ...]
    run: PlainRun
    description: str | None = None
    settings: bool = False
    tui: bool = False


Command = SessionCommand | PlainCommand
