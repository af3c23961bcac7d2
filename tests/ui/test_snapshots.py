"""SVG snapshots of the main screens at 80×24, 120×40 and 200×60, and of the production
and high-contrast skins at 80×24.

The clock is frozen and the demo workspace anchored to it, so every character is
deterministic. Update after an intended change with ``pytest --snapshot-update``
and review the SVG diff like code.
"""

from __future__ import annotations

import pytest
from syrupy.extensions.image import SVGImageSnapshotExtension

from cosmem_tui.core.demo.hostile import HOSTILE_THREAD
from tests.test_screenshots import script
from tests.ui.conftest import settle

SIZES = {"80x24": (80, 24), "120x40": (120, 40), "200x60": (200, 60)}
KEYS = {
    "tenants": [],
    "threads": ["enter"],
    "turns": ["enter", "enter"],
    "detail": ["enter", "enter", "enter"],
    "help": ["question_mark"],
}


# The README screenshots and these snapshots are normalised alike.
normalise = script().normalise


@pytest.fixture
def svg_snapshot(snapshot):
    return snapshot.use_extension(SVGImageSnapshotExtension)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", KEYS)
async def test_browse_screen(svg_snapshot, make_app, demo_path, size, screen):
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for key in KEYS[screen]:
            await pilot.press(key)
            await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("theme", ["production", "high-contrast"])
@pytest.mark.parametrize("screen", ["tenants", "turns"])
async def test_theme_skin(svg_snapshot, make_app, demo_path, theme, screen):
    """The skins at 80×24: production's PRODUCTION band, high-contrast's colours."""
    app = make_app(demo_path)
    app.theme = theme
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in KEYS[screen]:
            await pilot.press(key)
            await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("size", SIZES)
async def test_hostile_thread(svg_snapshot, make_app, demo_path, manifest, size):
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        app.run_command(f"thread {manifest.hostile['tenant']} {HOSTILE_THREAD}")
        await settle(pilot)
        await pilot.press("j", "enter")
        await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("size", SIZES)
async def test_request_ledger(svg_snapshot, make_app, demo_path, size):
    """The ledger after opening a tenant, a thread and a turn, filtered to the opening
    actions (counts run two at a time, so their order is not fixed)."""
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for key in ("enter", "enter", "enter", "R"):
            await pilot.press(key)
            await settle(pilot)
        await pilot.press("slash", *"browse: open", "enter")
        await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("size", SIZES)
async def test_advisor_view(svg_snapshot, make_app, demo_path, size):
    """The advisor on the demo: findings worst first, the first one's evidence and fix."""
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("size", SIZES)
async def test_lifecycle_view(svg_snapshot, make_app, demo_path, size):
    """:ttl following browse: the first tenant's TTL classes, forecast and lists."""
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        for key in ("enter", "L"):
            await pilot.press(key)
            await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("size", ["80x24", "120x40"])
async def test_doctor_view(svg_snapshot, make_app, demo_path, size):
    """The doctor on the demo: what works, what is simulated, what cannot be checked."""
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("size", ["80x24", "120x40"])
async def test_recall_view(svg_snapshot, make_app, demo_path, manifest, size):
    """The demo's planted thread: what its last turn recalls (m) and why not three items
    the user said (W): one found, one whose embedding is nested, one ranked just below k.
    The hits, the why-not lines, the query vector's summary, the notes and the cost."""
    planted = manifest.recall
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        app.run_command(f"thread {planted['tenant']} {planted['thread']}")
        await settle(pilot)
        await pilot.press("G", "m")  # the last turn: "how will you follow up?"
        await settle(pilot)
        for name in ("found", "no_embedding_at_path", "ranked_below_k"):
            app.run_command(f"expect {planted[name]}")
            await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


@pytest.mark.parametrize("size", ["80x24", "120x40"])
async def test_recall_view_before_a_probe(svg_snapshot, make_app, demo_path, size):
    """M before any probe: how to ask one."""
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("M")
        await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot


AFTER_BURST_S = 240  # the hot tenant's burst starts 45 s into the session


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", ["T", "H"])
async def test_telemetry_view(svg_snapshot, make_app, demo_path, clock, size, view):
    """Throughput (T) and hot tenants (H) on the demo's simulated workload, four minutes
    into the session: the hot tenant's burst is on, its partition at 100 %, 429s."""
    app = make_app(demo_path)
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        clock.advance(AFTER_BURST_S)
        await pilot.press(view)
        await settle(pilot)
        assert normalise(app.export_screenshot()) == svg_snapshot
