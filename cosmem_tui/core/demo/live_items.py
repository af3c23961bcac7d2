"""The items the demo's simulated agents write: a thread's next turn, a turn patched later.

Each is made from the thread's newest visible items (``DemoWorkspaceWriter`` reads them
inside the write's transaction) and one draw number, so the same write makes the same
item: the turn index follows the thread's, the retention (``ttl``) is its turns', the
words come from ``words.toml`` as the generator's do, and the system properties look
like the service's (``_rid`` inside the container's, a fresh ``_etag``, ``_ts``).
"""

from __future__ import annotations

import base64
import random
from collections.abc import Mapping, Sequence
from typing import Any

from cosmem_tui.core.demo.embedder import DemoEmbedder
from cosmem_tui.core.demo.generator import exchange_texts, iso_time, rid_text
from cosmem_tui.model import JsonValue

LONG_TERM_KINDS = frozenset({"summary", "fact"})  # the demo's long-term records (lab schema)

_EMBEDDER = DemoEmbedder()


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:]}"


def _etag(rng: random.Random, at: int) -> str:
    return f'"{rng.getrandbits(32):08x}-0000-0d00-0000-{at:08x}0000"'


def _container_rid(tail: Sequence[Mapping[str, JsonValue]]) -> bytes | None:
    """The container's 8 bytes of resource id, from an item of it (``_rid`` = them + 8)."""
    for body in tail:
        rid = body.get("_rid")
        if isinstance(rid, str):
            try:
                raw = base64.b64decode(rid.replace("-", "/"), validate=True)
            except ValueError:
                continue
            if len(raw) == 16:
                return raw[:8]
    return None


def _retention(tail: Sequence[Mapping[str, JsonValue]]) -> JsonValue | None:
    """The ttl of the thread's newest turn (summaries and facts keep theirs: -1 or none)."""
    for body in tail:
        if body.get("type") not in LONG_TERM_KINDS:
            return body.get("ttl")
    return None


def _next_index(tail: Sequence[Mapping[str, JsonValue]]) -> int:
    indexes = [
        v for b in tail if isinstance(v := b.get("turnIndex"), int) and not isinstance(v, bool)
    ]
    return max(indexes) + 1 if indexes else 0


def next_turn(
    tail: Sequence[Mapping[str, JsonValue]],
    at: int,
    *,
    tenant: JsonValue,
    thread: JsonValue,
    draw: int,
) -> dict[str, JsonValue]:
    """A user → agent exchange appended to the thread, written at ``at``."""
    rng = random.Random(draw)
    user, agent = exchange_texts(rng)
    body: dict[str, Any] = {
        "id": _uuid(rng),
        "tenantId": tenant,
        "threadId": thread,
        "turnIndex": _next_index(tail),
        "messages": [
            {"role": "user", "content": user, "timestamp": iso_time(at - rng.uniform(2, 12))},
            {
                "role": "agent",
                "content": agent,
                "entityId": "support-agent",
                "timestamp": iso_time(at),
            },
        ],
        "content": f"{user} {agent}",
        "embedding": _EMBEDDER.vector(f"{user} {agent}"),
    }
    ttl = _retention(tail)
    if ttl is not None:
        body["ttl"] = ttl
    container = _container_rid(tail)
    if container is not None:
        body["_rid"] = rid_text(container + rng.randbytes(8))
    body["_etag"] = _etag(rng, at)
    body["_attachments"] = "attachments/"
    body["_ts"] = at
    return body


def patched_turn(
    tail: Sequence[Mapping[str, JsonValue]], at: int, *, draw: int
) -> dict[str, JsonValue] | None:
    """The thread's newest item written again at ``at`` (an extraction patched in, as the
    generator's ``extractedAt`` turns): same ttl, so its TTL clock restarts."""
    if not tail:
        return None
    body: dict[str, Any] = dict(tail[0])
    body["extractedAt"] = iso_time(at)
    body["_etag"] = _etag(random.Random(draw), at)
    body["_ts"] = at
    return body
