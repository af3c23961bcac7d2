"""Defaults for a console used over SSH, in tmux, on a jump box.

Every frame crosses the network, so nothing moves unless the data did: no animations
(``TEXTUAL_ANIMATIONS`` still wins when set), no blinking cursor in any input (a blink
is a repaint twice a second). ``ctrl+c`` quits like ``q``, even from a prompt; neither
quits while a write is being applied, and the user is told why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, Protocol

AnimationLevel = Literal["none", "basic", "full"]
LEVELS: tuple[AnimationLevel, ...] = ("none", "basic", "full")
APPLY_WORKER = "write: apply"  # the worker that applies a confirmed write (ui/write_flow.py)
WRITE_UNDER_WAY = (
    "a write is being applied: quitting now could leave it half done; "
    "ctrl+c or q quits once it ends (its progress is on the status line)"
)


def animation_level(environ: Mapping[str, str]) -> AnimationLevel:
    """``none`` unless ``TEXTUAL_ANIMATIONS`` names a level."""
    value = environ.get("TEXTUAL_ANIMATIONS", "").strip().lower()
    for level in LEVELS:
        if value == level:
            return level
    return "none"


def steady_cursor(widget: object) -> None:
    """An input (``:`` prompt, filter, dialog field) shows a steady cursor."""
    if getattr(widget, "cursor_blink", False):
        widget.cursor_blink = False  # type: ignore[attr-defined]


class _Worker(Protocol):
    name: str

    @property
    def is_finished(self) -> bool: ...


def why_not_quit(workers: Iterable[_Worker]) -> str | None:
    """None when quitting is safe; else why not, in one line."""
    if any(w.name == APPLY_WORKER and not w.is_finished for w in workers):
        return WRITE_UNDER_WAY
    return None
