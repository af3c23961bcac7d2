"""`cosmem import` as a use case: streaming, guessing, problems, and crash safety."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cosmem_tui.compose import open_local_session as open_session
from cosmem_tui.core import importer
from cosmem_tui.core.importer import (
    GUESS,
    ImportFailed,
    ImportSettings,
    import_export,
    parse_default_ttl,
    parse_partition_key,
)
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.sources.local import Workspace, WorkspaceBuilder
from tests.fixtures import SCHEMAS, fixture_items
from tests.helpers import run_cli


def run(source: Path, workspace: Path, clock: FrozenClock, **settings):
    problems: list[str] = []
    report = import_export(
        ImportSettings(source=source, workspace=workspace, **settings),
        clock=clock,
        user_dir=None,
        on_problem=lambda p: problems.append(str(p)),
    )
    return report, problems


@pytest.mark.parametrize(
    ("fixture", "schema", "pk"),
    [
        ("amt", "amt", ("/user_id", "/thread_id")),
        ("amt-legacy.json", "amt", ("/user_id", "/thread_id")),
        ("maf-history.jsonl", "maf-history", ("/session_id",)),
        ("maf-dotnet.jsonl", "maf-dotnet", ("/conversationId",)),
        ("maf-dotnet-hpk.jsonl", "maf-dotnet-hpk", ("/tenantId", "/userId", "/sessionId")),
        ("langchain.jsonl", "langchain", ("/user_id",)),
        ("learn.json", "learn", ("/threadId",)),
        ("lab.jsonl", "lab", ("/tenantId", "/threadId")),
        ("cosmos-chat.jsonl", "generic", ("/ChatSessionId",)),
    ],
)
def test_every_fixture_imports_with_its_schema_guessed(tmp_path, clock, fixture, schema, pk):
    report, problems = run(SCHEMAS / fixture, tmp_path / "w.sqlite", clock)
    assert problems == [] and report.rejected == 0
    assert report.imported == len(fixture_items(fixture))
    assert report.choice.schema.name == schema and report.container.partition_key.paths == pk
    workspace = Workspace.open(tmp_path / "w.sqlite")
    try:
        assert workspace.item_count() == report.imported
        assert workspace.meta("schema") == schema
        assert workspace.meta("schema_reason") == report.choice.reason
    finally:
        workspace.close()


def test_items_keep_their_system_properties_and_missing_ts_gets_the_import_time(tmp_path, clock):
    source = tmp_path / "in.jsonl"
    kept = {
        "id": "a",
        "threadId": "t",
        "turnIndex": 0,
        "messages": [],
        "ttl": 60,
        "_ts": 1700000000,
        "_etag": '"etag-a"',
        "_rid": "r==",
    }
    bare = {"id": "b", "threadId": "t", "turnIndex": 1, "messages": []}
    source.write_text(json.dumps(kept) + "\n" + json.dumps(bare) + "\n")
    report, _ = run(source, tmp_path / "w.sqlite", clock, schema="thread")
    assert report.container.default_ttl == -1  # an item carries ttl
    workspace = Workspace.open(tmp_path / "w.sqlite")
    try:
        rows = {r[0]: r for r in workspace.query("read_item", {"pk": '["t"]', "id": "a", "now": 0})}
        assert rows["a"][2] == 1700000000 and rows["a"][3] == '"etag-a"'
        assert json.loads(rows["a"][4]) == kept
        b = workspace.query("read_item", {"pk": '["t"]', "id": "b", "now": 0})[0]
        assert b[2] == int(clock.now()) and json.loads(b[4])["_etag"] == b[3]
    finally:
        workspace.close()
    assert report.expired == 1  # _ts 1700000000 + 60 s is long past


def test_bad_items_are_reported_with_file_and_line_and_the_rest_imported(
    tmp_path, clock, monkeypatch
):
    monkeypatch.setattr(importer, "BATCH", 3)  # duplicates within and across batches
    source = tmp_path / "mixed.jsonl"
    good = [{"id": f"i{n}", "threadId": "t", "turnIndex": n, "messages": []} for n in range(4)]
    lines = [
        json.dumps(good[0]),
        "{not json",
        json.dumps({"threadId": "t"}),  # no id
        json.dumps({"id": "x"}),  # no partition key value
        json.dumps(good[1]),
        json.dumps(good[0]),  # duplicate of line 1, in the same batch
        json.dumps(good[2]),
        json.dumps(good[2]),  # duplicate of line 7, written in an earlier batch
        "[1]",  # not an object
        json.dumps(good[3]),
    ]
    source.write_text("\n".join(lines) + "\n")
    report, problems = run(source, tmp_path / "w.sqlite", clock, schema="thread")
    assert report.imported == 4 and report.rejected == 6
    # duplicates of rows already written are found when their batch is flushed: sort
    by_line = dict(sorted((int(p.split(": ", 1)[0].rsplit(":", 1)[1]), p) for p in problems))
    assert list(by_line) == [2, 3, 4, 6, 8, 9]
    assert all(p.startswith(f"{source}:") for p in problems)
    assert "not valid JSON" in by_line[2]
    assert "no string 'id'" in by_line[3]
    assert "no partition key value at /threadId" in by_line[4]
    assert "duplicate id 'i0'" in by_line[6] and f"first at {source}:1" in by_line[6]
    assert "duplicate id 'i2'" in by_line[8] and "imported earlier" in by_line[8]
    assert "not a JSON object" in by_line[9]


def test_a_file_that_is_not_json_is_one_problem(tmp_path, clock):
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "a.jsonl").write_text("this is not json\n")
    (folder / "b.jsonl").write_text(
        json.dumps(
            {
                "id": "1",
                "session_id": "s",
                "sort_key": 1,
                "message": {"role": "user", "contents": []},
            }
        )
        + "\n"
    )
    report, problems = run(folder, tmp_path / "w.sqlite", clock)
    assert report.files == 2 and report.imported == 1 and report.rejected == 1
    assert problems == [f"{folder / 'a.jsonl'}:1: not JSON or JSON Lines (line 1: Expecting value)"]


def test_a_failure_mid_import_leaves_no_workspace(tmp_path, clock, monkeypatch):
    calls = 0
    original = WorkspaceBuilder.insert_new_rows

    def failing(self, rows):
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OSError("disk full")
        return original(self, rows)

    monkeypatch.setattr(WorkspaceBuilder, "insert_new_rows", failing)
    monkeypatch.setattr(importer, "BATCH", 3)
    target = tmp_path / "out" / "w.sqlite"
    with pytest.raises(ImportFailed, match="disk full"):
        run(SCHEMAS / "amt", target, clock)
    assert calls == 2
    assert not target.exists() and list(target.parent.iterdir()) == []


def test_an_interrupted_import_leaves_no_workspace(tmp_path, clock, monkeypatch):
    def interrupted(self, rows):
        raise KeyboardInterrupt

    monkeypatch.setattr(WorkspaceBuilder, "insert_new_rows", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(SCHEMAS / "langchain.jsonl", tmp_path / "w.sqlite", clock)
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_destination_is_one_line(tmp_path, clock):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ImportFailed, match="nothing written to"):
        run(SCHEMAS / "lab.jsonl", blocker / "w.sqlite", clock)


def test_an_existing_workspace_is_only_replaced_when_asked(tmp_path, clock):
    target = tmp_path / "w.sqlite"
    run(SCHEMAS / "lab.jsonl", target, clock)
    with pytest.raises(ImportFailed, match="already exists"):
        run(SCHEMAS / "lab.jsonl", target, clock)
    report, _ = run(SCHEMAS / "learn.json", target, clock, replace=True)
    assert report.choice.schema.name == "learn"


def test_the_ttl_guess_is_corrected_when_later_items_carry_ttl(tmp_path, clock, monkeypatch):
    monkeypatch.setattr(importer, "SAMPLE_ITEMS", 2)
    source = tmp_path / "late.jsonl"
    items = [{"id": f"i{n}", "threadId": "t", "turnIndex": n, "messages": []} for n in range(5)]
    items[4]["ttl"] = 30
    items[4]["_ts"] = int(clock.now()) - 60  # already past its ttl once TTL is on
    source.write_text("".join(json.dumps(i) + "\n" for i in items))
    report, _ = run(source, tmp_path / "w.sqlite", clock, schema="thread")
    assert report.container.default_ttl == -1 and "later items carry ttl" in report.ttl_note
    assert report.expired == 1
    session = open_session(SessionOptions(workspace=tmp_path / "w.sqlite"), clock)
    try:
        assert session.store.workspace.container.default_ttl == -1  # type: ignore[attr-defined]
    finally:
        session.store.workspace.close()  # type: ignore[attr-defined]


def test_given_settings_win_over_guesses(tmp_path, clock):
    report, _ = run(
        SCHEMAS / "lab.jsonl",
        tmp_path / "w.sqlite",
        clock,
        partition_key=("/tenantId", "/threadId"),
        default_ttl=None,
        container="turns",
        database="agentmemory",
    )
    assert report.container.default_ttl is None and report.ttl_note == "given"
    assert not report.partition_key_guessed
    assert (report.container.database, report.container.container) == ("agentmemory", "turns")
    assert report.choice.reason.startswith(
        "matched: pk [/tenantId,/threadId], container turns, database agentmemory"
    )
    with pytest.raises(ImportFailed, match="reads partition key"):
        run(
            SCHEMAS / "lab.jsonl",
            tmp_path / "x.sqlite",
            clock,
            schema="lab",
            partition_key=("/threadId",),
        )
    assert GUESS is importer.GUESS


def test_forced_generic_schema_is_recorded_and_reopens_alike(tmp_path, clock):
    target = tmp_path / "w.sqlite"
    report, _ = run(SCHEMAS / "cosmos-chat.jsonl", target, clock, schema="generic")
    assert report.choice.schema.name == "generic"
    session = open_session(SessionOptions(workspace=target), clock)
    try:
        assert session.schema.partition_key == ("/ChatSessionId",)
        assert session.schema_reason == report.choice.reason
        assert session.schema.title == report.choice.schema.title
    finally:
        session.store.workspace.close()  # type: ignore[attr-defined]


async def test_an_imported_workspace_browses_like_a_container(tmp_path, clock):
    target = tmp_path / "w.sqlite"
    run(SCHEMAS / "amt", target, clock)
    session = open_session(SessionOptions(workspace=target), clock)
    try:
        threads = await session.browse.threads(Key.of("user-001"))
        assert [t.name for t in threads if t.pseudo is None] == ["thread-2", "thread-1"]
        assert [(t.name, t.pseudo) for t in threads if t.pseudo] == [
            ("__procedural__", "procedures"),
            ("__counters__", "user counter"),
            ("__user_summary__", "user summary"),
        ]  # after every conversation, by label
        turns = [t async for t in session.browse.iter_turns(ThreadRef.of("user-001", "thread-1"))]
        assert turns[0].kind == "episode_cursor"  # no created_at: undefined sorts first
        stamps = [t.order for t in turns[1:]]
        assert stamps == sorted(stamps)
        same_time = [t.item_id for t in turns if t.order == "2026-11-29T22:06:40.123456+00:00"]
        assert same_time == [  # equal created_at: the id breaks the tie
            "00000000-0000-4000-8000-000000000000",
            "00000000-1111-4111-8111-000000000000",
        ]
    finally:
        await session.close()


def test_argument_parsers():
    assert parse_default_ttl("off") is None and parse_default_ttl("-1") == -1
    assert parse_default_ttl("3600") == 3600
    for bad in ("0", "-5", "soon"):
        with pytest.raises(ImportFailed, match="--default-ttl"):
            parse_default_ttl(bad)
    assert parse_partition_key("/a, /b") == ("/a", "/b")
    for bad in ("a", "/a,/b,/c,/d", ","):
        with pytest.raises(ImportFailed, match="--partition-key"):
            parse_partition_key(bad)


def test_lone_surrogates_stay_in_content_and_are_refused_in_keys(tmp_path, clock):
    """JSON may escape a lone surrogate; UTF-8 (and so SQLite) cannot hold one."""
    source = tmp_path / "s.jsonl"
    content = {"id": "a", "threadId": "t", "turnIndex": 1, "note": "lone \ud800 here"}
    in_key = {"id": "b", "threadId": "t\ud800", "turnIndex": 1}
    source.write_text(
        "\n".join(
            [
                json.dumps(content),
                json.dumps(in_key),
                json.dumps({**content, "id": "c"})[:-1] + ', "_ts": "not a number"}',
            ]
        )
        + "\n"
    )
    report, problems = run(source, tmp_path / "w.sqlite", clock, schema="thread")
    assert report.imported == 2 and report.rejected == 1
    assert problems == [
        f"{source}:2: item 'b' has a lone surrogate ('\\ud800') in its id or keys,"
        " which cannot be stored"
    ]
    with sqlite3.connect(tmp_path / "w.sqlite") as db:
        bodies = [json.loads(body) for (body,) in db.execute("SELECT body FROM items")]
    assert sorted(b["note"] for b in bodies) == ["lone \ud800 here"] * 2  # kept exactly


def test_numbers_no_column_holds_reject_their_item_and_the_rest_is_imported(
    tmp_path, clock, capsys, frozen_system_time
):
    """Before, one of these made the batch's insert raise (OverflowError, or a NaN order
    stored as NULL taken for a duplicate) and the whole import stopped with a traceback."""

    def line(item_id: str, turn_index: object, ts: object = None, ttl: object = 60) -> str:
        """One JSON Lines item with its numbers written as given (NaN, 1e400 included)."""
        stamp = f', "_ts": {ts}' if ts is not None else ""
        return (
            f'{{"id": "{item_id}", "tenantId": "t", "threadId": "th", "messages": [], '
            f'"ttl": {ttl}, "turnIndex": {turn_index}{stamp}}}'
        )

    lines = [
        line("ts65", 1, ts=2**65),
        line("tsmax", 2, ts=2**63 - 1),
        line("order63", 2**63),
        line("order-huge", 2**70),
        line("ttl-nan", 5, ttl="NaN"),
        line("order-nan", "NaN"),
        line("order-inf", "1e400"),
        line("digits", "7" * 5000),
        line("ok", 9, ts=int(clock.now())),
        line("ok-big", 2**63 - 1, ts=2**62),
    ]
    source = tmp_path / "numbers.jsonl"
    source.write_text("\n".join(lines) + "\n")
    report, problems = run(source, tmp_path / "w.sqlite", clock, schema="lab")
    assert (report.imported, report.rejected) == (2, 8)
    assert [p.split(": ", 1)[0] for p in problems] == [f"{source}:{n}" for n in range(1, 9)]
    assert "_ts 36893488147419103232 is out of range" in problems[0]
    assert "_ts 9223372036854775807 is out of range" in problems[1]
    assert "turnIndex 9223372036854775808 is past the 64-bit integers" in problems[2]
    assert "turnIndex 1180591620717411303424 is past" in problems[3]
    assert "NaN at /ttl is not a JSON number" in problems[4]
    assert "NaN at /turnIndex" in problems[5]
    assert "the number at /turnIndex is past what Cosmos DB stores" in problems[6]
    assert "a 5,000-digit number at /turnIndex" in problems[7]
    code, out, err = run_cli(capsys, "ttl", "--workspace", str(tmp_path / "w.sqlite"), "--json")
    assert (code, err.count("\n")) == (0, 1) and "damaged" not in err  # the fan-out line
    assert [r["count"] for r in json.loads(out) if r["class"] == "all"] == [2]


def test_later_items_with_a_ttl_recompute_every_expiry_without_overflow(
    tmp_path, clock, monkeypatch
):
    """The latest _ts a workspace takes leaves room for _ts + ttl when the default ttl
    guess is corrected (TTL turned on after the first items)."""
    monkeypatch.setattr(importer, "SAMPLE_ITEMS", 1)
    latest = 2**63 - 1 - 2_147_483_647
    items = [
        {"id": "a", "threadId": "t", "turnIndex": 0, "messages": [], "_ts": latest},
        {"id": "b", "threadId": "t", "turnIndex": 1, "messages": [], "ttl": 2_147_483_647},
        {"id": "c", "threadId": "t", "turnIndex": 2, "messages": [], "_ts": latest + 1},
    ]
    source = tmp_path / "late.jsonl"
    source.write_text("".join(json.dumps(i) + "\n" for i in items))
    report, problems = run(source, tmp_path / "w.sqlite", clock, schema="thread")
    assert (report.imported, report.rejected) == (2, 1) and "_ts" in problems[0]
    assert report.container.default_ttl == -1
