"""A server that stops answering, on the fake gateway at a real account's shape.

3,000 tenants over four ranges, counts allowed by the budget, and a gateway that
answers its first 20 requests and none after. Each count used to wait out its own
deadline, one after another (still running after 300 s). Now the first request with no
answer within its deadline makes the session silent: background work is refused
without a request, the command says so once and exits with what it has.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.core.exit_status import EXIT_PARTIAL
from cosmem_tui.model import FrozenClock, Key
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.sources.cosmos.store import CosmosStore
from cosmem_tui.sources.errors import ServerSilent
from tests.conftest import ANCHOR
from tests.fake_cosmos import Fault
from tests.helpers import exchange, run_cli

TENANTS = 3000


def stop_answering_after(fake_cosmos, answered: int) -> Fault:
    """Every request after the first ``answered`` hangs (until the gateway stops)."""
    seen = [0]

    def after(_facts) -> bool:
        seen[0] += 1
        return seen[0] > answered

    return fake_cosmos.faults.add(Fault(status=None, hang=True, predicate=after))


@pytest.fixture
def account(fake_cosmos, monkeypatch):
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange(f"tenant-{n:05d}", "t0", 0) for n in range(TENANTS)])
    monkeypatch.setenv("COSMOS_KEY", fake_cosmos.key)
    return fake_cosmos


def test_tenants_against_a_server_that_stops_answering_exits_after_one_deadline(
    account, capsys, tmp_path: Path
):
    fault = stop_answering_after(account, 20)
    path = tmp_path / "ledger.jsonl"
    code, out, err = run_cli(
        capsys, "tenants", "--json", "--endpoint", account.endpoint, "--database", "db",
        "--container", "memory", "--schema", "lab", "--ru-budget", "100000", "--timeout", "1",
        "--ledger", str(path),
    )  # fmt: skip
    lines = [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]
    unanswered = [i for i, line in enumerate(lines) if line["outcome"] == "no answer"]
    # One request waited out its deadline; nothing was sent after it (not 3,000 more).
    assert len(unanswered) == 1 and unanswered[0] == len(lines) - 1
    assert fault.hits == 1
    rows = json.loads(out)
    assert len(rows) == TENANTS  # every name was listed before the silence …
    assert sum(r["items"] is not None for r in rows) >= 1  # … a few counted …
    assert rows[-1]["items"] is None  # … the rest null, and it says so once
    (said,) = [line for line in err.splitlines() if "stopped answering" in line]
    host = account.endpoint.split("//")[1].rstrip("/")
    assert said.startswith(f"cosmem: {host} stopped answering (no answer to count-tenant")
    assert said.endswith(
        f" within 1 s): counts of {sum(r['items'] is None for r in rows):,} tenants were not "
        "fetched (null); run it again once it answers"
    )
    assert "failed" not in err  # not one line per tenant
    assert code == EXIT_PARTIAL


async def test_background_work_stops_and_a_foreground_call_still_tries(account, fake_cosmos):
    store = CosmosStore.open(
        CosmosSettings(
            endpoint=fake_cosmos.endpoint,
            database="db",
            container="memory",
            auth=AuthMode.KEY,
            key=fake_cosmos.key,
            timeout_s=1.0,
        ),
        get_schema("lab"),
    )
    try:
        directory = KeyDirectory(store, FrozenClock(ANCHOR))
        keys = (await directory.list()).keys[:50]
        fault = stop_answering_after(fake_cosmos, 0)
        states = await directory.count_all(keys)
        assert fault.hits == 1  # the first count met the silence; 49 were never sent
        assert all(s.silent and s.counts is None for s in states.values())
        ledger = store.ledger
        assert ledger.silent
        with pytest.raises(ServerSilent):
            await store.key_counts(keys[1])
        fake_cosmos.faults.clear()  # it answers again: a user's count is still sent
        counts = await store.key_counts(keys[1], background=False)
        assert counts.items == 1 and not ledger.silent
        assert (await store.key_counts(Key.of("tenant-00002"))).items == 1  # background again
    finally:
        await store.close()
