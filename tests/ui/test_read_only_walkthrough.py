"""Read-only by default, proved on the wire: a whole walk through the app sends no write.

The real app on a peer-hosted container, through a transport that records every HTTP
request: browse (tenants, threads, turns, one turn), every registered view, every
``:`` command of every view, the write keys and commands (which are not offered),
the palette and the help. Not one request may carry a write verb (PUT, PATCH, DELETE,
or a POST that is not a query), and the ledger records no write.
"""

from __future__ import annotations

from pathlib import Path

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import Kind, SystemClock
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.views import VIEWS
from cosmem_tui.ui.views.browse.levels import Level
from tests.peer.spy import SpyTransport
from tests.ui.conftest import settle

WRITE_VERBS = {"PUT", "PATCH", "DELETE"}


def is_write(sent) -> bool:  # type: ignore[no-untyped-def]
    if sent.method in WRITE_VERBS:
        return True
    plan = sent.headers.get("x-ms-cosmos-is-query-plan-request")
    return sent.method == "POST" and not sent.is_query and plan is None


async def test_a_whole_walk_sends_no_write_verb(containers, tmp_path: Path, isolated_user_dirs):
    seeded = await containers()
    spy = SpyTransport()

    async def open_it():  # type: ignore[no-untyped-def]
        return await open_cosmos_session(
            seeded.settings(), "lab", SystemClock(), tmp_path / "schemas", transport=spy
        )

    app = CosmemApp(session_factory=open_it)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert app.session is not None and app.session.writes is None
        # Browse all the way down, trying every write key at every level.
        for key in ("enter", "enter", "enter"):
            await pilot.press("P", "E", "X")
            await pilot.press(key)
            await settle(pilot)
        assert app.browse.level is Level.DETAIL
        await pilot.press("P", "E", "X", "r", "c")
        await settle(pilot)
        # Every view, by key and by command, and every command each view has.
        for spec in VIEWS:
            app.action_switch_view(spec.name)
            await settle(pilot)
            for command, _ in app.registry.commands(spec.name):
                if command.names[0] in ("q", "quit", "exit"):
                    continue
                words = [command.names[0]] + ["acme" if a != "ID" else "t1" for a in command.args]
                app.run_command(" ".join(words))
                await settle(pilot)
                if app.screen is not app.screens_by_view.get(app.current_view or ""):
                    await pilot.press("escape")  # help, a dialog: close it
                    await settle(pilot)
            await pilot.press("r", "p", "ctrl+r")
            await settle(pilot)
        # The write commands, typed anyway, are unknown; the palette and help open and close.
        app.action_switch_view("browse")
        for line in ("pin", "set-ttl 60", "erase-thread", "thread acme t1", "tenants"):
            app.run_command(line)
            await settle(pilot)
        for key in ("ctrl+p", "escape", "question_mark", "escape", "A", "r", "R", "B"):
            await pilot.press(key)
            await settle(pilot)
        records = app.session.ledger.records()
    assert spy.sent, "the walk made requests"
    assert [s for s in spy.sent if is_write(s)] == []
    assert not [r for r in records if r.kind is Kind.WRITE]
    operations = {r.operation for r in records}
    assert {"turns-page", "read-item", "sample-shapes", "list-keys"} <= operations
