"""What opening a turn with one huge message costs: peak memory (RSS) of the console.

    python benchmarks/long_message.py [--mb 5]

Builds a local workspace with one thread whose second turn holds a single message of
``--mb`` MB, then in a fresh interpreter drives the real app headless (Textual's test
driver, 120×40): opens the thread, measures peak RSS, opens the big turn (the detail
pane renders it, the raw item included), and measures again, then once more after
reading the turn in full to its last page (``v``, ``G``). Prints the figures;
asserts nothing. The detail shows a long text cut (64 KB) and reads the rest on
demand, so opening the turn should cost a few MB more than listing it, not hundreds.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers import build_workspace, exchange

CHILD = """
import asyncio, resource, sys
from pathlib import Path
from cosmem_tui.compose import open_local_session
from cosmem_tui.core.session import SessionOptions
from cosmem_tui.model import SystemClock
from cosmem_tui.ui.app import CosmemApp


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def settle(pilot) -> None:
    for _ in range(6):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def main(path: str) -> None:
    options = SessionOptions(workspace=Path(path))
    clock = SystemClock()

    async def open_it():
        return open_local_session(options, clock)

    app = CosmemApp(options, clock=clock, session_factory=open_it)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("thread acme t1")
        await settle(pilot)
        listed = peak_mb()
        await pilot.press("j", "enter")  # the second turn: the big one
        await settle(pilot)
        body = app.screen.query_one("#detail-body").render()
        opened = peak_mb()
        await pilot.press("v", "G")  # read it in full: the last page
        await settle(pilot)
        print(f"{listed:.0f} {opened:.0f} {peak_mb():.0f} {len(body.plain)}")


asyncio.run(main(sys.argv[1]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=5.0, help="the message's size in MB")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    line = "the quick brown fox jumps over the lazy dog, again and again. "
    text = (line * (size // len(line) + 1))[:size]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.sqlite"
        now = int(time.time())
        items = [exchange("acme", "t1", i) for i in range(3)]
        items[1]["messages"] = [{"role": "user", "content": text}]
        build_workspace(path, items, now=now)
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=False
        )
        took = time.perf_counter() - started
    if out.returncode != 0:
        sys.exit(out.stderr[-2000:])
    listed, opened, read, shown = out.stdout.split()[-4:]
    print(f"message: {size / 1e6:.1f} MB in one turn")
    print(f"peak RSS with the thread listed: {listed} MB")
    print(f"peak RSS after opening the turn: {opened} MB")
    print(f"peak RSS after reading it in full to the last page (v, G): {read} MB")
    print(f"detail text shown: {int(shown):,} characters · run took {took:.1f} s")


if __name__ == "__main__":
    main()
