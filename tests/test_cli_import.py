"""`cosmem import FILE`, then every headless command on the workspace it made."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures import SCHEMAS
from tests.helpers import run_cli as run

pytestmark = pytest.mark.usefixtures("frozen_system_time")


def test_import_amt_then_browse_users_threads_and_turns(capsys, tmp_path):
    ws = str(tmp_path / "amt.sqlite")
    code, out, err = run(capsys, "import", str(SCHEMAS / "amt"), "--workspace", ws)
    assert (code, err) == (0, "")
    assert out.startswith(f"imported 18 items from 4 file(s) into {ws}")
    assert "schema amt (matched: " in out and "pk [/user_id,/thread_id] (from the schema)" in out
    code, out, _ = run(capsys, "tenants", "--workspace", ws, "--json")
    assert code == 0 and [t["tenant"] for t in json.loads(out)] == ["user-001", "user-002"]
    code, out, _ = run(capsys, "tenants", "--workspace", ws)  # the table says what it lists
    assert out.split()[0] == "USER"
    code, out, _ = run(capsys, "threads", "user-001", "--workspace", ws, "--json")
    threads = json.loads(out)
    assert [t["pseudo"] for t in threads] == [
        None,
        None,
        "procedures",
        "user counter",
        "user summary",
    ]
    code, out, _ = run(capsys, "turns", "user-001", "thread-1", "--workspace", ws, "--json")
    turns = json.loads(out)
    kinds = [t["kind"] for t in turns]
    assert kinds[0] == "episode_cursor" and {"turn", "fact", "episodic", "counter"} <= set(kinds)
    first_turn = next(t for t in turns if t["kind"] == "turn")
    assert first_turn["ttl"] == 2592000 and first_turn["ttl_state"] == "expires"
    code, out, _ = run(capsys, "threads", "nobody", "--workspace", ws)
    assert code == 1


def test_import_langchain_expands_sessions_into_turns(capsys, tmp_path):
    ws = str(tmp_path / "lc.sqlite")
    assert run(capsys, "import", str(SCHEMAS / "langchain.jsonl"), "--workspace", ws)[0] == 0
    code, out, _ = run(capsys, "threads", "u-100", "--workspace", ws, "--json")
    assert {t["thread"]: t["turns"] for t in json.loads(out)} == {"session-1": 5, "session-2": 1}
    code, out, _ = run(capsys, "turns", "u-100", "session-1", "--workspace", ws, "--json")
    turns = json.loads(out)
    assert [t["part"] for t in turns] == [0, 1, 2, 3, 4]
    assert [t["roles"] for t in turns][:3] == [["system"], ["user"], ["assistant"]]
    code, out, _ = run(
        capsys, "turns", "u-100", "session-1", "--last", "2", "--workspace", ws, "--json"
    )
    assert code == 0
    assert [t["part"] for t in json.loads(out)] == [3, 4]


def test_import_maf_dotnet_hpk_names_threads_by_user_and_session(capsys, tmp_path):
    ws = str(tmp_path / "net.sqlite")
    assert run(capsys, "import", str(SCHEMAS / "maf-dotnet-hpk.jsonl"), "--workspace", ws)[0] == 0
    code, out, _ = run(capsys, "threads", "contoso", "--workspace", ws, "--json")
    names = [t["thread"] for t in json.loads(out)]
    assert sorted(names) == [["alice", "sess-1"], ["bob", "sess-2"]]  # typed: the key's values
    code, out, _ = run(capsys, "turns", "contoso", '["alice","sess-1"]', "--workspace", ws, "--csv")
    assert code == 0 and "Reset my password." in out


def test_rejected_items_print_file_and_line_and_exit_1(capsys, tmp_path):
    source = tmp_path / "export.jsonl"
    shutil.copy(SCHEMAS / "maf-history.jsonl", source)
    with source.open("a") as f:
        f.write('{"session_id": "s"}\nnot json\n')
    code, out, err = run(capsys, "import", str(source), "--workspace", str(tmp_path / "w.sqlite"))
    assert code == 1 and "imported 7 items" in out
    lines = err.splitlines()
    assert lines[0] == f"{source}:8: item has no string 'id'"
    assert lines[1].startswith(f"{source}:9: not valid JSON")
    assert lines[2] == "cosmem: 2 item(s) rejected (listed above)"
    code, out, _ = run(capsys, "threads", "--workspace", str(tmp_path / "w.sqlite"), "--json")
    assert code == 0 and len(json.loads(out)) == 2


def test_default_workspace_is_named_after_the_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "import", str(SCHEMAS / "learn.json"))
    assert code == 0 and (tmp_path / "learn.sqlite").exists()
    assert f"into {tmp_path / 'learn.sqlite'}" in out
    code, _, err = run(capsys, "import", str(SCHEMAS / "learn.json"))
    assert code == 1 and err.startswith("cosmem: ") and "--replace" in err
    code, _, err = run(capsys, "-v", "threads", "--workspace", "learn.sqlite")
    assert code == 0 and err.startswith("cosmem: schema learn (matched: fields 4/4")


@pytest.mark.parametrize(
    ("args", "complaint"),
    [
        (["/nonexistent/export.json"], "no such file"),
        ([str(SCHEMAS / "lab.jsonl"), "--default-ttl", "0"], "--default-ttl"),
        ([str(SCHEMAS / "lab.jsonl"), "--partition-key", "tenantId"], "--partition-key"),
        ([str(SCHEMAS / "lab.jsonl"), "--schema", "nope"], "unknown schema"),
        (
            [str(SCHEMAS / "lab.jsonl"), "--schema", "lab", "--partition-key", "/threadId"],
            "reads partition key",
        ),
    ],
)
def test_import_errors_are_one_line(capsys, tmp_path, args, complaint):
    code, out, err = run(capsys, "import", *args, "--workspace", str(tmp_path / "w.sqlite"))
    assert code == 1 and out == "" and err.count("\n") == 1 and complaint in err
    assert "Traceback" not in err and not (tmp_path / "w.sqlite").exists()


def test_nothing_importable_leaves_no_workspace(capsys, tmp_path):
    ws = tmp_path / "w.sqlite"
    code, out, err = run(
        capsys,
        "import",
        str(SCHEMAS / "cosmos-chat.jsonl"),
        "--schema",
        "amt",
        "--workspace",
        str(ws),
    )
    lines = err.splitlines()
    assert code == 1 and out == "" and not ws.exists() and list(tmp_path.iterdir()) == []
    assert len(lines) == 5 and all("no partition key value at /user_id" in x for x in lines[:4])
    assert lines[4] == "cosmem: nothing imported (4 rejected)"


def test_flags_set_the_container(capsys, tmp_path):
    ws = str(tmp_path / "w.sqlite")
    code, out, _ = run(
        capsys,
        "import",
        str(SCHEMAS / "lab.jsonl"),
        "--workspace",
        ws,
        "--default-ttl",
        "off",
        "--partition-key",
        "/tenantId,/threadId",
        "--container",
        "turns",
        "--database",
        "agentmemory",
    )
    assert code == 0 and "container agentmemory/turns" in out and "default ttl off" in out
    code, out, _ = run(capsys, "turns", "contoso", "thread-1234", "--workspace", ws, "--json")
    assert {t["ttl_state"] for t in json.loads(out)} == {"off"}


def test_the_real_entry_point_imports(tmp_path):
    ws = tmp_path / "w.sqlite"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cosmem_tui",
            "import",
            str(SCHEMAS / "maf-dotnet.jsonl"),
            "--workspace",
            str(ws),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "schema maf-dotnet (matched: " in done.stdout and Path(ws).exists()


def test_a_schema_file_in_the_config_dir_is_detected(capsys, tmp_path, isolated_user_dirs):
    """The documented user-schema example, dropped in the config dir, reads its system."""
    docs = (Path(__file__).resolve().parents[1] / "docs" / "schemas.md").read_text()
    example = re.findall(r"```toml\n(.*?)```", docs, re.S)[0]
    folder = isolated_user_dirs / "config" / "cosmem" / "schemas"
    folder.mkdir(parents=True)
    (folder / "cosmos-chat.toml").write_text(example)
    ws = str(tmp_path / "chat.sqlite")
    code, out, _ = run(capsys, "import", str(SCHEMAS / "cosmos-chat.jsonl"), "--workspace", ws)
    assert code == 0 and "schema cosmos-chat (matched: " in out
    code, out, _ = run(capsys, "turns", "s-1", "--workspace", ws, "--json")
    turns = json.loads(out)
    assert [t["kind"] for t in turns] == ["session", "turn", "turn"]
    assert turns[1]["messages"] == [{"role": "user", "text": "Any hikes nearby?"}]
    assert not any(t["problems"] for t in turns)


def test_items_whose_messages_is_a_number_import_as_one_message_each(capsys, tmp_path):
    source = tmp_path / "odd.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": f"m{n}", "pk": "p", "messages": n, "content": f"hi {n}"}) + "\n"
            for n in range(3)
        )
    )
    ws = str(tmp_path / "odd.sqlite")
    code, out, err = run(capsys, "import", str(source), "--workspace", ws, "--partition-key", "/pk")
    assert (code, err) == (0, "")
    assert "messages is a number, not an array, in 3 of 3 sampled items" in out
    code, out, err = run(capsys, "turns", "p", "--workspace", ws, "--json")
    assert (code, err) == (0, "")
    assert [t["text"] for t in json.loads(out)] == ["item: hi 0", "item: hi 1", "item: hi 2"]


def many_items(path: Path, count: int = 3000) -> Path:
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"i{n}",
                    "tenantId": "t",
                    "threadId": "th",
                    "turnIndex": n,
                    "messages": [{"role": "user", "content": "x" * 200}],
                }
            )
            + "\n"
            for n in range(count)
        )
    )
    return path


FILE_SIZE_LIMIT = """
import resource, signal, sys
from cosmem_tui.cli import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write then fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
sys.exit(main(sys.argv[1:]))
"""


def test_an_import_past_the_file_size_limit_is_one_line_and_leaves_nothing(tmp_path):
    """The kernel refuses the write (``ulimit -f``): SQLite says "disk I/O error"."""
    source = many_items(tmp_path / "many.jsonl")
    out = tmp_path / "out"
    out.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            FILE_SIZE_LIMIT,
            "import",
            str(source),
            "--workspace",
            str(out / "w"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("cosmem: the disk refused a write (disk I/O error")
    assert f"nothing was written to {out / 'w'}" in done.stderr
    assert list(out.iterdir()) == []  # the temporary file is gone too


KILLED_MID_IMPORT = """
import os, signal, sys
from cosmem_tui.cli import main
from cosmem_tui.core import importer
from cosmem_tui.sources.local import WorkspaceBuilder
importer.BATCH = 500
insert = WorkspaceBuilder.insert_new_rows
calls = []
def insert_then_die(self, rows):
    calls.append(len(rows))
    if len(calls) == 3:  # two batches written, the load in full swing: no cleanup can run
        os.kill(os.getpid(), signal.SIGKILL)
    return insert(self, rows)
