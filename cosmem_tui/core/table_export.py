"""A view's table written to a file: the records the CLI prints, through the same ``Output``.

A view describes what it shows as an ``ExportTable`` (its records, built for the format
asked, and the record keys); ``write_export`` writes it as CSV or JSON into a new,
timestamped file and never replaces one that exists. Writing a file touches nothing
on the account, so exports are allowed in a read-only session.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from cosmem_tui.core.output import Output

FORMATS = ("csv", "json")

# Set to send exports elsewhere than the directory cosmem was started in.
EXPORT_DIR_ENV = "COSMEM_EXPORT_DIR"


@dataclass(frozen=True)
class ExportTable:
    """What a view can export: a name for the file and the records as each format has them."""

    name: str  # "turns", "requests" …: the file name's stem
    fields: tuple[str, ...]  # the records' keys: CSV columns, in order
    records: Callable[[str], Iterable[dict[str, Any]]]  # format → rows as the CLI writes them


@dataclass(frozen=True)
class Exported:
    path: Path
    rows: int
    size: int  # bytes
    not_finite: int = 0  # NaN and infinite numbers written as null (JSON has none)


def export_dir() -> Path:
    """Where exports go: ``$COSMEM_EXPORT_DIR``, else the working directory (where an
    engineer on a remote shell looks for a file to copy off the machine)."""
    configured = os.environ.get(EXPORT_DIR_ENV)
    return Path(configured).expanduser() if configured else Path.cwd()


def export_name(name: str, fmt: str, at: float) -> str:
    stamp = datetime.fromtimestamp(at, UTC).strftime("%Y%m%dT%H%M%SZ")
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in name) or "table"
    return f"cosmem-{stem}-{stamp}.{fmt}"


def _create_private(path: Path) -> TextIO:
    """A new file at ``path`` (never one that exists), readable by its owner alone: an
    export holds tenant names, ids and transcripts, and jump boxes are shared."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    return os.fdopen(fd, "w", encoding="utf-8", newline="")


def write_export(table: ExportTable, fmt: str, directory: Path, at: float) -> Exported:
    """Write ``table`` as ``fmt`` into a file of its own in ``directory``.

    The file is created exclusively: a name that exists gets ``-2``, ``-3`` … rather
    than replacing what is there. A failure part-way removes the partial file.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    directory.mkdir(parents=True, exist_ok=True)
    base = export_name(table.name, fmt, at)
    stem, suffix = base.rsplit(".", 1)
    for n in range(1, 1000):
        path = directory / (base if n == 1 else f"{stem}-{n}.{suffix}")
        try:
            handle = _create_private(path)
        except FileExistsError:
            continue
        try:
            with handle, Output(fmt, table.fields, table.fields, handle) as output:
                for record in table.records(fmt):
                    output.write(record)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return Exported(path, output.count, path.stat().st_size, output.not_finite)
    raise FileExistsError(f"{directory}: too many exports named {base}")
