"""Keys, connection strings and tokens never appear in anything cosmem shows or writes.

The canary key is in the environment (``COSMOS_KEY``, or inside
``COSMOS_CONNECTION_STRING``), and the fake gateway answers with error messages that
echo it, bare and inside a connection string, as a service quoting a request might.
Every stdout, stderr, ``--ledger`` file, JSON/CSV export, the TUI's screen and its SVG
screenshot are searched for it (``tests/canary.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from azure.core.credentials import AccessToken

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import FrozenClock, SystemClock
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.ui.app import CosmemApp
from tests.canary import TOKEN, Canary, assert_no_canary, secret_canary  # noqa: F401
from tests.fake_cosmos import Fault
from tests.helpers import exchange, run_cli
from tests.sources.monitor.azure_fake import AzureFake, FakeCredential, Reply, Sent, error_body
from tests.test_cli_telemetry import NOW
from tests.ui.conftest import screen_text, settle
from tests.ui.test_views_over_azure_monitor import over_azure

STATUSES = (400, 401, 403, 409, 500, 503)


@pytest.fixture
def account(fake_cosmos: Any) -> Any:
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange("acme", "t1", n) for n in range(3)])
    return fake_cosmos


def echoing(fake: Any, status: int, canary: Canary) -> None:
    """Every request fails with a message quoting the key and the connection string."""
    fake.faults.clear()
    message = f"request signed with {canary.key} from {canary.connection_string(fake.endpoint)}"
    fake.faults.add(Fault(status=status, message=message, retry_after_ms=5))


@pytest.mark.parametrize("variable", ["COSMOS_KEY", "COSMOS_CONNECTION_STRING"])
def test_the_cli_never_prints_or_logs_the_key(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    account: Any,
    secret_canary: Canary,  # noqa: F811
    variable: str,
):
    if variable == "COSMOS_CONNECTION_STRING":
        monkeypatch.delenv("COSMOS_KEY")
        monkeypatch.setenv(variable, secret_canary.connection_string(account.endpoint))
    ledger = tmp_path / "ledger.jsonl"
    where = ["--database", "db", "--container", "memory", "--schema", "lab", "--timeout", "2"]
    options = ["--endpoint", account.endpoint, *where, "--ledger", str(ledger), "-v"]
    for command in (["tenants"], ["threads", "acme"], ["turns", "acme", "t1"], ["ttl", "acme"]):
        for fmt in ([], ["--json"], ["--csv"]):
            code, out, err = run_cli(capsys, *command, *options, *fmt)
            assert code == 0, err
            assert_no_canary(out + err, (command, fmt))
    for status in STATUSES:
        echoing(account, status, secret_canary)
        code, out, err = run_cli(capsys, "tenants", *options)
        assert code == 1 and f"{status}" in err
        assert_no_canary(out + err, status)
    assert ledger.stat().st_size > 0
    assert_no_canary(ledger.read_text(), "the ledger file")
    # A connection string pasted where the endpoint goes is refused, never echoed.
    pasted = secret_canary.connection_string(account.endpoint)
    code, out, err = run_cli(capsys, "tenants", "--endpoint", pasted, *where)
    assert code == 1
    assert_no_canary(out + err, "a pasted connection string")


def test_a_malformed_connection_string_is_not_quoted(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    secret_canary: Canary,  # noqa: F811
):
    monkeypatch.delenv("COSMOS_KEY")
    for broken in (
        f"AccountKey={secret_canary.key}",  # no endpoint
        f"AccountEndpoint=not a url;AccountKey={secret_canary.key};",
        f"{secret_canary.key};AccountEndpoint=https://x.documents.azure.com",
    ):
        monkeypatch.setenv("COSMOS_CONNECTION_STRING", broken)
        code, out, err = run_cli(capsys, "tenants", "--database", "d", "--container", "c")
        assert code != 0
        assert_no_canary(out + err, broken[:20])


async def test_the_tui_never_shows_the_key(
    account: Any,
    tmp_path: Path,
    secret_canary: Canary,  # noqa: F811
):
    settings = CosmosSettings(
        endpoint=account.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=secret_canary.key,
        timeout_s=2,
    )

    async def open_it():  # type: ignore[no-untyped-def]
        return await open_cosmos_session(settings, "lab", SystemClock(), tmp_path / "schemas")

    app = CosmemApp(session_factory=open_it, ledger=tmp_path / "ledger.jsonl")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "acme" in screen_text(app)
        screens = [screen_text(app), app.export_screenshot()]
        for status in STATUSES:
            echoing(account, status, secret_canary)
            await pilot.press("enter")  # the tenant's threads: the request fails
            await settle(pilot)
            screens += [screen_text(app), app.export_screenshot()]
            await pilot.press("R")  # the request ledger, with the failure
            await settle(pilot)
            screens += [screen_text(app), app.export_screenshot()]
            await pilot.press("B", "escape")
            await settle(pilot)
    assert any(str(s) in text for text in screens for s in STATUSES)  # the failures were shown
    for n, text in enumerate(screens):
        assert_no_canary(text, f"screen {n}")
    assert_no_canary((tmp_path / "ledger.jsonl").read_text(), "the ledger file")


class CanaryCredential(FakeCredential):
    """Signs every Azure Monitor call with the canary access token."""

    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        await super().get_token(*scopes, **kwargs)
        return AccessToken(TOKEN, 4_102_444_800)


@pytest.mark.parametrize("status", [400, 401, 403, 500])
async def test_an_access_token_quoted_back_by_azure_monitor_is_not_shown(
    demo_path: Path, status: int
):
    def echo(sent: Sent) -> Reply:
        said = f"token {sent.headers.get('Authorization')} was refused; {TOKEN} is bad"
        return Reply(status, error_body("Denied", said, said))

    fake = AzureFake()
    fake.answer("metrics", echo)
    fake.answer("logs", echo)
    app = over_azure(demo_path, FrozenClock(NOW), fake, CanaryCredential())
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        screens = []
        for key in ("T", "H", "R"):
            await pilot.press(key)
            await settle(pilot)
            screens += [screen_text(app), app.export_screenshot()]
    assert fake.requests_to("logs") and any(str(status) in text for text in screens)
    assert any(
        f"Bearer {TOKEN}" in s.headers.get("Authorization", "") for s in fake.requests_to("logs")
    )
    for n, text in enumerate(screens):
        assert_no_canary(text, f"screen {n}")
