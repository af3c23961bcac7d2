"""Build small workspaces for tests through the same code path the demo and import use."""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from cosmem_tui.cli import main
from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition
from cosmem_tui.schemas import Schema, get_schema
from cosmem_tui.sources.local import Workspace


def container(
    paths: tuple[str, ...] = ("/tenantId", "/threadId"), default_ttl: int | None = -1
) -> ContainerProperties:
    kind = "MultiHash" if len(paths) > 1 else "Hash"
    return ContainerProperties(
        "testdb", "turns", PartitionKeyDefinition(paths, kind, 2), default_ttl
    )


def build_workspace(
    path: Path,
    items: Iterable[Mapping[str, Any]],
    *,
    now: int,
    schema: Schema | None = None,
    default_ttl: int | None = -1,
) -> Path:
    schema = schema or get_schema("lab")
    with Workspace.building(path, container(schema.partition_key, default_ttl), schema) as ws:
        ws.upsert_items(items, schema, now)
        ws.set_meta("schema", schema.name)
    return path


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def exchange(
    tenant: str | None, thread: str, index: Any, text: str = "hello", **extra: Any
) -> dict[str, Any]:
    item: dict[str, Any] = {"id": f"{thread}-{index}", "threadId": thread}
    if tenant is not None:
        item["tenantId"] = tenant
    if index is not None:
        item["turnIndex"] = index
    item["messages"] = [
        {"role": "user", "content": f"{text} {index}", "timestamp": "2026-11-29T10:00:00Z"},
        {"role": "agent", "content": f"reply {index}", "timestamp": "2026-11-29T10:00:05Z"},
    ]
    item.update(extra)
    return item


def run_cli(capsys: Any, *args: str) -> tuple[int, str, str]:
    """Run ``cosmem ARGS`` in-process; (exit status, stdout, stderr)."""
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def all_keys(store: Any, *, since: int | None = None) -> list[Any]:
    """Every top-level key of a store, following the listing cursor to its end, sorted.

    Stores list keys range by range (Cosmos order within a range), so the whole is
    sorted here; a key listed twice stays twice, so tests see duplicates.
    """
    keys: list[Any] = []
    cursor = None
    while True:
        page = await store.list_keys(cursor, since=since)
        keys.extend(page.keys)
        cursor = page.cursor
        if cursor is None:
            return sorted(keys)


async def counted(store: Any) -> dict[str, Any]:
    """Every top-level key's text with its counts (KeyCounts)."""
    return {key.text: await store.key_counts(key) for key in await all_keys(store)}
