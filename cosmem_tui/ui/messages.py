"""Small helpers every view shares: a failure as one line, plain titles, a cost in words."""

from __future__ import annotations

import logging

from textual.content import Content

from cosmem_tui.core.errors import describe, is_expected
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Meter

log = logging.getLogger(__name__)


def describe_error(exc: BaseException) -> str:
    if not is_expected(exc):
        log.exception("unexpected error while loading", exc_info=exc)
    return describe(exc)


def plain(text: str) -> Content:
    """Border titles parse markup when given a str: item text must arrive as Content."""
    return Content(one_line(text, 80))


def cost_text(cost: Meter) -> str:
    sim = " sim" if cost.simulated else ""
    plural = "" if cost.requests == 1 else "s"
    return f"{cost.requests} request{plural}, {cost.request_units:,.1f} RU{sim}"
