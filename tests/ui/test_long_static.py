"""LongStatic draws what Textual's Static draws, line for line, and only the lines shown."""

from __future__ import annotations

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from cosmem_tui.core.text import json_for_terminal
from cosmem_tui.ui.widgets.long_static import LongStatic


def sample() -> Text:
    """Styles, wrapped lines (words, and one word longer than the width), wide
    characters, tabs, blank lines, escaped controls and highlighted JSON."""
    text = Text()
    text.append("turn 7", "bold")
    text.append(" · 2026-01-01 00:00:00 UTC\n", "dim")
    text.append("user", "bold #6cb6ff")
    text.append("\n")
    for n in range(40):
        text.append(f"  line {n}: " + "the quick brown fox jumps " * (n % 7) + "\n")
    text.append("  " + "x" * 300 + "\n")
    text.append("  漢字とかなの混ざった行 " * 12 + "🙂 emoji\n")
    text.append("\ttabbed\tcells\n\n\n")
    text.append("  \\x1b[31m shown, never sent\n", "yellow")
    body = {"id": "t1-1", "messages": [{"role": "user", "content": "hi " * 50}] * 20}
    raw = Text(json_for_terminal(body, indent=2))
    JSONHighlighter().highlight(raw)
    text.append_text(raw)
    return text


class SideBySide(App[None]):
    def compose(self) -> ComposeResult:
        with Horizontal():
            with VerticalScroll(id="left"):
                yield Static(id="stock")
            with VerticalScroll(id="right"):
                yield LongStatic(id="long")


def lines(widget: Static) -> list[str]:
    return [repr(widget.render_line(y)) for y in range(widget.size.height)]


async def test_it_draws_what_a_static_draws_at_every_width() -> None:
    app = SideBySide()
    async with app.run_test(size=(120, 30)) as pilot:
        stock, long = app.query_one("#stock", Static), app.query_one("#long", LongStatic)
        for size in ((120, 30), (82, 24), (48, 40), (200, 50)):  # even: equal halves
            await pilot.resize_terminal(*size)
            stock.update(sample())
            long.update(sample())
            await pilot.pause()
            await pilot.pause()
            assert long.size == stock.size and long.size.height > 100
            assert lines(long) == lines(stock)
        long.update(Text("shorter now\n", "bold"))  # new content: nothing kept from before
        stock.update(Text("shorter now\n", "bold"))
        await pilot.pause()
        assert lines(long) == lines(stock) and long.size.height == 2  # and the blank last


async def test_only_the_lines_on_screen_become_strips() -> None:
    app = SideBySide()
    async with app.run_test(size=(120, 30)) as pilot:
        long = app.query_one("#long", LongStatic)
        big = Text("\n".join(f"line {n}" for n in range(5_000)))
        long.update(big)
        await pilot.pause()
        await pilot.pause()
        assert long.size.height == 5_000
        # A screenful each time it is drawn (a few times as it settles), not 5,000 lines.
        assert 0 < long.strips_made <= 5 * 30
        scroll = app.query_one("#right", VerticalScroll)
        scroll.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        assert long.strips_made <= 10 * 30
        assert "line 4999" in "".join(s.text for s in long.render_line(4_999))


async def test_only_the_lines_on_screen_are_wrapped(monkeypatch) -> None:
    """Lines that fit the width are counted, not laid out: a text of 5,000 lines makes
    its lines for the screenful drawn (before: all 5,000, at each width it was shown),
    and a line wider than the width is wrapped to be counted."""
    from textual.content import _FormattedLine

    made = [0]
    init = _FormattedLine.__init__

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        made[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(_FormattedLine, "__init__", counting)
    app = SideBySide()
    async with app.run_test(size=(120, 30)) as pilot:
        long = app.query_one("#long", LongStatic)
        text = [f"line {n}" for n in range(5_000)]
        text[2_500] = "wide " * 100  # 10 lines at 58 columns
        long.update(Text("\n".join(text)))
        await pilot.pause()
        await pilot.pause()
        assert long.size.height == 5_000 + 9
        assert 0 < made[0] <= 5 * 30
        scroll = app.query_one("#right", VerticalScroll)
        scroll.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert "line 4999" in "".join(s.text for s in long.render_line(5_008))
        assert made[0] <= 10 * 30
