"""Messages the browse pane's workers post (snapshots only), and small shared helpers."""

from __future__ import annotations

import logging
from enum import IntEnum
from typing import Any

from textual.content import Content
from textual.message import Message

from cosmem_tui.core.directory import CountState, Listing
from cosmem_tui.core.errors import describe, is_expected
from cosmem_tui.core.text import one_line
from cosmem_tui.core.turn_window import Side
from cosmem_tui.model import Key, Meter, RequestCharge, Throttling

log = logging.getLogger(__name__)


class Level(IntEnum):
    TENANTS = 0
    THREADS = 1
    TURNS = 2
    DETAIL = 3


class Loaded(Message):
    def __init__(
        self, level: Level, generation: int, value: Any, cost: Meter, side: Side | None = None
    ) -> None:
        super().__init__()
        self.level = level
        self.generation = generation
        self.value = value
        self.cost = cost
        self.side = side


class LoadFailed(Message):
    def __init__(self, level: Level, generation: int, error: str, side: Side | None = None) -> None:
        super().__init__()
        self.level = level
        self.generation = generation
        self.error = error
        self.side = side


class NamesListed(Message):
    """Progress (or the end) of listing the top-level keys."""

    def __init__(self, generation: int, listing: Listing, final: bool) -> None:
        super().__init__()
        self.generation = generation
        self.listing = listing
        self.final = final


class Counted(Message):
    """The counts of one top-level key arrived (or failed on their own)."""

    def __init__(self, key: Key, state: CountState) -> None:
        super().__init__()
        self.key = key
        self.state = state


class Charged(Message):
    def __init__(self, record: RequestCharge) -> None:
        super().__init__()
        self.record = record


class ThrottleNotice(Message):
    """The account answered 429: the whole console holds off, then tries again."""

    def __init__(self, event: Throttling) -> None:
        super().__init__()
        self.event = event


class SourceNotice(Message):
    """A line the user must read now, e.g. a device-code sign-in prompt."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


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
