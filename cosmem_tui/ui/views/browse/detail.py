"""The turn detail: who said what, why it will (or won't) expire, and the raw item."""

from __future__ import annotations

from dataclasses import dataclass

from rich.highlighter import JSONHighlighter
from rich.text import Text

from cosmem_tui.core.browse import TurnDetail
from cosmem_tui.core.text import (
    LONG_LINES,
    LONG_TEXT,
    cut_long,
    indented_json_start,
    one_line,
    size_text,
    visible,
)
from cosmem_tui.model import MISSING, TtlClass, TtlState, Turn
from cosmem_tui.model.entities import MessageColumns
from cosmem_tui.model.times import utc_text
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.ui.views.browse.rows import turn_name

ROLE_STYLES = {
    "user": "bold #6cb6ff",
    "agent": "bold #6cc38a",
    "assistant": "bold #6cc38a",
    "system": "bold #c9a0ff",
    "tool": "bold #e5b454",
}


# The class line (ItemTtl.describe) in the colour of what the item does.
CLASS_STYLES = {
    TtlClass.SHORT: "bold yellow",
    TtlClass.LONG: "bold green",
    TtlClass.DEFAULT: "bold",
    TtlClass.IGNORED: "bold",
    TtlClass.INVALID: "bold yellow",
}


def utc(epoch: float | None) -> str:
    return utc_text(epoch, "%Y-%m-%d %H:%M:%S UTC")


def ttl_lines(turn: Turn, now: float) -> list[tuple[str, str]]:
    """(text, style) lines explaining the item's lifecycle.

    The item's own ttl is shown as JSON, so the string "3600" keeps its quotes and
    never reads like the number; an invalid one is flagged with why it is ignored.
    """
    ttl = turn.ttl
    shown = ttl.raw_display
    reason = ttl.invalid_reason
    headline = [(ttl.describe(now), CLASS_STYLES.get(ttl.ttl_class, "bold"))]
    if ttl.raw is MISSING:
        own = "no item ttl"
    elif reason is not None:
        own = f"item ttl {shown} ignored"
    else:
        own = f"item ttl {shown}"
    flagged = [(f"⚠ item ttl {shown} is {reason}: ignored", "bold yellow")] if reason else []
    written = f"last write (_ts) {utc(ttl.last_write)}"
    if ttl.state is TtlState.OFF:
        return [
            *headline,
            *flagged,
            (
                "never expires: TTL is off on the container"
                + (f" (item ttl {shown} is ignored)" if ttl.raw is not MISSING else "")
                + f" · {written}",
                "dim",
            ),
        ]
    default = f"container default {ttl.container_default}"
    if ttl.state is TtlState.NEVER:
        why = own if ttl.own == -1 else f"{own}; {default}"
        return [*headline, *flagged, (f"never expires ({why}) · {written}", "dim")]
    remaining = ttl.remaining(now) or 0.0
    source = own if ttl.own is not None else f"{own}; {default} applies"
    when = utc(ttl.expires_at)
    if remaining <= 0:
        at = f"expired {format_duration(-remaining)} ago, at {when}"
    else:
        at = f"expires at {when}"
    return [
        *headline,
        *flagged,
        (f"{at}: ttl {ttl.effective}s ({source}), counted from the {written}", "dim"),
    ]


@dataclass(frozen=True, slots=True)
class RawItem:
    """The raw item section, encoded once per point read: a 5 MB item is not encoded
    again on each render (the countdowns re-render every 30 s)."""

    shown: str  # the start of the escaped JSON the pane shows
    more: int  # UTF-8 bytes left after it (0: nothing is cut)
    size: int  # the item's JSON length, as the heading counts it
    highlighted: Text  # ``shown`` in the JSON colours (coloured once, not each render)


def raw_item(detail: TurnDetail) -> RawItem:
    # What the pane shows of the indented JSON, and the sizes of the whole: the 64 KB
    # shown are written, not the megabytes after them (``indented_json_start``).
    start = indented_json_start(dict(detail.item.body), lines=LONG_LINES)
    highlighted = Text(start.shown)
    JSONHighlighter().highlight(highlighted)
    return RawItem(start.shown, start.more, start.length, highlighted)


