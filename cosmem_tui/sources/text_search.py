"""Where a schema keeps turn text, spelled out as probes a substring search can test.

A thread search is one single-partition query with ``CONTAINS(…, @text, true)`` over
every place the schema reads text from. Array steps cannot be walked by a query
without a subquery (``EXISTS``), which not every engine we run against accepts, so
arrays are unrolled: the first ``MESSAGES_SEARCHED`` messages of an item and the
first ``PARTS_SEARCHED`` elements of a fan-out step (``*[type=text]``, whose filter
becomes a guard). A property the schema decodes from a JSON string is searched as
the stored string. The Cosmos store renders the probes as SQL (``cosmos/search_sql``),
the local store tests them in Python (``item_matches``): one definition, the same
answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cosmem_tui.model import JsonValue
from cosmem_tui.schemas import Schema
from cosmem_tui.schemas.paths import Fan

MESSAGES_SEARCHED = 16  # an exchange holds a handful; a longer item is searched in part
PARTS_SEARCHED = 4  # typed content parts of one message
MAX_SEARCH_TEXT = 200  # characters; a query parameter, but bounded like any input

Step = str | int


@dataclass(frozen=True, slots=True)
class Probe:
    """One place text may be: ``target`` contains the text when every guard holds."""

    target: tuple[Step, ...]
    guards: tuple[tuple[tuple[Step, ...], str], ...] = ()


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
) -> list[Probe]:
    path: list[Step] = list(prefix)
    for position, step in enumerate(steps):
        if isinstance(step, Fan):
            probes: list[Probe] = []
            for index in range(PARTS_SEARCHED):
                element = (*path, index)
                extra: tuple[tuple[tuple[Step, ...], str], ...] = ()
                if step.key is not None and step.value is not None:
                    extra = (((*element, step.key), step.value),)
                probes += _expand(element, steps[position + 1 :], guards + extra)
            return probes
        path.append(step)
    return [Probe(tuple(path), guards)]


def _decoded_top(schema: Schema, top: str) -> bool:
    return any(path.top == top for path in schema.decode_json)


def search_probes(schema: Schema) -> tuple[Probe, ...]:
    """Every place the schema reads turn text from, arrays unrolled (see the module)."""
    probes: list[Probe] = []
    if schema.messages is not None:
        if _decoded_top(schema, schema.messages.top):
            probes.append(Probe((schema.messages.top,)))
        else:
            for index in range(MESSAGES_SEARCHED):
                base: tuple[Step, ...] = (*schema.messages.parts, index)
                for selector in schema.texts:
                    probes += _expand(base, selector.steps, ())
    else:
        for selector in schema.texts:
            if _decoded_top(schema, selector.top):
                probes.append(Probe((selector.top,)))
            else:
                probes += _expand((), selector.steps, ())
    return tuple(dict.fromkeys(probes))


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


def item_matches(probes: Sequence[Probe], body: Mapping[str, JsonValue], text: str) -> bool:
    """True when one probe's target is a string containing ``text``, ignoring case."""
    needle = fold(text)
    for probe in probes:
        if any(_get(body, path) != value for path, value in probe.guards):
            continue
        value = _get(body, probe.target)
        if isinstance(value, str) and needle in fold(value):
            return True
    return False
