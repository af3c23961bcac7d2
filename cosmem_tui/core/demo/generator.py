"""The demo generator: a seeded, deterministic agent-memory container to explore offline.

Shape (lab schema, key [/tenantId, /threadId], container DefaultTimeToLive -1):

* 48 tenants whose sizes follow a Zipf law, with ``contoso`` clearly hot (about a
  quarter of all threads, and longer threads);
* about 1,600 threads and more than 40,000 visible items over the last 30 days;
* short-term turns whose ``ttl`` follows the tenant's retention (1 h, 1 d, 7 d,
  30 d), so some expire within the next hour and some have already expired
  (invisible), and long-term items (``ttl`` absent or -1: summaries, facts, and
  every turn of the tenants that keep history);
* planted recall cases (``recall_cases``): a thread whose last turn's recall probe
  misses what the user said earlier, for each reason the console names;
* a thread of malformed items and a thread of hostile text (Rich markup, ANSI
  and OSC escape sequences, C1 controls, a right-to-left override, and a role
  name that is an escape sequence), listed in
  the workspace's ``demo_manifest`` so tests and the README can point at them.

Everything derives from ``(seed, anchor)``: the same pair gives the same bytes. The
words come from ``words.toml``; the generator draws from them with one RNG, in order.
"""

from __future__ import annotations

import base64
import json
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cosmem_tui.core.demo import GENERATION as DEMO_GENERATION
from cosmem_tui.core.demo.embedder import DemoEmbedder
from cosmem_tui.core.demo.hostile import (
    HOSTILE_ROLE,
    HOSTILE_ROLE_TURN,
    HOSTILE_TEXTS,
    HOSTILE_THREAD,
)
from cosmem_tui.core.demo.manifest import DemoManifest
from cosmem_tui.core.demo.recall_cases import RECALL_TENANT, manifest_entry, recall_items
from cosmem_tui.core.demo.words import load_words
from cosmem_tui.model import ContainerProperties, PartitionKeyDefinition
from cosmem_tui.schemas import Schema, get_schema
from cosmem_tui.sources.local.builder import WorkspaceBuilder
from cosmem_tui.sources.local.change_log import DEMO_RETENTION_S, RETENTION_META
from cosmem_tui.sources.local.workspace import Workspace

DEMO_SEED = 20261130
DAY = 86_400
HOUR = 3_600

# Retention of short-term turns per tenant: (item ttl, share of tenants). None = keep
# (no ttl property: the container default -1 applies, so turns are long-term).
RETENTION = ((30 * DAY, 0.68), (7 * DAY, 0.14), (DAY, 0.08), (HOUR, 0.05), (None, 0.05))

WORDS = load_words()  # once, at import: this module loads only when a demo is built


@dataclass(frozen=True)
class DemoShape:
    tenants: int = len(WORDS.tenants)
    threads: int = 1_600
    zipf_exponent: float = 1.07
    mean_turns: float = 30.0
    days: int = 30
    physical_partitions: int = 4


def demo_container() -> ContainerProperties:
    return ContainerProperties(
        database="agentmemory",
        container="turns",
        partition_key=PartitionKeyDefinition(("/tenantId", "/threadId"), "MultiHash", 2),
        default_ttl=-1,
        indexing_policy={
            "indexingMode": "consistent",
            "includedPaths": [{"path": "/*"}],
            "excludedPaths": [{"path": "/embedding/*"}, {"path": '/"_etag"/?'}],
            "fullTextIndexes": [{"path": "/content"}],
            # As the lab declares it on a real account (diskANN there; the workspace's
            # probe is exact whatever the index type says).
            "vectorIndexes": [{"path": "/embedding", "type": "diskANN"}],
        },
        vector_embedding_policy={
            "vectorEmbeddings": [
                {
                    "path": "/embedding",
                    "dataType": "float32",
                    "distanceFunction": "cosine",
                    "dimensions": 8,
                }
            ]
        },
        full_text_policy={
            "defaultLanguage": "en-US",
            "fullTextPaths": [{"path": "/content", "language": "en-US"}],
        },
    )


def _iso(epoch: float) -> str:
    """ISO-8601 UTC with milliseconds and a Z, as JavaScript and .NET writers produce."""
    whole = int(epoch)
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
        + f".{int((epoch - whole) * 1000):03d}Z"
    )


