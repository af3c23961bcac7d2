"""What a view (and the palette) may ask of the app, as a protocol: no import of the app.

Views are built by the app; they only need its action registry, the name of the view
on screen, a way to hand over a typed command or a picked action, and what they ask of
another view (browse opening a tenant, thread or item; what browse has selected).
Naming that as a protocol keeps the dependency one way (the app knows its views, not
the reverse) and views apart: no view imports another (an import-linter contract).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the writes and the lifecycle load when first used
    from cosmem_tui.core.write_log import Interrupt
    from cosmem_tui.model import Key, ThreadRef
    from cosmem_tui.model.lifecycle import TtlScope
    from cosmem_tui.ui.actions import Registry, UiAction


class Host(Protocol):
    registry: Registry
    tail_flood_share: float | None  # the setting (None: the tail's default)

    @property
    def current_view(self) -> str | None: ...

    def run_command(self, line: str) -> None: ...

    def run_registry_action(self, action: UiAction) -> None: ...

    def show_in_browse(self, target: Key | ThreadRef, item_id: str | None = None) -> None:
        """Switch to the browse view with a tenant's threads (or a thread's turns, and
        one of its items when ``item_id`` is given) open."""
        ...

    def recall_turn(self, ref: ThreadRef, item_id: str, *, expected: bool = False) -> None:
        """Switch to the recall view with a turn of browse: what it recalls (its embedding
        as the query vector), or with ``expected`` why the probe on screen misses it."""
        ...

    def browse_selection(self) -> TtlScope:
        """What browse has selected: the open thread, else the open or highlighted
        tenant (the whole container before browse is shown)."""
        ...

    def write_applying(self, interrupt: Interrupt | None) -> None:
        """A confirmed write starts (its ``Interrupt``, which a SIGTERM or SIGHUP asks to
        stop between two requests) or ends (None: a quit a signal asked for happens now)."""
        ...
