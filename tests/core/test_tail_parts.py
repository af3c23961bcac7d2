"""The tail's pure parts: the window of rows and the last minute's rates."""

from __future__ import annotations

import pytest

from cosmem_tui.core.tail import check_start, mode_note
from cosmem_tui.core.tail_rate import FLOOD_MIN_CHANGES, RATE_WINDOW_S, RateMeter, writer_of
from cosmem_tui.core.tail_window import SEEN_PER_ROW, TailWindow
from cosmem_tui.model import Key, ThreadRef
from cosmem_tui.model.changes import Change, ChangeOp, FeedMode, FeedStart

NOW = 1_800_000_000


def change(lsn: int, item: str = "", *, tenant: object = "t1", at: int = NOW) -> Change:
    return Change(
        lsn=lsn,
        op=ChangeOp.CREATE,
        commit_time=at,
        item_id=item or f"i{lsn}",
        ref=ThreadRef.of(tenant, "th"),
        partition_key=(tenant, "th"),
    )


# -- the window ---------------------------------------------------------------------------


def test_window_is_newest_first_and_returns_only_new_rows() -> None:
    window = TailWindow(10)
    assert [c.lsn for c in window.add([change(1), change(2), change(3)])] == [3, 2, 1]
    fresh = window.add([change(3), change(4)])  # a page read again overlaps the last
    assert [c.lsn for c in fresh] == [4]
    assert [c.lsn for c in window] == [4, 3, 2, 1]
    assert window.duplicates == 1


def test_window_keys_by_lsn_and_id() -> None:
    window = TailWindow(10)
    # The same item under two lsns is two entries; two items under one lsn are two too.
    fresh = window.add([change(5, "a"), change(6, "a"), change(6, "b")])
    assert [c.key for c in fresh] == [(6, "b"), (6, "a"), (5, "a")]
    assert window.add([change(6, "a")]) == []


def test_window_is_bounded_and_remembers_more_keys_than_rows() -> None:
    window = TailWindow(3)
    window.add([change(n) for n in range(1, 11)])
    assert [c.lsn for c in window] == [10, 9, 8]
    assert window.dropped == 7 and len(window) == 3
    # A replay of rows that already left the window still shows nothing twice…
    assert window.add([change(n) for n in range(5, 11)]) == []
    # …and the keys it remembers are bounded too: memory is flat over a long run.
    window.add([change(n) for n in range(100, 100 + 10 * 3 * SEEN_PER_ROW)])
    assert len(window._seen) == 3 * SEEN_PER_ROW
    assert len(window) == 3


def test_a_cleared_window_still_drops_a_replay() -> None:
    window = TailWindow(5)
    window.add([change(1), change(2)])
    window.clear()
    assert len(window) == 0
    assert window.add([change(2), change(3)]) == [change(3)]


# -- the rates ----------------------------------------------------------------------------


def test_rates_over_the_minute_by_commit_time() -> None:
    meter = RateMeter(started_at=NOW - 600)
    changes = [change(n, tenant="hot", at=NOW - 10 + n % 10) for n in range(60)]
    changes += [change(1000 + n, tenant="calm", at=NOW - 5) for n in range(30)]
    changes += [change(2000, tenant="old", at=NOW - RATE_WINDOW_S - 5)]  # before the minute
    meter.add(changes, NOW)
    summary = meter.summary(NOW)
    assert summary.changes == 90 and summary.span_s == RATE_WINDOW_S
    assert summary.per_s == pytest.approx(90 / 60)
    assert [(w.writer, w.changes) for w in summary.writers] == [
        (Key.of("hot"), 60),
        (Key.of("calm"), 30),
    ]
    assert summary.writers[0].per_s == pytest.approx(1.0)
    assert summary.writers[0].share == pytest.approx(60 / 90)
    # A minute later nothing is left: rates fall to zero, and the buckets are gone.
    later = meter.summary(NOW + RATE_WINDOW_S + 1)
    assert later.changes == 0 and later.writers == () and meter.buckets == 0


