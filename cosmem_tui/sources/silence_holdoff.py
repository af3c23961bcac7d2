"""Whether the account answers, the ``RequestLedger``'s watch half: silence (a request
with no answer within its deadline stops background work until an answer comes) and
the 429s that hold the whole session off (``HoldOff``), each heard by its listeners.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from cosmem_tui.model import Silence, Throttling
from cosmem_tui.sources.errors import ServerSilent
from cosmem_tui.sources.holdoff import HoldOff

ThrottleListener = Callable[[Throttling], None]
SilenceListener = Callable[[Silence], None]
_L = TypeVar("_L")


class SilenceAndHoldOff:
    """The silence and throttling half of ``RequestLedger`` (a mixin over its state)."""

    if TYPE_CHECKING:  # provided by RequestLedger
        _lock: threading.Lock
        _silence: str | None
        _silence_listeners: list[SilenceListener]
        _throttle_listeners: list[ThrottleListener]
        _last_throttle: Throttling | None
        hold_off: HoldOff

        def _add(self, listeners: list[_L], listener: _L) -> Callable[[], None]: ...

    # -- silence ------------------------------------------------------------------------

    @property
    def silent(self) -> bool:
        """Has the account stopped answering (and not answered since)?"""
        with self._lock:
            return self._silence is not None

    @property
    def silence(self) -> str | None:
        """What was not answered, while the account is silent (None: it answers)."""
        with self._lock:
            return self._silence

    def note_silence(self, text: str) -> None:
        """A request got no answer within its deadline: background work stops until an
        answer comes (the listeners hear it once)."""
        with self._lock:
            if self._silence is not None:
                return
            self._silence = text
            listeners = list(self._silence_listeners)
        for listener in listeners:
            listener(Silence(True, text))

    def check_silence(self, operation: str, target: str) -> None:
        """Background work is not sent to an account that stopped answering."""
        with self._lock:
            text = self._silence
        if text is not None:
            raise ServerSilent(
                f"{operation} ({target}) not sent: {text}; background work is stopped "
                "until the account answers a request again"
            )

    def subscribe_silence(self, listener: SilenceListener) -> Callable[[], None]:
        return self._add(self._silence_listeners, listener)

    # -- throttling ---------------------------------------------------------------------

    def subscribe_throttle(self, listener: ThrottleListener) -> Callable[[], None]:
        return self._add(self._throttle_listeners, listener)

    def note_throttle(
        self,
        operation: str,
        target: str,
        attempt: int,
        retry_after_ms: float | None,
        *,
        sub_status: int | None = None,
    ) -> None:
        """A 429 arrived: hold the whole session off and tell the listeners.

        ``sub_status``: the answer's x-ms-substatus, i.e. why it was throttled."""
        wait_s = self.hold_off.throttled(retry_after_ms)
        event = Throttling(operation, target, attempt, retry_after_ms, wait_s, sub_status)
        with self._lock:
            self._last_throttle = event
            listeners = list(self._throttle_listeners)
        for listener in listeners:
            listener(event)

    def last_throttle(self) -> Throttling | None:
        """The newest 429 of the session (None: none yet), with its cause."""
        with self._lock:
            return self._last_throttle

    def note_answer(self) -> None:
        """A response that is not a 429: the account serves us again."""
        self.hold_off.answered()

    def throttle_pause_s(self) -> float:
        """Seconds every call (and every live poller) still waits (0 when not throttled)."""
        return self.hold_off.pause_s()
