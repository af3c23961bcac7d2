"""LongStatic: a Static for a text of a thousand lines that draws only the lines on screen.

Textual's Static turns its whole content into strips whenever it is redrawn (each
refresh, each width, the scrollbar coming and going): the detail pane of a turn of
50,000 messages (some 1,200 lines, the raw item cut) cost about a tenth of a second
each time, several times over while it opened. This one counts the lines the content
wraps into once per width (a line that fits is one, without laying it out), wraps a text
line when the screen asks for one of its lines, and makes a strip only for those. What
it draws is the Static's own rendering, line for line (``tests/ui/test_long_static.py``
holds the two side by side); with a text selection, a content alignment other than top
left, or a visual that is not Textual ``Content``, it draws as the Static does. It calls
Content's own wrapping (``_wrap_and_format``, private in the pinned Textual): an upgrade
that wraps or draws otherwise fails that test rather than the screen.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, overload

from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.content import _FormattedLine


class LongStatic(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # The content wrapped at a width: (the visual, its rules, the lines).
        self._wrapped: tuple[Content, tuple[object, ...], Sequence[_FormattedLine]] | None = None
        self._whole_stale = False  # the Static's own render cache is out of date
        self.strips_made = 0  # lines turned into strips (a count for the tests)

    def _line_by_line(self, visual: object) -> bool:
        return (
            isinstance(visual, Content)
            and self.text_selection is None
            and self.styles.content_align == ("left", "top")
        )

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The lines the content wraps into: the wrap the lines are drawn from (the
        Static wraps it once more, without its styles, to count them)."""
        visual = self._render()
        if not width or not isinstance(visual, Content):
            return super().get_content_height(container, viewport, width)
        return len(self._wrap(visual, width))

    def render_line(self, y: int) -> Strip:
        visual = self._render()
        if not self._line_by_line(visual):
            if self._whole_stale:  # what was marked dirty while drawing line by line
                self._whole_stale = False
                self._render_content()
            return super().render_line(y)
        if self._dirty_regions:
            # Redrawn: the strips are made anew below. The Static's own cache (for the
            # cases above) is brought up to date when it is next used.
            self._dirty_regions.clear()
            self._whole_stale = True
        width, height = self.size
        assert isinstance(visual, Content)
        lines = self._wrap(visual, width)
        if not 0 <= y < min(height, len(lines)):
            return Strip.blank(width, self.visual_style.rich_style)
        self.strips_made += 1
        strip = Strip(*lines[y].to_strip(self.visual_style))
        if self.auto_links and not self.is_container and not self.screen._selecting:
            strip = strip._apply_link_style(self.link_style)
        return strip

    def _wrap(self, visual: Content, width: int) -> Sequence[_FormattedLine]:
        """The content's lines wrapped at ``width``, as ``Content.render_strips`` wraps
        them (the same rules, the same call), kept while the content and width stay."""
        get_rule = self.styles.get  # as Content.render_strips reads them
        rules = (
            width,
            get_rule("text_align", "left"),
            get_rule("text_overflow", "fold"),
            get_rule("text_wrap", "wrap") == "nowrap",
            get_rule("line_pad", 0),
        )
        wrapped = self._wrapped
        if wrapped is not None and wrapped[0] is visual and wrapped[1] == rules:
            return wrapped[2]
        _, align, overflow, no_wrap, line_pad = rules

        def wrap(content: Content) -> list[_FormattedLine]:
            return content._wrap_and_format(
                width,
                align=align,  # type: ignore[arg-type]
                overflow=overflow,  # type: ignore[arg-type]
                no_wrap=no_wrap,
                line_pad=line_pad,  # type: ignore[arg-type]
                tab_size=8,
                get_style=self._get_style,
            )

        lines: Sequence[_FormattedLine] = (
            WrappedLines(visual, width - 2 * line_pad, wrap) if width else []  # type: ignore[operator]
        )
        self._wrapped = (visual, rules, lines)
        return lines


class WrappedLines(Sequence["_FormattedLine"]):
    """A content's lines as ``Content._wrap_and_format`` wraps them, each text line
    wrapped when one of its lines is asked for: that call wraps each line apart from the
    others, so one line wrapped alone is what it gives for that line. A line that fits
    the width (no tab, not wider) is one line, counted without wrapping it; so the 1,200
    lines of a detail pane are measured, and only the forty on screen are made."""

    def __init__(
        self, visual: Content, room: int, wrap: Callable[[Content], list[_FormattedLine]]
    ) -> None:
        self._wrap_one = wrap
        self._lines = visual.split(allow_blank=True)
        self._made: dict[int, list[_FormattedLine]] = {}
        self.made = 0  # text lines wrapped (a count for the tests)
        counts = [
            1 if room > 0 and "\t" not in line.plain and line.cell_length <= room else 0
            for line in self._lines
        ]
        for y, count in enumerate(counts):
            if not count:  # wider than the width, or tabs: wrapped now, to be counted
                counts[y] = len(self._line(y))
        self._starts = list(accumulate(counts, initial=0))

    def _line(self, y: int) -> list[_FormattedLine]:
        made = self._made.get(y)
        if made is None:
            self.made += 1
            made = self._made[y] = self._wrap_one(self._lines[y])
            for line in made:
                line.y = y  # its place in the whole, as the whole's wrap numbers it
        return made

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, index: int) -> _FormattedLine: ...
    @overload
    def __getitem__(self, index: slice) -> list[_FormattedLine]: ...
    def __getitem__(self, index: int | slice) -> _FormattedLine | list[_FormattedLine]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("line index out of range")
        y = bisect_right(self._starts, index) - 1
        return self._line(y)[index - self._starts[y]]
