"""The telemetry views' ``:`` commands (``:window``, ``:region``): what their words mean.
Pure: no widgets."""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.core.text import one_line
from cosmem_tui.model.telemetry_choices import Window
from cosmem_tui.ui.commands import Mistake, ParsedCommand, Typed


@dataclass(frozen=True)
class SetWindow(ParsedCommand):
    window: Window | None  # None: the next one


@dataclass(frozen=True)
class SetRegion(ParsedCommand):
    region: str | None  # as typed ("East US"); None: the next one


def parse_window(typed: Typed) -> ParsedCommand | None:
    if len(typed.args) > 1:
        return None
    if not typed.args:
        return SetWindow(None)
    try:
        return SetWindow(Window.parse(typed.args[0]))
    except ValueError as exc:
        return Mistake(one_line(str(exc), 80))


def parse_region(typed: Typed) -> ParsedCommand:
    return SetRegion(" ".join(typed.args) if typed.args else None)
