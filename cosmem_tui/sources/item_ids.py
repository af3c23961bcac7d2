"""Which item ids a point operation may address, on every backend.

A point read, patch or delete addresses an item by a URL that ends in its id
(``…/colls/C/docs/ID``). The SDK quotes the id but keeps ``/`` as a separator, and the
HTTP layer removes dot segments before sending: an id of ``..`` becomes the container's
own URL, ``../../..`` the database's, and a DELETE sent there erases them. Cosmos DB
forbids ``/``, ``\\``, ``?`` and ``#`` in ids (an item can still hold one when it was
written by a path that did not check); such an item 404s, or worse, when addressed.
So a point operation on such an id is refused before anything is sent, the same way on
every backend, and the wire guard (``cosmos/wire.py``) checks the URL as sent as well.
"""

from __future__ import annotations

from cosmem_tui.sources.errors import InvalidItemId

FORBIDDEN = ("/", "\\", "?", "#")  # what Cosmos DB does not allow in an id
DOT_SEGMENTS = (".", "..")  # what a URL path resolves away


def item_id_problem(item_id: str) -> str | None:
    """Why ``item_id`` cannot be addressed by a point operation; None when it can."""
    if item_id == "":
        return "an empty id addresses no item"
    if item_id in DOT_SEGMENTS:
        return (
            f"an id of {item_id!r} would address the container (or above it), not an item, "
            "once the URL is resolved"
        )
    found = [c for c in FORBIDDEN if c in item_id]
    if found:
        chars = " ".join(repr(c) for c in found)
        return (
            f"it holds {chars}, which Cosmos DB forbids in ids: the item cannot be read, "
            "changed or deleted by its id"
        )
    return None


def check_item_id(item_id: str, operation: str = "a point operation") -> None:
    """Raise ``InvalidItemId`` (nothing sent) when ``item_id`` cannot be addressed."""
    problem = item_id_problem(item_id)
    if problem is not None:
        raise InvalidItemId(f"refused {operation} on item {item_id!r}: {problem}")
