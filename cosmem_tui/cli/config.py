"""``cosmem config path|init|show|validate``: the verbs parsed here, done by
``cosmem_tui.config.commands``. A problem with the file is one line naming the file and
the key (no ``cosmem:`` prefix: the line starts with the file), exit status 2."""

from __future__ import annotations

import argparse
import sys

from cosmem_tui.cli import options
from cosmem_tui.cli.command import PlainCommand
from cosmem_tui.cli.console import action_ids
from cosmem_tui.config.files import ConfigError
from cosmem_tui.config.invocation import Invocation
from cosmem_tui.core.exit_status import EXIT_USAGE
from cosmem_tui.core.text import visible


def run_config(args: argparse.Namespace, invocation: Invocation | None) -> int:
    from cosmem_tui.config import commands  # loaded by the command that uses it

    verb = args.config_command
    out = sys.stdout
    try:
        if verb == "path":
            return commands.path(out)
        if verb == "init":
            return commands.init(args.force, out)
        if verb == "validate":
            return commands.validate(action_ids, out)
        return commands.show(options.flags(args), args.json, out)
    except ConfigError as exc:  # the file, the key, what is expected: one line
        print(visible(str(exc)), file=sys.stderr)
        return EXIT_USAGE


def _verbs(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="config_command", metavar="VERB", required=True)
    verbs.add_parser("path", help="print the config file's path")
    init = verbs.add_parser("init", help="write a commented starter file")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    show = verbs.add_parser(
        "show", help="each setting, its value (secrets masked) and where it came from"
    )
    show.add_argument("--json", action="store_true", help="a JSON array on stdout")
    verbs.add_parser(
        "validate", help="check the whole file: exit 0 (no file is valid), or 2 with one line"
    )


COMMANDS = (
    PlainCommand(
        "config",
        "config profiles: where the file is, a starter file, what is in effect, a check",
        (_verbs,),
        run_config,
        description="Profiles live in a TOML file (cosmem config path; COSMEM_CONFIG "
        "overrides it). Precedence: flag > environment > profile > default.",
    ),
)
