"""Regenerate the README screenshots (SVG) from the real app on the demo workspace.

    python scripts/export_screenshots.py

Uses a demo workspace anchored at a fixed time and a frozen clock, like the
snapshot tests, so the pictures only change when the UI does.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from cosmem_tui.compose import open_local_session as open_session
from cosmem_tui.core.demo.generator import build_demo_workspace
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.ui.app import CosmemApp

ANCHOR = 1_795_996_800  # 2026-12-01T00:00:00Z
OUT = Path(__file__).resolve().parent.parent / "screenshots"
BURST = "+240"  # not a key: let the clock run on 240 s (the burst starts 45 s in)
HOT = ["slash", *"contoso", "enter", "enter"]  # the hot tenant's threads
SHOTS = {
    "tenants-120x40": ((120, 40), []),
    "turns-120x40": ((120, 40), [*HOT, "enter"]),
    "detail-120x40": ((120, 40), [*HOT, "enter", "enter"]),
    "turns-80x24": ((80, 24), [*HOT, "enter"]),
    "help-80x24": ((80, 24), ["question_mark"]),
    "requests-120x40": ((120, 40), [*HOT, "enter", "enter", "R"]),
    "requests-80x24": ((80, 24), [*HOT, "enter", "enter", "R"]),
    "advise-120x40": ((120, 40), ["A"]),
    "ttl-120x40": ((120, 40), [*HOT, "L"]),  # the hot tenant's lifecycle
    "ttl-80x24": ((80, 24), [*HOT, "L"]),
    # four minutes into the session: the simulated hot tenant's burst is on
    "throttle-120x40": ((120, 40), [BURST, "T"]),
    "throttle-80x24": ((80, 24), [BURST, "T"]),
    "hot-120x40": ((120, 40), [BURST, "H"]),
    "hot-80x24": ((80, 24), [BURST, "H"]),
}


async def shoot(workspace: Path, name: str, size: tuple[int, int], keys: list[str]) -> None:
    clock = FrozenClock(ANCHOR)
    options = SessionOptions(workspace=workspace)

    async def open_it():
        session = open_session(options, clock)
        session.is_demo = True
        return session

    app = CosmemApp(options, clock=clock, session_factory=open_it)
    async with app.run_test(size=size) as pilot:
        for key in ["", *keys]:
            if key.startswith("+"):
                clock.advance(float(key[1:]))
            elif key:
                await pilot.press(key)
            for _ in range(3):
                await pilot.pause()
                await app.workers.wait_for_complete()
        (OUT / f"{name}.svg").write_text(app.export_screenshot(title="cosmem"), encoding="utf-8")


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "demo.sqlite"
        build_demo_workspace(workspace, ANCHOR)
        for name, (size, keys) in SHOTS.items():
            await shoot(workspace, name, size, keys)
            print(f"wrote screenshots/{name}.svg", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
