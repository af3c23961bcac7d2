"""The audit log of guarded writes: one JSON object a line, appended, never rewritten.

Every write the console makes (``--allow-writes``) is recorded here as it happens: when,
who (the signed-in identity, "account key", or the local user), which account and
container, the thread and partition key, the item ids, the ttl before and after, the
HTTP status and what each request cost. Each request is preceded by an *intent* line
(what is about to be sent), so a process killed while a request is in flight still
leaves the request in the log; an erase also writes one line per item and a closing
line listing every id. Lines are ASCII JSON (item ids and keys come from data: no
byte of them can act on a terminal that prints the file). The file is opened in append
mode for each line and synced, so a crash loses nothing already written, and it is
created readable by its owner only.

If the log cannot be written, nothing is written to the container: ``check`` runs
before the first write, every line is checked whole (a short write is cut back off, so
the file never holds half a line), and an intent line needs room on the disk for the
line that will follow it — a write that could not be audited is not sent.
"""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

AUDIT_FILE = "audit.jsonl"  # in the user data dir (compose names the path)
# Room an intent line asks for on the disk, beyond itself: the result line that follows
# (and an erase's closing line, which lists every id of a page) must fit too.
RESERVE_BYTES = 256 * 1024


class AuditFailed(OSError):
    """The audit log could not be written: the write it would record is not made."""

    @property
    def message(self) -> str:
        return str(self.args[0])


def iso_now(epoch: float) -> str:
    """ISO-8601 UTC for ``epoch``; a clock beyond what datetime holds is written as a number."""
    try:
        return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (OverflowError, OSError, ValueError):
        return f"{epoch!r} (epoch seconds)"


def encode(record: Mapping[str, Any]) -> bytes:
    """One line: ASCII JSON (non-finite numbers are refused, never written as NaN)."""
    line = json.dumps(
        record, ensure_ascii=True, separators=(",", ":"), default=str, allow_nan=False
    )
    return line.encode("ascii") + b"\n"


class AuditLog:
    def __init__(self, path: Path, *, reserve_bytes: int = RESERVE_BYTES) -> None:
        self.path = path
        self.reserve_bytes = reserve_bytes

    def check(self) -> None:
        """Can a line be appended? Raise ``AuditFailed`` (and write nothing) if not."""
        self._append(b"", reserve=True)

    def append(self, record: Mapping[str, Any], *, reserve: bool = False) -> None:
        """Append one line, whole, or raise ``AuditFailed`` and leave the file as it was.

        ``reserve``: the line announces a request, whose result must be logged after it:
        refuse unless the disk has room for that too."""
        try:
            data = encode(record)
        except ValueError as exc:  # a NaN or a cycle: a bug, but never a half-true log
            raise AuditFailed(f"the audit line for {self.path} cannot be encoded ({exc})") from None
        self._append(data, reserve=reserve)

    def _append(self, data: bytes, *, reserve: bool = False) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if reserve:
                    self._check_room(fd, len(data))
                if data:
                    self._write_whole(fd, data)
            finally:
                os.close(fd)
        except AuditFailed:
            raise
        except OSError as exc:
            raise AuditFailed(
                f"the audit log {self.path} cannot be written ({exc.strerror or exc})"
            ) from None

    def _check_room(self, fd: int, size: int) -> None:
        """Room on the disk, and under the process's file-size limit, for ``size`` bytes
        and the lines that follow them."""
        stats = os.fstatvfs(fd)
        free = stats.f_bavail * stats.f_frsize
        limit, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
        if limit != resource.RLIM_INFINITY:
            free = min(free, max(0, limit - os.fstat(fd).st_size))
        if free < size + self.reserve_bytes:
            raise AuditFailed(
                f"the audit log {self.path} is on a disk that is almost full "
                f"({free // 1024:,} KB free; a write needs {self.reserve_bytes // 1024:,} KB "
                "for its audit lines)"
            )

    @staticmethod
    def _write_whole(fd: int, data: bytes) -> None:
        """Write ``data`` whole, or cut the file back to where it was and raise."""
        start = os.fstat(fd).st_size
        written = 0
        try:
            while written < len(data):
                n = os.write(fd, data[written:])  # one line per call: lines never interleave
                if n <= 0:
                    raise OSError(28, "no space left on device")
                written += n
            os.fsync(fd)
        except OSError:
            # A short write left part of a line: take it back off, unless another
            # process has appended since (then its line is not ours to cut).
            with suppress(OSError):
                if written and os.fstat(fd).st_size == start + written:
                    os.ftruncate(fd, start)
            raise
