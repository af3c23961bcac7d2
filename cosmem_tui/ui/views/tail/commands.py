"""The tail view's ``:`` commands: what their words mean (``spec.py`` declares them, the
screen runs them). Pure: no widgets."""

from __future__ import annotations

from cosmem_tui.ui.commands import Mistake, ParsedCommand, SwitchView, Typed


def parse_scope(typed: Typed) -> ParsedCommand:
    """``:tail [TENANT [THREAD]]``, from any view: the tail of what is named (none:
    what browse has selected)."""
    if len(typed.args) <= 2:
        return SwitchView("tail", typed.args)
    return Mistake(f"usage: :tail [{typed.label.upper()} [THREAD]]")
