"""Writes that must never reach the wrong resource, erases that must not claim too much,
and an audit log that must tell the truth — on the fake gateway, through the CLI.

The fake gateway takes what the SDK sends over real HTTP: a DELETE to
``/dbs/db/colls/memory/`` there really deletes the container, as on the service, so a
test that lets one through ends with the container gone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cosmem_tui.sources.cosmos.wire import url_problem
from tests.fake_cosmos import Fault
from tests.helpers import exchange, run_cli

AUDIT = ("data", "cosmem", "audit.jsonl")


@pytest.fixture
def account(fake_cosmos: Any) -> Any:
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange("acme", "t1", n, ttl=3600) for n in range(3)])
    return fake_cosmos


def cli(capsys: Any, account: Any, *args: str) -> tuple[int, str, str]:
    where = ["--endpoint", account.endpoint, "--database", "db", "--container", "memory"]
    return run_cli(capsys, *args, *where, "--schema", "lab", "--timeout", "2")


def odd(item_id: str, thread: str = "dots") -> dict[str, Any]:
    item = exchange("acme", thread, 0, ttl=3600)
    item["id"] = item_id
    return item


def audit(isolated_user_dirs: Path) -> list[dict[str, Any]]:
    path = isolated_user_dirs.joinpath(*AUDIT)
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def container_exists(account: Any) -> bool:
    try:
        account.container("db", "memory")
    except Exception:
        return False
    return True


def deletes_sent(account: Any) -> list[Any]:
    return [e for e in account.log.entries() if e.method == "DELETE"]


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch, account: Any) -> None:
    monkeypatch.setenv("COSMOS_KEY", account.key)


@pytest.mark.parametrize("item_id", ["..", "../../..", ".", "a/b", "a\\b", "a?b", "a#b"])
def test_a_point_write_on_an_id_no_url_can_address_is_refused_before_sending(
    capsys, account, isolated_user_dirs, item_id
):
    account.seed("db", "memory", [odd(item_id)])
    for command in (["pin"], ["set-ttl"]):
        args = [*command, "acme", "dots", item_id, *(["60"] if command == ["set-ttl"] else [])]
        code, _, err = cli(capsys, account, *args, "--allow-writes", "--yes")
        assert code == 1, err
        assert f"refused a point read on item {item_id!r}" in err
        assert err.count("\n") == 1  # one line
    assert container_exists(account) and deletes_sent(account) == []
    assert not [e for e in account.log.entries() if e.method == "PATCH"]
    assert audit(isolated_user_dirs) == []


def test_the_reason_names_what_cosmos_forbids(capsys, account):
    account.seed("db", "memory", [odd("a/b"), odd("..")])
    _, _, err = cli(capsys, account, "pin", "acme", "dots", "a/b", "--allow-writes", "--yes")
    assert "'/', which Cosmos DB forbids in ids" in err
    _, _, err = cli(capsys, account, "pin", "acme", "dots", "..", "--allow-writes", "--yes")
    assert "would address the container (or above it), not an item" in err


def test_an_erase_never_deletes_the_container_or_the_database(capsys, account, isolated_user_dirs):
    """The thread holds items whose ids are URL dot segments and forbidden characters:
    each is refused (nothing sent), the others are deleted, and the erase says what is
    left, with exit 3 — the container and the database are still there."""
    ids = ["..", "../../..", "a/b", "ok-1", "ok-2"]
    account.seed("db", "memory", [odd(i) for i in ids])
    code, out, err = cli(capsys, account, "erase-thread", "acme", "dots", "--allow-writes", "--yes")
    assert container_exists(account), "the erase deleted the container"
    assert code == 3, err
    sent = [e.path for e in deletes_sent(account)]
    assert len(sent) == 2 and all(
        p.rstrip("/").endswith(("/docs/ok-1", "/docs/ok-2")) for p in sent
    )
    assert "2 items deleted" in out and "3 items remain" in out
    assert "'..' (an id of '..' would address the container" in out
    assert "'a/b' (it holds '/', which Cosmos DB forbids in ids" in out
    left = sorted(i["id"] for i in account.visible_items("db", "memory") if i["threadId"] == "dots")
    assert left == ["..", "../../..", "a/b"]
    assert len([i for i in account.visible_items("db", "memory") if i["threadId"] == "t1"]) == 3
    closing = audit(isolated_user_dirs)[-1]
    assert closing["event"] == "erase-thread" and closing["outcome"] == "incomplete"
    assert closing["remaining"] == 3 and sorted(closing["ids"]) == ["ok-1", "ok-2"]
    refused = [x for x in audit(isolated_user_dirs) if x.get("outcome") == "refused"]
    assert sorted(x["id"] for x in refused) == ["..", "../../..", "a/b"]


def test_the_wire_guard_checks_the_url_as_it_will_be_sent():
    base = "https://127.0.0.1:1/dbs/db/colls/memory/docs/"
    assert url_problem("DELETE", base + "ok-1/", "ok-1", True) is None
    assert url_problem("DELETE", base + "a%20b/", "a b", True) is None
    assert "would be sent as /dbs/db/colls/memory/" in (
        url_problem("DELETE", base + "../", "..", True) or ""
    )
    assert "would be sent as /dbs/db/" in (
        url_problem("DELETE", base + "../../../", "x", True) or ""
    )
    assert "would be sent as" in (url_problem("GET", base + "%2E%2E/", None, False) or "")
    # A declared write of one item goes to that item's URL, and no other.
    assert "is not the URL of item 'ok-1'" in (
        url_problem("DELETE", base + "ok-2/", "ok-1", True) or ""
    )
    assert "is not the URL of item 'a/b'" in (
        url_problem("DELETE", base + "a/b/", "a/b", True) or ""
    )


async def test_the_wire_guard_stops_a_delete_the_id_check_did_not(account, tmp_path):
    """Past the id check (as a future code path might be), the last gate still refuses."""
    from cosmem_tui.compose import open_cosmos_session
    from cosmem_tui.model import Scope, SystemClock
    from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
    from cosmem_tui.sources.errors import WritesNotAllowed

    account.seed("db", "memory", [odd("..")])
    settings = CosmosSettings(
        account.endpoint, "db", "memory", AuthMode.KEY, key=account.key, timeout_s=2
    )
    session = await open_cosmos_session(
        settings, "lab", SystemClock(), tmp_path / "schemas", allow_writes=True
    )
    try:
        writer: Any = session.writes.writer  # type: ignore[union-attr]
        proxy = writer._proxy

        async def send() -> None:
            await proxy.delete_item(item="..", partition_key=["acme", "dots"])

        with pytest.raises(WritesNotAllowed, match="would be sent as /dbs/db/colls/memory/"):
            await writer._calls.call(
                "delete-item", Scope.POINT, "..", send, write=True, item_id=".."
            )
    finally:
        await session.close()
    assert container_exists(account) and deletes_sent(account) == []


def test_a_404_for_an_item_just_listed_is_not_gone(capsys, account, isolated_user_dirs):
    """The delete of ok-2 answers 404 but the item stays: the erase must say it remains."""
    account.seed("db", "memory", [odd("ok-1"), odd("ok-2"), odd("ok-3")])
    account.faults.add(Fault(status=404, count=1, method="DELETE", path="/docs/ok-2"))
    code, out, err = cli(capsys, account, "erase-thread", "acme", "dots", "--allow-writes", "--yes")
    assert code == 3, err
    assert "2 items deleted" in out and "1 items remain: 'ok-2' (the delete answered 404" in out
    assert "incomplete: 2 item(s) written" in err
    lines = audit(isolated_user_dirs)
    (result,) = [x for x in lines if x["event"] == "delete" and x["id"] == "ok-2"]
    assert result["outcome"] == "not-found" and result["status"] == 404
    assert lines[-1]["remaining_ids"] == ["ok-2"] and lines[-1]["outcome"] == "incomplete"


def test_a_delete_applied_without_an_answer_is_unknown_then_settled(
    capsys, account, isolated_user_dirs
):
    """The service deletes ok-2 and its answer never comes: the log says unknown, the
    listing afterwards settles it as deleted, and the erase says it stopped (exit 3)."""
    account.seed("db", "memory", [odd("ok-1"), odd("ok-2"), odd("ok-3")])
    account.faults.add(
        Fault(status=None, hang=True, applied=True, count=1, method="DELETE", path="/docs/ok-2")
    )
    try:
        code, out, err = cli(
            capsys, account, "erase-thread", "acme", "dots", "--allow-writes", "--yes"
        )
    finally:
        account.faults.release()
    assert code == 3, err
    lines = audit(isolated_user_dirs)
    (result,) = [x for x in lines if x["event"] == "delete" and x["id"] == "ok-2"]
    assert result["outcome"] == "unknown" and result["status"] == 0
    assert "no answer: the delete may have been applied" in result["reason"]
    (verify,) = [x for x in lines if x["event"] == "verify"]
    assert verify["id"] == "ok-2" and verify["outcome"] == "deleted"
    closing = lines[-1]
    assert closing["outcome"] == "stopped" and closing["unknown"] == []
    assert sorted(closing["ids"]) == ["ok-1", "ok-2"]  # settled: deleted
    assert closing["remaining_ids"] == ["ok-3"]
    assert "no answer to the delete of item ok-2" in out
    assert "1 items remain: 'ok-3'" in out


def test_a_pin_applied_without_an_answer_is_read_again(capsys, account, isolated_user_dirs):
    account.faults.add(
        Fault(status=None, hang=True, applied=True, count=1, method="PATCH", path="/docs/t1-1")
    )
    try:
        code, out, err = cli(
            capsys, account, "pin", "acme", "t1", "t1-1", "--allow-writes", "--yes"
        )
    finally:
        account.faults.release()
    assert code == 0, err
    assert "a re-read shows it was applied" in out
    intent, result, verify = audit(isolated_user_dirs)
    assert intent["event"] == "intent" and result["outcome"] == "unknown"
    assert verify["event"] == "verify" and verify["outcome"] == "done"
