"""Where a schema keeps turn text, spelled out as probes a substring search can test.

A thread search is one single-partition query with ``CONTAINS(…, @text, true)`` over
every place the schema reads text from. Array steps cannot be walked by a query
without a subquery (``EXISTS``), which not every engine we run against accepts, so
arrays are unrolled: the first ``MESSAGES_SEARCHED`` messages of an item and the
first ``PARTS_SEARCHED`` elements of a fan-out step (``*[type=text]``, whose filter
becomes a guard). An item is never searched only in part: one whose array is longer
than its probes reach (a long array: ``ARRAY_LENGTH(…) > n``) is a candidate too,
and every candidate is checked against all its text (``item_matches``), so the
answer is exact; the cost is that long items travel to the console to be checked.
A property the schema decodes from a JSON string is searched as the stored string.
The Cosmos store renders probes and long arrays as SQL (``cosmos/search_sql``) and
keeps the candidates ``item_matches`` accepts; the local store tests ``item_matches``
on every item of the thread: the same answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cosmem_tui.model import JsonValue
from cosmem_tui.schemas import Schema
from cosmem_tui.schemas.paths import Fan

MESSAGES_SEARCHED = 16  # an exchange holds a handful; a longer item is checked in the console
PARTS_SEARCHED = 4  # typed content parts of one message (more: checked in the console)
MAX_SEARCH_TEXT = 200  # characters; a query parameter, but bounded like any input

Step = str | int


@dataclass(frozen=True, slots=True)
class Probe:
    """One place text may be: ``target`` contains the text when every guard holds."""

    target: tuple[Step, ...]
    guards: tuple[tuple[tuple[Step, ...], str], ...] = ()


@dataclass(frozen=True, slots=True)
class LongArray:
    """An array the probes search only the first ``searched`` elements of: an item
    where it is longer is a candidate, checked whole by ``item_matches``."""

    path: tuple[Step, ...]
    searched: int


def check_search_text(text: str) -> str:
    """The text to search for, refused when empty or longer than ``MAX_SEARCH_TEXT``."""
    if not text or not text.strip():
        raise ValueError("search text is empty")
    if len(text) > MAX_SEARCH_TEXT:
        raise ValueError(f"search text is longer than {MAX_SEARCH_TEXT} characters")
    return text


def _expand(
    prefix: tuple[Step, ...],
    steps: Sequence[str | Fan],
    guards: tuple[tuple[tuple[Step, ...], str], ...],
    long: list[LongArray],
) -> list[Probe]:
    """The probes of one selector below ``prefix``; each unrolled array goes to ``long``."""
    path: list[Step] = list(prefix)
    for position, step in enumerate(steps):
        if isinstance(step, Fan):
            long.append(LongArray(tuple(path), PARTS_SEARCHED))
            probes: list[Probe] = []
            for index in range(PARTS_SEARCHED):
                element = (*path, index)
                extra: tuple[tuple[tuple[Step, ...], str], ...] = ()
                if step.key is not None and step.value is not None:
                    extra = (((*element, step.key), step.value),)
                probes += _expand(element, steps[position + 1 :], guards + extra, long)
            return probes
        path.append(step)
    return [Probe(tuple(path), guards)]


def _decoded_top(schema: Schema, top: str) -> bool:
    return any(path.top == top for path in schema.decode_json)


def search_targets(schema: Schema) -> tuple[tuple[Probe, ...], tuple[LongArray, ...]]:
    """Every place the schema reads turn text from, arrays unrolled (see the module),
    and the arrays unrolled: longer than ``searched``, an item is a candidate that
    ``item_matches`` checks whole."""
    probes: list[Probe] = []
    long: list[LongArray] = []
    if schema.messages is not None:
        if _decoded_top(schema, schema.messages.top):
            probes.append(Probe((schema.messages.top,)))
        else:
            long.append(LongArray(tuple(schema.messages.parts), MESSAGES_SEARCHED))
            for index in range(MESSAGES_SEARCHED):
                base: tuple[Step, ...] = (*schema.messages.parts, index)
                for selector in schema.texts:
                    probes += _expand(base, selector.steps, (), long)
    else:
        for selector in schema.texts:
            if _decoded_top(schema, selector.top):
                probes.append(Probe((selector.top,)))
            else:
                probes += _expand((), selector.steps, (), long)
    return tuple(dict.fromkeys(probes)), tuple(dict.fromkeys(long))


def _get(node: JsonValue, steps: tuple[Step, ...]) -> JsonValue | None:
    """The value at ``steps`` or None when absent (as a query sees undefined)."""
    for step in steps:
        if isinstance(node, Mapping):
            if not isinstance(step, str) or step not in node:
                return None
            node = node[step]
        elif isinstance(node, list):
            index = step if isinstance(step, int) else int(step) if step.isdigit() else -1
            if not 0 <= index < len(node):
                return None
            node = node[index]
        else:
            return None
    return node


def fold(text: str) -> str:
    """Case-insensitive comparison form (what ``CONTAINS(…, true)`` compares)."""
    return text.casefold()


def _reach(node: JsonValue | None, steps: Sequence[str | Fan]) -> list[JsonValue]:
    """Every value at ``steps``, each fan-out over the whole array (no element left out)."""
    for position, step in enumerate(steps):
        if isinstance(step, Fan):
            if not isinstance(node, list):
                return []
            found: list[JsonValue] = []
            for element in node:
                # As a probe's guard: the element's key equals the value.
                if step.key is None or _get(element, (step.key,)) == step.value:
                    found += _reach(element, steps[position + 1 :])
            return found
        if node is None:
            return []
        node = _get(node, (step,))
    return [] if node is None else [node]


def _targets(schema: Schema, body: Mapping[str, JsonValue]) -> list[JsonValue]:
    """What every probe and every element past them reads: the item's whole text."""
    if schema.messages is not None:
        if _decoded_top(schema, schema.messages.top):
            return _reach(body, (schema.messages.top,))
        messages = _get(body, schema.messages.parts)
        if not isinstance(messages, list):
            return []
        return [
            value
            for message in messages
            for selector in schema.texts
            for value in _reach(message, selector.steps)
        ]
    values: list[JsonValue] = []
    for selector in schema.texts:
        steps: Sequence[str | Fan] = (
            (selector.top,) if _decoded_top(schema, selector.top) else selector.steps
        )
        values += _reach(body, steps)
    return values


def item_matches(schema: Schema, body: Mapping[str, JsonValue], text: str) -> bool:
    """True when any text the schema reads from the item, in any message or part however
    far along its array, is a string containing ``text``, ignoring case."""
    needle = fold(text)
    return any(isinstance(value, str) and needle in fold(value) for value in _targets(schema, body))
