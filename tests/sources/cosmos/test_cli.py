"""``cosmem --endpoint …``: the headless commands against a peer-hosted container.

The same items seeded into the peer and into a workspace give the same JSON (times
aside); every failure a user can cause is exit status 1 and one line on stderr.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cosmem_tui.cli import main
from cosmem_tui.schemas import get_schema
from tests.helpers import build_workspace, closed_port
from tests.peer.containers import lab_dataset
from tests.peer.fault_proxy import Fault
from tests.peer.fixtures import Peer
from tests.peer.seeding import create_container, seed, seeding_client, unique_name

TIMES = {"last_activity", "expires_at", "expires_in"}


@pytest.fixture
def peer_container(cosmos_peer: Peer, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A lab container on the peer; yields the --endpoint/--database/--container options."""
    database = unique_name("cli")

    async def setup() -> None:
        client = seeding_client(cosmos_peer.endpoint, cosmos_peer.key)
        async with client:
            _, container = await create_container(
                client, database, "agent-memory", paths=("/tenantId", "/threadId"), default_ttl=-1
            )
            await seed(container, lab_dataset())

    async def teardown() -> None:
        async with seeding_client(cosmos_peer.endpoint, cosmos_peer.key) as client:
            await client.delete_database(database)

    asyncio.run(setup())
    monkeypatch.setenv("COSMOS_KEY", cosmos_peer.key)
    try:
        yield ["--endpoint", cosmos_peer.endpoint, "--database", database,
               "--container", "agent-memory"]  # fmt: skip
    finally:
        asyncio.run(teardown())


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def without_times(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMES} for r in records]


def test_headless_commands_match_the_workspace(capsys, peer_container, tmp_path: Path):
    workspace = build_workspace(
        tmp_path / "w.sqlite", lab_dataset(), now=int(time.time()), schema=get_schema("lab")
    )
    local = ["--workspace", str(workspace)]
    for command in (["tenants"], ["threads", "acme"], ["turns", "acme", "t1"],
                    ["turns", "globex", "g1", "--last", "1"]):  # fmt: skip
        code, out, err = run(capsys, *command, *peer_container, "--schema", "lab", "--json")
        assert code == 0, err
        _, expected, _ = run(capsys, *command, *local, "--schema", "lab", "--json")
        assert without_times(json.loads(out)) == without_times(json.loads(expected)), command
    code, out, err = run(capsys, "tenants", *peer_container, "--schema", "lab")
    assert code == 0 and out.splitlines()[1].startswith("acme")
    assert "cosmem: note: this service rejects SELECT DISTINCT" in err  # the fallback is shown


def test_without_schema_the_container_is_detected(capsys, peer_container):
    code, out, err = run(capsys, "threads", "globex", *peer_container, "--json")
    assert code == 0, err
    assert sorted(t["thread"] for t in json.loads(out)) == ["g0", "g1", "g2"]