def rid_text(raw: bytes) -> str:
    """A resource id as it appears in ``_rid`` and ``_self``: base64 with ``-`` for ``/``
    (a ``/`` would split the ``_self`` path)."""
    return base64.b64encode(raw).decode("ascii").replace("/", "-")


class _Writer:
    """Builds item bodies with Cosmos-looking system properties from one RNG."""

    db_bytes: bytes
    coll_bytes: bytes
    db_rid: str
    coll_rid: str

    def __init__(self, rng: random.Random, container_of: _Writer | None = None) -> None:
        self.rng = rng
        if container_of is not None:  # another stream of draws for the same container
            self.db_bytes, self.coll_bytes = container_of.db_bytes, container_of.coll_bytes
            self.db_rid, self.coll_rid = container_of.db_rid, container_of.coll_rid
            self._init_embeddings()
            return
        # Resource ids nest as Cosmos writes them: a database's 4 bytes, a container's 8
        # (its database's 4 first), an item's 16 (its container's 8 first). The draws
        # stay as they were (6 and 4 bytes), so the rest of the demo does not move.
        self.db_bytes = self.rng.randbytes(6)[:4]
        self.coll_bytes = self.db_bytes + self.rng.randbytes(4)
        self.db_rid = rid_text(self.db_bytes)
        self.coll_rid = rid_text(self.coll_bytes)
        self._init_embeddings()

    def _init_embeddings(self) -> None:
        self._embedder = DemoEmbedder()
        self._pool_drawn = False
        self._part_sums: dict[str, list[float]] = {}

    def uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:]}"

    def item(self, tenant: str, thread: str, index: Any, ts: int, **fields: Any) -> dict[str, Any]:
        rid = rid_text(self.coll_bytes + self.rng.randbytes(8))
        body: dict[str, Any] = {"id": self.uuid(), "tenantId": tenant, "threadId": thread}
        if index is not _NO_INDEX:
            body["turnIndex"] = index
        body.update(fields)
        body["_rid"] = rid
        body["_self"] = f"dbs/{self.db_rid}/colls/{self.coll_rid}/docs/{rid}/"
        body["_etag"] = f'"{self.rng.getrandbits(32):08x}-0000-0d00-0000-{ts:08x}0000"'
        body["_attachments"] = "attachments/"
        body["_ts"] = ts
        return body

    def embedding(self, *parts: str) -> list[float]:
        """The demo embedding of the parts joined by spaces (``DemoEmbedder``: near when
        texts share words).

        Vectors were once drawn at random from a pool of 256; the same numbers are still
        drawn and dropped, so every other byte of the demo (ids, texts, times) stays as
        it was and only the embeddings change."""
        if not self._pool_drawn:
            self._pool_drawn = True
            for _ in range(_OLD_POOL_DRAWS):
                self.rng.random()
        self.rng.choice(range(_OLD_POOL_SIZE))
        return self._embedder.vector_of_parts(parts, self._part_sums)


_NO_INDEX = object()
_OLD_POOL_SIZE = 256  # the random pool the embeddings came from before DemoEmbedder
_OLD_POOL_DRAWS = _OLD_POOL_SIZE * 8


