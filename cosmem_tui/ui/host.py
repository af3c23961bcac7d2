"""What a view (and the palette) may ask of the app, as a protocol: no import of the app.

Views are built by the app; they only need its action registry, the name of the view
on screen, and a way to hand over a typed command or a picked action. Naming that as
a protocol keeps the dependency one way (the app knows its views, not the reverse).
"""

from __future__ import annotations

from typing import Protocol

from cosmem_tui.core.write_log import Interrupt
from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.ui.actions import Registry, UiAction


class Host(Protocol):
    registry: Registry

    @property
    def current_view(self) -> str | None: ...

    def run_command(self, line: str) -> None: ...

    def run_registry_action(self, action: UiAction) -> None: ...

    def show_in_browse(self, target: Key | ThreadRef) -> None:
        """Switch to the browse view with a tenant's threads (or a thread's turns) open."""
        ...

    def write_applying(self, interrupt: Interrupt | None) -> None:
        """A confirmed write starts (its ``Interrupt``, which a SIGTERM or SIGHUP asks to
        stop between two requests) or ends (None: a quit a signal asked for happens now)."""
        ...
