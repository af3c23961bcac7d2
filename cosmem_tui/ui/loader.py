"""The worker + generation pattern, once: fetch off the main thread, render on it, drop stale.

A widget that loads something owns a ``Loader``. ``start`` runs the fetch in a Textual
worker (inside a ledger meter, so the result comes with what it cost, and labelled
with the action that caused it); the result is handed back on the main thread, to
``done`` or ``failed`` — unless the loader was bumped meanwhile (the user moved on),
in which case it is dropped. Workers never touch a widget.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from textual.dom import DOMNode

from cosmem_tui.core.session import Session
from cosmem_tui.model import Meter
from cosmem_tui.ui.messages import describe_error
from cosmem_tui.ui.workers import run_async

T = TypeVar("T")


class Loader:
    def __init__(self, owner: DOMNode, name: str) -> None:
        self.owner = owner
        self.name = name
        self.generation = 0
        self._groups: set[str] = set()

    def bump(self) -> int:
        """Forget whatever is in flight: its result will be dropped, its worker cancelled."""
        self.generation += 1
        for group in self._groups:
            self.owner.workers.cancel_group(self.owner, group)
        return self.generation

    def start(
        self,
        session: Session,
        fetch: Callable[[], Awaitable[T]],
        done: Callable[[T, Meter], None],
        failed: Callable[[str], None],
        *,
        cause: str = "",
        group: str | None = None,
        exclusive: bool = True,
    ) -> None:
        generation = self.generation
        ledger = session.ledger

        async def work() -> None:
            try:
                with ledger.caused_by(cause), ledger.meter() as cost:
                    value = await fetch()
            except Exception as exc:  # every failure is shown where it happened
                error = describe_error(exc)
                self.owner.call_later(self._deliver, generation, failed, error)
                return
            self.owner.call_later(self._deliver, generation, done, value, cost)

        group = group or self.name
        self._groups.add(group)
        run_async(self.owner, work, group=group, exclusive=exclusive, exit_on_error=False)

    def _deliver(self, generation: int, callback: Callable[..., None], *args: Any) -> None:
        if generation == self.generation:
            callback(*args)