class _Slots(dict[str, str]):
    """Draws a template's placeholders on demand, so unused ones cost no random numbers."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, key: str) -> str:
        if key == "num":
            return str(self.rng.randint(10_000, 99_999))
        if key == "Thing":
            return self.rng.choice(WORDS.slots["thing"]).title()
        return self.rng.choice(WORDS.slots[key])


def _fill(rng: random.Random, template: str) -> str:
    return template.format_map(_Slots(rng))


def _exchange(rng: random.Random) -> tuple[str, str]:
    opener = rng.choice(WORDS.user_openers)
    user = _fill(rng, rng.choice(WORDS.user_problems))
    user = f"{opener} {user}" if opener else user[0].upper() + user[1:]
    agent = f"{rng.choice(WORDS.agent_openers)} {_fill(rng, rng.choice(WORDS.agent_steps))}"
    return user, agent


def _thread_id(rng: random.Random) -> str:
    return f"thr-{rng.getrandbits(40):010x}"


def _retention(rng: random.Random) -> int | None:
    roll, acc = rng.random(), 0.0
    for ttl, share in RETENTION:
        acc += share
        if roll < acc:
            return ttl
    return RETENTION[0][0]


def _memory_record(
    w: _Writer,
    tenant: str,
    thread: str,
    index: int,
    ts: int,
    kind: str,
    text: str,
    at: float,
    **extra: Any,
) -> dict[str, Any]:
    """A long-term record (summary, fact) written by the agent as a system message."""
    message = {"role": "system", "content": text, "timestamp": _iso(at)}
    return w.item(tenant, thread, index, ts, type=kind, messages=[message], content=text, **extra)


def _turn_items(
    w: _Writer, tenant: str, thread: str, count: int, last: float, ttl: int | None, anchor: int
) -> Iterator[dict[str, Any]]:
    """The items of one thread: exchanges, with a summary every ~12 slots and some facts."""
    rng = w.rng
    gaps = [
        rng.expovariate(1 / 150) + (rng.random() < 0.08) * rng.uniform(HOUR, 30 * HOUR)
        for _ in range(count)
    ]
    t = last - sum(gaps)
    since_summary = 0
    for index in range(count):
        t += gaps[index]
        user_at = t
        agent_at = t + rng.uniform(1.5, 12)
        ts = min(int(agent_at), anchor)
        since_summary += 1
        if since_summary >= 12 and rng.random() < 0.5:
            since_summary = 0
            text = f"Summary of turns {max(0, index - 12)}–{index - 1}: " + _fill(
                rng, rng.choice(WORDS.agent_steps)
            )
            # Summaries are rewritten after later turns: their _ts moves, their ttl is -1.
            rewritten = min(anchor, ts + int(rng.uniform(60, 6 * HOUR)))
            yield _memory_record(
                w, tenant, thread, index, rewritten, "summary", text, agent_at, ttl=-1
            )
            continue
        if rng.random() < 0.03:
            text = "Fact: " + _fill(rng, rng.choice(WORDS.facts))
            yield _memory_record(w, tenant, thread, index, ts, "fact", text, agent_at)
            continue
        user, agent = _exchange(rng)
        fields: dict[str, Any] = {
            "messages": [
                {"role": "user", "content": user, "timestamp": _iso(user_at)},
                {
                    "role": "agent",
                    "content": agent,
                    "entityId": "support-agent",
                    "timestamp": _iso(agent_at),
                },
            ],
            "content": f"{user} {agent}",
            "embedding": w.embedding(user, agent),
        }
        if rng.random() < 0.06:
            # Patched after the fact (like AMT's extracted_at): the write resets the TTL clock.
            ts = min(anchor, ts + int(rng.uniform(5 * 60, 3 * HOUR)))
            fields["extractedAt"] = _iso(ts)
        if ttl is not None:
            fields["ttl"] = ttl
        yield w.item(tenant, thread, index, ts, **fields)


def _malformed_items(w: _Writer, tenant: str, thread: str, anchor: int) -> Iterator[dict[str, Any]]:
    t = anchor - 2 * HOUR

    def msgs(text: str) -> list[dict[str, Any]]:
        return [{"role": "user", "content": text, "timestamp": _iso(t)}]

    yield w.item(
        tenant, thread, 0, t, messages=msgs("A well-formed turn before the bad ones."), ttl=7 * DAY
    )
    yield w.item(tenant, thread, _NO_INDEX, t + 1, messages=msgs("turnIndex is missing"))
    yield w.item(tenant, thread, "7", t + 2, messages=msgs("turnIndex is a string"))
    yield w.item(tenant, thread, 3, t + 3, messages="messages is a string, not an array")
    yield w.item(tenant, thread, 4, t + 4, content="no messages array at all")
    yield w.item(tenant, thread, 5, t + 5, messages=[{"role": "user", "content": None}])
    yield w.item(
        tenant,
        thread,
        6,
        t + 6,
        messages=[{"role": "agent", "content": {"text": "content is an object"}}],
    )
    yield w.item(tenant, thread, 8, t + 7, messages=[{"content": "this message has no role"}])
    yield w.item(tenant, thread, 9, t + 8, messages=["a message that is a bare string"])
    yield w.item(tenant, thread, 10, t + 9, messages=msgs("ttl is null"), ttl=None)
    yield w.item(tenant, thread, 11, t + 10, messages=msgs("ttl is zero"), ttl=0)
    yield w.item(tenant, thread, 12, t + 11, messages=msgs("ttl is a string"), ttl="3600")
    yield w.item(tenant, thread, 13, t + 12, messages=msgs("type is a number"), type=42)


def _hostile_items(w: _Writer, tenant: str, thread: str, anchor: int) -> Iterator[dict[str, Any]]:
    t = anchor - 3 * HOUR
    for index, text in enumerate(HOSTILE_TEXTS):
        at = t + index * 60
        role = HOSTILE_ROLE if index == HOSTILE_ROLE_TURN else "user"
        yield w.item(
            tenant,
            thread,
            index,
            at,
            messages=[
                {"role": role, "content": text, "timestamp": _iso(at)},
                {"role": "agent", "content": "I can't help with that.", "timestamp": _iso(at + 5)},
            ],
            content=text,
            ttl=30 * DAY,
        )


def generate_items(
    anchor: int, seed: int = DEMO_SEED, shape: DemoShape = DemoShape()
) -> tuple[Iterator[dict[str, Any]], DemoManifest]:
    """Every item of the demo workspace, lazily, plus the manifest describing them."""
    rng = random.Random(seed)
    w = _Writer(rng)
    tenants = list(WORDS.tenants[: shape.tenants])
    weights = [1 / (rank + 1) ** shape.zipf_exponent for rank in range(len(tenants))]
    scale = shape.threads / sum(weights)
    manifest = DemoManifest(seed=seed, anchor=anchor, hot_tenant=tenants[0])
    malformed_tenant, hostile_tenant = tenants[6], tenants[8]
    mu = math.log(shape.mean_turns) - 0.405  # lognormal with sigma 0.9 has mean e^(mu+0.405)

    def items() -> Iterator[dict[str, Any]]:
        for rank, tenant in enumerate(tenants):
            hot = rank == 0
            ttl = 30 * DAY if hot else _retention(rng)
            window = min(ttl or shape.days * DAY, shape.days * DAY)
            for _ in range(max(3, round(weights[rank] * scale))):
                thread = _thread_id(rng)
                count = min(600, max(1, round(rng.lognormvariate(mu, 0.9) * (1.6 if hot else 1))))
                age = window * rng.random() ** 1.6
                manifest.threads += 1
                for body in _turn_items(w, tenant, thread, count, anchor - age, ttl, anchor):
                    manifest.items += 1
                    yield body
            if tenant == malformed_tenant:
                thread = _thread_id(rng)
                manifest.malformed = {"tenant": tenant, "thread": thread}
                manifest.threads += 1
                for body in _malformed_items(w, tenant, thread, anchor):
                    manifest.items += 1
                    yield body
            if tenant == hostile_tenant:
                manifest.hostile = {"tenant": tenant, "thread": HOSTILE_THREAD}
                manifest.threads += 1
                for body in _hostile_items(w, tenant, HOSTILE_THREAD, anchor):
                    manifest.items += 1
                    yield body
        if RECALL_TENANT in tenants:
            # Last, and from draws of their own: the demo before them stays as it was.
            planted = _Writer(random.Random(seed + 19), container_of=w)
            manifest.recall = manifest_entry()
            manifest.threads += 2
            for body in recall_items(planted.item, _iso, anchor):
                manifest.items += 1
                yield body

    return items(), manifest


def build_demo_workspace(
    path: Path,
    anchor: int,
    *,
    seed: int = DEMO_SEED,
    shape: DemoShape = DemoShape(),
    schema: Schema | None = None,
    progress: Callable[[int], None] | None = None,
) -> DemoManifest:
    """Write the demo workspace to ``path`` (atomically; replaces an existing file).

    ``progress`` is called with the number of items written so far, every few thousand.
    """
    schema = schema or get_schema("lab")
    items, manifest = generate_items(anchor, seed, shape)

    def rows(workspace: WorkspaceBuilder) -> Iterator[dict[str, Any]]:
        for count, body in enumerate(items, 1):
            if progress is not None and count % 4096 == 0:
                progress(count)
            yield workspace.row_for(body, schema, anchor)

    with Workspace.building(path, demo_container(), schema) as workspace:
        workspace.insert_rows(rows(workspace))
        workspace.set_meta("demo_manifest", json.dumps(asdict(manifest)))
        workspace.set_meta("physical_partitions", str(shape.physical_partitions))
        workspace.set_meta("schema", schema.name)
        workspace.set_meta("demo_generation", DEMO_GENERATION)
        workspace.set_meta(RETENTION_META, str(DEMO_RETENTION_S))
    return manifest
