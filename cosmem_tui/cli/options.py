"""The option groups commands share, the value types of their options, and the typed
``Flags`` the parsed command line hands to ``config`` (no ``Namespace`` leaves ``cli``).

Each group is a function that adds its options to a parser; a command's declaration
lists the groups it takes, in the order its help shows them. A subcommand's shared
options default to ``argparse.SUPPRESS`` so that a value given before the command name
(``cosmem --workspace W tenants``) is kept.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cosmem_tui.config.invocation import Flags
from cosmem_tui.model.telemetry_choices import Window
from cosmem_tui.sources.monitor.settings import FLAGS as MONITOR_FLAGS  # plain data, no SDK

AddOptions = Callable[[argparse.ArgumentParser], None]


# -- value types ---------------------------------------------------------------------------


def positive_number(unit: str, example: str = "") -> Callable[[str], float]:
    """An option type: a finite number above 0 of ``unit`` ("RU", "seconds")."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:  # "2m" is a natural mistake: the unit is fixed
            raise argparse.ArgumentTypeError(
                f"must be a positive number of {unit}{example}, not {text!r}"
            ) from None
        if not 0 < value < float("inf"):  # NaN fails both comparisons
            raise argparse.ArgumentTypeError(f"must be a positive number of {unit}, not {text}")
        return value

    return parse


positive_ru = positive_number("RU")
positive_seconds = positive_number("seconds", " (e.g. 30 or 2.5)")


def positive_int(text: str) -> int:
    # "abc" and "0" are the same mistake: one message, one exit status (usage, 2).
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def window(text: str) -> Window:
    # argparse words a ValueError as "invalid parse value": say what is accepted instead.
    try:
        return Window.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class UsageFormatter(argparse.HelpFormatter):
    """Positionals given as a pattern (``[TENANT] THREAD``) are shown as written:
    argparse would repeat them as for a list of names ("[TENANT] THREAD [[TENANT]
    THREAD ...]"), which no command takes."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        metavar = action.metavar
        if (
            action.nargs in ("+", "*")
            and isinstance(metavar, str)
            and ("[" in metavar or " " in metavar)
        ):
            return metavar
        return super()._format_args(action, default_metavar)


class CommandParser(argparse.ArgumentParser):
    """A command's parser that takes its options when it is first used (parsed, or asked
    for its usage or help): a run builds the parser of its own command only, not the
    options of every other one. The top-level help lists commands by name and help
    alone, so it needs none."""

    def __init__(self, *args: Any, options: tuple[AddOptions, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending = options

    def take_options(self) -> None:
        pending, self._pending = self._pending, ()
        for add in pending:
            add(self)

    @property
    def has_options(self) -> bool:
        return not self._pending

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.take_options()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self.take_options()
        return super().format_usage()

    def format_help(self) -> str:
        self.take_options()
        return super().format_help()


# -- option groups -------------------------------------------------------------------------


def source(parser: argparse.ArgumentParser, *, suppress: bool = True) -> None:
    """Where the session reads: a workspace, or a Cosmos DB account, and its budget."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--workspace",
        type=Path,
        default=default,
        metavar="PATH",
        help="a local workspace file (default: the demo workspace in the user data dir)",
    )
    parser.add_argument(
        "--schema",
        default=default,
        metavar="NAME",
        help="how items map to tenant/thread/turn: a schema name, auto or generic "
        "(default: the one the workspace records, else auto-detected)",
    )
    parser.add_argument(
        "--ledger",
        type=Path,
        default=default,
        metavar="FILE",
        help="append every request the session makes to FILE, one JSON object a line "
        "(time, cause, operation, scope, status, RU, duration, …)",
    )
    account = parser.add_argument_group(
        "Cosmos DB account (secrets only from COSMOS_KEY / COSMOS_CONNECTION_STRING)"
    )
    account.add_argument(
        "--endpoint", default=default, metavar="URL", help="account URL (or COSMOS_ENDPOINT)"
    )
    account.add_argument(
        "--database", default=default, metavar="NAME", help="database (or COSMOS_DATABASE)"
    )
    account.add_argument(
        "--container", default=default, metavar="NAME", help="container (or COSMOS_CONTAINER)"
    )
    account.add_argument(
        "--auth",
        default=default,
        choices=["aad", "device-code", "key", "connection-string"],
        help="Entra ID (DefaultAzureCredential), Entra ID by device code, COSMOS_KEY, or "
        "COSMOS_CONNECTION_STRING (default: whichever of those variables is set, else aad)",
    )
    account.add_argument(
        "--ru-budget",
        type=positive_ru,
        default=default,
        metavar="RU",
        help="RU the session may spend in all (default 400): background counts stop there, "
        "anything else asks first (headless runs on a pipe stop)",
    )
    account.add_argument(
        "--timeout",
        type=positive_seconds,
        default=default,
        metavar="SECONDS",
        help="give up on a request after this long, waits after 429s included (default 30)",
    )


