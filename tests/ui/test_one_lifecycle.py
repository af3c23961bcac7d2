"""The lifecycle view reads through the session's one ``LifecycleService`` (compose's),
never one of its own: what the view counted, the session keeps for the CLI's questions
and the next visit alike."""

from __future__ import annotations

from typing import Any

import pytest

from cosmem_tui.core.lifecycle import LifecycleService
from cosmem_tui.ui.views.lifecycle.screen import LifecycleScreen
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import settle


async def test_the_view_uses_the_sessions_lifecycle_service(
    make_app: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
):
    made: list[LifecycleService] = []
    init = LifecycleService.__init__

    def counted(self: LifecycleService, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(LifecycleService, "__init__", counted)
    items = [exchange("acme", "t1", 0, ttl=600), exchange("acme", "t1", 1)]
    app = make_app(build_workspace(tmp_path / "w.sqlite", items, now=1_795_996_800))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, LifecycleScreen) and view.report is not None
        assert app.session is not None
        assert view.service is app.session.lifecycle is view.service
        await pilot.press("B", "L")  # away and back: still the one
        await settle(pilot)
        assert made == [app.session.lifecycle]
