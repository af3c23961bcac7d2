"""The words the demo generator draws from, read from the packaged ``words.toml``."""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

# Placeholders the generator fills itself rather than from ``[slots]``.
COMPUTED_SLOTS = frozenset({"num", "Thing"})


class WordsError(ValueError):
    """``words.toml`` is not what the generator needs (a packaging or editing mistake)."""


@dataclass(frozen=True)
class Words:
    tenants: tuple[str, ...]
    user_openers: tuple[str, ...]
    user_problems: tuple[str, ...]
    agent_openers: tuple[str, ...]
    agent_steps: tuple[str, ...]
    facts: tuple[str, ...]
    slots: dict[str, tuple[str, ...]]  # {placeholder} → what it draws from

    @property
    def templates(self) -> tuple[str, ...]:
        return self.user_problems + self.agent_steps + self.facts


def load_words() -> Words:
    text = (
        resources.files("cosmem_tui.core.demo").joinpath("words.toml").read_text(encoding="utf-8")
    )
    return parse_words(text)


def parse_words(text: str) -> Words:
    data = tomllib.loads(text)
    conversation = data.get("conversation", {})
    slots = data.get("slots", {})
    words = Words(
        tenants=_strings(data, "tenants"),
        user_openers=_strings(conversation, "user_openers"),
        user_problems=_strings(conversation, "user_problems"),
        agent_openers=_strings(conversation, "agent_openers"),
        agent_steps=_strings(conversation, "agent_steps"),
        facts=_strings(conversation, "facts"),
        slots={name: _strings(slots, name) for name in slots},
    )
    # A template naming a slot that is not there would fail mid-build, after minutes.
    known = words.slots.keys() | COMPUTED_SLOTS
    for template in words.templates:
        for _, name, _, _ in string.Formatter().parse(template):
            if name is not None and name not in known:
                raise WordsError(f"words.toml: {template!r} uses {{{name}}}, not in [slots]")
    return words


def _strings(table: dict[str, Any], name: str) -> tuple[str, ...]:
    values = table.get(name)
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise WordsError(f"words.toml: {name} must be a non-empty list of strings")
    return tuple(values)
