"""``cosmem``: parse the command line, set up the SDK log, resolve the settings, run the
command, and turn a problem the user can cause into one stderr line and an exit status.

The parser and the dispatch are built from the command modules' declarations
(``GROUPS``): each subcommand's parser carries its declaration, so running one is
looking it up, never a chain of names. With no command, the console starts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable

from cosmem_tui import __version__
from cosmem_tui.cli import (
    browse,
    config,
    container,
    history,
    opening,
    options,
    recall,
    tail,
    telemetry,
    workspace,
    writes,
)
from cosmem_tui.cli.command import CliError, Command, SessionCommand
from cosmem_tui.cli.console import CONSOLE, action_ids
from cosmem_tui.config.files import ConfigError
from cosmem_tui.config.invocation import Invocation, SettingsConflict, for_run
from cosmem_tui.core.errors import LookupFailed
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from cosmem_tui.core.startup import release_collection
from cosmem_tui.core.text import visible
from cosmem_tui.schemas import SchemaError
from cosmem_tui.sources.errors import BudgetSpent, StoreError

# The command modules, in the order ``cosmem --help`` lists their commands.
GROUPS = (browse, recall, tail, history, telemetry, container, writes, config, workspace)
DECLARED: tuple[Command, ...] = tuple(c for group in GROUPS for c in group.COMMANDS)
DECLARATION = "declaration"  # where a subcommand's parser leaves its declaration


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cosmem",
        description="Operations console for Cosmos DB containers that hold AI-agent memory. "
        "With no command it opens the terminal UI.",
    )
    parser.add_argument("--version", action="version", version=f"cosmem {__version__}")
    options.top_level(parser)
    subcommands = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=options.CommandParser
    )
    for command in DECLARED:
        sub = subcommands.add_parser(
            command.name,
            help=command.help,
            description=command.description,
            formatter_class=options.UsageFormatter,
            options=(*command.options, options.debug),  # --debug after the name too
        )
        sub.set_defaults(**{DECLARATION: command})
    return parser


def main(argv: Iterable[str] | None = None) -> int:
    args = build_parser().parse_args(None if argv is None else list(argv))
    command: Command = getattr(args, DECLARATION, CONSOLE)
    try:
        sdk_logging(args, to_file=command.tui)
        # The profile and the settings-only variables, under the flags.
        invocation = _settings(command, args)
    except ConfigError as exc:  # the file, the key, what is expected: one line
        print(visible(f"cosmem: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except CliError as exc:  # --debug's log file cannot be written
        return _failed(exc)
    except BrokenPipeError:
        sys.stderr.close()
        return EXIT_OK
    if not command.tui:  # loaded: the collector runs again (the TUI after its first frame)
        release_collection()
    try:
        if isinstance(command, SessionCommand):
            assert invocation is not None  # a session command always reads settings
            return opening.run_command(command, args, invocation)
        return command.run(args, invocation)
    except (CliError, SettingsConflict, LookupFailed, StoreError, SchemaError) as exc:
        return _failed(exc)  # WriteRefused too
    except BrokenPipeError:
        # `cosmem turns … | head` closed the pipe: not an error worth a traceback.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def _settings(command: Command, args: argparse.Namespace) -> Invocation | None:
    if not command.settings:
        return None
    # A profile's keys are checked only where they are bound: in the console.
    return for_run(options.flags(args), action_ids if command.tui else None)


def _failed(exc: Exception) -> int:
    """One line on stderr, secrets masked, and the error status."""
    hint = ""
    if isinstance(exc, BudgetSpent):
        hint = f" (rerun with --ru-budget {exc.spent_ru + exc.needed_ru:,.0f} or more)"
    print(f"cosmem: {visible(redact(_message(exc)))}{hint}", file=sys.stderr)
    return EXIT_ERROR


def sdk_logging(args: argparse.Namespace, *, to_file: bool) -> None:
    """The SDKs' log lines stay out of the terminal; ``--debug`` (or COSMEM_DEBUG) sends
    them, secrets masked, to stderr, or for the TUI (which owns the terminal, ``to_file``)
    to a file."""
    from cosmem_tui.core import debug_log

    if not debug_log.debug_requested(bool(getattr(args, "debug", False)), os.environ):
        debug_log.silence()
        return
    secrets = debug_log.secrets_from_env(os.environ)
    if to_file:
        path = debug_log.debug_log_path()
        try:
            debug_log.to_file(path, secrets)
        except OSError as exc:
            raise CliError(f"--debug: cannot write {path}: {exc.strerror or exc}") from None
        print(f"cosmem: debug log: {path}", file=sys.stderr)
    else:
        debug_log.to_stream(sys.stderr, secrets)


def redact(text: str) -> str:
    from cosmem_tui.sources.cosmos.settings import redact as redact_secrets  # no SDK import

    return redact_secrets(text)


def _message(exc: Exception) -> str:
    message = getattr(exc, "message", None)
    return str(message if message is not None else exc)
