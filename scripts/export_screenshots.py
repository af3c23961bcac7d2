"""Regenerate the README screenshots from the real app on the demo workspace.

    python scripts/export_screenshots.py            # every shot
    python scripts/export_screenshots.py turns-80x24 help-80x24   # some

Writes ``screenshots/NAME.svg`` for every view (browse at each level, the request
ledger, throughput, hot tenants, the lifecycle, the advisor, the doctor, the help) at
120×40, the main ones at 80×24 and 200×60, and the production skin. The demo workspace is anchored
at a fixed time and the clock frozen, like the snapshot tests, so running it twice
writes identical files and a picture only changes when the UI does
(``tests/test_screenshots.py`` checks that). A PNG goes beside each SVG when a
converter is at hand (``rsvg-convert`` on the PATH, or the ``cairosvg`` package);
without one, PNGs are skipped and the script says so once.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cosmem_tui.compose import open_local_session as open_session
from cosmem_tui.core.demo.generator import build_demo_workspace
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.model import FrozenClock
from cosmem_tui.ui.app import CosmemApp

ANCHOR = 1_795_996_800  # 2026-12-01T00:00:00Z
OUT = Path(__file__).resolve().parent.parent / "screenshots"
BURST = "+240"  # not a key: let the clock run on 240 s (the burst starts 45 s in)
HOT = ["slash", *"contoso", "enter", "enter"]  # the hot tenant's threads
TURNS = [*HOT, "enter"]
DETAIL = [*HOT, "enter", "enter"]
# The ledger filtered to the opening actions: counts run two at a time, so the order of
# the rest is not fixed from one run to the next.
LEDGER = [*DETAIL, "R", "slash", *"browse: open", "enter"]
# The demo's planted recall thread: what its last turn recalls (m).
_NAMED = {" ": "space", "-": "minus"}
RECALL = ["colon", *(_NAMED.get(c, c) for c in "thread fabrikam thr-follow-up-prefs"), "enter"]
RECALL += ["G", "m"]
SIZES = {"80x24": (80, 24), "120x40": (120, 40), "200x60": (200, 60)}


@dataclass(frozen=True)
class Shot:
    keys: tuple[str, ...]
    sizes: tuple[str, ...] = ("120x40",)
    theme: str | None = None


VIEWS: dict[str, Shot] = {
    "tenants": Shot((), ("80x24", "120x40", "200x60")),
    "threads": Shot(tuple(HOT)),
    "turns": Shot(tuple(TURNS), ("80x24", "120x40", "200x60")),
    "detail": Shot(tuple(DETAIL), ("80x24", "120x40", "200x60")),
    "requests": Shot(tuple(LEDGER), ("80x24", "120x40")),
    # four minutes into the session: the simulated hot tenant's burst is on
    "throttle": Shot((BURST, "T"), ("80x24", "120x40", "200x60")),
    "hot": Shot((BURST, "H"), ("80x24", "120x40")),
    "ttl": Shot((*HOT, "L"), ("80x24", "120x40")),  # the hot tenant's lifecycle
    "advise": Shot(("A",), ("80x24", "120x40")),
    "doctor": Shot(("D",), ("80x24", "120x40")),
    "recall": Shot(tuple(RECALL), ("80x24", "120x40")),
    "tail": Shot((*HOT, "C"), ("80x24", "120x40")),  # the hot tenant's change feed
    "help": Shot(("question_mark",), ("80x24", "120x40")),
    "production": Shot((), ("80x24", "120x40"), theme="production"),
    "high-contrast": Shot(tuple(TURNS), ("80x24",), theme="high-contrast"),
}


def shots() -> dict[str, tuple[tuple[int, int], Shot]]:
    """Every file's name (without .svg): its size and what to press."""
    return {
        f"{view}-{size}": (SIZES[size], shot) for view, shot in VIEWS.items() for size in shot.sizes
    }


def normalise(svg: str) -> str:
    # Rich names the CSS classes after a hash of the content: one name keeps diffs small.
    return re.sub(r"terminal-\d+", "terminal", svg)


async def shoot(workspace: Path, size: tuple[int, int], shot: Shot) -> str:
    from textual.widgets import Input

    Input._toggle_cursor = lambda self: None  # type: ignore[method-assign]  # no blinking
    clock = FrozenClock(ANCHOR)
    options = SessionOptions(workspace=workspace, live_demo=False)  # still: as built

    async def open_it() -> Session:
        session = open_session(options, clock)
        session.is_demo = True
        return session

    app = CosmemApp(options, clock=clock, session_factory=open_it, theme=shot.theme)
    async with app.run_test(size=size) as pilot:
        for key in ["", *shot.keys]:
            if key.startswith("+"):
                clock.advance(float(key[1:]))
            elif key:
                await pilot.press(key)
            await settle(app, pilot)
        return normalise(app.export_screenshot(title="cosmem"))


async def settle(app: CosmemApp, pilot: object) -> None:
    """Until no worker is left running (a finished one may start the next)."""
    quiet = 0
    for _ in range(200):
        await pilot.pause()  # type: ignore[attr-defined]
        await app.workers.wait_for_complete()
        await pilot.pause()  # type: ignore[attr-defined]
        quiet = 0 if any(not w.is_finished for w in app.workers) else quiet + 1
        if quiet >= 2:
            return


def png_converter() -> list[str] | str | None:
    """``rsvg-convert``'s command line, "cairosvg", or None."""
    rsvg = shutil.which("rsvg-convert")
    if rsvg:
        return [rsvg, "--format=png"]
    if importlib.util.find_spec("cairosvg") is not None:
        return "cairosvg"
    return None


def write_png(svg: Path, converter: list[str] | str) -> None:
    png = svg.with_suffix(".png")
    if converter == "cairosvg":
        import cairosvg  # type: ignore[import-not-found]

        cairosvg.svg2png(url=str(svg), write_to=str(png))
    else:
        subprocess.run([*converter, "--output", str(png), str(svg)], check=True)


async def export(
    out: Path,
    names: Iterable[str] | None = None,
    *,
    png: bool = True,
    workspace: Path | None = None,
) -> list[Path]:
    """Write the named shots (all by default) into ``out``; the SVG paths written.

    ``workspace``: a demo workspace already built at ``ANCHOR`` (else one is built)."""
    every = shots()
    chosen = list(names) if names else list(every)
    unknown = [n for n in chosen if n not in every]
    if unknown:
        raise SystemExit(f"unknown screenshot(s): {', '.join(unknown)}")
    converter = png_converter() if png else None
    if png and converter is None:
        print("no SVG to PNG converter (rsvg-convert, cairosvg): SVG only", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        if workspace is None:
            workspace = Path(tmp) / "demo.sqlite"
            build_demo_workspace(workspace, ANCHOR)
        for name in chosen:
            size, shot = every[name]
            path = out / f"{name}.svg"
            path.write_text(await shoot(workspace, size, shot), encoding="utf-8")
            if converter is not None:
                write_png(path, converter)
            written.append(path)
            print(f"wrote {path}", file=sys.stderr)
    return written


if __name__ == "__main__":
    asyncio.run(export(OUT, sys.argv[1:]))
