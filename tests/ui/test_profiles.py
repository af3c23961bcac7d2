"""``:profile NAME`` in the running console, profile looks (theme, keys, refresh), NO_COLOR."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from cosmem_tui import cli
from cosmem_tui.cli.console import action_ids
from cosmem_tui.config.invocation import Invocation, session_options
from cosmem_tui.config.profiles import ConfigProfiles
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.ui.app import CosmemApp
from cosmem_tui.ui.profiles import honour_no_color
from cosmem_tui.ui.widgets.header import SessionHeader
from tests.ui.conftest import settle


@pytest.fixture
def two_workspaces(tmp_path: Path, demo_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Profiles first (the demo) and second (a copy of it, red, other keys, slower refresh)."""
    second = tmp_path / "second.sqlite"
    shutil.copy(demo_path, second)
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
default_profile = "first"

[profiles.first]
workspace = "{demo_path}"

[profiles.second]
workspace = "{second}"
theme = "production"
refresh_s = 9

[profiles.second.keys]
"app.quit" = "ctrl+q"
"view.requests" = "ctrl+l"
""",
        encoding="utf-8",
    )
    monkeypatch.setenv("COSMEM_CONFIG", str(path))
    monkeypatch.delenv("COSMEM_PROFILE", raising=False)
    return second


def profile_app(clock: FrozenClock, workspace: Path, **kwargs: object) -> CosmemApp:
    profiles = ConfigProfiles(action_ids)
    return CosmemApp(
        SessionOptions(workspace=workspace),
        clock=clock,
        profiles=profiles,
        profile="first",
        **kwargs,  # type: ignore[arg-type]
    )


def header(app: CosmemApp) -> str:
    return app.screen.query_one(SessionHeader).render().plain


def notices(app: CosmemApp) -> str:
    return " | ".join(n.message for n in app._notifications)


async def test_profile_switches_the_session_and_closes_the_old_one(
    clock: FrozenClock, demo_path: Path, two_workspaces: Path, tmp_path: Path
):
    ledger = tmp_path / "ledger.jsonl"
    app = profile_app(clock, demo_path, ledger=ledger)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        old = app.session
        assert old is not None and "first: workspace demo.sqlite" in header(app)
        closed: list[bool] = []
        close = old.close

        async def watched_close() -> None:
            closed.append(True)
            await close()

        old.close = watched_close  # type: ignore[method-assign]
        await pilot.press("R")  # away from browse: the switch lands on browse again
        await settle(pilot)
        assert app.current_view == "requests"
        written = len(ledger.read_text().splitlines())
        app.run_command(":profile second")
        await settle(pilot)
        new = app.session
        assert new is not None and new is not old
        assert closed == [True]
        # The old ledger has no listener left: nothing of the app hears it any more.
        request_ledger = old.ledger
        assert request_ledger._listeners == [] and request_ledger._throttle_listeners == []
        assert request_ledger._notice_listeners == [] and request_ledger._confirmer is None
        assert app.current_view == "browse"
        assert "second: workspace second.sqlite" in header(app) and "demo" not in header(app)
        assert app.theme == "production" and app.profile_name == "second"
        assert app.registry.keys("app.quit") == "ctrl+q"
        assert "^q quit" in app.registry.hints("browse")
        requests = app.screens_by_view["requests"]
        assert requests.loop.interval_s == 9  # type: ignore[attr-defined]
        # The new session's requests reach the header and the --ledger file.
        assert new.ledger._listeners
        assert len(ledger.read_text().splitlines()) > written
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert app.current_view == "requests"
        app.run_command(":profile first")  # and back: defaults again
        await settle(pilot)
        assert app.theme == "cosmem-dark" and app.registry.keys("app.quit") == "q"
        assert "first: workspace demo.sqlite" in header(app)


async def test_a_request_landing_while_the_old_session_closes_reaches_the_ledger_file(
    clock: FrozenClock, demo_path: Path, two_workspaces: Path, tmp_path: Path
):
    ledger = tmp_path / "ledger.jsonl"
    app = profile_app(clock, demo_path, ledger=ledger)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        old = app.session
        assert old is not None
        close = old.close

        async def close_with_a_late_answer() -> None:
            # An answer that was in flight lands as the session closes.
            late = dataclasses.replace(old.ledger.records()[-1], cause="landed while closing")
            old.ledger.record(late)
            await close()

        old.close = close_with_a_late_answer  # type: ignore[method-assign]
        app.run_command(":profile second")
        await settle(pilot)
        assert app.session is not None and app.session is not old
        causes = [json.loads(line)["cause"] for line in ledger.read_text().splitlines()]
        assert "landed while closing" in causes


async def test_an_unknown_profile_is_a_notice_and_the_session_stays(
    clock: FrozenClock, demo_path: Path, two_workspaces: Path
):
    app = profile_app(clock, demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        session = app.session
        app.run_command(":profile staging")
        await settle(pilot)
        assert "no profile 'staging'" in notices(app)
        assert "the profiles are first, second" in notices(app)
        assert app.session is session and app.is_running
        assert "first: workspace demo.sqlite" in header(app)


async def test_the_palette_lists_the_other_profiles(
    clock: FrozenClock, demo_path: Path, two_workspaces: Path
):
    app = profile_app(clock, demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        for key in "profile second":
            await pilot.press("space" if key == " " else key)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.profile_name == "second" and "second: workspace second.sqlite" in header(app)


def test_command_line_profile_reaches_the_app(monkeypatch, two_workspaces, demo_path):
    """cosmem --profile second: the app gets the profile's theme, keys and interval."""
    seen: list[Invocation] = []

    def run_app(invocation: Invocation) -> int:
        seen.append(invocation)
        return 0

    monkeypatch.setattr("cosmem_tui.ui.app.run_app", run_app)
    assert cli.main(["--profile", "second"]) == 0
    invocation = seen[-1]
    assert session_options(invocation).workspace == two_workspaces
    assert invocation.theme == "production" and invocation.refresh_s == 9
    assert invocation.keymap == {"app.quit": "ctrl+q", "view.requests": "ctrl+l"}
    assert invocation.profile == "second" and invocation.configured
    assert cli.main(["--profile", "second", "--theme", "high-contrast"]) == 0
    assert seen[-1].theme == "high-contrast"  # the flag beats the profile


