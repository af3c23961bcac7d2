"""``--ledger FILE``: every request the session's ledger records, appended as JSON Lines.

One JSON object per ``RequestCharge`` (keys in ``FIELDS``; new keys may be added, none
renamed), written and flushed as the ledger records it, so a crash loses nothing
already answered and ``tail -f`` follows the session. Requests recorded before the
file was attached (opening the session: sign-in, schema detection) are written first,
from the ledger's history.

Targets and activity ids come from the account and from item keys: the lines are pure
ASCII JSON, so no byte of them can act on a terminal that prints the file.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from cosmem_tui.model import RequestCharge, sub_status_name
from cosmem_tui.model.times import iso_utc
from cosmem_tui.sources.request_ledger import RequestLedger

FIELDS = (
    "at",
    "cause",
    "operation",
    "scope",
    "kind",
    "status",
    "outcome",
    "cancelled",
    "request_units",
    "duration_ms",
    "item_count",
    "activity_id",
    "attempt",
    "call",
    "target",
    "simulated",
    "background",
    "retry_after_ms",
    "unit",
    "admitted_ru",
    "over_budget",
    "sub_status",
    "sub_status_name",
)


def ledger_record(charge: RequestCharge) -> dict[str, Any]:
    """One request as a flat, JSON-ready record (the keys of ``FIELDS``, in order)."""
    return {
        "at": _iso(charge.at),
        "cause": charge.cause,
        "operation": charge.operation,
        "scope": charge.scope.value,
        "kind": charge.kind.value,
        "status": charge.status,  # 0: no answer came
        "outcome": charge.outcome,  # "200", "429", … "cancelled", "no answer"
        "cancelled": charge.cancelled,
        "request_units": _finite(charge.request_units),
        "duration_ms": _finite(round(charge.duration_ms, 3)),
        "item_count": charge.item_count,
        "activity_id": charge.activity_id,
        "attempt": charge.attempt,
        "call": charge.call,
        "target": charge.target,
        "simulated": charge.simulated,
        "background": charge.background,
        "retry_after_ms": _finite(charge.retry_after_ms),
        "unit": charge.unit,  # "RU" for Cosmos; "call" for Azure Monitor (no RU)
        "admitted_ru": _finite(charge.admitted_ru),  # the estimate it was let through at
        "over_budget": charge.over_budget,  # it took the session past its budget, unasked
        # The answer's x-ms-substatus and the SDKs' name for it: for a 429 its cause
        # ("RUBudgetExceeded", "GatewayThrottled", …), for a 410 why routing was stale.
        "sub_status": charge.sub_status,
        "sub_status_name": sub_status_name(charge.status, charge.sub_status) or None,
    }


def ledger_line(charge: RequestCharge) -> str:
    # ensure_ascii escapes every character outside printable ASCII (C0, DEL, C1, bidi
    # controls, all non-ASCII text), so the line is inert on any terminal and decodes
    # back to the exact value.
    return json.dumps(ledger_record(charge), ensure_ascii=True, allow_nan=False)


def _finite(value: float | None) -> float | None:
    """NaN and infinities (a malformed charge header) are not JSON: null instead."""
    return value if value is not None and math.isfinite(value) else None


def _iso(epoch: float) -> str | None:
    if not epoch:
        return None  # a record made without a clock (never by a real backend)
    return iso_utc(epoch, milliseconds=True)


def open_append(path: Path) -> TextIO:
    """``path`` opened to append lines, created 0600 (the lines name tenants and ids).

    Only a regular file is taken: a named pipe with no reader would block the open (and
    so the command) forever, and a directory or a device is no ledger. The kind is
    checked before opening, and the open itself never blocks (``O_NONBLOCK``), so a
    pipe put there in between is refused too.
    """
    try:
        found = path.stat()
    except FileNotFoundError:
        pass  # created below, a regular file
    else:
        _refuse_special(found.st_mode)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a pipe nobody reads, put there after the stat
            _refuse_special(stat.S_IFIFO)
        raise
    try:
        _refuse_special(os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "a", encoding="ascii", newline="\n")
    except BaseException:
        os.close(fd)
        raise


def _refuse_special(mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kinds = (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    )
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    raise OSError(errno.EINVAL, f"{kind}, not a file: name a file to append the ledger to")


class LedgerFile:
    """Appends the ledger's records to ``path``; ``close`` detaches and closes.

    Opening raises ``OSError`` (a bad path fails before any request is made). A write
    that fails later detaches the file and keeps the error in ``error``: the session
    goes on, it is not the ledger file's to stop.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.error: OSError | None = None
        self.written = 0
        self._file: TextIO | None = open_append(path)
        self._lock = threading.Lock()  # listeners may be called from worker threads
        self._unsubscribe: Callable[[], None] | None = None
        # Records already written from the history: the listener may see them again.
        self._from_history: dict[int, RequestCharge] = {}

    def attach(self, ledger: RequestLedger) -> None:
        """Write what the ledger holds so far, then every record as it comes."""
        with self._lock:  # a record arriving meanwhile waits, then is written once
            self._detach()
            self._unsubscribe = ledger.subscribe(self._on_record)
            history = ledger.records()
            self._from_history = {id(charge): charge for charge in history}
            for charge in history:
                self._write(charge)

    def _on_record(self, charge: RequestCharge) -> None:
        with self._lock:
            if self._from_history.pop(id(charge), None) is charge:
                return
            self._write(charge)

    def _write(self, charge: RequestCharge) -> None:
        if self._file is None:
            return
        try:
            self._file.write(ledger_line(charge) + "\n")
            self._file.flush()
        except OSError as exc:  # disk full, file system gone: stop, keep the session
            self.error = exc
            self._detach()
            self._close_file()
            return
        self.written += 1

    def close(self) -> None:
        with self._lock:
            self._detach()
            self._from_history = {}
            self._close_file()

    def _detach(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _close_file(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError as exc:  # the last flush failed
                self.error = self.error or exc
