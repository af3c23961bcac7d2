"""``:tenant`` and ``:thread`` read names as the command line does: the name a list
prints opens that key, text that is no JSON scalar is the string as typed, and a text
that may mean two keys opens the first that exists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from cosmem_tui.model import Key
from cosmem_tui.ui.views.browse.screen import BrowseScreen
from tests.helpers import build_workspace
from tests.ui.conftest import settle

ROLE = '{"role": "system", "content": "x"}'


def item(tenant: Any, thread: Any, index: int) -> dict[str, Any]:
    return {
        "id": f"{tenant}-{thread}-{index}".replace("/", "_"),
        "tenantId": tenant,
        "threadId": thread,
        "turnIndex": index,
        "messages": [{"role": "user", "content": f"hello {index}"}],
    }


@pytest.fixture
def workspace(tmp_path: Path, clock) -> Path:
    rows = [item("json", thread, i) for thread in (7, "7", ROLE, "x y", "8") for i in range(2)]
    rows += [item(tenant, "t", 0) for tenant in (42, "42")]
    return build_workspace(tmp_path / "names.sqlite", rows, now=int(clock.now()))


async def command(app, pilot, line: str) -> None:
    await pilot.press("colon", *line, "enter")
    await settle(pilot)


def status(app) -> str:
    return app.screen.query_one("#status", Static).render().plain


async def test_thread_and_tenant_commands_open_the_keys_the_lists_print(make_app, workspace):
    app = make_app(workspace, demo=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        browse = app.screen
        assert isinstance(browse, BrowseScreen)
        await command(app, pilot, "tenant json")
        assert browse.tenant == Key.of("json")
        cases = [
            ("7", 7),  # the number …
            ('"7"', "7"),  # … and the string beside it, as the list prints them
            (ROLE, ROLE),  # the raw value: no JSON scalar, so the string
            (Key.of(ROLE).text, ROLE),  # the printed (quoted) form
            ('"x y"', "x y"),  # a name with a space, quoted
            ("8", "8"),  # only the string "8" exists: that is what 8 opens
        ]
        for typed, value in cases:
            await command(app, pilot, f"thread {typed}")
            assert browse.thread is not None, (typed, status(app))
            assert browse.thread.thread == Key.of(value), typed
            assert browse.thread.tenant == Key.of("json")
        await command(app, pilot, 'thread json "x y"')  # tenant and thread named
        assert browse.thread is not None and browse.thread.thread == Key.of("x y")
        await command(app, pilot, 'tenant "42"')
        assert browse.top.current_key == Key.of("42") and browse.tenant == Key.of("42")
        await command(app, pilot, "tenant 42")
        assert browse.top.current_key == Key.of(42) and browse.tenant == Key.of(42)
