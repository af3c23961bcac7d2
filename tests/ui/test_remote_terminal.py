"""SSH-friendly defaults: nothing animates or blinks, ctrl+c quits (never under a write)."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from cosmem_tui.core.session import SessionOptions
from cosmem_tui.sources.cosmos.settings import AuthMode, CosmosSettings
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.remote_terminal import APPLY_WORKER, WRITE_UNDER_WAY
from tests.helpers import exchange
from tests.ui.conftest import settle


async def test_nothing_animates_by_default(make_app, demo_path, monkeypatch):
    monkeypatch.delenv("TEXTUAL_ANIMATIONS", raising=False)
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.animation_level == "none"


async def test_textual_animations_in_the_environment_still_wins(make_app, demo_path, monkeypatch):
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "basic")
    assert make_app(demo_path).animation_level == "basic"


@pytest.mark.parametrize("key", ["colon", "slash"])
async def test_the_prompt_and_the_filter_do_not_blink(make_app, demo_path, key):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await pilot.pause()
        field = app.focused
        assert isinstance(field, Input) and field.cursor_blink is False
        timer = field._blink_timer
        assert timer is not None and not timer._active.is_set()  # no repaint twice a second


class AskName(ModalScreen[None]):
    """A dialog with a plain Input, as a future view would add one."""

    def compose(self) -> ComposeResult:
        yield Input(id="name")


async def test_any_input_a_dialog_adds_does_not_blink_either(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.push_screen(AskName())
        field = app.screen.query_one("#name", Input)
        field.focus()
        await pilot.pause()
        await pilot.pause()
        assert app.focused is field and field.cursor_blink is False
        assert field._blink_timer is not None and not field._blink_timer._active.is_set()


async def test_ctrl_c_quits(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.return_code is None
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0


async def test_ctrl_c_quits_from_the_prompt_too(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon", "t")
        assert isinstance(app.focused, Input)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0


async def test_no_quitting_while_a_write_is_applied_and_the_status_says_why(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        applied = asyncio.Event()
        app.screen.run_worker(applied.wait(), name=APPLY_WORKER, group="write")
        await pilot.pause()
        for key in ("ctrl+c", "q"):
            await pilot.press(key)
            await pilot.pause()
            assert app.return_code is None
        status = app.screen.query_one("#status", Static).render()
        assert str(status).startswith("a write is being applied")
        assert any(n.message == WRITE_UNDER_WAY for n in app._notifications)
        applied.set()
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0


async def test_the_first_frame_is_drawn_before_any_request(fake_cosmos):
    """The session (sign-in, account, detection) opens only once a frame is on screen."""
    fake_cosmos.create_container(
        "db", "memory", partition_key=["/tenantId", "/threadId"], ranges=2, default_ttl=-1
    )
    fake_cosmos.seed("db", "memory", [exchange("acme", "t1", 0), exchange("globex", "t2", 0)])
    settings = CosmosSettings(
        fake_cosmos.endpoint, "db", "memory", AuthMode.KEY, key=fake_cosmos.key
    )

    class Watched(CosmemApp):
        frames = 0
        requests_at_first_frame: int | None = None
        frames_when_opening: int | None = None

        def _display(self, screen, renderable) -> None:  # every frame goes through here
            if renderable is not None:
                if self.frames == 0:
                    self.requests_at_first_frame = len(fake_cosmos.log.entries())
                self.frames += 1
            super()._display(screen, renderable)

        async def _open(self) -> None:
            self.frames_when_opening = self.frames
            await super()._open()

    app = Watched(SessionOptions(cosmos=settings, schema="lab"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.session is not None and app.session.has_store
        assert app.requests_at_first_frame == 0 and app.frames_when_opening >= 1
        assert len(fake_cosmos.log.entries()) > 0  # and then the session did open
