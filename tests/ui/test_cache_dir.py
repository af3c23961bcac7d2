"""The console on a real container with a cache dir it cannot write: the tenants are
listed and browsed, and the status line warns that the names were not saved."""

from __future__ import annotations

from cosmem_tui.compose import open_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import SystemClock
from cosmem_tui.ui.app import CosmemApp
from tests.ui.conftest import cells
from tests.ui.test_faults_cosmos import (  # noqa: F401  (account: the fixture)
    TENANTS,
    account,
    listed,
    settings_for,
    status,
)


async def test_an_unwritable_cache_dir_is_a_warning_in_the_status_line(
    account,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    options = SessionOptions(cosmos=settings_for(account.endpoint, account.key), schema="lab")

    async def open_it():  # as the console opens one: the cache under the user cache dir
        return await open_session(options, SystemClock())

    app = CosmemApp(session_factory=open_it)
    async with app.run_test(size=(200, 40)) as pilot:
        await listed(pilot, app)
        assert app.is_running
        assert [row[0].lstrip("▲ ") for row in cells(app, "tenants")] == list(TENANTS)
        said = status(app)
        assert "warning: the name cache cannot be written" in said, said
