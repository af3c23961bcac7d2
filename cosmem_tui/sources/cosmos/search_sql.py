"""The ``{{text_match}}`` slot of ``turns_matching.sql`` and its parameters.

Field names come from the schema and are JSON-quoted like every property reference
(``sql.prop``); the searched text and the guard values travel as ``@parameters``.
The condition is a flat OR of ANDs (no nesting beyond one level of parentheses): one
term per probe, and one ``ARRAY_LENGTH(…) > n`` per array the probes search only the
first ``n`` elements of, so a longer item is a candidate the store checks whole
(``text_search.item_matches``) instead of an item searched in part.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cosmem_tui.sources.text_search import LongArray, Probe, Step


def reference(steps: Sequence[Step]) -> str:
    """``("messages", 0, "content")`` → ``c["messages"][0]["content"]``."""
    parts = [
        f"[{step}]" if isinstance(step, int) or step.isdigit() else f"[{json.dumps(step)}]"
        for step in steps
    ]
    return "c" + "".join(parts)


def text_match(
    probes: Sequence[Probe], long: Sequence[LongArray] = ()
) -> tuple[str, tuple[dict[str, Any], ...]]:
    """The condition over every probe and long array, and the guard parameters it names
    (not ``@text``)."""
    values: dict[str, str] = {}  # guard value → its parameter name
    terms: list[str] = []
    for probe in probes:
        conditions = []
        for path, value in probe.guards:
            name = values.setdefault(value, f"@g{len(values)}")
            conditions.append(f"{reference(path)} = {name}")
        conditions.append(f"CONTAINS({reference(probe.target)}, @text, true)")
        terms.append(
            " AND ".join(conditions) if len(conditions) == 1 else f"({' AND '.join(conditions)})"
        )
    # The lengths are the code's constants, never data.
    terms += [f"ARRAY_LENGTH({reference(a.path)}) > {int(a.searched)}" for a in long]
    if not terms:
        return "false", ()
    parameters = tuple({"name": name, "value": value} for value, name in values.items())
    return " OR ".join(terms), parameters
