"""A timeline from change records: what each replace changed, a delete, an expiry with
both its times, and what a gap marker can say from it."""

from __future__ import annotations

from typing import Any

from cosmem_tui.core.history_report import event_words, history_record
from cosmem_tui.core.history_timeline import ago_words, gap_fate, span_words, timeline
from cosmem_tui.model import ThreadRef
from cosmem_tui.model.changes import Change, ChangeOp, FeedMode
from cosmem_tui.model.history import History
from cosmem_tui.model.keys import Key
from cosmem_tui.schemas.registry import get_schema
from cosmem_tui.sources.changes import removal_change, version_change

SCHEMA = get_schema("lab")
REF = ThreadRef(Key.of(42), Key.of("th-1"))
T0 = 1_700_000_000


def _version(
    item: str, lsn: int, op: ChangeOp, ts: int, *, text: str = "hello", order: int = 7, **extra: Any
) -> Change:
    body: dict[str, Any] = {
        "id": item,
        "tenantId": 42,
        "threadId": "th-1",
        "turnIndex": order,
        "messages": [{"role": extra.pop("role", "user"), "content": text}],
        "_ts": ts,
        **extra,
    }
    return version_change(SCHEMA, body, lsn=lsn, op=op, commit_time=ts, partition_key=(42, "th-1"))


def _removal(item: str, lsn: int, at: int, *, expired: bool) -> Change:
    return removal_change(SCHEMA, item, (42, "th-1"), lsn=lsn, commit_time=at, ttl_expired=expired)


def test_a_replace_names_what_changed_and_a_ttl_reset() -> None:
    events = timeline(
        [
            _version("a", 1, ChangeOp.CREATE, T0, ttl=3600),
            _version("a", 2, ChangeOp.REPLACE, T0 + 60, ttl=3600),  # rewrite: countdown reset
            _version("a", 3, ChangeOp.REPLACE, T0 + 120, text="edited", ttl=7200),
            _version("a", 4, ChangeOp.REPLACE, T0 + 180, text="edited", ttl=7200, role="agent"),
        ],
        default_ttl=-1,
    )
    assert [e.op for e in events] == [ChangeOp.CREATE, *[ChangeOp.REPLACE] * 3]
    created, reset, edited, role = events
    assert created.changed == () and created.expires_at == T0 + 3600
    assert reset.changed == () and reset.ttl_reset
    assert reset.expires_before == T0 + 3600 and reset.expires_at == T0 + 60 + 3600
    assert edited.changed == ("ttl", "content") and edited.ttl_before == 3600
    assert role.changed == ("role",)
    assert "no mapped field changed" in event_words(reset)
    assert "content edited, ttl 3600 → 7200" in event_words(edited)


def test_an_expiry_has_both_times_and_the_lag() -> None:
    events = timeline(
        [
            _version("a", 1, ChangeOp.CREATE, T0),  # no ttl of its own: the default applies
            _removal("a", 2, T0 + 3600 + 600, expired=True),
        ],
        default_ttl=3600,
    )
    expired = events[-1]
    assert expired.op is ChangeOp.EXPIRED
    assert expired.expires_at == T0 + 3600  # _ts + the container default
    assert expired.purged_at == T0 + 4200  # the purge's commit time
    assert expired.purge_lag == 600
    assert expired.ttl_effective == 3600 and expired.order == 7
    record = history_record(expired)
    assert record["op"] == "expired"
    assert record["expired_at"] is not None and record["expires_at"] is None
    assert record["purge_lag_s"] == 600
    assert "10 min later" in event_words(expired)


def test_an_item_ttl_overrides_the_default_and_ttl_off_never_expires() -> None:
    own = timeline([_version("a", 1, ChangeOp.CREATE, T0, ttl=60)], default_ttl=3600)
    assert own[0].expires_at == T0 + 60
    off = timeline([_version("a", 1, ChangeOp.CREATE, T0, ttl=60)], default_ttl=None)
    assert off[0].expires_at is None  # TTL off on the container: the item's ttl is ignored
    invalid = timeline([_version("a", 1, ChangeOp.CREATE, T0, ttl="60")], default_ttl=3600)
    assert invalid[0].expires_at == T0 + 3600  # a string ttl is ignored: the default


