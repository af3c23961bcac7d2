"""Opening a workspace never writes it: another schema's keys live in the session only."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.compose import open_local_session as open_session
from cosmem_tui.core.schema_choice import run_sync
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore, Workspace
from tests.conftest import ANCHOR
from tests.helpers import all_keys, container, exchange, run_cli

KEY_COLUMNS = (
    "SELECT pk, id, tenant_key, thread_key, order_rank, order_value,"
    " typeof(order_value), expires_at FROM items ORDER BY pk, id"
)


def items() -> list[dict[str, Any]]:
    """Two tenants with a thread of the same name, so lab and thread key them apart."""
    return [
        *(exchange("acme", "t1", i, ttl=3600 if i == 0 else None) for i in range(3)),
        *(exchange("zeta", "t1", i) for i in range(2)),
        exchange("zeta", "t2", 0),
    ]


def fingerprint(path: Path) -> tuple[str, int, list[str]]:
    """The file's bytes, its mtime and what sits beside it (-wal, -shm, -journal files)."""
    return (
        hashlib.sha256(path.read_bytes()).hexdigest(),
        path.stat().st_mtime_ns,
        sorted(p.name for p in path.parent.iterdir()),
    )


def built_for(path: Path, schema_name: str, bodies: list[dict[str, Any]] | None = None) -> Path:
    """A lab-shaped container (key /tenantId,/threadId) built and recorded for a schema."""
    schema = get_schema(schema_name)
    with Workspace.building(path, container(("/tenantId", "/threadId")), schema) as ws:
        ws.upsert_items(items() if bodies is None else bodies, schema, ANCHOR)
        ws.set_meta("schema", schema.name)
    return path


def built_for_thread(path: Path) -> Path:
    """Derived columns (and the recorded schema) are thread's: no tenant level."""
    return built_for(path, "thread")


async def browse(store: LocalStore) -> dict[str, Any]:
    tenants = await all_keys(store)
    threads = {t.text: [th.ref.thread.text for th in await store.list_threads(t)] for t in tenants}
    page = await store.page_turns(ThreadRef.of("acme", "t1"), page_size=2)
    rest = await store.page_turns(ThreadRef.of("acme", "t1"), continuation=page.continuation)
    newest = await store.page_turns(ThreadRef.of("acme", "t1"), newest_first=True, page_size=1)
    item = await store.read_item(ThreadRef.of("zeta", "t2"), "t2-0")
    return {
        "tenants": [t.text for t in tenants],
        "threads": threads,
        "turns": [i.id for i in (*page.items, *rest.items)],
        "newest": [i.id for i in newest.items],
        "item": (item.id, item.body["tenantId"]),
    }


EXPECTED = {
    "tenants": ["acme", "zeta"],
    "threads": {"acme": ["t1"], "zeta": ["t1", "t2"]},
    "turns": ["t1-0", "t1-1", "t1-2"],
    "newest": ["t1-2"],
    "item": ("t2-0", "zeta"),
}


def test_opening_with_another_schema_leaves_the_file_as_it_was(tmp_path, clock):
    path = built_for_thread(tmp_path / "w.sqlite")
    before = fingerprint(path)
    session = open_session(SessionOptions(workspace=path, schema="lab"), clock)
    try:
        assert isinstance(session.store, LocalStore)
        assert run_sync(browse(session.store)) == EXPECTED
    finally:
        run_sync(session.close())
    assert fingerprint(path) == before
    reopened = open_session(SessionOptions(workspace=path), clock)
    try:
        assert reopened.schema.name == "thread"  # the other schema applied to that session only
        assert [k.text for k in run_sync(all_keys(reopened.store))] == ["t1", "t2"]
    finally:
        run_sync(reopened.close())
    assert fingerprint(path) == before


@pytest.mark.parametrize("journal", ["as built", "wal"])
async def test_a_read_only_file_in_a_read_only_folder_opens_and_browses(tmp_path, clock, journal):
    """Root ignores the modes (CI does not run as root); no file appears beside it either way."""
    folder = tmp_path / "ro"
    folder.mkdir()
    path = built_for_thread(folder / "w.sqlite")
    if journal == "wal":  # as earlier versions built them
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA journal_mode = WAL").fetchone() == ("wal",)
        db.close()
    before = fingerprint(path)
    path.chmod(0o444)
    folder.chmod(0o555)
    try:
        store = LocalStore.open(path, get_schema("lab"), clock=clock)
        try:
            assert await browse(store) == EXPECTED
        finally:
            await store.close()
        assert fingerprint(path) == before
    finally:
        folder.chmod(0o755)
        path.chmod(0o644)