def monitor(parser: argparse.ArgumentParser, *, suppress: bool = True) -> None:
    group = parser.add_argument_group(
        "Azure Monitor (hot and throttle need only these, not a Cosmos endpoint)"
    )
    for flag in MONITOR_FLAGS:
        group.add_argument(
            flag.option,
            dest=flag.key,
            default=argparse.SUPPRESS if suppress else None,
            metavar=flag.metavar,
            help=f"{flag.help} (or {flag.env})",
        )


def verbose(parser: argparse.ArgumentParser, *, suppress: bool = True) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="say on stderr which schema reads the items, and why",
    )


def debug(parser: argparse.ArgumentParser, *, suppress: bool = True) -> None:
    parser.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="the Azure SDKs' own log, secrets masked: on stderr, or for the terminal UI "
        "in a log file whose path is printed (or COSMEM_DEBUG=1)",
    )


def allow_writes(parser: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    parser.add_argument(
        "--allow-writes",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="allow the few guarded writes (pin, set a ttl, erase a thread), each confirmed "
        "and recorded in the audit log; without it nothing can be written",
    )


def output(parser: argparse.ArgumentParser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json", dest="format", action="store_const", const="json", help="a JSON array on stdout"
    )
    fmt.add_argument(
        "--csv",
        dest="format",
        action="store_const",
        const="csv",
        help="CSV with a header row on stdout",
    )
    parser.set_defaults(format="table")


def counts(default_sort: str) -> AddOptions:
    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--no-counts",
            action="store_true",
            help="list the names only (counting costs requests per name)",
        )
        parser.add_argument(
            "--sort",
            choices=["items", "active", "name"],
            default=default_sort,
            help=f"most items first, most recently active first, or by name (default "
            f"{default_sort}); rows without counts come last, by name",
        )

    return add


def window_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--window",
        type=window,
        default=Window.M15,
        metavar="|".join(w.label for w in Window),
        help="how far back to look (default 15m)",
    )


def region_view(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--region-view",
        metavar="REGION",
        help='the region whose load to show ("West US" or westus; default the write '
        "region): RU/s is provisioned per region, so regions are never added up",
    )


def top_level(parser: argparse.ArgumentParser) -> None:
    """``cosmem``'s own options, before any command name (the console's, and every
    command's settings)."""
    source(parser, suppress=False)
    monitor(parser, suppress=False)
    verbose(parser, suppress=False)
    debug(parser, suppress=False)
    parser.add_argument(
        "--theme",
        default=None,
        metavar="NAME",
        help="UI theme: cosmem-dark, cosmem-light, high-contrast, production (or COSMEM_THEME)",
    )
    parser.add_argument(
        "--profile",
        default=None,
        metavar="NAME",
        help="a profile of the config file (or COSMEM_PROFILE; see cosmem config)",
    )
    allow_writes(parser)
    still(parser)


def still(parser: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    parser.add_argument(
        "--still",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="the demo without its live workload, as built: nothing writes to it "
        "(cosmem demo --still opens it so; the setting demo_live = false does the same)",
    )


# -- to config -----------------------------------------------------------------------------


def flags(args: argparse.Namespace) -> Flags:
    """The settings the command line gave, typed."""

    def given(name: str) -> Any:
        return getattr(args, name, None)

    telemetry = {
        flag.key: value
        for flag in MONITOR_FLAGS
        if flag.key not in ("resource_id", "workspace_id")
        and (value := given(flag.key)) is not None
    }
    return Flags(
        workspace=given("workspace"),
        schema=given("schema"),
        endpoint=given("endpoint"),
        database=given("database"),
        container=given("container"),
        auth=given("auth"),
        resource_id=given("resource_id"),
        workspace_id=given("workspace_id"),
        ru_budget=given("ru_budget"),
        theme=given("theme"),
        allow_writes=bool(given("allow_writes")),
        still=bool(given("still")),
        profile=given("profile"),
        timeout=given("timeout"),
        ledger=given("ledger"),
        telemetry=telemetry,
    )
