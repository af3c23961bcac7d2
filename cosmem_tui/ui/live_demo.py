"""Ticks the demo's live workload while the demo is on screen (``core/demo/live.py``).

The app starts it when a demo session is attached (its header says "demo workspace")
and stops it when that session goes (a profile switch, quitting). Each tick runs in a
worker, one at a time, and the work itself in a thread: the workload is built there on
the first tick (its modules, the writable handle, the telemetry's keys), and the event
loop never waits on SQLite; a tick that is slow is skipped rather than stacked. The
session closes the workload after a tick in progress, so a quit or a signal never cuts
a transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App
from textual.timer import Timer

from cosmem_tui.core.demo import LIVE_TICK_S
from cosmem_tui.ui.messages import describe_error
from cosmem_tui.ui.workers import run_async

if TYPE_CHECKING:
    from cosmem_tui.core.demo.live import LiveDemo

WORKER_GROUP = "demo-live"


class LiveDemoTicker:
    def __init__(
        self,
        app: App[None],
        build: Callable[[], LiveDemo | None],
        *,
        interval_s: float | None = None,
    ) -> None:
        self._app = app
        self._build = build
        self.live: LiveDemo | None = None  # built on the first tick
        self.interval_s = LIVE_TICK_S if interval_s is None else interval_s
        self._timer: Timer | None = None
        self._in_flight = False
        self.failure: str | None = None

    @property
    def running(self) -> bool:
        return self._timer is not None

    def start(self) -> None:
        if self._timer is None:
            self._timer = self._app.set_interval(self.interval_s, self.tick, name="demo-live")

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def tick(self) -> None:
        """Write what is due now, in a worker (skipped while the last tick runs)."""
        if self._in_flight or self.failure is not None:
            return
        if self.live is not None and self.live.closed:
            return
        self._in_flight = True
        run_async(self._app, self._step, group=WORKER_GROUP, exit_on_error=False)

    async def _step(self) -> None:
        try:
            if self.live is None:
                self.live = await asyncio.to_thread(self._build)
                if self.live is None:
                    self.stop()
                    return
            await asyncio.to_thread(self.live.step)
        except Exception as exc:  # not the demo's file, a full disk: say so once, stop
            self.stop()
            self.failure = f"the demo stays still: {describe_error(exc)}"
            self._app.notify(self.failure, severity="warning", timeout=10, markup=False)
        finally:
            self._in_flight = False
