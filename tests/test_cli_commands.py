"""The commands are declared as data in their modules, and ``main`` builds the parser and
the dispatch from those declarations alone: a module that declares commands but is not
collected, a declaration the parser does not reach, or one that names a run or an
opener in a module that does not exist, fails here."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import cosmem_tui.cli
from cosmem_tui.cli import opening
from cosmem_tui.cli.command import PlainCommand, SessionCommand
from cosmem_tui.cli.main import DECLARATION, DECLARED, GROUPS, build_parser
from cosmem_tui.cli.options import CommandParser, positive_int, positive_ru, positive_seconds

CLI = Path(cosmem_tui.cli.__file__).parent


def cli_modules() -> list[ModuleType]:
    return [
        importlib.import_module(info.name)
        for info in pkgutil.iter_modules([str(CLI)], prefix="cosmem_tui.cli.")
    ]


def subcommand_parsers(parser: argparse.ArgumentParser | None = None) -> dict[str, CommandParser]:
    parser = parser or build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_module_that_declares_commands_is_collected():
    declaring = {m.__name__ for m in cli_modules() if hasattr(m, "COMMANDS")}
    assert declaring == {group.__name__ for group in GROUPS}
    assert len(declaring) >= 6  # browse, telemetry, container, writes, config, workspace


def test_every_declaration_is_a_command_of_the_parser_and_dispatches_to_itself():
    parsers = subcommand_parsers()
    names = [command.name for command in DECLARED]
    assert len(names) == len(set(names))  # one declaration a name
    assert list(parsers) == names  # nothing the parser has that no module declares
    for command in DECLARED:
        assert parsers[command.name].get_default(DECLARATION) is command, command.name


def required_positionals(parser: CommandParser) -> list[str]:
    """A value for each positional the command cannot do without."""
    parser.take_options()
    return [
        "x"
        for action in parser._actions
        if not action.option_strings
        and action.nargs in (None, "+")
        and not isinstance(action, argparse._SubParsersAction)
    ]


def test_main_runs_the_declaration_the_parser_left(monkeypatch, demo_path):
    """Each session command's line reaches ``opening`` with its own declaration (and its
    settings resolved), whatever the command; nothing else is consulted."""
    ran: list[SessionCommand] = []

    def run_command(command: SessionCommand, args: argparse.Namespace, invocation) -> int:
        assert invocation.workspace == demo_path
        ran.append(command)
        return 0

    monkeypatch.setattr(opening, "run_command", run_command)
    parsers = subcommand_parsers()
    session_commands = [c for c in DECLARED if isinstance(c, SessionCommand)]
    for command in session_commands:
        argv = [command.name, *required_positionals(parsers[command.name])]
        assert cosmem_tui.cli.main([*argv, "--workspace", str(demo_path)]) == 0
    assert ran == session_commands


@pytest.mark.parametrize("command", DECLARED, ids=lambda c: c.name)
def test_a_declaration_names_a_run_and_an_opener_that_exist(command):
    for function in (command.run, *(() if isinstance(command, PlainCommand) else (command.opens,))):
        module = importlib.import_module(function.__module__)  # the module exists
        assert module.__name__.startswith("cosmem_tui.cli.")
        assert getattr(module, function.__name__) is function  # and holds that function
    if isinstance(command, SessionCommand):
        assert command.opens in (
            opening.store_session,
            opening.telemetry_session,
            opening.doctor_session,
        )


def test_the_writes_are_the_declared_writing_commands():
    writing = {c.name for c in DECLARED if isinstance(c, SessionCommand) and c.writes}
    assert writing == {"pin", "set-ttl", "erase-thread"}
    parsers = subcommand_parsers()
    for name in writing:  # each takes what the write check reads
        parsers[name].take_options()
        assert {"yes", "allow_writes"} <= {a.dest for a in parsers[name]._actions}


def test_a_run_builds_the_options_of_its_own_command_only():
    """Start-up: the parser of every other command stays without its options."""
    parser = build_parser()
    parsers = subcommand_parsers(parser)
    assert not any(p.has_options for p in parsers.values())
    args = parser.parse_args(["--workspace", "w.sqlite", "turns", "acme", "t1", "--last", "3"])
    assert args.last == 3 and args.names == ["acme", "t1"] and args.format == "table"
    assert [name for name, p in parsers.items() if p.has_options] == ["turns"]
    usage = " ".join(parsers["ttl"].format_usage().split())  # usage and help take them too
    assert usage.endswith("[--json | --csv] [--debug] [TENANT [THREAD]]"), usage
    assert parsers["ttl"].has_options


def test_no_module_of_the_cli_is_long():
    for path in CLI.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name


# -- the one parser of a positive number -----------------------------------------------------


@pytest.mark.parametrize(
    ("parse", "text", "said"),
    [
        (positive_ru, "lots", "must be a positive number of RU, not 'lots'"),
        (positive_ru, "0", "must be a positive number of RU, not 0"),
        (positive_ru, "nan", "must be a positive number of RU, not nan"),
        (positive_ru, "inf", "must be a positive number of RU, not inf"),
        (positive_ru, "-3", "must be a positive number of RU, not -3"),
        (
            positive_seconds,
            "2m",
            "must be a positive number of seconds (e.g. 30 or 2.5), not '2m'",
        ),
        (positive_seconds, "-1", "must be a positive number of seconds, not -1"),
        (positive_seconds, "NaN", "must be a positive number of seconds, not NaN"),
        (positive_int, "0", "must be a whole number of at least 1, not '0'"),
        (positive_int, "abc", "must be a whole number of at least 1, not 'abc'"),
    ],
)
def test_a_number_that_is_not_positive_says_what_is_accepted(parse, text, said):
    with pytest.raises(argparse.ArgumentTypeError) as raised:
        parse(text)
    assert str(raised.value) == said


def test_positive_numbers_parse():
    assert positive_ru("2.5") == 2.5 and positive_seconds("30") == 30.0
    assert positive_int("7") == 7
