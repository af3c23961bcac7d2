"""Commands that make a local workspace: ``demo`` (the seeded demo workspace) and
``import`` (exported items into a new workspace). Neither opens a session nor reads a
profile: they write a file and say what is in it."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cosmem_tui.cli import options
from cosmem_tui.cli.command import CliError, PlainCommand
from cosmem_tui.cli.opening import check_workspace_path
from cosmem_tui.config.invocation import Invocation
from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.core.text import visible
from cosmem_tui.model import SystemClock


def run_demo(args: argparse.Namespace, invocation: Invocation | None) -> int:
    check_workspace_path(args.workspace)
    if getattr(args, "ledger", None) is not None:
        raise CliError("demo makes no requests: --ledger applies to a session")
    path = SessionOptions(workspace=args.workspace, schema=None).workspace_path
    if getattr(args, "still", False):
        return _open_still(args, path)
    if path.exists() and not args.reset:
        print(f"demo workspace: {path} (use --reset to rebuild it)")
        return EXIT_OK
    started = time.perf_counter()
    from cosmem_tui.compose import build_demo  # loaded by the command that uses it

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


def _open_still(args: argparse.Namespace, path: Path) -> int:
    """``cosmem demo --still``: the console on the demo with its live workload off (the
    console builds the demo first if it is not there; ``--reset`` rebuilds it first)."""
    from cosmem_tui.cli.console import action_ids, run_console
    from cosmem_tui.config.invocation import for_run

    if args.reset:
        from cosmem_tui.compose import build_demo

        build_demo(path, SystemClock())
    return run_console(args, for_run(options.flags(args), action_ids))


def run_import(args: argparse.Namespace, invocation: Invocation | None) -> int:
    from cosmem_tui.core import importer
    from cosmem_tui.core.container_file import ContainerFileError, read_container_file
    from cosmem_tui.core.session import config_dir

    check_workspace_path(args.workspace)
    container_file = None
    if args.container_properties is not None:
        try:
            container_file = read_container_file(args.container_properties)
        except ContainerFileError as exc:  # not that file: a usage error, nothing written
            print(f"cosmem: {visible(str(exc))}", file=sys.stderr)
            return EXIT_USAGE
    database = getattr(args, "database", None) or (
        container_file.database if container_file else None
    )

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
            database=database or importer.DEFAULT_DATABASE,
            replace=args.replace,
            container_file=container_file,
        )
        overrides = importer.flag_overrides(settings)
        if overrides and container_file is not None:
            print(
                visible(
                    f"cosmem: given flags win over {container_file.path}: " + "; ".join(overrides)
                ),
                file=sys.stderr,
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


# -- declarations -------------------------------------------------------------------------


def _demo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reset", action="store_true", help="rebuild it from the seed")
    options.still(parser, suppress=True)  # as given before the command name, too


def _import_arguments(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument(
        "--container-properties",
        type=Path,
        metavar="FILE",
        help="the container's settings: what `az cosmosdb sql container show` prints (or its"
        " resource object); partition key, default ttl, indexing, vector and full-text"
        " policies are taken from it, flags given alongside win",
    )
    parser.add_argument("--replace", action="store_true", help="overwrite an existing workspace")


COMMANDS = (
    PlainCommand(
        "demo",
        "create (or with --reset rebuild) the demo workspace",
        (_demo_arguments, options.source),
        run_demo,
    ),
    PlainCommand(
        "import",
        "load exported items (JSON array, JSON Lines, or a folder) into a workspace",
        (_import_arguments,),
        run_import,
        description="Load exported items into a new local workspace, streaming. Problems are "
        "reported as FILE:LINE: message on stderr; valid items are imported anyway, and the "
        "exit status is 1 if any item was rejected.",
    ),
)
