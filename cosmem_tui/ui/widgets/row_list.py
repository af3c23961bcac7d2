"""RowList: a keyboard-first list of rows drawn with the Line API.

Only the visible lines are rendered, so a list costs the same at 50 rows and at
100,000. Rows come from a ``RowSource`` that may be lazy: a row it cannot give
yet is drawn as a placeholder and the list asks for it with ``NeedRows``. Cell
text is always drawn as plain segments (never markup) and must already be made
safe by ``cosmem_tui.core.text``.

The ``/`` filter asks the source for each row's search text once (folded, kept until
the rows change), and a keystroke that lengthens the filter only looks again at the
rows the shorter one kept: typing a word into 100,000 rows formats no row and folds
no text twice.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import ClassVar, Literal, Protocol, cast

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cosmem_tui.core.text import one_line
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.widgets.hint_line import fit_line

Tone = Literal["", "dim", "warn", "bad", "good", "accent"]
Cell = tuple[str, Tone]

# The most characters of search text a list keeps for its ``/`` filter (a few MB): keys,
# names and records fit many times over; past it (the turns of a long thread, every
# message's text) each row's text is asked again as the filter is typed, kept by no one.
KEPT_SEARCH_TEXT = 4_000_000


def common_start(texts: Sequence[str]) -> str:
    """The longest start every text shares: the lowest and the highest share it (min and
    max are C loops over the texts; the rest is a walk along two of them)."""
    if not texts:
        return ""
    low, high = min(texts), max(texts)
    end = 0
    for a, b in zip(low, high, strict=False):
        if a != b:
            break
        end += 1
    return low[:end]


@dataclass(frozen=True)
class Column:
    title: str
    width: int | None = None  # None: takes the remaining width
    justify: Literal["left", "right"] = "left"
    drop_order: int = 0  # columns with a higher number are dropped first when narrow
    min_width: int = 8  # for the flexible column: drop others before going narrower


class RowSource(Protocol):
    def __len__(self) -> int: ...

    def row(self, index: int) -> Sequence[Cell] | None:
        """The cells of row ``index``, or None while it is not loaded."""
        ...

    # Optional: ``placeholder(index) -> str | None`` says what an unloaded row shows
    # instead of "… loading" (e.g. that the page it belongs to failed); ``spans(index)
    # -> bool`` draws a row's first cell across the whole line (a section's title);
    # ``search_texts() -> Sequence[str | None]`` is every row's ``search_text`` at once
    # (100,000 rows asked in one call, not one each).

    def search_text(self, index: int) -> str | None:
        """What ``/`` filters on (lower-cased by the list), None while not loaded."""
        ...


class _Empty:
    def __len__(self) -> int:
        return 0

    def row(self, index: int) -> Sequence[Cell] | None:
        return None

    def search_text(self, index: int) -> str | None:
        return None


def fit_columns(
    columns: Sequence[Column], width: int, keep: frozenset[int] = frozenset()
) -> list[tuple[int, int]]:
    """(column index, width) of the columns that fit, in display order: the highest
    ``drop_order`` goes first, never a column in ``keep`` (what a narrowing is about)."""
    kept = list(range(len(columns)))
    while True:
        fixed = sum(columns[i].width or 0 for i in kept)
        flexible = [i for i in kept if columns[i].width is None]
        gaps = max(0, len(kept) - 1)
        need = fixed + gaps + sum(columns[i].min_width for i in flexible)
        if need <= width or len(kept) == 1:
            break
        droppable = [i for i in kept if columns[i].drop_order and i not in keep]
        if not droppable:
            break
        kept.remove(max(droppable, key=lambda i: (columns[i].drop_order, i)))
    fixed = sum(columns[i].width or 0 for i in kept)
    flexible = [i for i in kept if columns[i].width is None]
    spare = max(0, width - fixed - max(0, len(kept) - 1))
    widths: list[tuple[int, int]] = []
    for i in kept:
        if columns[i].width is not None:
            w = columns[i].width or 0
        else:
            share = spare // len(flexible)
            w = share + (spare % len(flexible) if i == flexible[-1] else 0)
        widths.append((i, max(1, w)))
    return widths


def fit_text(text: str, width: int, justify: str = "left") -> str:
    """Crop (with an ellipsis) or pad ``text`` to exactly ``width`` cells."""
    length = cell_len(text)
    if length > width:
        return set_cell_size(text, width - 1) + "…" if width > 1 else "…"[:width]
    pad = " " * (width - length)
    return pad + text if justify == "right" else text + pad


class RowList(ScrollView, can_focus=True):
    # No bindings of its own: the view's registry bindings move the focused list.
    BINDINGS: ClassVar = []

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "row-list--header",
        "row-list--cursor",
        "row-list--cursor-blurred",
        "row-list--dim",
        "row-list--warn",
        "row-list--bad",
        "row-list--good",
        "row-list--accent",
        "row-list--placeholder",
    }

    DEFAULT_CSS = """
    RowList { background: $surface; overflow-x: hidden; scrollbar-size-vertical: 1; }
    RowList > .row-list--header { color: $text-muted; text-style: bold; }
    RowList > .row-list--cursor { background: $accent 60%; color: $text; text-style: bold; }
    RowList > .row-list--cursor-blurred { background: $panel-lighten-2; }
    RowList > .row-list--dim { color: $text-muted; }
    RowList > .row-list--warn { color: $warning; }
    RowList > .row-list--bad { color: $error; }
    RowList > .row-list--good { color: $success; }
    RowList > .row-list--accent { color: $accent; }
    RowList > .row-list--placeholder { color: $text-disabled; }
    """

    class Highlighted(Message):
        def __init__(self, row_list: RowList, index: int | None) -> None:
            super().__init__()
            self.row_list = row_list
            self.index = index

        @property
        def control(self) -> RowList:
            return self.row_list

    class NeedRows(Message):
        """A placeholder row is on screen or under the cursor: load around ``index``."""

        def __init__(self, row_list: RowList, index: int) -> None:
            super().__init__()
            self.row_list = row_list
            self.index = index

        @property
        def control(self) -> RowList:
            return self.row_list

    class RowsShown(Message):
        """The rows on screen changed: ``indices`` are their source rows (for details on demand)."""

        def __init__(self, row_list: RowList, indices: tuple[int, ...]) -> None:
            super().__init__()
            self.row_list = row_list
            self.indices = indices

        @property
        def control(self) -> RowList:
            return self.row_list

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        id: str | None = None,
        empty_text: str = "nothing here",
        noun: str = "rows",
    ) -> None:
        super().__init__(id=id)
        self.columns = list(columns)
        self.source: RowSource = _Empty()
        self.empty_text = empty_text
        self.noun = noun  # what the rows are ("turns"): for "no turns match …" and titles
        self.narrow_label = ""  # what the narrowing keeps ("expiring within 1 h")
        self.narrow_hint = ""  # how to widen it ("x widens")
        self._title: tuple[str, str | None] | None = None  # set_title's base and total
        self._title_shown = ""
        self.cursor = 0  # position in the (possibly filtered) view
        self.filter_text = ""
        # A narrowing beside the text filter (a view's own, e.g. "expiring within 1 h"):
        # only source rows it keeps are shown.
        self.narrow: Callable[[int], bool] | None = None
        self.narrow_column: int | None = None  # the column it is about: never dropped
        self._view: Sequence[int] | None = None  # source indices matching the filter, ascending
        # Each row's folded search text, asked of the source once, the rows it could not
        # give yet (not loaded: asked again) and the characters kept; dropped whenever
        # the rows change.
        self._haystack: list[str] | None = None
        self._unknown: Sequence[int] = ()
        self._haystack_chars = 0
        self._common_start: str | None = None  # the texts' common start, once asked
        # The folded text the view was filtered by (None: not a text filter alone): a
        # longer filter containing it only looks again at the rows it kept.
        self._filtered_by: str | None = None
        self._need_pending = False
        self._column_fit: tuple[int, list[tuple[int, int]]] | None = None
        self._shown: tuple[int, ...] | None = None  # what the last RowsShown reported
        self.message: tuple[str, Tone] | None = None  # shown instead of rows (a failure)

    # -- data ------------------------------------------------------------------------

    def set_source(self, source: RowSource, *, empty_text: str | None = None) -> None:
        self.source = source
        if empty_text is not None:
            self.empty_text = empty_text
        self._shown = None
        self.message = None
        self.filter_text = ""
        self.narrow = None
        self.narrow_label = self.narrow_hint = ""
        self.narrow_column = None
        self._column_fit = None
        self._view = None
        self._rows_changed()
        self.cursor = 0
        self._need_pending = False
        self._resize()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._show_title()
        self.refresh()
        self.post_message(self.Highlighted(self, self.current_index))

    def set_title(self, base: str, total: str | None = None) -> None:
        """The border title: ``base (total)``, and while a filter or a narrowing hides
        rows ``base · 3 of 24`` (total: the rows the filter looked at, by default)."""
        self._title = (base, total)
        self._show_title()

    def _show_title(self) -> None:
        if self._title is None:
            return
        base, total = self._title
        if self._view is None:
            title = f"{base} ({total})" if total else base
        else:
            among = total or f"{self.searchable_total():,}"
            title = f"{base} · {self.row_count:,} of {among}"
        if title != self._title_shown:  # an unchanged title must not redraw (idle views)
            self._title_shown = title
            self.border_title = plain(title)

    def searchable_total(self) -> int:
        """How many rows a filter looks at (a lazy source says how many are loaded)."""
        return len(self.source)

    def empty_line(self) -> str:
        """What an empty list says: a filter or narrowing that matches nothing says so
        (and how many rows it looked at), apart from loading, empty or failed."""
        if not self.filter_text and self.narrow is None:
            return self.empty_text
        what = " ".join(
            part
            for part in (
                self.noun,
                self.narrow_label if self.narrow is not None else "",
                f"match '{one_line(self.filter_text, 40)}'" if self.filter_text else "",
            )
            if part
        )
        widen = f"{self.narrow_hint} · " if self.narrow is not None and self.narrow_hint else ""
        return f"no {what} ({self.searchable_total():,} loaded; {widen}Esc clears)"

    def set_columns(self, columns: Sequence[Column]) -> None:
        """Other columns (another level, a sort marker), drawn at the next refresh."""
        if list(columns) != self.columns:
            self.columns = list(columns)
            self._column_fit = None
            self.refresh()

    def update_source(self, source: RowSource, *, empty_text: str | None = None) -> None:
        """New rows in place (a live refresh): keep the filter, the scroll and the cursor."""
        self.source = source
        if empty_text is not None:
            self.empty_text = empty_text
        self.message = None
        self.source_changed()

    def _rows_changed(self) -> None:
        """The source's rows are others (or more, or loaded): search texts are asked anew."""
        self._haystack = None
        self._unknown = ()
        self._haystack_chars = 0
        self._common_start = None
        self._filtered_by = None

    def show_message(self, text: str, tone: Tone = "bad") -> None:
        """A state in words where rows would be (a failure with its fix; wraps)."""
        self.message = (text, tone)
        self.refresh()

    def clear_message(self) -> None:
        if self.message is not None:
            self.message = None
            self.refresh()

    def source_changed(self) -> None:
        """Rows were added or loaded: keep the cursor on the same source row."""
        current = self.current_index
        self._need_pending = False
        self._rows_changed()
        if self.filter_text or self.narrow is not None:
            self._apply_filter()
            if current is not None and (position := self._position_of(current)) is not None:
                self.cursor = position
        self.cursor = min(self.cursor, max(0, self.row_count - 1))
        self._resize()
        self._show_title()
        self.refresh()

    def set_filter(self, text: str) -> None:
        current = self.current_index
        self.filter_text = text
        self._refiltered(current)

    def set_narrow(
        self,
        keep: Callable[[int], bool] | None,
        label: str = "",
        hint: str = "",
        *,
        column: int | None = None,
    ) -> None:
        """Show only the source rows ``keep`` accepts (None: all), with any text filter;
        ``label`` says what it keeps and ``hint`` how to widen it, for an empty list;
        ``column`` (an index) is what it is about: a narrow terminal never drops it."""
        current = self.current_index
        self.narrow = keep
        self.narrow_label, self.narrow_hint = label, hint
        self.narrow_column = column if keep is not None else None
        self._column_fit = None
        self._refiltered(current)

    def _refiltered(self, current: int | None) -> None:
        """Apply the filter and narrowing; the cursor stays on ``current`` if still shown."""
        self._apply_filter()
        if current is not None and (position := self._position_of(current)) is not None:
            self.cursor = position
        else:
            self.cursor = 0
        self._resize()
        self._scroll_cursor_into_view()
        self._show_title()
        self.refresh()
        self.post_message(self.Highlighted(self, self.current_index))

    def _apply_filter(self) -> None:
        if not self.filter_text and self.narrow is None:
            self._view = None
            self._filtered_by = None
            return
        needle = self.filter_text.casefold()
        keep = self.narrow
        source, total = self.source, len(self.source)
        last, view, texts = self._filtered_by, self._view, self._haystack
        rows: Sequence[int] = range(total)
        every = False  # every row matches, known without a scan (``_every_text_holds``)
        if keep is None and last and last in needle and texts is not None and not self._unknown:
            # What a longer text matches, the shorter one did: only its rows are looked
            # at again (every row's text was known then, and the rows are unchanged).
            assert view is not None
            rows = view
            if len(view) == total:  # the range of every row
                every = self._every_text_holds(needle, texts)
                hits = [] if every else [needle in text for text in texts]
            else:
                hits = [needle in texts[i] for i in view]
        elif not needle:
            assert keep is not None
            hits = [keep(i) for i in rows]
        elif (texts := self._search_texts()) is not None:  # a row not loaded has "": no match
            every = keep is None and self._every_text_holds(needle, texts)
            hits = [] if every else [needle in text for text in texts]
            if keep is not None:
                hits = [hit and keep(i) for i, hit in enumerate(hits)]
        else:  # too much text to keep: each row's asked again, as it comes
            hits = [
                (keep is None or keep(i))
                and (text := source.search_text(i)) is not None
                and needle in text.casefold()
                for i in rows
            ]
        # Indices in an array (8 bytes a row, not an int object each); when every row
        # matches, the range itself.
        self._view = (
            range(total)
            if every or (len(rows) == total and all(hits))
            else array("q", compress(rows, hits))
        )
        self._filtered_by = needle if keep is None else None

    def _every_text_holds(self, needle: str, texts: list[str]) -> bool:
        """True when every text surely holds ``needle``: their common start does (keys
        named alike, "tenant-…": the first keys of a filter then look at no row). The
        start is found once while the texts stay (a row not loaded has "": none)."""
        if self._common_start is None:
            self._common_start = common_start(texts)
        return needle in self._common_start

    def _search_texts(self) -> list[str] | None:
        """Each row's folded search text ("" while the source cannot give it: not
        loaded, in ``_unknown``), asked of the source once while the rows stay and again
        only for the rows it could not give; None once they hold more than
        ``KEPT_SEARCH_TEXT`` characters (the turns of a long thread: asked each time)."""
        texts = self._haystack
        source = self.source
        if self._haystack_chars > KEPT_SEARCH_TEXT:
            return None
        if self._unknown:
            self._common_start = None  # texts may be filled in below
        if texts is None or len(texts) != len(source):
            texts = self._haystack = [""] * len(source)
            self._unknown = range(len(source))
            self._haystack_chars = 0
        unknown = []
        chars = self._haystack_chars
        every = getattr(source, "search_texts", None)
        asked = every() if every is not None and len(self._unknown) == len(texts) else None
        if asked is not None and len(asked) == len(texts) and None not in asked:
            # Every text at once: when folding them all changes none (keys, names), each
            # is kept as given, found by one fold of them joined rather than one a row.
            # (A fold of the whole as long as the whole maps each character to itself.)
            joined = "\n".join(cast("Sequence[str]", asked))
            chars = len(joined) - max(len(asked) - 1, 0)  # less the line breaks
            if chars <= KEPT_SEARCH_TEXT and joined.casefold() == joined:
                texts = self._haystack = list(cast("Sequence[str]", asked))
                self._unknown, self._haystack_chars = [], chars
                return texts
        for i in self._unknown:
            found = source.search_text(i) if asked is None else asked[i]
            if found is None:
                unknown.append(i)
                continue
            folded = found.casefold()
            # Mostly the same text: keep the source's string rather than a copy.
            texts[i] = found if folded == found else folded
            chars += len(folded)
            if chars > KEPT_SEARCH_TEXT:
                self._haystack, self._haystack_chars = None, chars
                return None
        self._unknown, self._haystack_chars = unknown, chars
        return texts

    def _position_of(self, index: int) -> int | None:
        """Where source row ``index`` is in the filtered view (None: filtered out)."""
        view = self._view
        if view is None:
            return index if 0 <= index < len(self.source) else None
        position = bisect_left(view, index)
        return position if position < len(view) and view[position] == index else None

    @property
    def row_count(self) -> int:
        return len(self._view) if self._view is not None else len(self.source)

    def source_index(self, position: int) -> int | None:
        if not 0 <= position < self.row_count:
            return None
        return self._view[position] if self._view is not None else position

    @property
    def current_index(self) -> int | None:
        return self.source_index(self.cursor)

    def select_index(self, index: int) -> None:
        """Put the cursor on source row ``index`` (clearing a filter that hides it)."""
        if self._view is not None and self._position_of(index) is None:
            self.set_filter("")
        if self._view is not None and self._position_of(index) is None:
            self.set_narrow(None)  # the narrowing hides it too: the row wins
        position = self._position_of(index)
        self.move_cursor(index if position is None else position)

    # -- cursor ----------------------------------------------------------------------

    @property
    def _rows_per_page(self) -> int:
        return max(1, self.size.height - 1)

    @property
    def rows_shown(self) -> int:
        """How many rows the list shows at once (its height less the header)."""
        return self._rows_per_page

    def move_cursor(self, position: int) -> None:
        if self.row_count == 0:
            return
        position = max(0, min(position, self.row_count - 1))
        changed = position != self.cursor
        self.cursor = position
        self._scroll_cursor_into_view()
        self.refresh()
        if changed:
            self.post_message(self.Highlighted(self, self.current_index))
        index = self.current_index
        if index is not None and self.source.row(index) is None:
            self.post_message(self.NeedRows(self, index))

    def _scroll_cursor_into_view(self) -> None:
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + self._rows_per_page:
            self.scroll_to(y=self.cursor - self._rows_per_page + 1, animate=False, immediate=True)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor - 1)

    def action_page_down(self) -> None:
        # A page turns the view by a page, the cursor keeping its place on screen, so
        # PgDn shows the next screenful (and asks for its details) rather than one row.
        self._turn_page(+1)

    def action_page_up(self) -> None:
        self._turn_page(-1)

    def _turn_page(self, direction: int) -> None:
        page = self._rows_per_page
        top = int(self.scroll_y)
        last_top = max(0, self.row_count - page)
        new_top = max(0, min(last_top, top + direction * page))
        self.scroll_to(y=new_top, animate=False, immediate=True)
        self.move_cursor(
            self.cursor + (new_top - top) if new_top != top else self.cursor + direction * page
        )

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self.row_count - 1)

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            self.move_cursor(int(self.scroll_y) + event.y - 1)

    # -- drawing -----------------------------------------------------------------------

    def _resize(self) -> None:
        self.virtual_size = Size(self._width, self.row_count + 1)

    def on_resize(self, event: events.Resize) -> None:
        self._resize()

    def _layout_for(self, width: int) -> list[tuple[int, int]]:
        # render_line runs once per visible line per refresh: fit the columns once per width.
        if self._column_fit is None or self._column_fit[0] != width:
            keep = frozenset({self.narrow_column} if self.narrow_column is not None else ())
            self._column_fit = (width, fit_columns(self.columns, width, keep))
        return self._column_fit[1]

    @property
    def _width(self) -> int:
        return self.scrollable_content_region.width

    def shown_indices(self) -> tuple[int, ...]:
        """The source rows currently on screen."""
        top = int(self.scroll_y)
        positions = range(top, min(self.row_count, top + self._rows_per_page))
        return tuple(i for p in positions if (i := self.source_index(p)) is not None)

    def _report_shown(self) -> None:
        shown = self.shown_indices()
        if shown != self._shown:
            self._shown = shown
            self.post_message(self.RowsShown(self, shown))

    def render_line(self, y: int) -> Strip:
        if y == 0:
            self._report_shown()  # once per refresh: the first line is always drawn
        width = self._width
        base = self.rich_style
        layout = self._layout_for(width)
        if y == 0:
            style = base + self.get_component_rich_style("row-list--header")
            cells = [fit_text(self.columns[i].title, w, self.columns[i].justify) for i, w in layout]
            return Strip([Segment(" ".join(cells), style)]).adjust_cell_length(width, base)
        position = int(self.scroll_y) + y - 1
        if self.message is not None and self.row_count == 0:
            return self._message_line(y - 1, width)
        if self.row_count == 0:
            if y == 1:
                style = base + self.get_component_rich_style("row-list--placeholder")
                text = fit_line(self.empty_line(), width)  # whole parts: "Esc clears"
                return Strip([Segment(fit_text(text, width), style)])
            return Strip.blank(width, base)
        index = self.source_index(position)
        if index is None:
            return Strip.blank(width, base)
        row = self.source.row(index)
        if row is None:
            placeholder = getattr(self.source, "placeholder", lambda _: None)(index)
            if placeholder is None and not self._need_pending:
                self._need_pending = True
                self.post_message(self.NeedRows(self, index))
            tone = "row-list--bad" if placeholder is not None else "row-list--placeholder"
            style = base + self.get_component_rich_style(tone)
            line = Segment(fit_text(f"  {placeholder or '… loading'}", width), style)
            return self._with_cursor(Strip([line]), position, width)
        if getattr(self.source, "spans", lambda _: False)(index):
            text, tone = row[0] if row else ("", "")
            style = base + self.get_component_rich_style(f"row-list--{tone}") if tone else base
            strip = Strip([Segment(fit_text(text, width), style)])
            return self._with_cursor(strip.adjust_cell_length(width, base), position, width)
        segments: list[Segment] = []
        for n, (i, w) in enumerate(layout):
            text, tone = row[i] if i < len(row) else ("", "")
            style = base + self.get_component_rich_style(f"row-list--{tone}") if tone else base
            if n:
                segments.append(Segment(" ", base))
            segments.append(Segment(fit_text(text, w, self.columns[i].justify), style))
        return self._with_cursor(Strip(segments).adjust_cell_length(width, base), position, width)

    def _message_line(self, line: int, width: int) -> Strip:
        """Line ``line`` of the message, wrapped to the width (no markup: plain text)."""
        assert self.message is not None
        text, tone = self.message
        lines: list[str] = []
        for paragraph in text.split("\n"):
            while cell_len(paragraph) > width - 2 and width > 3:
                cut = paragraph.rfind(" ", 0, width - 2)
                cut = cut if cut > 0 else width - 2
                lines.append(paragraph[:cut])
                paragraph = paragraph[cut:].lstrip()
            lines.append(paragraph)
        if not 0 <= line < len(lines):
            return Strip.blank(width, self.rich_style)
        style = self.rich_style + self.get_component_rich_style(f"row-list--{tone}")
        return Strip([Segment(fit_text(f" {lines[line]}", width), style)])

    def _with_cursor(self, strip: Strip, position: int, width: int) -> Strip:
        if position != self.cursor:
            return strip
        name = "row-list--cursor" if self.has_focus else "row-list--cursor-blurred"
        cursor = self.get_component_rich_style(name)
        return Strip([Segment(s.text, (s.style or Style()) + cursor) for s in strip])

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