def test_the_open_handle_cannot_write(tmp_path):
    path = built_for_thread(tmp_path / "w.sqlite")
    workspace = Workspace.open(path)
    try:
        assert workspace.derive_for(get_schema("lab"))
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            workspace._db.execute("INSERT INTO main.meta VALUES ('x', 'y')")
        for writer in ("set_meta", "upsert_items", "insert_rows", "change_default_ttl"):
            assert not hasattr(workspace, writer)
        assert workspace.meta("derived_for") == '["keys/2", null, "/threadId", "/turnIndex"]'
    finally:
        workspace.close()


def test_session_keys_are_the_keys_a_build_would_store(tmp_path):
    """Order values of every Cosmos type survive the SQL functions with their types."""
    odd = [
        exchange("acme", "t9", index)
        for index in (None, 2.5, 3, True, "b", [1], {"a": 1}, -1e300, "é")
    ]
    odd.append(exchange("acme", "t9", "null", turnIndex=None))
    for n, item in enumerate(odd):
        item["id"] = f"t9-{n}"
    expected = Workspace.open(built_for(tmp_path / "lab.sqlite", "lab", [*items(), *odd]))
    session = Workspace.open(built_for(tmp_path / "thread.sqlite", "thread", [*items(), *odd]))
    try:
        assert not expected.derive_for(get_schema("lab"))  # built for it: nothing to do
        assert session.derive_for(get_schema("lab"))
        want = expected._db.execute(KEY_COLUMNS).fetchall()
        assert session._db.execute(KEY_COLUMNS).fetchall() == want
        assert {row[6] for row in want} == {"integer", "real", "text"}
    finally:
        expected.close()
        session.close()


def test_workspaces_are_built_with_a_rollback_journal(tmp_path, demo_path):
    """WAL would make every read-only open create -wal and -shm files beside the workspace."""
    for path in (built_for_thread(tmp_path / "w.sqlite"), demo_path):
        with path.open("rb") as file:
            assert file.read(20)[18:20] == b"\x01\x01"  # write and read version 1: rollback


INTERRUPTED_WRITE = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size = 1")  # dirty pages spill into the file before the commit
db.execute("BEGIN IMMEDIATE")
for n in range(50):
    db.execute("INSERT INTO meta VALUES (?, ?)", (f"half-{n}", "x" * 3000))
os._exit(0)  # killed mid-transaction: the -journal is hot
"""


def test_a_hot_journal_says_a_write_was_interrupted_and_how_to_roll_it_back(
    tmp_path, capsys, monkeypatch
):
    """Before: "not a cosmem workspace (attempt to write a readonly database)"."""
    path = tmp_path / "w.sqlite"
    with Workspace.building(path, container(), get_schema("lab")) as ws:
        ws.upsert_items(items(), get_schema("lab"), ANCHOR)
        ws.set_meta("schema", "lab")
    subprocess.run([sys.executable, "-c", INTERRUPTED_WRITE, str(path)], check=True)
    assert (tmp_path / "w.sqlite-journal").stat().st_size > 0
    code, out, err = run_cli(capsys, "tenants", "--workspace", str(path), "--no-counts")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"{path}: an interrupted write left w.sqlite-journal beside it" in err
    assert "never delete the journal by hand" in err
    command = err.split("Roll it back with: ", 1)[1].split(" — ", 1)[0]
    subprocess.run(command, shell=True, check=True)  # the command as printed
    assert not (tmp_path / "w.sqlite-journal").exists()
    code, out, err = run_cli(capsys, "tenants", "--workspace", str(path), "--no-counts")
    assert (code, err) == (0, "") and [line.split()[0] for line in out.splitlines()[1:]] == [
        "acme",
        "zeta",
    ]
    workspace = Workspace.open(path)
    try:  # the cut-off write is undone, the rest kept
        assert workspace.meta("half-0") is None and workspace.item_count() == 6
    finally:
        workspace.close()
