"""Cosmos faults end to end: the real app and the real SDK against the fake gateway.

For each fault a person can meet (an endpoint that refuses, a name that does not
resolve, 401, 403, an answer that never comes, a 429 storm told by its cause, 503, an
account with partition merge on that refuses the client) the app keeps running, the
pane that asked says what happened and the fix, and ``r`` asks again and recovers once
the fault has cleared.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from textual.widgets import Static

from cosmem_tui.cli import EXIT_ERROR
from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import SystemClock
from cosmem_tui.sources.cosmos.failures import READER_ROLE
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.widgets.header import SessionHeader
from cosmem_tui.ui.widgets.row_list import RowList
from tests.fake_cosmos import Fault
from tests.fake_cosmos.faults import MERGE_BLOCKED
from tests.helpers import closed_port, exchange
from tests.helpers import run_cli as run

TENANTS = ("acme", "globex", "initech")


def tenant_list(app: CosmemApp) -> RowList:
    return app.browse.query_one("#tenants", RowList)


def pane(app: CosmemApp) -> str:
    message = tenant_list(app).message
    return message[0] if message else ""


def status(app: CosmemApp) -> str:
    return app.browse.query_one("#status", Static).render().plain


def header(app: CosmemApp) -> str:
    return app.screen.query_one(SessionHeader).render().plain


async def until(pilot, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    # A generous bound for a shared machine: the waits are for the screen, not timings.
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the screen")
        await pilot.pause(0.02)
    await pilot.pause()


@pytest.fixture
def account(fake_cosmos):
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange(t, "t1", i) for t in TENANTS for i in range(3)])
    return fake_cosmos


def settings_for(endpoint: str, key: str, **extra) -> CosmosSettings:
    return CosmosSettings(
        endpoint=endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=key,
        **extra,
    )


def cosmos_app(settings: CosmosSettings, tmp_path: Path) -> CosmemApp:
    async def open_it():
        return await open_cosmos_session(settings, "lab", SystemClock(), tmp_path / "schemas")

    return CosmemApp(session_factory=open_it)


async def listed(pilot, app: CosmemApp) -> None:
    await until(pilot, lambda: isinstance(app.screen, BrowseScreen) and app.session is not None)
    await until(pilot, lambda: tenant_list(app).row_count == len(TENANTS))


async def failed(pilot, app: CosmemApp) -> str:
    await until(pilot, lambda: app.session is not None and "failed" in pane(app))
    assert isinstance(app.screen, BrowseScreen) and app.is_running  # still the console
    text = pane(app)
    assert "Traceback" not in text and "r retries" in text
    return text


async def retry_recovers(pilot, app: CosmemApp) -> None:
    await pilot.press("r")
    await until(pilot, lambda: tenant_list(app).row_count == len(TENANTS))
    assert tenant_list(app).message is None


@pytest.mark.parametrize(
    ("code", "says"),
    [
        (401, ["401 unauthorized", "check the account key in COSMOS_KEY"]),
        (
            403,
            [
                "403 forbidden",
                "no data-plane role",
                "(it needs Microsoft.DocumentDB/databaseAccounts/readMetadata)",
                READER_ROLE,
                "role assignment create",
            ],
        ),
        (503, ["503 service unavailable", "cannot serve the request right now"]),
    ],
)
async def test_an_http_fault_is_explained_in_the_pane_and_r_recovers(account, tmp_path, code, says):
    fault = account.faults.add(Fault(status=code))
    app = cosmos_app(settings_for(account.endpoint, account.key), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        text = await failed(pilot, app)
        for words in says:
            assert words in text
        assert fault.hits >= 1
        account.faults.clear()
        await retry_recovers(pilot, app)


@contextlib.asynccontextmanager
async def forwarder(port: int, target: int) -> AsyncIterator[None]:
    """The service comes up on ``port``: bytes pass through to the gateway (TLS and all)."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    server = await asyncio.start_server(connect, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()


