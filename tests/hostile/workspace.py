"""The corpus in every field of a workspace, built the way a user builds one: ``cosmem import``.

The export file is JSON Lines written as bytes, so it can also hold what a real
export can: a line that is not UTF-8, a value nested 10,000 deep, a lone surrogate
(a legal JSON escape) in content and in a key. Each corpus value is a tenant of its
own (tenant id, thread id, item id, order, kind, ttl, role, content and metadata all
hostile); the tenant ``everything`` holds one thread with every value as a turn, the
1 MB string and the deepest JSON Cosmos allows; numeric and boolean keys sit beside them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cosmem_tui.cli import main
from tests.conftest import ANCHOR
from tests.hostile.corpus import BIG, DEEP_JSON, STORABLE

TS = ANCHOR - 3600
EVERYTHING = "everything"
THREAD = "all of it"
STAMP = "2026-11-29T10:00:00Z"


def hostile_item(value: str, *, name: str) -> dict[str, Any]:
    return {
        "id": f"{name} {value}",
        "tenantId": value,
        "threadId": f"thread {value}",
        "turnIndex": value,  # not an int: the row is marked, the value shown as JSON
        "type": value,
        "ttl": value,  # an invalid ttl, shown with its reason
        "note": value,
        value: {"nested": [value]},
        "messages": [
            {"role": value, "content": value, "timestamp": STAMP},
            {"role": "agent", "content": "ok", "timestamp": STAMP},
        ],
        "_ts": TS,
    }


def turn(index: int, content: str, role: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"turn-{index}",
        "tenantId": EVERYTHING,
        "threadId": THREAD,
        "turnIndex": index,
        "messages": [{"role": role, "content": content, "timestamp": STAMP}],
        "_ts": TS,
        **extra,
    }


def export_lines() -> list[bytes]:
    items: list[dict[str, Any]] = [hostile_item(h.value, name=h.name) for h in STORABLE]
    items += [turn(n + 1, h.value, h.value, meta={h.name: h.value}) for n, h in enumerate(STORABLE)]
    after = len(STORABLE)
    items += [
        turn(after + 1, "lone \ud800 surrogate\udfff CANARY-surrogate", "user"),
        turn(after + 2, "deep", "user", deep=DEEP_JSON),
        turn(after + 3, BIG, "user"),
    ]
    for tenant, thread in ((42, 7), (True, -0.5), (-1.5e300, "0")):
        items.append({**turn(1, "odd key", "user"), "tenantId": tenant, "threadId": thread})
    return [
        *(json.dumps(item).encode() for item in items),
        b'{"id": "bad-bytes", "tenantId": "x", "threadId": "y", "note": "\xff\xfe\x9b"}',
        b'{"id": "too-deep", "tenantId": "x", "threadId": "y", "note": '
        + b"[" * 10_000
        + b"]" * 10_000
        + b"}",
        json.dumps({"id": "k", "tenantId": "lone \ud800", "threadId": "y"}).encode(),
    ]


REJECTED = 3  # the three lines above: not UTF-8, too deep, a surrogate in a key


def import_hostile(directory: Path) -> tuple[Path, int]:
    """``cosmem import`` the hostile export; (the workspace, the exit status)."""
    source = directory / "hostile.jsonl"
    source.write_bytes(b"\n".join(export_lines()) + b"\n")
    workspace = directory / "hostile.sqlite"
    code = main(["import", str(source), "--workspace", str(workspace), "--schema", "lab"])
    return workspace, code