def test_the_ledger_file_holds_the_detection_and_every_http_response(
    capsys, peer_container, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from cosmem_tui import compose  # the CLI imports open_session when a session opens

    opened = []
    real = compose.open_session

    async def recording(*args, **kwargs):
        opened.append(await real(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(compose, "open_session", recording)
    ledger = tmp_path / "ledger.jsonl"
    code, _, err = run(capsys, "threads", "globex", *peer_container, "--ledger", str(ledger))
    assert code == 0, err
    lines = [json.loads(line) for line in ledger.read_text(encoding="ascii").splitlines()]
    (session,) = opened
    assert len(lines) == len(session.ledger.records()) == session.ledger.totals().requests
    # Detection ran while the session opened, before the file was attached: it is there.
    detection = [line for line in lines if line["cause"] == "open: detect the schema"]
    assert detection and lines[: len(detection)] == detection
    assert {line["cause"] for line in lines[len(detection) :]} == {"cosmem threads"}
    assert {line["kind"] for line in lines} >= {"metadata", "query"}
    assert all(line["simulated"] is False and line["activity_id"] for line in lines)
    assert all(line["status"] > 0 and line["request_units"] > 0 for line in lines)
    # Refused answers are requests too: the peer's 400 to GROUP BY, before the fallback.
    assert "400" in {line["outcome"] for line in lines if line["operation"] == "list-threads"}


def one_error_line(err: str) -> str:
    assert err.startswith("cosmem: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_failures_are_one_line_and_exit_status_1(capsys, peer_container, fault_proxy, monkeypatch):
    options = dict(zip(peer_container[::2], peer_container[1::2], strict=True))
    port = closed_port()

    nowhere = ["--endpoint", f"https://127.0.0.1:{port}", "--database", "d", "--container", "c"]
    code, out, err = run(capsys, "tenants", "--schema", "lab", *nowhere)
    assert (code, out) == (1, "") and "cannot reach https://127.0.0.1:" in one_error_line(err)

    code, _, err = run(capsys, "tenants", "--schema", "lab", *peer_container[:4],
                       "--container", "missing")  # fmt: skip
    assert code == 1 and "container 'missing' not found in database" in one_error_line(err)

    code, _, err = run(capsys, "threads", "--schema", "thread", *peer_container)
    assert code == 1 and "is partitioned by [/tenantId,/threadId]" in one_error_line(err)

    proxied = ["--endpoint", fault_proxy.endpoint, "--database", options["--database"],
               "--container", options["--container"], "--schema", "lab"]  # fmt: skip
    fault_proxy.add(Fault(status=401))
    code, _, err = run(capsys, "tenants", *proxied)
    assert code == 1 and one_error_line(err).startswith("cosmem: 401 unauthorized")

    fault_proxy.clear()
    fault_proxy.add(Fault(status=429, retry_after_ms=50, queries_only=True))
    started = time.monotonic()
    code, _, err = run(capsys, "threads", "acme", *proxied, "--timeout", "1")
    assert time.monotonic() - started < 5  # the deadline, whatever the SDK would do
    line = one_error_line(err)
    assert code == 1 and "within 1 s (the account kept answering 429/3200 RU budget" in line

    fault_proxy.clear()
    fault_proxy.add(Fault(status=503, queries_only=True))
    code, _, err = run(capsys, "turns", "acme", "t1", *proxied)
    assert code == 1 and "503 service unavailable" in one_error_line(err)

    monkeypatch.delenv("COSMOS_KEY")
    code, _, err = run(capsys, "tenants", "--auth", "key", *peer_container)
    assert code == 1 and "COSMOS_KEY" in one_error_line(err)

    code, _, err = run(capsys, "tenants", "--workspace", "x.sqlite", *peer_container)
    assert code == 1 and "cannot be combined with --endpoint" in one_error_line(err)


def test_a_listing_stopped_by_the_budget_says_so_and_exits_3(capsys, peer_container):
    code, out, err = run(capsys, "tenants", "--schema", "lab", "--ru-budget", "6",
                         *peer_container, "--json")  # fmt: skip
    assert code == 3  # short output: never mistaken for the whole list
    assert len(json.loads(out)) < 3
    incomplete = [line for line in err.splitlines() if "INCOMPLETE" in line]
    assert len(incomplete) == 1 and "--ru-budget" in incomplete[0]
    budget = float(incomplete[0].split("--ru-budget ")[1].split()[0].replace(",", ""))
    code, out, err = run(capsys, "tenants", "--schema", "lab", "--ru-budget", f"{budget + 30}",
                         *peer_container, "--json")  # fmt: skip
    assert code == 0 and [t["tenant"] for t in json.loads(out)] == ["acme", "globex", "initech"]


def test_counts_past_the_budget_are_null_with_one_line_saying_how_to_get_them(
    capsys, peer_container
):
    code, out, err = run(capsys, "tenants", "--schema", "lab", "--ru-budget", "16",
                         *peer_container, "--json")  # fmt: skip
    tenants = json.loads(out)
    assert code == 0 and len(tenants) == 3
    missing = [t for t in tenants if t["items"] is None]
    assert missing and all(t["threads"] is None for t in missing)
    lines = [line for line in err.splitlines() if "would pass the RU budget" in line]
    assert len(lines) == 1 and f"counts of {len(missing)} tenants" in lines[0]
    assert "--ru-budget" in lines[0]


@pytest.mark.parametrize("budget", ["-5", "0", "nan", "lots"])
def test_a_budget_must_be_a_positive_number(capsys, budget):
    with pytest.raises(SystemExit) as caught:
        main(["tenants", "--ru-budget", budget])
    assert caught.value.code == 2
    assert "--ru-budget" in capsys.readouterr().err


def test_advise_on_the_peer_and_a_sample_past_the_budget_exits_3(capsys, peer_container):
    code, out, err = run(capsys, "advise", *peer_container, "--schema", "lab", "--json")
    assert code == 0 and "cosmem: advisor:" in err
    assert {"index-exclude-unused", "index-composite"} <= {f["rule"] for f in json.loads(out)}
    code, out, err = run(
        capsys, "advise", *peer_container, "--schema", "lab", "--ru-budget", "1", "--json"
    )
    assert code == 3 and "no item sample" in err and "RU budget" in err


def test_a_pin_on_the_peer_is_audited_as_the_account_key(
    capsys, peer_container, isolated_user_dirs
):
    args = ("pin", "acme", "t1", "t1-2", *peer_container, "--schema", "lab")
    code, out, _ = run(capsys, *args, "--allow-writes", "--yes")
    assert code == 0 and "now has ttl -1" in out
    path = isolated_user_dirs / "data" / "cosmem" / "audit.jsonl"
    intent, line = [json.loads(x) for x in path.read_text().splitlines()]
    assert intent["event"] == "intent" and intent["id"] == line["id"]
    assert line["who"] == "account key" and line["after_ttl"] == -1 and line["status"] == 200
    code, out, _ = run(capsys, "turns", "acme", "t1", *peer_container, "--schema", "lab", "--json")
    assert next(t for t in json.loads(out) if t["id"] == "t1-2")["ttl"] == -1