WorkspaceBuilder.insert_new_rows = insert_then_die
sys.exit(main(sys.argv[1:]))
"""


def test_an_import_killed_mid_load_leaves_no_workspace(tmp_path):
    """SIGKILL (a crash, the OOM killer) in the middle of the bulk load, which runs with no
    journal and no syncing: the destination never exists, and the next import works."""
    source = many_items(tmp_path / "many.jsonl")
    out = tmp_path / "out"
    out.mkdir()
    command = ["import", str(source), "--workspace", str(out / "w.sqlite")]
    done = subprocess.run(
        [sys.executable, "-c", KILLED_MID_IMPORT, *command],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL
    assert not (out / "w.sqlite").exists()
    assert [p.name.endswith(".tmp") for p in out.iterdir()] == [True]  # nothing could clean up
    again = subprocess.run(
        [sys.executable, "-m", "cosmem_tui", *command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert "imported 3,000 items" in again.stdout


def test_an_import_onto_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    """A real full file system: a 256 KB tmpfs when this runs as root (mount needs it),
    else the file size limit above (both are the kernel refusing the write)."""
    source = many_items(tmp_path / "many.jsonl")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    try:
        command = (
            [sys.executable, "-m", "cosmem_tui"]
            if mounted
            else [sys.executable, "-c", FILE_SIZE_LIMIT]
        )
        done = subprocess.run(
            [*command, "import", str(source), "--workspace", str(disk / "w.sqlite")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        left = list(disk.iterdir())
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], check=True)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    full = "cosmem: the disk is full: nothing was written to"
    limit = "cosmem: the disk refused a write"
    assert done.stderr.startswith(full if mounted else limit), done.stderr
    assert left == []