def test_an_expiry_without_a_version_seen_says_the_purge_alone() -> None:
    (expired,) = timeline([_removal("a", 9, T0, expired=True)], default_ttl=3600)
    assert expired.expires_at is None and expired.purged_at == T0
    assert "expiry unknown" in event_words(expired)


def test_a_delete_keeps_the_last_version_and_a_duplicate_is_read_once() -> None:
    create = _version("a", 1, ChangeOp.CREATE, T0, ttl=3600)
    events = timeline([create, create, _removal("a", 2, T0 + 10, expired=False)], -1)
    assert [e.op for e in events] == [ChangeOp.CREATE, ChangeOp.DELETE]
    assert events[1].order == 7 and events[1].purged_at is None


def _history(changes: list[Change], mode: FeedMode = FeedMode.ALL_VERSIONS) -> History:
    return History(REF, None, mode, T0, timeline(changes, 3600))


def test_a_gap_of_expired_turns_says_when_they_expired_and_were_purged() -> None:
    history = _history(
        [
            _version("t5", 1, ChangeOp.CREATE, T0, order=5),
            _version("t6", 2, ChangeOp.CREATE, T0, order=6),
            _removal("t5", 3, T0 + 3600 + 600, expired=True),
            _removal("t6", 4, T0 + 3600 + 600, expired=True),
        ]
    )
    now = T0 + 4 * 3600  # expired at T0 + 1 h, purged 10 min later
    fate = gap_fate(history, 4, 7, 2, now)
    assert fate.describe(now) == "expired 3 h ago (TTL 3600), purged 2 h 50 min ago"


def test_a_gap_with_deletes_and_turns_the_history_never_saw() -> None:
    history = _history(
        [
            _version("t5", 1, ChangeOp.CREATE, T0, order=5),
            _version("t6", 2, ChangeOp.CREATE, T0, order=6),
            _removal("t6", 3, T0 + 100, expired=False),
            _version("t9", 4, ChangeOp.CREATE, T0, order=9),  # outside the gap
            _removal("t9", 5, T0 + 100, expired=False),
        ]
    )
    now = T0 + 400
    assert gap_fate(history, 4, 8, 1, now).describe(now) == "deleted 5 min ago"
    # three turns missing, one known deleted, t5 still there: two the history lacks
    assert gap_fate(history, 4, 8, 3, now).describe(now) == (
        "1 deleted 5 min ago · 2 not in the history"
    )
    assert gap_fate(history, 10, 12, 1, now).describe(now) is None  # nothing known


def test_a_recreated_turn_is_not_missing() -> None:
    history = _history(
        [
            _version("t5", 1, ChangeOp.CREATE, T0, order=5),
            _removal("t5", 2, T0 + 10, expired=False),
            _version("t5", 3, ChangeOp.CREATE, T0 + 20, order=5),
        ]
    )
    assert gap_fate(history, 4, 6, 1, T0 + 30).describe(T0 + 30) is None


def test_latest_version_mode_counts_a_version_past_its_expiry_as_lapsed() -> None:
    history = _history(
        [_version("t5", 1, ChangeOp.WRITE, T0, order=5, ttl=600)], mode=FeedMode.LATEST
    )
    now = T0 + 3600
    assert gap_fate(history, 4, 6, 1, now).describe(now) == (
        "expired 50 min ago (TTL 600), purge not visible"
    )


def test_durations_in_words() -> None:
    assert span_words(40) == "40 s"
    assert span_words(300) == "5 min"
    assert span_words(3 * 3600) == "3 h"
    assert span_words(2 * 3600 + 50 * 60) == "2 h 50 min"
    assert span_words(2 * 86_400 + 4 * 3600) == "2 d 4 h"
    assert ago_words(T0, T0 + 300) == "5 min ago"
    assert ago_words(T0 + 300, T0) == "in 5 min"


def test_an_item_gone_with_only_its_last_version_seen_says_when_it_expired() -> None:
    from cosmem_tui.core.history_report import item_words
    from cosmem_tui.model.history import ItemNow, ItemState

    events = timeline([_version("t5", 1, ChangeOp.WRITE, T0, order=5, ttl=600)], 3600)
    history = History(REF, "t5", FeedMode.LATEST, T0 + 3600, events, item=ItemNow(ItemState.ABSENT))
    words = item_words(history)
    assert words is not None and "expired 2023-11-14T22:23:20Z (TTL 600" in words
    assert "purge is not in this feed" in words