def render_detail(
    turn: Turn,
    detail: TurnDetail | None,
    now: float,
    *,
    raw_status: str | None = None,
    read_key: str = "v",
    label: str | None = None,
    raw: RawItem | None = None,
) -> Text:
    """The detail pane's text; ``label`` names the turn as its row does (default: by its
    order value, ``turn_name``); ``raw`` is ``raw_item(detail)`` when the caller kept it."""
    text = Text()

    def add(line: str, style: str | None = None) -> None:
        # The one way text enters the pane (the raw JSON aside, escaped by
        # json_for_terminal): ids, order, kind, ttl, problems, roles and messages are
        # item data, and whatever quotes them is escaped here, newlines kept.
        text.append(visible(line, multiline=True), style)

    kind = "" if turn.kind == "turn" else f" · {one_line(turn.kind, exact=True)}"
    add(f"{label or turn_name(turn)}{kind}", "bold")
    add(f" · {utc(turn.timestamp)}\n", "dim")
    add(f"id {visible(turn.item_id, exact=True)}\n", "dim")
    if turn.part is not None:
        add(f"message {turn.part} of a session document: its ttl covers the whole session\n", "dim")
    for line, style in ttl_lines(turn, now):
        add(visible(line) + "\n", style)
    if turn.problems:
        add("\n⚠ malformed item\n", "bold yellow")
        for problem in turn.problems:
            add(f"  • {visible(problem)}\n", "yellow")
    add("\n── transcript ──\n", "bold dim")
    if not turn.messages:
        add("(no messages: see the raw item)\n", "dim")
    drawn = shown_messages(turn)
    for message in turn.messages[:drawn]:
        add(visible(message.role, exact=True), ROLE_STYLES.get(message.role, "bold"))
        add("\n")
        # A long text is cut before it is escaped or laid out: a 5 MB message costs
        # what 64 KB does; the rest is read on demand (``reader.py``).
        shown, more = cut_long(message.text, lines=LONG_LINES)
        body = visible(shown, multiline=True) or "(empty)"
        for line in body.split("\n"):
            add(f"  {line}\n")
        if more:
            add(f"  {more_note(more, read_key)}\n", "bold yellow")
    if drawn < len(turn.messages):
        add(f"{more_messages_note(turn, drawn, read_key)}\n", "bold yellow")
    add("\n── raw item", "bold dim")
    if detail is None:
        add(" ──\n", "bold dim")
        add(one_line(raw_status or "loading the item (point read)…") + "\n", "dim")
        return text
    if raw is None:
        raw = raw_item(detail)
    add(f" (point read, {raw.size:,} bytes) ──\n", "bold dim")
    text.append_text(raw.highlighted)  # copied in: the kept one is not changed
    if raw.more:
        add(f"\n{more_note(raw.more, read_key)}\n", "bold yellow")
    return text


# The transcript draws at most this many messages, and none once DRAWN_TEXT characters
# or LONG_LINES lines of text are drawn: an item of 50,000 messages (one document per
# session) is laid out as fast as one of 100, and ``v`` pages through the rest
# (``reader.py``). Each text is also cut at LONG_TEXT characters or LONG_LINES lines.
DRAWN_MESSAGES = 100
DRAWN_TEXT = LONG_TEXT


def shown_messages(turn: Turn) -> int:
    """How many of the turn's messages the detail draws (the first ones, in order)."""
    chars = lines = 0
    for count, message in enumerate(turn.messages[:DRAWN_MESSAGES]):
        if chars >= DRAWN_TEXT or lines >= LONG_LINES:
            return count
        text = message.text[:LONG_TEXT]  # a longer text is cut there
        chars += len(text)
        lines += min(text.count("\n") + 2, LONG_LINES)  # its role line too
    return min(len(turn.messages), DRAWN_MESSAGES)


def more_messages_note(turn: Turn, drawn: int, read_key: str) -> str:
    """What follows the messages drawn: how many are left, their size, how to read them."""
    messages = turn.messages
    left = len(messages) - drawn
    if isinstance(messages, MessageColumns):  # sized once, when the item was mapped
        size = messages.text_bytes_from(drawn)
    else:
        size = sum(len(m.text.encode("utf-8", "surrogatepass")) for m in messages[drawn:])
    count = f"{left:,} more message{'s' if left != 1 else ''}"
    return (
        f"… {count} ({size_text(size)} of text), {drawn:,} of {len(turn.messages):,} shown "
        f"(press {read_key} to read them all)"
    )


def more_note(more: int, read_key: str) -> str:
    """What follows a cut text: how much is left and how to read it."""
    return f"… {size_text(more)} more (press {read_key} to read it all)"
