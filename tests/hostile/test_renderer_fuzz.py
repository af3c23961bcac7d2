"""The renderer's pure entry points over generated hostile texts (10,000 for the hot path).

Deterministic (``derandomize``: the same examples on every run, so CI is stable), no
deadline (a loaded machine is not a failure). Each text mixes any code point with the
corpus' escapes and markup. What the terminal would get holds no control, format,
surrogate or separator character; Rich takes it as text (no markup parsed: what it
renders is exactly the escaped text); every character that needed no escape is still
there, in order.
"""

from __future__ import annotations

import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from cosmem_tui.core.text import json_for_terminal, must_escape, one_line, visible
from cosmem_tui.model import FrozenClock, Message, Turn, resolve_ttl
from cosmem_tui.ui.messages import plain
from cosmem_tui.ui.views.browse.detail import render_detail
from cosmem_tui.ui.views.browse.rows import turn_cells
from cosmem_tui.ui.widgets.cells import safe_cells
from tests.hostile.corpus import CORPUS, dangerous

EXAMPLES = settings(
    max_examples=10_000,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
FEWER = settings(EXAMPLES, max_examples=1_000)  # the slower entry points
NOW = 1_795_996_800
SPECIAL = "\x1b\x9b\x9d\x07\r\n\t[]/\u202e\u2066\u200b\ufeff\x00\x7f\x85\u2028\ud800"
FRAGMENTS = [h.value[i : i + 8] for h in CORPUS for i in range(0, min(len(h.value), 40), 4)]
_chars = st.text(st.characters() | st.sampled_from(SPECIAL), max_size=12)
hostile_text = st.builds(lambda a, b, c: a + b + c, _chars, st.sampled_from(FRAGMENTS), _chars)
CONSOLE = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor")


def kept_in_order(source: str, shown: str) -> bool:
    """Every character of ``source`` that needs no escape is in ``shown``, in order."""
    rest = iter(shown)
    return all(ch in rest for ch in source if not must_escape(ch))


def rendered(text: Text) -> str:
    """What Rich would write for ``text``, styles and line ends aside."""
    segments = CONSOLE.render(text, CONSOLE.options.update(width=10_000, no_wrap=True))
    return "".join(s.text for s in segments if not s.control).rstrip("\n")


@EXAMPLES
@given(hostile_text)
def test_the_sanitiser_and_the_row_formatters(text):
    shown = visible(text)
    assert dangerous(shown) == []
    assert kept_in_order(text, shown)
    assert rendered(Text(shown)) == shown  # taken as text: no markup, nothing dropped
    multi = visible(text, multiline=True)
    assert dangerous(multi, newlines=True) == []
    line = one_line(text, 60)
    assert "\n" not in line and dangerous(line) == [] and len(line) <= 60
    assert plain(text).plain == one_line(text, 80)  # a border title: Content, not markup
    assert safe_cells([(text, None)]) == [(one_line(text), None)]
    half = len(text) // 2
    turn = Turn(
        text,
        text[half:] or None,
        NOW - 60,
        text[:half],
        (Message(text[:half], text), Message(text[half:], text[::-1])),
        resolve_ttl(text[half:], NOW - 60, -1),
        problems=(text,) if half % 2 else (),
    )
    cells = turn_cells(turn, NOW) + turn_cells(turn, NOW, position=3)
    assert [text for text, _ in cells if dangerous(text)] == []


@FEWER
@given(hostile_text, hostile_text)
def test_the_detail_pane(role, content):
    turn = Turn(
        content,
        content,
        NOW - 60,
        role,
        (Message(role, content), Message(content, role)),
        resolve_ttl(role, NOW - 60, -1),
        problems=(role,),
    )
    detail = render_detail(turn, None, FrozenClock(NOW).now(), raw_status=role)
    assert dangerous(detail.plain, newlines=True) == []
    assert kept_in_order(content.replace("\r\n", "\n").replace("\t", ""), detail.plain)


json_values = st.recursive(
    # JSON has no NaN or infinity: json_for_terminal writes them as null (tested below).
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | hostile_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text, inner, max_size=3),
    max_leaves=8,
)


@FEWER
@given(json_values, st.sampled_from([None, 2]))
def test_json_for_the_terminal_is_inert_and_decodes_to_the_value(value, indent):
    encoded = json_for_terminal(value, indent=indent)
    assert dangerous(encoded, newlines=True) == []
    assert json.loads(encoded) == value


def test_json_for_the_terminal_writes_nan_and_infinity_as_null():
    value = {"a": float("nan"), "b": [float("inf"), 1.5], "c": -float("inf")}
    assert json.loads(json_for_terminal(value)) == {"a": None, "b": [None, 1.5], "c": None}
