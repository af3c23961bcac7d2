"""The live refresh loop every live view uses: fetch → render → wait → fetch, never overlapping.

Dolphie-style: a worker fetches (it never touches a widget), the result is rendered on
the main thread, and only then is the next fetch scheduled with ``set_timer`` — so a
slow source never piles fetches up. The loop stops while its view is hidden (another
view, or a modal over it: Textual suspends the screen), while the user paused it
(``p``), and while the session is held off after a 429 (it waits out the hold-off
before calling the account). ``ctrl+r`` fetches at once. The interval is 5 s by
default and never under 2 s: a jump box's link and a throttled account both matter.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from textual.screen import Screen
from textual.timer import Timer

from cosmem_tui.config.files import DEFAULT_REFRESH_S, REFRESH_FLOOR_S
from cosmem_tui.ui.workers import run_async

T = TypeVar("T")

DEFAULT_INTERVAL_S = DEFAULT_REFRESH_S


class RefreshLoop(Generic[T]):
    def __init__(
        self,
        screen: Screen[None],
        fetch: Callable[[], Awaitable[T]],
        render: Callable[[T], None],
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        hold_off_s: Callable[[], float] = lambda: 0.0,
        failed: Callable[[BaseException], None] | None = None,
        name: str = "refresh",
        floor_s: float = REFRESH_FLOOR_S,
    ) -> None:
        self._screen = screen
        self._fetch = fetch
        self._render = render
        self._failed = failed
        self._hold_off_s = hold_off_s
        self._floor_s = floor_s  # the tail polls each second: a poll is one small read
        self.interval_s = interval_s
        self.name = name
        self.paused_by_user = False
        self.hidden = True  # until the screen is shown
        self.in_flight = False
        self.fetches = 0  # how many fetches started (tests and the status line read it)
        self.last_error: str | None = None
        self._timer: Timer | None = None
        self._generation = 0
        self._stale = False  # what is in flight answers a question no longer asked

    # -- state ---------------------------------------------------------------------------

    @property
    def interval_s(self) -> float:
        return self._interval_s

    @interval_s.setter
    def interval_s(self, seconds: float) -> None:
        self._interval_s = max(self._floor_s, seconds)

    @property
    def running(self) -> bool:
        return not self.paused_by_user and not self.hidden

    def describe(self) -> str:
        if self.paused_by_user:
            return "paused (p resumes)"
        return f"every {self.interval_s:g} s"

    # -- what the view tells the loop ----------------------------------------------------

    def shown(self) -> None:
        """The view is on screen (mounted, or resumed): fetch now if nothing is pending."""
        self.hidden = False
        if self.running and not self.in_flight:
            self._schedule(0.0)

    def hidden_now(self) -> None:
        """Another view or a modal covers it: no fetch is started until it is shown."""
        self.hidden = True
        self._cancel_timer()

    def toggle_pause(self) -> bool:
        self.paused_by_user = not self.paused_by_user
        if self.paused_by_user:
            self._cancel_timer()
        elif not self.hidden and not self.in_flight:
            self._schedule(0.0)
        return self.paused_by_user

    def refresh_now(self) -> None:
        """``ctrl+r``: fetch at once (unless one is on its way), paused or not."""
        if self.in_flight:
            return
        self._cancel_timer()
        self._start()

    def changed(self) -> None:
        """The question changed (another window, a drill): ask the new one at once.

        A fetch in flight answers the old question: its answer is dropped and the new
        fetch starts when it is back, so fetches still never overlap.
        """
        if self.in_flight:
            self._stale = True
            return
        self.refresh_now()

    # -- the loop --------------------------------------------------------------------------

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _schedule(self, delay_s: float) -> None:
        self._cancel_timer()
        if delay_s <= 0:
            self._screen.call_later(self._tick)  # now, after what is being handled
            return
        self._timer = self._screen.set_timer(delay_s, self._tick, name=self.name)

    def _tick(self) -> None:
        self._timer = None
        if not self.running or self.in_flight:
            return
        wait = self._hold_off_s()
        if wait > 0:  # the account asked everyone to wait: so does this view
            self._schedule(wait)
            return
        self._start()

    def _start(self) -> None:
        self.in_flight = True
        self.fetches += 1
        self._generation += 1
        generation = self._generation

        async def work() -> None:
            try:
                value = await self._fetch()
            except Exception as exc:  # a failed fetch is shown; the loop goes on
                self._screen.call_later(self._done, generation, None, exc)
                return
            self._screen.call_later(self._done, generation, value, None)

        run_async(self._screen, work, group=self.name, exit_on_error=False)

    def _done(self, generation: int, value: T | None, error: BaseException | None) -> None:
        if generation != self._generation:
            return
        self.in_flight = False
        if self._stale:
            self._stale = False
            self._start()
            return
        if error is not None:
            self.last_error = str(error)
            if self._failed is not None:
                self._failed(error)
        else:
            self.last_error = None
            self._render(value)  # type: ignore[arg-type]
        if self.running:
            self._schedule(self.interval_s)
