"""The ``cosmem`` command: the TUI by default, headless subcommands for runbooks.

Every headless command prints a readable table, or ``--json`` (one JSON array on
stdout) or ``--csv``. Problems a user can cause end as one line on stderr and
exit status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from cosmem_tui import __version__
from cosmem_tui.compose import build_demo, open_session
from cosmem_tui.config.files import ConfigError
from cosmem_tui.config.invocation import (
    Flags,
    Invocation,
    SettingsConflict,
    for_run,
    monitor_settings,
    session_options,
)
from cosmem_tui.core import records
from cosmem_tui.core.directory import CountState, Listing
from cosmem_tui.core.errors import LookupFailed
from cosmem_tui.core.exit_status import (
    EXIT_CONFLICT,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_OVER_BUDGET,
    EXIT_PARTIAL,
    EXIT_USAGE,
)
from cosmem_tui.core.ledger_file import LedgerFile
from cosmem_tui.core.output import Output
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.core.text import visible
from cosmem_tui.model import (
    BudgetQuestion,
    Key,
    Severity,
    SystemClock,
    ThreadRef,
)
from cosmem_tui.model.lifecycle import ScopeLevel
from cosmem_tui.model.telemetry import (
    DEFAULT_KEYS_TOP,
    KeyLevel,
    TelemetryAbout,
    TelemetryProblem,
    Window,
)
from cosmem_tui.schemas import SchemaError
from cosmem_tui.sources.errors import BudgetSpent, StoreError
from cosmem_tui.sources.monitor.settings import FLAGS as MONITOR_FLAGS  # plain data, no SDK

if TYPE_CHECKING:
    from cosmem_tui.core.write_log import Interrupt


def _positive_ru(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number of RU, not {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of RU, not {text}")
    return value


class CliError(Exception):
    """A one-line problem to print on stderr with exit status 1."""


class _UsageFormatter(argparse.HelpFormatter):
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


# -- arguments -------------------------------------------------------------------


def _source_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
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
        type=_positive_ru,
        default=default,
        metavar="RU",
        help="RU the session may spend in all (default 400): background counts stop there, "
        "anything else asks first (headless runs on a pipe stop)",
    )
    account.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=default,
        metavar="SECONDS",
        help="give up on a request after this long, waits after 429s included (default 30)",
    )


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:  # "2m" is a natural mistake: the unit is fixed
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds (e.g. 30 or 2.5), not {text!r}"
        ) from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def _positive_int(text: str) -> int:
    # "abc" and "0" are the same mistake: one message, one exit status (usage, 2).
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def _window(text: str) -> Window:
    # argparse words a ValueError as "invalid parse value": say what is accepted instead.
    try:
        return Window.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _window_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--window",
        type=_window,
        default=Window.M15,
        metavar="|".join(w.label for w in Window),
        help="how far back to look (default 15m)",
    )


def _region_view_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--region-view",
        metavar="REGION",
        help='the region whose load to show ("West US" or westus; default the write '
        "region): RU/s is provisioned per region, so regions are never added up",
    )


def _monitor_options(parser: argparse.ArgumentParser, *, suppress: bool = True) -> None:
    monitor = parser.add_argument_group(
        "Azure Monitor (hot and throttle need only these, not a Cosmos endpoint)"
    )
    for flag in MONITOR_FLAGS:
        monitor.add_argument(
            flag.option,
            dest=flag.key,
            default=argparse.SUPPRESS if suppress else None,
            metavar=flag.metavar,
            help=f"{flag.help} (or {flag.env})",
        )


def _verbose_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="say on stderr which schema reads the items, and why",
    )


def _counts_option(parser: argparse.ArgumentParser, default_sort: str) -> None:
    parser.add_argument(
        "--no-counts",
        action="store_true",
        help="list the names only (counting costs requests per name)",
    )
    parser.add_argument(
        "--sort",
        choices=["items", "active", "name"],
        default=default_sort,
        help=f"most items first, most recently active first, or by name (default {default_sort}); "
        "rows without counts come last, by name",
    )


def _output_options(parser: argparse.ArgumentParser) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cosmem",
        description="Operations console for Cosmos DB containers that hold AI-agent memory. "
        "With no command it opens the terminal UI.",
    )
    parser.add_argument("--version", action="version", version=f"cosmem {__version__}")
    _source_options(parser, suppress=False)
    _monitor_options(parser, suppress=False)
    _verbose_option(parser, suppress=False)
    _debug_option(parser, suppress=False)
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
    _writes_option(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    tenants = commands.add_parser("tenants", help="list tenants with thread and item counts")
    _counts_option(tenants, "items")
    _source_options(tenants, suppress=True)
    _monitor_options(tenants)
    _verbose_option(tenants, suppress=True)
    _output_options(tenants)

    threads = commands.add_parser("threads", help="list the threads of a tenant")
    threads.add_argument("tenant", nargs="?", help="the tenant (omit for schemas without one)")
    _counts_option(threads, "active")
    _source_options(threads, suppress=True)
    _monitor_options(threads)
    _verbose_option(threads, suppress=True)
    _output_options(threads)

    turns = commands.add_parser("turns", help="list the turns of a thread, oldest first")
    turns.add_argument(
        "names",
        nargs="+",
        metavar="[TENANT] THREAD",
        help="tenant and thread (just the thread for schemas without tenants)",
    )
    turns.add_argument(
        "--last", type=_positive_int, metavar="N", help="only the newest N turns (N ≥ 1)"
    )
    _source_options(turns, suppress=True)
    _monitor_options(turns)
    _verbose_option(turns, suppress=True)
    _output_options(turns)

    search = commands.add_parser(
        "search",
        help="the turns of a whole thread whose text contains TEXT (ignoring case), "
        "found on the server with one single-partition query",
    )
    search.add_argument(
        "names",
        nargs="+",
        metavar="[TENANT] THREAD TEXT",
        help="tenant and thread (just the thread for schemas without tenants), then the text",
    )
    _source_options(search, suppress=True)
    _monitor_options(search)
    _verbose_option(search, suppress=True)
    _output_options(search)

    throttle = commands.add_parser(
        "throttle",
        help="RU/s, 429s, normalised RU per partition and latency from Azure Monitor "
        "metrics (simulated on the demo)",
    )
    _window_option(throttle)
    _region_view_option(throttle)
    _monitor_options(throttle)
    _source_options(throttle, suppress=True)
    _output_options(throttle)

    hot = commands.add_parser(
        "hot",
        help="partition keys by RU in the window from the diagnostic logs (simulated on "
        "the demo): the hot tenant, its share and its 429s",
    )
    hot.add_argument(
        "tenant",
        nargs="?",
        help="only this tenant's keys (its threads); omit for tenants",
    )
    hot.add_argument(
        "--level",
        choices=[level.value for level in KeyLevel],
        default=KeyLevel.TENANT.value,
        help="group by tenant (the first level of the key) or by the whole key "
        "(default tenant; naming a tenant implies key)",
    )
    hot.add_argument(
        "--top",
        type=_positive_int,
        default=DEFAULT_KEYS_TOP,
        metavar="N",
        help=f"at most N keys, cut where the logs are (default {DEFAULT_KEYS_TOP:,})",
    )
    _window_option(hot)
    _region_view_option(hot)
    _monitor_options(hot)
    _source_options(hot, suppress=True)
    _output_options(hot)

    advise = commands.add_parser(
        "advise",
        help="the container advisor: findings (rule, severity, evidence, fix) from the "
        "container's properties and a bounded sample of item shapes",
    )
    advise.add_argument(
        "--no-counts",
        action="store_true",
        help="do not count top-level keys for the skew rules (counting costs requests)",
    )
    _source_options(advise, suppress=True)
    _monitor_options(advise)  # RU per tenant and 429s feed the hotspot rule, as in the view
    _output_options(advise)
    _doctor_parser(commands)
    _write_parsers(commands)
    _ttl_parser(commands)

    _config_parser(commands)
    demo = commands.add_parser("demo", help="create (or with --reset rebuild) the demo workspace")
    demo.add_argument("--reset", action="store_true", help="rebuild it from the seed")
    _source_options(demo, suppress=True)
    _import_parser(commands)
    for command in commands.choices.values():  # after the command name too
        _debug_option(command, suppress=True)
        command.formatter_class = _UsageFormatter
    return parser


def _config_parser(commands: Any) -> None:
    config = commands.add_parser(
        "config",
        help="config profiles: where the file is, a starter file, what is in effect, a check",
        description="Profiles live in a TOML file (cosmem config path; COSMEM_CONFIG "
        "overrides it). Precedence: flag > environment > profile > default.",
    )
    verbs = config.add_subparsers(dest="config_command", metavar="VERB", required=True)
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


def _cmd_config(args: argparse.Namespace) -> int:
    from cosmem_tui.config import commands

    verb = args.config_command
    out = sys.stdout
    if verb == "path":
        return commands.path(out)
    if verb == "init":
        return commands.init(args.force, out)
    if verb == "validate":
        return commands.validate(_action_ids, out)
    return commands.show(flags(args), args.json, out)


def flags(args: argparse.Namespace) -> Flags:
    """The settings the command line gave, typed (no Namespace leaves the CLI)."""

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
        profile=given("profile"),
        timeout=given("timeout"),
        ledger=given("ledger"),
        telemetry=telemetry,
    )


def _doctor_parser(commands: Any) -> None:
    doctor = commands.add_parser(
        "doctor",
        help="what this account, container and workspace let the console do: each "
        "capability works, is degraded, blocked or unknown, with the evidence and the fix",
        description="Checks the data-plane roles (a 403's sub-status and missing action), "
        "Monitoring Reader, Log Analytics Reader, the diagnostic settings, the throughput "
        "mode, partition merge, priority-based execution, backup and the change feed, the "
        "container's TTL, vector and full-text policies. It reads metadata only, every "
        "request in the ledger; it exits 1 only when a capability the session is "
        "configured for is blocked.",
    )
    doctor.add_argument(
        "--checks",
        action="store_true",
        help="one row per check (need, status, evidence, cost, fix) instead of per capability",
    )
    _source_options(doctor, suppress=True)
    _monitor_options(doctor)
    _output_options(doctor)


def _debug_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="the Azure SDKs' own log, secrets masked: on stderr, or for the terminal UI "
        "in a log file whose path is printed (or COSMEM_DEBUG=1)",
    )


def _writes_option(parser: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    parser.add_argument(
        "--allow-writes",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="allow the few guarded writes (pin, set a ttl, erase a thread), each confirmed "
        "and recorded in the audit log; without it nothing can be written",
    )


def _write_parsers(commands: Any) -> None:
    what = {
        "pin": ("pin an item as long-term memory (ttl -1)", "[TENANT] THREAD ID"),
        "set-ttl": ("give an item a new ttl in seconds", "[TENANT] THREAD ID SECONDS"),
        "erase-thread": ("delete every item of one thread (a deletion request)", "[TENANT] THREAD"),
    }
    for name, (text, usage) in what.items():
        parser = commands.add_parser(
            name,
            help=f"{text}; needs --allow-writes",
            description=f"{text[0].upper()}{text[1:]}. Shows what will change and asks on the "
            "terminal (--yes for scripts; without a terminal and without --yes it refuses). "
            "Written If-Match the ETag just read: a concurrent change is reported (exit 4), "
            "never overwritten. Every write is recorded in the audit log "
            "($XDG_DATA_HOME/cosmem/audit.jsonl).",
        )
        parser.add_argument("names", nargs="+", metavar=usage)
        _writes_option(parser)
        parser.add_argument(
            "--yes", action="store_true", help="do not ask: the write is confirmed (scripts)"
        )
        _source_options(parser, suppress=True)


def _ttl_parser(commands: Any) -> None:
    ttl = commands.add_parser(
        "ttl",
        help="items by TTL class and how many expire within 1h/24h/7d/30d, for a tenant, "
        "a thread, or the whole container",
        description="Counts of the visible items by TTL class (short-term, long-term, "
        "default: inherits the container's DefaultTimeToLive, ignored: TTL is off, invalid) "
        "and how many expire within each horizon, from aggregate queries. Without a "
        "tenant it covers the whole container: a fan-out over every physical partition.",
    )
    ttl.add_argument(
        "names",
        nargs="*",
        metavar="[TENANT [THREAD]]",
        help="a tenant, a tenant and a thread (a thread alone for schemas without "
        "tenants); none: the whole container",
    )
    _source_options(ttl, suppress=True)
    _verbose_option(ttl, suppress=True)
    _output_options(ttl)


def _import_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "import",
        help="load exported items (JSON array, JSON Lines, or a folder) into a workspace",
        description="Load exported items into a new local workspace, streaming. Problems are "
        "reported as FILE:LINE: message on stderr; valid items are imported anyway, and the "
        "exit status is 1 if any item was rejected.",
    )
    parser.add_argument("source", type=Path, metavar="FILE", help="a .json/.jsonl file or folder")
    hidden = argparse.SUPPRESS  # keep a value given before the command name
    parser.add_argument(
        "--workspace",
        type=Path,
        default=hidden,
        metavar="PATH",
        help="the workspace to create (default: ./NAME.sqlite, after the file)",
    )
    parser.add_argument(
        "--schema",
        default=hidden,
        metavar="NAME",
        help="the items' schema (default: auto, detected from the items)",
    )
    parser.add_argument(
        "--partition-key",
        metavar="/a,/b",
        help="the container's partition key paths (default: the schema's)",
    )
    parser.add_argument(
        "--default-ttl",
        metavar="off|-1|SECONDS",
        help="the container's DefaultTimeToLive (default: -1 if items carry ttl, else off)",
    )
    parser.add_argument(
        "--container",
        default=hidden,
        metavar="NAME",
        help="container name recorded (and used to detect the schema; default: the file's name)",
    )
    parser.add_argument(
        "--database",
        default=hidden,
        metavar="NAME",
        help="database name recorded (default: import)",
    )
    parser.add_argument("--replace", action="store_true", help="overwrite an existing workspace")


def _cmd_import(args: argparse.Namespace) -> int:
    from cosmem_tui.core import importer
    from cosmem_tui.core.session import config_dir

    def problem(found: importer.ImportProblem) -> None:
        print(visible(str(found)), file=sys.stderr)

    try:
        settings = importer.ImportSettings(
            source=args.source,
            workspace=args.workspace or importer.default_workspace_path(args.source),
            partition_key=importer.parse_partition_key(args.partition_key)
            if args.partition_key
            else None,
            default_ttl=importer.parse_default_ttl(args.default_ttl)
            if args.default_ttl is not None
            else importer.GUESS,
            schema=args.schema or "auto",
            container=getattr(args, "container", None),
            database=getattr(args, "database", None) or importer.DEFAULT_DATABASE,
            replace=args.replace,
        )
        report = importer.import_export(
            settings, clock=SystemClock(), user_dir=config_dir() / "schemas", on_problem=problem
        )
    except importer.ImportFailed as exc:
        raise CliError(str(exc)) from None
    rejected = report.rejected
    c = report.container
    guessed = " (from the schema)" if report.partition_key_guessed else ""
    expired = f"; {report.expired:,} already expired (hidden)" if report.expired else ""
    print(
        f"imported {report.imported:,} items from {report.files} file(s) into {report.workspace}"
        f"{expired}\n"
        f"  schema {visible(report.choice.label)}\n"
        f"  container {visible(c.database)}/{visible(c.container)}, "
        f"pk {visible(c.partition_key.describe())}{guessed}, "
        f"default ttl {report.ttl_note if report.ttl_note != 'given' else c.default_ttl_display()}"
    )
    if rejected:
        print(f"cosmem: {rejected:,} item(s) rejected (listed above)", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


# -- commands ----------------------------------------------------------------------


async def _telemetry_session(invocation: Invocation) -> Session:
    """``hot`` and ``throttle``: Azure Monitor alone when it is configured (no Cosmos
    endpoint needed), else the session the other commands open (the demo's simulator)."""
    monitor = monitor_settings(invocation)
    if monitor is None or invocation.workspace is not None:
        return await _session(invocation)
    from cosmem_tui.compose import open_telemetry_session

    session = await open_telemetry_session(
        monitor,
        auth=invocation.auth,
        notice=lambda line: print(f"cosmem: {visible(line)}", file=sys.stderr),
    )
    for note in session.notes:  # what opening found: not a Cosmos account, no region
        print(f"cosmem: {visible(note)}", file=sys.stderr)
    return session


async def _session(invocation: Invocation) -> Session:
    options = session_options(invocation)
    if options.needs_demo_build():
        print(f"cosmem: creating the demo workspace at {options.workspace_path} …", file=sys.stderr)
    # Sign-in prompts (device code) and the like go to stderr, never into the output.
    session = await open_session(
        options, notice=lambda line: print(f"cosmem: {visible(line)}", file=sys.stderr)
    )
    if sys.stdin.isatty() and sys.stderr.isatty():
        session.ledger.set_confirmer(_ask_on_terminal)
    return session


async def _doctor_session(invocation: Invocation) -> Session:
    """``doctor``: a Cosmos container opened without a read (so a missing role is reported,
    not fatal), Azure Monitor alone, or the workspace the other commands open."""
    from cosmem_tui.compose import open_doctor_session

    options = session_options(invocation, telemetry_alone=True)
    if options.needs_demo_build():
        print(f"cosmem: creating the demo workspace at {options.workspace_path} …", file=sys.stderr)
    return await open_doctor_session(
        options,
        auth=invocation.auth,
        notice=lambda line: print(f"cosmem: {visible(line)}", file=sys.stderr),
    )


async def _ask_on_terminal(question: BudgetQuestion) -> bool:
    """Headless runs on a terminal ask before passing the RU budget; pipes never do."""

    def ask() -> bool:
        print(f"cosmem: {visible(question.describe())} [y/N] ", end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return await asyncio.to_thread(ask)


class _Progress:
    """A one-line progress report on stderr while a long listing runs (terminals only)."""

    def __init__(self, session: Session, label: str) -> None:
        self.session = session
        self.label = label
        self.enabled = sys.stderr.isatty()
        self.shown = False

    def __call__(self, listing: Listing) -> None:
        if not self.enabled:
            return
        spent = self.session.ledger.spent_ru
        ranges = (
            f", partition {listing.ranges_done} of {listing.ranges_total}"
            if listing.ranges_total > 1
            else ""
        )
        print(
            f"\rcosmem: listing {self.label}: {len(listing.keys):,} so far{ranges}, "
            f"{spent:,.1f} RU ",
            end="",
            file=sys.stderr,
            flush=True,
        )
        self.shown = True

    def done(self) -> None:
        if self.shown:
            print(file=sys.stderr)


async def _list_top_level(
    session: Session, args: argparse.Namespace, label: str
) -> tuple[Listing, dict[Key, CountState]]:
    """Every top-level key, then counts while the budget lasts (see the README)."""
    directory = session.service.directory
    progress = _Progress(session, label)
    with session.ledger.caused_by(f"cosmem {args.command}: list {label}"):
        listing = await directory.list(fresh=True, progress=progress)
    progress.done()
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


async def _cmd_tenants(session: Session, args: argparse.Namespace, out: TextIO) -> int:
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


async def _cmd_threads(session: Session, args: argparse.Namespace, out: TextIO) -> int:
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
        _, threads = await session.service.threads_named(args.tenant)
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


async def _thread_ref(session: Session, names: list[str], command: str = "turns") -> ThreadRef:
    schema = session.schema
    if schema.has_tenant_level:
        if len(names) != 2:
            raise CliError(f"usage: cosmem {command} {schema.tenant_label.upper()} THREAD …")
        ref = await session.service.resolve(names[0], names[1])
    elif len(names) != 1:
        raise CliError(
            f"schema {schema.name} has no tenant level: usage: cosmem {command} THREAD …"
        )
    else:
        ref = await session.service.resolve(None, names[0])
    if command in WRITE_COMMANDS:
        # An unknown tenant or thread is named as such before any plan (one page of
        # one turn), never taken for a missing item or an empty thread.
        await session.service.first_page(ref, page_size=1)
    return ref


async def _cmd_turns(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    ref = await _thread_ref(session, args.names)
    now = session.clock.now()

    async def turns() -> AsyncIterator[Any]:
        if args.last is not None:
            for turn in await session.service.last_turns(ref, args.last):
                yield turn
        else:
            async for turn in session.service.iter_turns(ref):
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


async def _cmd_search(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    from cosmem_tui.core.thread_search import ThreadSearch

    if len(args.names) < 2:
        raise CliError("usage: cosmem search [TENANT] THREAD TEXT")
    *names, text = args.names
    ref = await _thread_ref(session, names, "search")
    try:
        search = ThreadSearch(session.service, ref, text)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # An unknown thread is told before the search spends anything (one item, one page):
    # an empty search of a thread that does not exist is no empty result.
    await session.service.first_page(ref, page_size=1)
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


def _cmd_demo(args: argparse.Namespace) -> int:
    if getattr(args, "ledger", None) is not None:
        raise CliError("demo makes no requests: --ledger applies to a session")
    options = SessionOptions(workspace=args.workspace, schema=None)
    path = options.workspace_path
    if path.exists() and not args.reset:
        print(f"demo workspace: {path} (use --reset to rebuild it)")
        return EXIT_OK
    started = time.perf_counter()
    manifest = build_demo(path, SystemClock())
    elapsed = time.perf_counter() - started
    print(
        f"demo workspace: {path}\n"
        f"  {manifest.items:,} items in {manifest.threads:,} threads, built in {elapsed:.1f}s\n"
        f"  hot tenant: {manifest.hot_tenant}; malformed items: "
        f"{manifest.malformed.get('tenant')}/{manifest.malformed.get('thread')}; hostile text: "
        f"{manifest.hostile.get('tenant')}/{visible(manifest.hostile.get('thread', ''))}"
    )
    return EXIT_OK


async def _cmd_throttle(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    service = session.throughput
    if service is None:
        raise CliError(NO_TELEMETRY)
    from cosmem_tui.core.throughput import series_rows  # loaded by the command that uses it

    report = await service.report(args.window, region=getattr(args, "region_view", None))
    with Output(args.format, records.THROUGHPUT_FIELDS, records.THROUGHPUT_FIELDS, out) as output:
        for row in series_rows(report):
            output.write(row)
    return _report_telemetry(report.source, report.headline, report.problems, bool(report.series))


async def _cmd_ttl(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    from cosmem_tui.core.lifecycle import LifecycleService
    from cosmem_tui.model.ttl import container_ttl_words

    service = LifecycleService(session.store, session.service)
    scope = await service.scope_named(list(args.names))
    where = scope.describe(session.schema.tenant_label)
    with session.ledger.caused_by(f"cosmem ttl: {where}"), session.ledger.meter() as cost:
        if scope.level is ScopeLevel.CONTAINER:
            report = await service.container_report()
        else:
            report = await service.report(scope, lists=False)
            service.check_found(report)
    summary = report.summary
    assert summary is not None
    typed = args.format == "json"
    fields = records.TTL_FIELDS if args.format != "table" else records.TTL_TABLE_FIELDS
    with Output(args.format, records.TTL_FIELDS, fields, out) as output:
        for record in records.ttl_records(summary, typed=typed):
            output.write(record)
    container = scope.level is ScopeLevel.CONTAINER
    fan_out = " (a fan-out over every physical partition)" if container else ""
    sim = " sim" if cost.simulated else ""
    print(
        f"cosmem: {visible(where)}{fan_out}: {container_ttl_words(report.container.default_ttl)}"
        f"; {cost.requests} requests, {cost.request_units:,.1f} RU{sim}",
        file=sys.stderr,
    )
    return EXIT_OK


async def _cmd_hot(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    service = session.hot_keys
    if service is None:
        raise CliError(NO_TELEMETRY)
    # A name read as everywhere (42 the number, '"42"' the string; the first reading
    # with requests wins); one with none is checked against the store, when there is
    # one, so an unknown tenant is an error, not an idle one.
    readings: tuple[Key | None, ...] = (None,)
    if args.tenant is not None:
        readings = Key.readings(args.tenant)
    for tenant in readings:
        report = await service.report(
            args.window,
            level=KeyLevel(args.level),
            tenant=tenant,
            top=args.top,
            region=getattr(args, "region_view", None),
        )
        if report.rows:
            break
    if args.tenant is not None and not report.rows:
        if session.has_store:  # an idle tenant is an empty result, an unknown one an error
            await session.service.threads_named(args.tenant)  # or UnknownTenant
        else:
            print(
                f"cosmem: no requests of tenant {visible(args.tenant)} logged in the window; "
                "without a Cosmos container the name cannot be checked",
                file=sys.stderr,
            )
    with Output(args.format, records.HOT_FIELDS, records.HOT_FIELDS, out) as output:
        for usage in report.rows:
            output.write(records.hot_record(usage, report.level, typed=output.fmt == "json"))
    notes = [c for c in report.caveats if c.startswith("top ")]
    for note in notes:  # a cut list must never pass for the whole one
        print(f"cosmem: {note} (raise --top to see more)", file=sys.stderr)
    if report.lag_note:  # the newest minutes of the window may not be logged yet
        print(f"cosmem: {visible(report.lag_note)}", file=sys.stderr)
    if report.throttle_note:  # "throttled" counts 429s where logged: say what it leaves out
        print(f"cosmem: {visible(report.throttle_note)}", file=sys.stderr)
    from cosmem_tui.core.hot_keys import console_note

    if own := console_note(report):  # the console's own load is in the keys' RU too
        print(f"cosmem: {visible(own)}", file=sys.stderr)
    status = _report_telemetry(report.source, report.headline, report.problems, bool(report.rows))
    return status or (EXIT_PARTIAL if notes else EXIT_OK)


def _report_telemetry(
    source: TelemetryAbout,
    headline: str,
    problems: tuple[TelemetryProblem, ...],
    has_data: bool,
) -> int:
    """Headline and problems on stderr (stdout stays machine-readable); exit 3 when a
    part failed and the output is short, 1 when nothing came."""
    label = (
        f"{source.label} (simulated)"
        if source.simulated and "simul" not in source.label
        else source.label
    )
    from cosmem_tui.core.throughput import problem_lines

    print(f"cosmem: {visible(label)}: {visible(headline)}", file=sys.stderr)
    for line in problem_lines(problems):  # one line per cause, naming what it concerns
        print(f"cosmem: {visible(line)}", file=sys.stderr)
    if problems and not has_data:
        return EXIT_ERROR
    return EXIT_PARTIAL if problems else EXIT_OK


async def _cmd_advise(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    advisor = session.advisor
    if advisor is None:
        raise CliError("the advisor needs a memory store (a workspace or a Cosmos container)")
    load = None
    if session.hot_keys is not None:  # with telemetry: RU per tenant feeds the hotspot rule
        try:
            load = await session.hot_keys.report(Window.M15)
        except StoreError as exc:
            print(f"cosmem: telemetry not used: {visible(exc.message)}", file=sys.stderr)
    report = await advisor.advise(load=load, count=not args.no_counts)
    fields = records.ADVICE_FIELDS
    table = ("severity", "rule", "title", "evidence", "fix")
    with Output(args.format, fields, table, out) as output:
        for finding in report.findings:
            output.write(records.advice_record(finding))
    counts = {s: len(report.by_severity(s)) for s in Severity}
    unit = "RU sim" if session.ledger.totals().simulated else "RU"
    print(
        f"cosmem: advisor: {len(report.findings)} findings "
        f"({', '.join(f'{n} {s.value}' for s, n in counts.items())}) from "
        f"{report.sampled:,} sampled items ({report.sample_request_units:,.1f} {unit})",
        file=sys.stderr,
    )
    for note in report.notes:
        print(f"cosmem: note: {visible(note)}", file=sys.stderr)
    # No sample where there were items to sample (the budget, a failure): the rules that
    # read items could not run, so the list is short.
    return EXIT_PARTIAL if report.sample_failed else EXIT_OK


async def _cmd_doctor(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    doctor = session.doctor
    if doctor is None:
        raise CliError("no doctor for this session")
    report = await doctor.run()
    if args.checks:
        with Output(args.format, records.CHECK_FIELDS, records.CHECK_TABLE_FIELDS, out) as output:
            for check in report.checks:
                output.write(records.check_record(check))
    else:
        with Output(args.format, records.DOCTOR_FIELDS, records.DOCTOR_TABLE_FIELDS, out) as output:
            for row in report.rows:
                output.write(records.doctor_record(row))
    from cosmem_tui.model.doctor import Verdict

    counts = ", ".join(f"{report.count(v)} {v.value}" for v in Verdict if report.count(v))
    print(
        f"cosmem: doctor: {visible(report.label)}: {counts} · read {report.cost.describe()}",
        file=sys.stderr,
    )
    for row in report.rows:  # each fix whole (a table cuts long cells)
        if row.fix or (row.asked and row.verdict is not Verdict.WORKS):
            asked = " (asked for)" if row.asked else ""
            fix = f" — fix: {visible(row.fix)}" if row.fix else ""
            print(
                f"cosmem: {row.verdict.value}: {visible(row.title)}{asked} — "
                f"{visible(row.evidence)}{fix}",
                file=sys.stderr,
            )
    for note in (*report.notes, *session.notes):
        print(f"cosmem: note: {visible(note)}", file=sys.stderr)
    return EXIT_ERROR if report.blocked_asked() else EXIT_OK


async def _cmd_write(session: Session, args: argparse.Namespace, out: TextIO) -> int:
    """pin / set-ttl / erase-thread: plan from a fresh read, confirm, apply, report."""
    writes = session.writes
    if writes is None:  # _run_write refuses before opening a session; this is a backstop
        raise CliError(f"{args.command} needs --allow-writes")
    names = list(args.names)
    seconds: int | None = None
    if args.command == "set-ttl":
        if len(names) < 2:
            raise CliError("usage: cosmem set-ttl [TENANT] THREAD ID SECONDS")
        seconds = _ttl_argument(names.pop())
    if args.command == "erase-thread":
        ref = await _thread_ref(session, names, "erase-thread")
        plan = await writes.plan_erase(ref)
    else:
        if len(names) < 2:
            raise CliError(f"usage: cosmem {args.command} [TENANT] THREAD ID")
        item_id = names.pop()
        ref = await _thread_ref(session, names, args.command)
        plan = (
            await writes.plan_pin(ref, item_id)
            if seconds is None
            else await writes.plan_ttl(ref, item_id, seconds)
        )
    from cosmem_tui.core.write_log import Interrupt  # loaded by the commands that write
    from cosmem_tui.core.writes import describe_plan
    from cosmem_tui.model.writes import WriteStatus

    for line in describe_plan(plan, session.clock.now(), str(writes.audit.path)):
        print(f"cosmem: {visible(line)}", file=sys.stderr)
    typed = plan.ref.thread.text if args.command == "erase-thread" else None
    if not await _confirmed(args, typed):
        print("cosmem: nothing was written", file=sys.stderr)
        return EXIT_ERROR
    progress = _EraseProgress() if args.command == "erase-thread" else None
    interrupt = Interrupt()
    with _stop_on_signals(interrupt):
        outcome = await writes.apply(plan, progress, interrupt)
    # The audit log is complete by now; a terminal that went away (SIGHUP) must not turn
    # the report into a traceback.
    if progress is not None:
        progress.done()
    _report(visible(outcome.message), out)
    unit = "RU sim" if outcome.simulated else "RU"
    _report(
        f"cosmem: {outcome.status.value}: {len(outcome.done_ids):,} item(s) written, "
        f"{outcome.request_units:,.1f} {unit}; audit log {writes.audit.path}",
        sys.stderr,
    )
    return {
        WriteStatus.DONE: EXIT_OK,
        WriteStatus.CONFLICT: EXIT_CONFLICT,
        WriteStatus.STOPPED: EXIT_PARTIAL,
        WriteStatus.INCOMPLETE: EXIT_PARTIAL,
        WriteStatus.UNKNOWN: EXIT_PARTIAL,
    }.get(outcome.status, EXIT_ERROR)


def _report(line: str, stream: TextIO) -> None:
    with contextlib.suppress(OSError):  # EIO / EPIPE: the terminal or pipe is gone
        print(line, file=stream, flush=True)


@contextlib.contextmanager
def _stop_on_signals(interrupt: Interrupt) -> Iterator[None]:
    """While a write is applied, ctrl+c, SIGTERM and SIGHUP ask it to stop between two
    requests (the request in flight ends, the closing audit line is written) instead of
    killing the process mid-request."""
    loop = asyncio.get_running_loop()
    caught: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        if interrupt.reason is None:
            _report(f"\ncosmem: {sig.name}: stopping after the request in flight", sys.stderr)
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


def _check_write_flags(args: argparse.Namespace, invocation: Invocation) -> None:
    if not invocation.allow_writes:
        raise CliError(
            f"{args.command} changes data: add --allow-writes (the console is read-only without it)"
        )  # the line is "cosmem: pin changes data …", the prefix written once
    if not args.yes and not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise CliError(
            f"{args.command}: no terminal to confirm on; add --yes to write from a script"
        )


async def _confirmed(args: argparse.Namespace, typed: str | None = None) -> bool:
    """--yes, else a y on the terminal (``_check_write_flags`` made sure there is one); an
    erase, which cannot be undone, only when the thread id ``typed`` is typed out."""
    if args.yes:
        return True
    from cosmem_tui.core.writes import typed_consent

    def ask() -> bool:
        if typed is not None:
            print(
                f"cosmem: type the thread id ({visible(typed)}) to erase it: ",
                end="",
                file=sys.stderr,
                flush=True,
            )
            return typed_consent(sys.stdin.readline(), typed)
        print("cosmem: write this? [y/N] ", end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return await asyncio.to_thread(ask)


class _EraseProgress:
    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.shown = False

    def __call__(self, deleted: int, total: int) -> None:
        if self.enabled:
            with contextlib.suppress(OSError):  # a terminal gone (SIGHUP) must not stop it
                print(
                    f"\rcosmem: deleted {deleted:,} of {total:,} ",
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
            self.shown = True

    def done(self) -> None:
        if self.shown:
            _report("", sys.stderr)


NO_TELEMETRY = (
    "no telemetry for this session: name the account with --resource-id (or "
    "COSMEM_RESOURCE_ID) and its Log Analytics workspace with --workspace-id "
    "(or COSMEM_WORKSPACE_ID); the demo workspace has a simulated workload"
)

HeadlessRun = Callable[[Session, argparse.Namespace, TextIO], Any]
_HEADLESS: dict[str, HeadlessRun] = {
    "tenants": _cmd_tenants,
    "threads": _cmd_threads,
    "turns": _cmd_turns,
    "search": _cmd_search,
    "throttle": _cmd_throttle,
    "hot": _cmd_hot,
    "advise": _cmd_advise,
    "doctor": _cmd_doctor,
    "pin": _cmd_write,
    "set-ttl": _cmd_write,
    "erase-thread": _cmd_write,
    "ttl": _cmd_ttl,
}
WRITE_COMMANDS = ("pin", "set-ttl", "erase-thread")


async def _run_headless(
    command: HeadlessRun, args: argparse.Namespace, invocation: Invocation
) -> int:
    ledger = _ledger_file(invocation.ledger)  # before the session: a bad path costs no request
    try:
        telemetry = args.command in ("hot", "throttle")
        opener = _doctor_session if args.command == "doctor" else _session
        session = await (_telemetry_session if telemetry else opener)(invocation)
        if ledger is not None:
            ledger.attach(session.ledger)  # with what opening the session requested
        if args.verbose and session.has_store:
            why = session.schema_why(invocation.schema)  # always says why
            print(f"cosmem: schema {visible(f'{session.schema.name} ({why})')}", file=sys.stderr)
        try:
            # The ledger's default cause; steps that say more (list, count) say it inside.
            with session.ledger.caused_by(f"cosmem {args.command}"):
                status: int = await command(session, args, sys.stdout)
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


def _ledger_file(path: Path | None) -> LedgerFile | None:
    if path is None:
        return None
    try:
        return LedgerFile(path)
    except OSError as exc:
        raise CliError(f"--ledger {path}: {exc.strerror or exc}") from None


def _run_tui(invocation: Invocation) -> int:
    from cosmem_tui.ui.app import run_app  # textual is only imported for the TUI

    ledger = _ledger_file(invocation.ledger)
    if ledger is not None:
        ledger.close()  # only a check that the file can be written: the app opens it
    return run_app(invocation)


def _action_ids() -> list[str]:
    """What a profile's ``keys`` may name (the registry lives in the UI)."""
    from cosmem_tui.ui.app import the_registry

    return [action.id for action in the_registry().actions]


def main(argv: Iterable[str] | None = None) -> int:
    args = build_parser().parse_args(None if argv is None else list(argv))
    invocation: Invocation | None = None
    try:
        sdk_logging(args)
        if args.command == "config":
            return _cmd_config(args)
        if args.command not in ("demo", "import"):
            # The profile and the settings-only variables, under the flags.
            invocation = for_run(flags(args), _action_ids if args.command is None else None)
    except ConfigError as exc:  # the file, the key, what is expected: one line
        line = str(exc) if args.command == "config" else f"cosmem: {exc}"
        print(visible(line), file=sys.stderr)
        return EXIT_USAGE
    except CliError as exc:  # --debug's log file cannot be written
        return _failed(exc)
    except BrokenPipeError:  # `cosmem config show | head`
        sys.stderr.close()
        return EXIT_OK
    try:
        if invocation is None:  # demo and import: no settings, the flag alone
            _check_workspace_path(getattr(args, "workspace", None))
            return _cmd_demo(args) if args.command == "demo" else _cmd_import(args)
        _check_workspace_path(invocation.workspace)
        if args.command is None:
            return _run_tui(invocation)
        if args.command in WRITE_COMMANDS:
            # before any request: refused writes cost nothing
            _check_write_flags(args, invocation)
        status = asyncio.run(_run_headless(_HEADLESS[args.command], args, invocation))
        sys.stdout.flush()
        return status
    except (CliError, SettingsConflict, LookupFailed, StoreError, SchemaError) as exc:
        return _failed(exc)
    except BrokenPipeError:
        # `cosmem turns … | head` closed the pipe: not an error worth a traceback.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130


def _failed(exc: Exception) -> int:
    """One line on stderr, secrets masked, and the error status."""
    hint = ""
    if isinstance(exc, BudgetSpent):
        hint = f" (rerun with --ru-budget {exc.spent_ru + exc.needed_ru:,.0f} or more)"
    print(f"cosmem: {visible(redact(_message(exc)))}{hint}", file=sys.stderr)
    return EXIT_ERROR


def _check_workspace_path(path: Path | None) -> None:
    """--workspace names a file: a folder gets a one-line answer naming the file to give."""
    if path is None or not path.is_dir():
        return
    found = sorted(path.glob("*.sqlite"))
    example = found[0] if len(found) == 1 else path / "workspace.sqlite"
    raise CliError(f"{path} is a directory; give a workspace file (e.g. {example})")


def sdk_logging(args: argparse.Namespace) -> None:
    """The SDKs' log lines stay out of the terminal; ``--debug`` (or COSMEM_DEBUG) sends
    them, secrets masked, to stderr, or for the TUI (which owns the terminal) to a file."""
    from cosmem_tui.core import debug_log

    if not debug_log.debug_requested(bool(getattr(args, "debug", False)), os.environ):
        debug_log.silence()
        return
    secrets = debug_log.secrets_from_env(os.environ)
    if args.command is None:
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