async def test_an_endpoint_that_refuses_says_so_and_r_connects_once_it_is_up(account, tmp_path):
    port = closed_port()
    app = cosmos_app(settings_for(f"https://127.0.0.1:{port}/", account.key), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        text = await failed(pilot, app)
        assert f"cannot reach https://127.0.0.1:{port}/" in text
        assert "check the endpoint's host and port" in text
        target = int(account.endpoint.rsplit(":", 1)[1].strip("/"))
        async with forwarder(port, target):
            await retry_recovers(pilot, app)


async def test_a_name_that_does_not_resolve_fails_fast_and_names_the_fix(account, tmp_path):
    endpoint = "https://cosmem-no-such-account.invalid:443/"
    # A long deadline: the pane must say "does not resolve", not wait for a timeout.
    app = cosmos_app(settings_for(endpoint, account.key, timeout_s=120.0), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        text = await failed(pilot, app)
        assert "the name cosmem-no-such-account.invalid does not resolve" in text
        assert "check the account name in the endpoint" in text
        assert "did not answer" not in text  # told at once, not at the deadline
        await pilot.press("r")
        await failed(pilot, app)
        assert app.session.ledger.records()[-1].status == 0


async def test_an_answer_that_never_comes_fails_at_the_deadline_and_r_recovers(account, tmp_path):
    hang = account.faults.add(Fault(status=None, hang=True, kind="query"))
    app = cosmos_app(settings_for(account.endpoint, account.key, timeout_s=2.0), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        text = await failed(pilot, app)
        assert "did not answer list-keys within 2 s" in text
        assert "--timeout SECONDS waits longer" in text
        assert hang.hits >= 1
        account.faults.clear()
        await retry_recovers(pilot, app)


async def test_a_429_storm_that_outlasts_the_retries_is_explained_and_r_recovers(account, tmp_path):
    account.faults.storm(1.0, kind="query", retry_after_ms=5)
    app = cosmos_app(settings_for(account.endpoint, account.key, timeout_s=2.0), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        text = await failed(pilot, app)
        assert "did not answer list-keys within 2 s (the account kept answering 429/3200" in text
        assert "more RU/s helps only when every partition is busy" in text
        assert app.session.ledger.totals().throttled >= 2
        account.faults.calm()
        await retry_recovers(pilot, app)


async def test_a_metadata_storm_is_named_in_the_header_and_not_put_down_to_ru(account, tmp_path):
    account.faults.storm(1.0, kind="query", retry_after_ms=400, sub_status=3201)
    app = cosmos_app(settings_for(account.endpoint, account.key, timeout_s=3.0), tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(pilot, lambda: "⚠ 429 metadata rate · holding off" in header(app))
        text = await failed(pilot, app)
        assert "(the account kept answering 429/3201 metadata requests throttled)" in text
        assert "more RU/s does nothing" in text and "raise the container's RU/s" not in text
        throttled = app.session.ledger.totals().throttled
        await until(pilot, lambda: f"{throttled:,}×429 to cosmem" in header(app))
        account.faults.calm()
        await retry_recovers(pilot, app)


async def test_an_account_with_merge_on_that_refuses_the_client_says_what_to_do(account, tmp_path):
    account.faults.add(Fault(status=MERGE_BLOCKED[0], message=MERGE_BLOCKED[1]))
    app = cosmos_app(settings_for(account.endpoint, account.key), tmp_path)
    async with app.run_test(size=(200, 40)) as pilot:
        text = await failed(pilot, app)
        assert "partition merge is on and the account refuses this client" in text
        assert "--enable-partition-merge false" in text
        account.faults.clear()
        await retry_recovers(pilot, app)


def test_the_cli_says_the_same_in_one_line_with_exit_1(account, capsys, monkeypatch):
    monkeypatch.setenv("COSMOS_KEY", account.key)
    where = ["--database", "db", "--container", "memory", "--schema", "lab"]
    dns = "https://cosmem-no-such-account.invalid:443/"
    code, out, err = run(capsys, "tenants", "--endpoint", dns, *where)
    assert code == EXIT_ERROR and out == "" and err.count("\n") == 1
    assert "the name cosmem-no-such-account.invalid does not resolve" in err
    refused = f"https://127.0.0.1:{closed_port()}/"
    code, _, err = run(capsys, "tenants", "--endpoint", refused, *where)
    assert code == EXIT_ERROR and "check the endpoint's host and port" in err
    account.faults.add(Fault(status=403))
    code, _, err = run(capsys, "tenants", "--endpoint", account.endpoint, *where)
    assert code == EXIT_ERROR and err.count("\n") == 1
    assert "(it needs Microsoft.DocumentDB/databaseAccounts/readMetadata)" in err
    account.faults.clear()
    account.faults.add(Fault(status=MERGE_BLOCKED[0], message=MERGE_BLOCKED[1]))
    code, out, err = run(capsys, "tenants", "--endpoint", account.endpoint, *where)
    assert code == EXIT_ERROR and out == "" and err.count("\n") == 1
    assert err.startswith("cosmem: 400 from ") and "partition merge is on" in err
    assert "--enable-partition-merge false" in err
