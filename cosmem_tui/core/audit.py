"""The audit log of guarded writes: one JSON object a line, appended, never rewritten.

Every write the console makes (``--allow-writes``) is recorded here as it happens: when,
who (the signed-in identity, "account key", or the local user), which account and
container, the thread and partition key, the item ids, the ttl before and after, the
HTTP status and what each request cost. An erase also writes one line per deleted
item and a closing line listing every id. Lines are ASCII JSON (item ids and keys
come from data: no byte of them can act on a terminal that prints the file). The
file is opened in append mode for each line and flushed, so a crash loses nothing
already written, and it is created readable by its owner only.

If the log cannot be written, nothing is written to the container: ``check`` runs
before the first write, and a failing line stops an erase.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

AUDIT_FILE = "audit.jsonl"  # in the user data dir (compose names the path)


class AuditFailed(OSError):
    """The audit log could not be written: the write it would record is not made."""

    @property
    def message(self) -> str:
        return str(self.args[0])


def iso_now(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def check(self) -> None:
        """Can a line be appended? Raise ``AuditFailed`` (and write nothing) if not."""
        self._append(b"")

    def append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":"), default=str)
        self._append(line.encode("ascii") + b"\n")

    def _append(self, data: bytes) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if data:
                    os.write(fd, data)  # one write per line: lines never interleave
                    os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise AuditFailed(
                f"the audit log {self.path} cannot be written ({exc.strerror or exc})"
            ) from None
