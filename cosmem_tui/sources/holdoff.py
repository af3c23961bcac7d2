"""The session's one "hold off until" gate: a throttled account is never pushed harder.

When the service answers 429 it says how long to wait (``x-ms-retry-after-ms``). Every
call awaits this gate before it sends anything, so after a 429 the whole console waits
(with a little jitter, so parallel work does not return in lock-step), and then sends
*one* request to probe the account: while the session is throttled, at most one request
is in flight. The first answer that is not a 429 opens the gate for everyone again.

The gate is shared by code running on different event loops (the session is opened on
a thread of its own), so its state is plain data behind a thread lock and each event
loop gets its own probe lock.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

DEFAULT_JITTER = 0.2  # up to 20 % longer than asked: callers do not all return at once
MIN_WAIT_S = 0.05  # a 429 without retry-after still gets a short pause


class HoldOff:
    def __init__(
        self,
        *,
        jitter: float = DEFAULT_JITTER,
        random_fraction: Callable[[], float] = random.random,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._jitter = jitter
        self._random = random_fraction
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._until = 0.0
        self._throttled = False
        self._probes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    # -- what the service said ----------------------------------------------------------

    def throttled(self, retry_after_ms: float | None) -> float:
        """A 429 arrived: hold everyone off; returns the wait in seconds (jitter included)."""
        wait_s = max(MIN_WAIT_S, (retry_after_ms or 0.0) / 1000.0)
        wait_s *= 1.0 + self._jitter * self._random()
        with self._lock:
            self._until = max(self._until, self._monotonic() + wait_s)
            self._throttled = True
        return wait_s

    def answered(self) -> None:
        """An answer that is not a 429: the account serves us again."""
        with self._lock:
            self._throttled = False

    # -- what callers see ---------------------------------------------------------------

    def pause_s(self) -> float:
        """Seconds until the gate opens (0 when it is open)."""
        with self._lock:
            return max(0.0, self._until - self._monotonic())

    @property
    def is_throttled(self) -> bool:
        with self._lock:
            return self._throttled

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait until a request may go out; while throttled, be the only one in flight."""
        probe = await self._acquire()
        try:
            yield
        finally:
            if probe is not None:
                probe.release()

    async def _acquire(self) -> asyncio.Lock | None:
        while True:
            wait = self.pause_s()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if not self.is_throttled:
                return None
            probe = self._probe_lock()
            await probe.acquire()
            if self.pause_s() > 0 or not self.is_throttled:
                probe.release()  # throttled again meanwhile, or the probe got through
                if not self.is_throttled and self.pause_s() == 0:
                    return None
                continue
            return probe

    def _probe_lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._lock:
            probe = self._probes.get(loop)
            if probe is None:
                probe = self._probes[loop] = asyncio.Lock()
            return probe
