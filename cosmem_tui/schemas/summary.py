"""What a lifecycle row says of an item: its order value and its text, by the schema.

The lifecycle lists read a projection of each item (the turn list's, so the same
fields travel); this reads it as the turn list would, through ``turns_from_item``, so
an item's order value and text are the ones browse shows for it.
"""

from __future__ import annotations

from collections.abc import Mapping

from cosmem_tui.model import MISSING, Item, JsonValue
from cosmem_tui.schemas.mapping import turns_from_item
from cosmem_tui.schemas.schema import Granularity, Schema

TEXT_LIMIT = 400  # characters kept of an item's text: a row shows one line of it


def order_and_text(
    schema: Schema, item_id: str, ts: int, body: Mapping[str, JsonValue]
) -> tuple[JsonValue, str]:
    """The item's order value (MISSING: none) and the start of its text."""
    turns = turns_from_item(schema, Item(item_id, (), ts, "", body), None)
    messages = [m for turn in turns[:4] for m in turn.messages[:4]][:4]
    text = " · ".join(f"{m.role}: {m.text[:TEXT_LIMIT]}" for m in messages)
    # A session document is many turns: its order values are positions, not the item's.
    order = MISSING if schema.granularity is Granularity.SESSION else turns[0].order
    return order, text[:TEXT_LIMIT]