def test_rates_since_a_recent_start_are_over_the_time_watched() -> None:
    meter = RateMeter(started_at=NOW - 10)
    meter.add([change(n, at=NOW - 1) for n in range(20)], NOW)
    assert meter.summary(NOW).span_s == 10
    assert meter.summary(NOW).per_s == pytest.approx(2.0)


def test_numeric_and_string_tenants_are_different_writers() -> None:
    meter = RateMeter(started_at=NOW - 60)
    meter.add([change(1, tenant=42), change(2, tenant="42"), change(3, tenant=42)], NOW)
    writers = meter.summary(NOW).writers
    assert [(w.writer, w.changes) for w in writers] == [(Key.of(42), 2), (Key.of("42"), 1)]


def test_a_flood_is_one_tenant_above_the_share() -> None:
    meter = RateMeter(started_at=NOW - 60, flood_share=0.5)
    meter.add([change(n, tenant="hot") for n in range(FLOOD_MIN_CHANGES)], NOW)
    meter.add([change(1000 + n, tenant=f"t{n}") for n in range(FLOOD_MIN_CHANGES - 1)], NOW)
    flood = meter.summary(NOW).flood
    assert flood is not None and flood.writer == Key.of("hot")
    assert meter.summary(NOW, floods=False).flood is None  # a tenant's own tail
    # One more write elsewhere and the hot tenant is at exactly half: no flood.
    meter.add([change(5000, tenant="other")], NOW)
    assert meter.summary(NOW).flood is None


def test_a_few_writes_are_no_flood() -> None:
    meter = RateMeter(started_at=NOW - 60, flood_share=0.5)
    meter.add([change(n, tenant="hot") for n in range(FLOOD_MIN_CHANGES - 1)], NOW)
    assert meter.summary(NOW).flood is None


def test_the_flood_share_is_checked() -> None:
    with pytest.raises(ValueError, match="flood share"):
        RateMeter(NOW, flood_share=1.5)
    with pytest.raises(ValueError, match="flood share"):
        RateMeter(NOW, flood_share=0)


def test_late_changes_land_in_their_second_and_buckets_stay_bounded() -> None:
    meter = RateMeter(started_at=NOW - 1000)
    for second in range(0, 600):  # ten minutes, one poll a second
        meter.add([change(second * 10 + k, at=NOW + second) for k in range(5)], NOW + second)
        assert meter.buckets <= RATE_WINDOW_S
    meter.add([change(99_999, at=NOW + 590)], NOW + 599)  # a late one, nine seconds old
    assert meter.summary(NOW + 599).changes == 5 * RATE_WINDOW_S + 1


def test_a_change_without_a_thread_counts_in_the_total_only() -> None:
    stray = Change(1, ChangeOp.DELETE, NOW, "x", None, ("?",))
    meter = RateMeter(started_at=NOW - 60)
    meter.add([stray, change(2)], NOW)
    summary = meter.summary(NOW)
    assert summary.changes == 2 and [w.writer for w in summary.writers] == [Key.of("t1")]
    assert writer_of(stray) is None


# -- modes and starts ---------------------------------------------------------------------


def test_latest_mode_says_what_it_cannot_see_and_the_fix() -> None:
    note = mode_note(FeedMode.LATEST)
    assert note is not None and "deletes and TTL expirations are not visible" in note
    assert "--mode all" in note and "enableAllVersionsAndDeletesChangeFeed" in note
    assert mode_note(FeedMode.ALL_VERSIONS) is None


def test_all_versions_starts_only_now() -> None:
    assert check_start(FeedMode.ALL_VERSIONS, FeedStart.now()) == FeedStart.now()
    assert check_start(FeedMode.LATEST, FeedStart.beginning()) == FeedStart.beginning()
    with pytest.raises(ValueError, match="starts only now"):
        check_start(FeedMode.ALL_VERSIONS, FeedStart.beginning())
    with pytest.raises(ValueError, match="starts only now"):
        check_start(FeedMode.ALL_VERSIONS, FeedStart.at_time(NOW))
