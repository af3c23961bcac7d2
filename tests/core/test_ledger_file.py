"""``--ledger FILE``: one ASCII JSON line per request the ledger records, nothing else."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from cosmem_tui.core.ledger_file import FIELDS, LedgerFile, ledger_record
from cosmem_tui.model import Kind, RequestCharge, Scope
from cosmem_tui.sources.request_ledger import RequestLedger

HOSTILE = "\x1b]0;pwned\x07 \x1b[31mred\x1b[0m \x9b31m \x7f \u202egpj.exe 你好 \ud800"


def charge(call: int, **fields: object) -> RequestCharge:
    values: dict[str, object] = {
        "operation": "turns-page",
        "scope": Scope.PARTITION,
        "request_units": 2.83,
        "duration_ms": 12.3456789,
        "item_count": 100,
        "status": 200,
        "simulated": False,
        "kind": Kind.QUERY,
        "call": call,
        "cause": "browse: open thread",
        "at": 1_795_996_800.25,
        **fields,
    }
    return RequestCharge(**values)  # type: ignore[arg-type]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


def test_each_record_is_one_line_with_every_field(tmp_path: Path):
    request_ledger, path = RequestLedger(), tmp_path / "ledger.jsonl"
    ledger = LedgerFile(path)
    ledger.attach(request_ledger)
    records = [
        charge(1),
        charge(2, status=429, retry_after_ms=250.0, attempt=1, kind=Kind.QUERY_PLAN),
        charge(2, attempt=2, background=True, scope=Scope.CROSS_PARTITION),
        charge(3, status=0, cancelled=True, request_units=0.0),
        charge(4, status=0, kind=Kind.POINT, scope=Scope.POINT),
        charge(5, kind=Kind.LOCAL, simulated=True, request_units=float("nan")),
    ]
    for record in records:
        request_ledger.record(record)
        # Flushed per record: a reader sees each line as soon as it is recorded.
        assert len(path.read_text(encoding="ascii").splitlines()) == records.index(record) + 1
    ledger.close()
    written = lines(path)
    assert len(written) == len(request_ledger.records()) == 6
    assert all(tuple(line) == FIELDS for line in written)
    first = written[0]
    assert first["at"] == "2026-11-30T00:00:00.250Z"
    assert first["scope"] == "single-partition" and first["kind"] == "query"
    assert first["duration_ms"] == 12.346 and first["request_units"] == 2.83
    assert [line["outcome"] for line in written] == [
        "200", "429", "200", "cancelled", "no answer", "200"
    ]  # fmt: skip
    assert written[1]["retry_after_ms"] == 250.0 and written[1]["kind"] == "query-plan"
    assert written[2]["attempt"] == 2 and written[2]["background"] is True
    assert written[5]["simulated"] is True and written[5]["request_units"] is None  # NaN


def test_hostile_targets_and_activity_ids_stay_inert_yet_decode_exactly(tmp_path: Path):
    request_ledger, path = RequestLedger(), tmp_path / "ledger.jsonl"
    ledger = LedgerFile(path)
    ledger.attach(request_ledger)
    request_ledger.record(charge(1, target=HOSTILE, activity_id=HOSTILE, cause=HOSTILE))
    ledger.close()
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    assert all(0x20 <= byte < 0x7F for byte in raw[:-1])  # printable ASCII, no DEL
    (line,) = lines(path)
    assert line["target"] == line["activity_id"] == line["cause"] == HOSTILE
    assert line == ledger_record(charge(1, target=HOSTILE, activity_id=HOSTILE, cause=HOSTILE))


def test_requests_before_the_attach_are_written_once(tmp_path: Path):
    request_ledger, path = RequestLedger(), tmp_path / "ledger.jsonl"
    request_ledger.record(charge(1, cause="open: detect the schema"))
    ledger = LedgerFile(path)
    ledger.attach(request_ledger)
    request_ledger.record(charge(2))
    ledger.close()
    request_ledger.record(charge(3))  # after close: detached
    assert [line["call"] for line in lines(path)] == [1, 2]
    assert lines(path)[0]["cause"] == "open: detect the schema"


def test_lines_are_appended_to_an_existing_file(tmp_path: Path):
    path = tmp_path / "ledger.jsonl"
    for call in (1, 2):
        request_ledger = RequestLedger()
        ledger = LedgerFile(path)
        ledger.attach(request_ledger)
        request_ledger.record(charge(call))
        ledger.close()
    assert [line["call"] for line in lines(path)] == [1, 2]


def test_a_failing_write_detaches_and_never_fails_the_request(tmp_path: Path):
    request_ledger = RequestLedger()
    ledger = LedgerFile(tmp_path / "ledger.jsonl")
    ledger.attach(request_ledger)

    class Full:
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            pass

    ledger._file = Full()  # type: ignore[assignment]
    request_ledger.record(charge(1))  # no exception reaches the backend
    request_ledger.record(charge(2))
    assert isinstance(ledger.error, OSError) and ledger.written == 0
    assert len(request_ledger.records()) == 2
    ledger.close()


def test_a_path_that_cannot_be_written_fails_at_once(tmp_path: Path):
    with pytest.raises(OSError):
        LedgerFile(tmp_path / "missing" / "ledger.jsonl")


def test_a_new_ledger_file_is_readable_by_its_owner_alone(tmp_path: Path):
    """The lines name tenants, threads and item ids: 0600, like the audit log."""
    path = tmp_path / "ledger.jsonl"
    LedgerFile(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: os.mkfifo(p), "a named pipe (FIFO)"),
        (lambda p: p.mkdir(), "a directory"),
        (None, "a device"),
    ],
    ids=["fifo", "directory", "device"],
)
def test_a_ledger_that_is_no_regular_file_is_refused_without_blocking(tmp_path, make, kind):
    """Before, a FIFO nobody reads made open() wait forever: the command hung."""
    path = Path("/dev/null") if make is None else tmp_path / "ledger"
    if make is not None:
        make(path)
    with pytest.raises(OSError) as refused:
        LedgerFile(path)
    assert refused.value.strerror == (f"{kind}, not a file: name a file to append the ledger to")


def test_a_fifo_with_a_reader_is_refused_too(tmp_path: Path):
    path = tmp_path / "ledger"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(OSError, match="named pipe"):
            LedgerFile(path)
    finally:
        os.close(reader)