# -- NO_COLOR ------------------------------------------------------------------------------------


def rendered_colours(app: CosmemApp) -> set[tuple[int, int, int]]:
    colours = set()
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            style = segment.style
            if style is None:
                continue
            for colour in (style.color, style.bgcolor):
                if colour is not None and colour.triplet is not None:
                    colours.add(tuple(colour.triplet))
    return colours


def hued(colours: set[tuple[int, int, int]]) -> set[tuple[int, int, int]]:
    return {c for c in colours if len(set(c)) > 1}


@pytest.mark.parametrize(("value", "mono"), [("1", True), ("", False), (None, False)])
async def test_no_color_gives_a_monochrome_ui(
    clock: FrozenClock, demo_path: Path, monkeypatch: pytest.MonkeyPatch, value, mono
):
    """no-color.org: set and not empty. Every segment on screen is then grey."""
    if value is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", value)
    app = CosmemApp(SessionOptions(workspace=demo_path), clock=clock, theme="production")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        colours = rendered_colours(app)
        assert len(colours) > 3  # a real screen, drawn in several shades
        assert app.no_color is mono
        assert (hued(colours) == set()) is mono


def test_an_empty_no_color_is_dropped_and_a_set_one_kept():
    env = {"NO_COLOR": ""}
    assert honour_no_color(env) is False and "NO_COLOR" not in env
    env = {"NO_COLOR": "yes"}
    assert honour_no_color(env) is True and env == {"NO_COLOR": "yes"}


async def test_the_palette_reads_the_profiles_once_per_open_not_per_key(
    clock: FrozenClock, demo_path: Path, two_workspaces: Path, monkeypatch: pytest.MonkeyPatch
):
    reads: list[int] = []
    names = ConfigProfiles.names

    def counted(self: ConfigProfiles) -> tuple[str, ...]:
        reads.append(1)
        return names(self)

    monkeypatch.setattr(ConfigProfiles, "names", counted)
    app = profile_app(clock, demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(2):
            await pilot.press("ctrl+p")
            await pilot.pause()
            for key in "profile":
                await pilot.press(key)
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        assert len(reads) == 2  # a fresh read on each open
