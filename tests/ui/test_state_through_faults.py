"""A fault in one view takes nothing from the others: browse's selection, filter and
scroll survive a trip to a view whose source fails, and a fault in browse's turn list
leaves the tenant and thread columns as they were."""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.model import FrozenClock, Key
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views.browse.levels import Level
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from cosmem_tui.ui.views.hot.screen import HotScreen
from cosmem_tui.ui.views.requests.screen import RequestsScreen
from tests.fake_cosmos import Fault
from tests.helpers import exchange
from tests.sources.monitor.azure_fake import AzureFake, Reply, Sent, error_body
from tests.test_cli_telemetry import NOW, metrics_answer
from tests.ui.conftest import settle
from tests.ui.test_faults_cosmos import cosmos_app, until
from tests.ui.test_telemetry_faults import keys_message, over_azure


@dataclass(frozen=True)
class BrowseState:
    tenant: Key | None
    tenant_filter: str
    tenant_cursor: int
    thread: str | None
    thread_filter: str
    thread_cursor: int
    turn_cursor: int
    turn_top: int

    @classmethod
    def of(cls, browse: BrowseScreen) -> BrowseState:
        threads, turns = browse.thread_column, browse.turn_column
        return cls(
            tenant=browse.tenant,
            tenant_filter=browse.top.filter_text,
            tenant_cursor=browse.top.cursor,
            thread=browse.thread.thread.text if browse.thread is not None else None,
            thread_filter=threads.filter_text,
            thread_cursor=threads.cursor,
            turn_cursor=turns.cursor,
            turn_top=int(turns.scroll_y),
        )


def denied(_sent: Sent) -> Reply:
    return Reply(403, error_body("InsufficientAccessError", "insufficient access"))


async def test_browse_keeps_its_place_through_a_view_whose_logs_are_denied(demo_path):
    fake = AzureFake()
    fake.answer("metrics", metrics_answer)
    fake.answer("logs", denied)
    app: CosmemApp = over_azure(demo_path, FrozenClock(NOW), fake)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        browse = app.browse
        assert isinstance(browse, BrowseScreen)
        await pilot.press("slash", *"contoso", "enter", "enter")  # a tenant, opened
        await settle(pilot)
        await pilot.press("slash", *"95da", "enter")  # the thread list, filtered
        await settle(pilot)
        await pilot.press("enter")  # its one thread
        await settle(pilot)
        for _ in range(3):
            await pilot.press("pagedown")  # the turn list, scrolled
            await settle(pilot)
        before = BrowseState.of(browse)
        assert (before.tenant, before.tenant_filter) == (Key.of("contoso"), "contoso")
        assert (before.thread, before.thread_filter) == ("thr-95daac34d4", "95da")
        assert before.turn_top > 0 and before.turn_cursor > 0
        await pilot.press("H")  # the hot view: Log Analytics says 403
        await settle(pilot)
        assert isinstance(app.screen, HotScreen)
        assert "403 forbidden: Log Analytics refused the call" in keys_message(app)
        await pilot.press("R")  # and the request ledger, where the 403 is a row
        await settle(pilot)
        assert isinstance(app.screen, RequestsScreen)
        await pilot.press("B")
        await settle(pilot)
        assert app.screen is browse and browse.level is Level.TURNS
        assert BrowseState.of(browse) == before


def thread_of(tenant: str, thread: str, turns: int) -> list[dict]:
    return [exchange(tenant, thread, i) for i in range(turns)]


async def test_a_503_in_the_turn_list_leaves_the_tenant_and_thread_columns_as_they_were(
    fake_cosmos, tmp_path
):
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    items = thread_of("acme", "long", 250)
    for tenant in ("acme", "globex", "initech"):
        for n in range(6):
            items += thread_of(tenant, f"chat-{n}", 2)
    fake_cosmos.seed("db", "memory", items)
    settings = CosmosSettings(
        endpoint=fake_cosmos.endpoint,
        database="db",
        container="memory",
        auth=AuthMode.KEY,
        key=fake_cosmos.key,
        ru_budget=100_000,
    )
    app = cosmos_app(settings, tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: app.session is not None and app.browse.top.row_count == 3)
        await settle(pilot)
        browse = app.browse
        await pilot.press("slash", *"acm", "enter", "enter")
        await settle(pilot)
        await pilot.press("slash", *"lon", "enter", "enter")
        await settle(pilot)
        assert browse.level is Level.TURNS and browse.turn_column.row_count > 0
        before = BrowseState.of(browse)
        assert (before.tenant, before.tenant_filter) == (Key.of("acme"), "acm")
        assert (before.thread, before.thread_filter) == ("long", "lon")
        fault = fake_cosmos.faults.add(Fault(status=503, kind="query"))  # the account fails
        await pilot.press("end")  # the newest page: refused
        await settle(pilot)
        turns = browse.turn_column
        assert fault.hits >= 1 and "1 page failed" in str(turns.border_subtitle)
        shown = turns.source.placeholder(len(turns.window) - 1)
        assert shown is not None and shown.startswith("page failed: 503 service unavailable")
        assert "r retries" in shown
        after = BrowseState.of(browse)
        assert (after.tenant, after.tenant_filter, after.tenant_cursor) == (
            before.tenant,
            before.tenant_filter,
            before.tenant_cursor,
        )
        assert (after.thread, after.thread_filter, after.thread_cursor) == (
            before.thread,
            before.thread_filter,
            before.thread_cursor,
        )
        fake_cosmos.faults.clear()  # the account recovers
        await pilot.press("r")
        await settle(pilot)
        assert "failed" not in str(browse.turn_column.border_subtitle)
        assert BrowseState.of(browse).thread == "long" and browse.top.filter_text == "acm"
