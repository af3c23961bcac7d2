"""The RU budget at a real account's shape, on the fake gateway (charges grow with the work).

A thread of 3,000 items, 3,000 tenants over four ranges, a tenant of 3,000 items: the
shapes where one request can cost many times a guess. Each command stays within
``--ru-budget`` (or stops before it, saying what it needs), and a request that still
costs more than it was let through at is reported: marked in the ledger, named on
stderr, exit status 5.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.core.exit_status import EXIT_ERROR, EXIT_OK, EXIT_OVER_BUDGET
from tests.helpers import exchange, run_cli

BIG = ("acme", "big")  # the 3,000-item thread


def big_thread(count: int = 3000, text: str = "hello world " * 20) -> list[dict[str, Any]]:
    items = []
    for i in range(count):
        # Mostly short-term items with varied lifetimes, every third one a pinned fact.
        extra = {"ttl": 3600 * (1 + i % 48)} if i % 3 else {"ttl": -1, "kind": "fact"}
        items.append(exchange(*BIG, i, text=text, **extra))
    return items


def many_tenants(count: int = 3000) -> list[dict[str, Any]]:
    return [exchange(f"tenant-{n:05d}", f"t{i}", 0) for n in range(count) for i in range(2)]


@pytest.fixture
def account(fake_cosmos, monkeypatch):
    """A lab container over four ranges; returns (seed, CLI options)."""
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=4, default_ttl=-1
    )
    monkeypatch.setenv("COSMOS_KEY", fake_cosmos.key)
    options = ["--endpoint", fake_cosmos.endpoint, "--database", "db", "--container", "memory"]
    options += ["--schema", "lab"]

    def seed(items: list[dict[str, Any]]) -> list[str]:
        fake_cosmos.seed("db", "memory", items)
        return options

    return seed


def ledger(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


def spent(lines: list[dict[str, Any]]) -> float:
    return sum(line["request_units"] for line in lines)


def test_a_search_of_a_large_thread_stops_before_it_passes_the_budget(account, capsys, tmp_path):
    options = account(big_thread())
    path = tmp_path / "ledger.jsonl"
    code, _, err = run_cli(
        capsys, "search", *BIG, "no-such-text", *options, "--ru-budget", "20", "--json",
        "--ledger", str(path),
    )  # fmt: skip
    lines = ledger(path)
    # It read the thread's size (one index-served count), saw that reading 3,000 items
    # would pass 20 RU, and sent nothing more: not one 138 RU page, exit 0.
    assert spent(lines) <= 20
    assert code == EXIT_ERROR
    assert err.startswith("cosmem: search-turns (tenant acme / thread big) stopped at the ")
    assert "--ru-budget" in err and err.count("\n") == 1
    assert not [line for line in lines if line["operation"] == "search-turns"]
    assert not any(line["over_budget"] for line in lines)


def test_with_budget_enough_the_search_runs_within_its_estimate(account, capsys, tmp_path):
    options = account(big_thread())
    path = tmp_path / "ledger.jsonl"
    code, out, err = run_cli(
        capsys, "search", *BIG, "no-such-text", *options, "--ru-budget", "400", "--json",
        "--ledger", str(path),
    )  # fmt: skip
    assert code == EXIT_OK, err
    assert json.loads(out) == []
    (search,) = [line for line in ledger(path) if line["operation"] == "search-turns"]
    # Let through at what reading 3,000 items costs, not at a 3 RU guess.
    assert search["request_units"] / 1.5 <= search["admitted_ru"] <= search["request_units"] * 1.5
    assert not search["over_budget"]


def test_the_ttl_summary_of_a_large_thread_stays_within_the_budget(account, capsys, tmp_path):
    options = account(big_thread())
    path = tmp_path / "ledger.jsonl"
    code, _, err = run_cli(
        capsys, "ttl", *BIG, *options, "--ru-budget", "20", "--json", "--ledger", str(path)
    )
    assert spent(ledger(path)) <= 20  # not one 92 RU count past it
    assert code == EXIT_ERROR and "stopped at the session's RU budget of 20 RU" in err
    assert "--ru-budget" in err


def test_tenant_counts_stay_within_the_budget_beside_a_large_tenant(account, capsys, tmp_path):
    options = account(many_tenants() + big_thread())
    path = tmp_path / "ledger.jsonl"
    code, out, err = run_cli(
        capsys, "tenants", *options, "--ru-budget", "50", "--json", "--ledger", str(path)
    )
    lines = ledger(path)
    assert spent(lines) <= 50  # 178 RU before: one count of acme alone cost 145
    assert code == EXIT_OK and len(json.loads(out)) == 3001
    assert "would pass the RU budget of 50 RU: they are null" in err
    assert not any(line["over_budget"] for line in lines)


def test_a_request_that_costs_more_than_it_was_let_through_at_is_reported(
    account, capsys, tmp_path
):
    # Large items: reading one costs about ten times what the session assumes before it
    # has measured any, so the search's estimate is short and the budget is passed.
    options = account(big_thread(300, text="x" * 20_000))
    path = tmp_path / "ledger.jsonl"
    code, out, err = run_cli(
        capsys, "search", *BIG, "no-such-text", *options, "--ru-budget", "40", "--json",
        "--ledger", str(path),
    )  # fmt: skip
    lines = ledger(path)
    over = [line for line in lines if line["over_budget"]]
    assert json.loads(out) == []  # the answer is whole …
    assert code == EXIT_OVER_BUDGET  # … but the budget was passed without a question
    assert [line["operation"] for line in over] == ["search-turns"]
    assert over[0]["request_units"] > over[0]["admitted_ru"]
    assert spent(lines) > 40
    (line,) = [e for e in err.splitlines() if "over the RU budget" in e]
    assert line.startswith("cosmem: over the RU budget: search-turns (tenant acme / thread big)")
    assert "of its 40 RU budget" in line
