"""The lifecycle view's ``:`` commands: what their words mean (``spec.py`` declares
them, the screen runs them). Pure: no widgets."""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.ui.commands import Mistake, ParsedCommand, SwitchView, Typed


@dataclass(frozen=True)
class SetIdleGap(ParsedCommand):
    seconds: int


def parse_scope(typed: Typed) -> ParsedCommand:
    """``:ttl [TENANT [THREAD]]``, from any view: the lifecycle view, on what is named."""
    if len(typed.args) <= 2:
        return SwitchView("ttl", typed.args)
    return Mistake(f"usage: :ttl [{typed.label.upper()} [THREAD]]")


def parse_idle_gap(typed: Typed) -> ParsedCommand:
    """``:idle SECONDS``: the gap after which a resumed thread starts a new episode."""
    words = typed.args
    if len(words) != 1 or not words[0].isdigit() or int(words[0]) < 1:
        return Mistake("usage: :idle SECONDS (e.g. :idle 1800)")
    return SetIdleGap(int(words[0]))
