"""The demo generator: deterministic, the promised shape, and fast enough."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections import Counter

import pytest

from cosmem_tui.core.demo.generator import DEMO_SEED, DemoShape, generate_items
from cosmem_tui.core.demo.hostile import HOSTILE_TEXTS
from cosmem_tui.core.demo.manifest import read_manifest
from cosmem_tui.core.demo.words import WordsError, load_words, parse_words
from cosmem_tui.model import Tenant, ThreadRef
from cosmem_tui.schemas import get_schema
from cosmem_tui.sources.local import LocalStore
from tests.conftest import ANCHOR
from tests.helpers import all_keys


def digest(anchor: int, seed: int, shape: DemoShape | None = None) -> str:
    items, _ = generate_items(anchor, seed, shape or DemoShape())
    h = hashlib.sha256()
    for body in items:
        h.update(json.dumps(body, sort_keys=True).encode())
    return h.hexdigest()


def test_same_seed_and_anchor_give_the_same_bytes():
    assert digest(ANCHOR, 7) == digest(ANCHOR, 7)


def test_the_demo_has_not_moved():
    """The generator's draws and words.toml's order pin every byte of the demo: the UI
    snapshots depend on it. Update this digest only with an intended change of the demo
    (and regenerate the snapshots with it)."""
    small = DemoShape(tenants=10, threads=40)  # 10 tenants: the malformed and hostile too
    assert digest(ANCHOR, DEMO_SEED, small) == (
        "6fd61a1b179e98440e0a6b4810266b38f3816166712f730b7b30fd80146e1088"
    )


def test_the_words_are_packaged_and_every_placeholder_has_a_slot():
    words = load_words()
    assert len(words.tenants) == DemoShape().tenants == 48
    assert words.tenants[0] == "contoso" and "" in words.user_openers
    assert "Settings → {Thing} → Manage" in " ".join(words.agent_steps)


def test_a_template_naming_a_missing_slot_is_refused():
    text = (
        'tenants = ["a"]\n[conversation]\nuser_openers = [""]\n'
        'user_problems = ["my {gadget} broke"]\nagent_openers = ["Ok."]\n'
        'agent_steps = ["Done."]\nfacts = ["A fact."]\n[slots]\nthing = ["x"]\n'
    )
    with pytest.raises(WordsError, match="gadget"):
        parse_words(text)
    with pytest.raises(WordsError, match="tenants"):
        parse_words(text.replace('tenants = ["a"]', "tenants = []"))


def test_another_seed_or_anchor_gives_another_workspace():
    assert digest(ANCHOR, 7) != digest(ANCHOR, 8)
    assert digest(ANCHOR, 7) != digest(ANCHOR + 60, 7)


async def test_the_demo_has_the_promised_shape(demo_path, manifest, clock):
    store = LocalStore.open(demo_path, get_schema("lab"), clock=clock)
    tenants = [
        Tenant(key, c.threads or 0, c.items, c.last_activity)
        for key in await all_keys(store)
        for c in [await store.key_counts(key)]
    ]
    assert len(tenants) >= 40
    assert sum(t.threads for t in tenants) >= 1500
    assert sum(t.items for t in tenants) >= 40_000
    visible_turns = store.workspace._db.execute(
        "SELECT COUNT(*) FROM items WHERE (expires_at IS NULL OR expires_at > ?)"
        " AND json_extract(body, '$.type') IS NULL",
        (ANCHOR,),
    ).fetchone()[0]
    assert visible_turns >= 40_000, "at least 40,000 conversation turns, besides summaries/facts"
    by_size = sorted(tenants, key=lambda t: -t.items)
    assert by_size[0].name == manifest.hot_tenant == "contoso"
    assert by_size[0].items >= 2 * by_size[1].items  # clearly hot
    assert by_size[-1].items * 20 < by_size[0].items  # Zipf-like spread
    assert all(t.last_activity is None or t.last_activity <= ANCHOR for t in tenants)
    # Some items already expired: the workspace holds more than is visible.
    assert store.workspace.item_count() > sum(t.items for t in tenants)
    assert read_manifest(store.workspace) == manifest
    await store.close()


async def test_short_and_long_term_memory_and_near_expiry(demo_path, clock):
    store = LocalStore.open(demo_path, get_schema("lab"), clock=clock)
    rows = store.workspace.query("list_keys_tenants", {"now": ANCHOR, "since": -1})
    assert len(rows) >= 40
    soon = store.workspace._db.execute(
        "SELECT COUNT(*) FROM items WHERE expires_at > ? AND expires_at <= ?",
        (ANCHOR, ANCHOR + 3600),
    ).fetchone()[0]
    never = store.workspace._db.execute(
        "SELECT COUNT(*) FROM items WHERE expires_at IS NULL"
    ).fetchone()[0]
    kinds = Counter(
        json.loads(b).get("type", "turn")
        for (b,) in store.workspace._db.execute("SELECT body FROM items LIMIT 20000")
    )
    assert soon >= 10, "some short-term items expire within the next hour"
    assert never >= 1000, "long-term items (ttl -1 or no ttl under container -1)"
    assert kinds["summary"] > 0 and kinds["fact"] > 0
    await store.close()


async def test_malformed_and_hostile_threads_are_there(demo_path, manifest, clock):
    store = LocalStore.open(demo_path, get_schema("lab"), clock=clock)
    malformed = ThreadRef.of(manifest.malformed["tenant"], manifest.malformed["thread"])
    page = await store.page_turns(malformed, page_size=100)
    assert len(page.items) >= 10
    bodies = [i.body for i in page.items]
    assert any("turnIndex" not in b for b in bodies)
    assert any(b.get("ttl", 1) is None for b in bodies)
    hostile = ThreadRef.of(manifest.hostile["tenant"], manifest.hostile["thread"])
    page = await store.page_turns(hostile, page_size=100)
    texts = [b["messages"][0]["content"] for b in (i.body for i in page.items)]
    assert texts == list(HOSTILE_TEXTS)
    await store.close()


SELF_LINK = re.compile(r"dbs/([A-Za-z0-9+=-]+)/colls/([A-Za-z0-9+=-]+)/docs/([A-Za-z0-9+=-]+)/")


def test_items_carry_a_self_link_shaped_as_cosmos_writes_it():
    """``dbs/<db rid>/colls/<container rid>/docs/<item rid>/``: each rid base64 of 4, 8
    and 16 bytes, nested (an item's rid starts with its container's, which starts with
    its database's), the item's rid its ``_rid``: the malformed and hostile items too."""
    items, _ = generate_items(ANCHOR, DEMO_SEED, DemoShape(tenants=10, threads=40))
    containers = set()
    for body in items:
        match = SELF_LINK.fullmatch(body["_self"])
        assert match is not None, body["_self"]
        db, coll, doc = (base64.b64decode(part.replace("-", "/")) for part in match.groups())
        assert (len(db), len(coll), len(doc)) == (4, 8, 16)
        assert coll[:4] == db and doc[:8] == coll
        assert match.group(3) == body["_rid"]
        containers.add(match.group(2))
    assert len(containers) == 1  # one container
