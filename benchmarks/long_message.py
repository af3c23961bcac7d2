"""What opening a turn with one huge message, or with very many, costs: time and memory.

    python benchmarks/long_message.py [--mb 5] [--messages 50000]

Builds a local workspace with one thread whose second turn holds either a single
message of ``--mb`` MB or, with ``--messages N``, N short messages in one item (a
session document of ~1.5 MB at 50,000), then in a fresh interpreter drives the real
app headless (Textual's test driver, 120×40): opens the thread, opens the big turn
(the detail pane renders it, the raw item included), reads it in full to its last
page (``v``, ``G``), closes the reader and goes back to the list (``Esc``).

Prints, for each step, the wall time until the app is idle again (a floor of some 0.3 s:
six rounds of the test driver's pause, each waiting for the app to be idle), for the
open also until the turn with its point read is on the screen, the CPU time it took
(the process's, threads included: steadier on a shared machine), the peak RSS, and
what the detail drew (lines, characters, messages); asserts nothing. The detail cuts
a long text (64 KB or 1,000 lines), draws at most 100 messages, and the reader pages
the rest, so opening the turn should cost a few MB and well under a second more than
listing it, not hundreds of MB and many seconds (before: 8.6 s to show 50,000
messages, 18.8 s for Esc, 500 MB). Goal: a turn of 50,000 messages opens in ≤ 0.5 s
and ≤ 150 MB.
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
import asyncio, resource, sys, time
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


async def step(pilot, name, *keys, shown=None) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    await pilot.press(*keys)
    if shown is not None:  # until it is on the screen, before the app is idle again
        while not shown():
            await asyncio.sleep(0.002)
        await pilot.app.screen.wait_for_refresh()
        wall, used = time.perf_counter() - started, time.process_time() - cpu
        print(f"{name}-shown {wall:.2f} {used:.2f} {peak_mb():.0f}")
    await settle(pilot)
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    print(f"{name} {wall:.2f} {used:.2f} {peak_mb():.0f}")


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
        print(f"listed 0 0 {peak_mb():.0f}")
        pane = app.browse.detail_pane  # the second turn (the big one), its point read drawn
        await step(pilot, "opened", "j", "enter", shown=lambda: pane.raw is not None)
        body = app.screen.query_one("#detail-body").render().plain
        messages = len(app.browse.detail_pane.detail.turn.messages)
        print(f"drawn {body.count(chr(10))} {len(body)} {messages}")
        await step(pilot, "read", "v", "G")  # read it in full: the last page
        print(f"pages {app.screen.pages}")
        await step(pilot, "closed", "escape")
        await step(pilot, "back", "escape")


asyncio.run(main(sys.argv[1]))
"""


def big_turn(args: argparse.Namespace) -> tuple[list[dict[str, object]], str]:
    if args.messages:
        messages = [
            {"role": ("user", "agent")[n % 2], "content": f"message number {n} of a long session"}
            for n in range(args.messages)
        ]
        return messages, f"{args.messages:,} messages in one item"
    size = int(args.mb * 1_000_000)
    line = "the quick brown fox jumps over the lazy dog, again and again. "
    text = (line * (size // len(line) + 1))[:size]
    return [{"role": "user", "content": text}], f"one message of {size / 1e6:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=5.0, help="the message's size in MB")
    parser.add_argument("--messages", type=int, default=0, help="N short messages instead")
    args = parser.parse_args()
    messages, what = big_turn(args)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.sqlite"
        items = [exchange("acme", "t1", i) for i in range(3)]
        items[1]["messages"] = messages
        build_workspace(path, items, now=int(time.time()))
        size = path.stat().st_size
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=False
        )
    if out.returncode != 0:
        sys.exit(out.stderr[-2000:])
    rows = {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines() if line}
    print(f"the big turn: {what} (workspace {size / 1e6:.1f} MB)")
    for name, says in (
        ("listed", "thread listed"),
        ("opened-shown", "turn shown (Enter → drawn)"),
        ("opened", "turn opened (Enter → idle)"),
        ("read", "read to the last page (v, G)"),
        ("closed", "reader closed (Esc)"),
        ("back", "back to the list (Esc)"),
    ):
        seconds, cpu, peak = rows[name]
        print(
            f"{says:<32} {float(seconds):6.2f} s  CPU {float(cpu):5.2f} s   peak RSS {peak:>5} MB"
        )
    lines, chars, count = rows["drawn"]
    print(
        f"detail drew {int(lines):,} lines, {int(chars):,} characters of a turn of "
        f"{int(count):,} messages; the reader has {int(rows['pages'][0]):,} pages"
    )


if __name__ == "__main__":
    main()
