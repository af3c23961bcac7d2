"""One builder makes every backend's change records: what it reads from a version."""

from __future__ import annotations

from cosmem_tui.model import ThreadRef
from cosmem_tui.model.changes import ChangeOp, FeedMode, FeedStart
from cosmem_tui.model.keys import Key
from cosmem_tui.schemas.registry import get_schema
from cosmem_tui.sources.changes import in_scope, removal_change, version_change


def _turn(text: str, ttl: int = 3600) -> dict:
    return {
        "id": "t-7",
        "tenantId": 42,
        "threadId": "th-1",
        "turnIndex": 7,
        "messages": [{"role": "user", "content": text}],
        "ttl": ttl,
        "_ts": 1_700_000_000,
    }


def test_a_version_reads_as_the_schema_maps_it() -> None:
    schema = get_schema("lab")
    body = _turn("remember   my\nflight to Oslo")
    change = version_change(schema, body, lsn=12, op=ChangeOp.CREATE, partition_key=(42, "th-1"))
    assert change.ref == ThreadRef(Key.of(42), Key.of("th-1"))
    assert change.ref != ThreadRef(Key.of("42"), Key.of("th-1"))  # typed keys
    assert change.key == (12, "t-7")
    assert change.commit_time == 1_700_000_000  # latest-version: the version's _ts
    assert change.ttl == 3600
    assert "remember my flight to Oslo" in change.preview
    assert "\n" not in change.preview


def test_the_digest_tells_an_edit_from_a_ttl_reset() -> None:
    schema = get_schema("lab")
    first = version_change(schema, _turn("a"), lsn=1, op=ChangeOp.CREATE)
    reset = version_change(schema, _turn("a", ttl=7200), lsn=2, op=ChangeOp.REPLACE)
    edited = version_change(schema, _turn("b"), lsn=3, op=ChangeOp.REPLACE)
    assert first.digest == reset.digest
    assert first.digest != edited.digest


def test_a_purge_carries_its_thread_from_the_partition_key() -> None:
    schema = get_schema("lab")
    gone = removal_change(schema, "t-7", (42, "th-1"), lsn=9, commit_time=5, ttl_expired=True)
    assert gone.op is ChangeOp.EXPIRED and gone.ttl_expired and gone.op.removes
    assert gone.ref == ThreadRef(Key.of(42), Key.of("th-1"))
    assert in_scope(gone, Key.of(42), None)
    assert not in_scope(gone, Key.of("42"), None)
    assert not in_scope(gone, None, ThreadRef(Key.of(42), Key.of("th-2")))


def test_all_versions_starts_only_now() -> None:
    assert FeedStart.now().allowed_in(FeedMode.ALL_VERSIONS)
    assert not FeedStart.beginning().allowed_in(FeedMode.ALL_VERSIONS)
    assert not FeedStart.at_time(5).allowed_in(FeedMode.ALL_VERSIONS)
    assert FeedStart.beginning().allowed_in(FeedMode.LATEST)
