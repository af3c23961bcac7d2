"""Schema-derived columns for one session, computed without writing the workspace.

A workspace stores tenant, thread and order keys for the schema it was built with.
A session that reads it with another schema gets its own keys in the connection's
temp database (``queries/local/session_keys.sql``), computed in SQL by the functions
registered here: SQLite streams the items through them, so memory stays flat however
large the workspace, and the keys are exactly the ones a build would have stored.
"""

from __future__ import annotations

import json
import sqlite3

from cosmem_tui.schemas import Schema
from cosmem_tui.sources.local.keys import DerivedKeys, derive_keys
from cosmem_tui.sources.query_texts import load_query


class _RowKeys:
    """``derive_keys`` of the item SQLite is on.

    Its four columns are four function calls with the same body; remembering the last
    body parses each item once instead of four times.
    """

    def __init__(self, schema: Schema) -> None:
        self._schema = schema
        self._body: str | None = None
        self._keys = DerivedKeys(None, None, 0, 0)

    def __call__(self, body: str) -> DerivedKeys:
        if body != self._body:
            self._keys = derive_keys(self._schema, json.loads(body))
            self._body = body
        return self._keys


def shadow_derived_columns(db: sqlite3.Connection, schema: Schema) -> None:
    """Compute ``schema``'s keys for every item and let this connection's queries see them."""
    keys = _RowKeys(schema)

    def tenant_key(body: str) -> str | None:
        return keys(body).tenant_key

    def thread_key(body: str) -> str | None:
        return keys(body).thread_key

    def order_rank(body: str) -> int:
        return keys(body).order_rank

    def order_value(body: str) -> int | float | str:
        return keys(body).order_value

    # Deterministic: the same body always gives the same keys (SQLite may reuse results).
    for name, function in (
        ("cosmem_tenant_key", tenant_key),
        ("cosmem_thread_key", thread_key),
        ("cosmem_order_rank", order_rank),
        ("cosmem_order_value", order_value),
    ):
        db.create_function(name, 1, function, deterministic=True)
    db.executescript(load_query("local", "session_keys"))
