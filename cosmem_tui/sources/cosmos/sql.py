"""Render a Cosmos SQL text from ``queries/cosmos/`` for one schema.

Values never enter the text: they travel as ``@parameters``. What a schema adds is
*where* its fields live (``/tenantId``, ``/messages/0/timestamp``): the files hold
``{{name}}`` slots for those property references, and this module fills them with
quoted references (``c["tenantId"]``, JSON-escaped) built from validated field
paths, so a field name can never become SQL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from cosmem_tui.schemas import FieldPath
from cosmem_tui.sources.query_texts import load_query

_SLOT = re.compile(r"\{\{([a-z_]+)\}\}")


def prop(path: FieldPath | str) -> str:
    """``/a/b/0`` → ``c["a"]["b"][0]``."""
    parsed = FieldPath.parse(path) if isinstance(path, str) else path
    steps = [f"[{part}]" if part.isdigit() else f"[{json.dumps(part)}]" for part in parsed.parts]
    return "c" + "".join(steps)


def object_of(tops: Iterable[str]) -> str:
    """``{"id": c["id"], …}``: an object literal keeping the listed top-level properties."""
    entries = [f"{json.dumps(top)}: {prop('/' + _escape(top))}" for top in dict.fromkeys(tops)]
    return "{" + ", ".join(entries) + "}"


def _escape(top: str) -> str:
    return top.replace("~", "~0").replace("/", "~1")


def render(name: str, slots: Mapping[str, str]) -> str:
    """The query ``name`` with its ``{{slots}}`` filled and its ``--`` comment lines dropped."""
    lines = load_query("cosmos", name).splitlines()
    text = "\n".join(line for line in lines if not line.lstrip().startswith("--")).strip()

    def fill(match: re.Match[str]) -> str:
        slot = match.group(1)
        if slot not in slots:
            raise KeyError(f"queries/cosmos/{name}.sql needs the slot {{{{{slot}}}}}")
        return slots[slot]

    return _SLOT.sub(fill, text)
