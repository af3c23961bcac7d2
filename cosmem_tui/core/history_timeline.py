"""From change records to a timeline, and what a timeline says about missing turns.

Pure functions (no store, no clock of their own). ``timeline`` walks the changes of
one scope in commit order, remembers each item's last version, and writes every
event against it: a replace names the compared fields that differ (``content`` by
the text's digest, so no text is kept), a write that moves the expiry is a ttl reset
(any write restarts the countdown from its ``_ts``), and an expiry gets both times —
when it expired (the last version's ``_ts`` + effective ttl, resolved by
``model/ttl.py`` with the container default) and when it was purged (its commit time).

``gap_fate`` answers browse's gap marker: which of the turns between two order
values the history saw removed, how, and when.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cosmem_tui.model import MISSING, JsonValue
from cosmem_tui.model.changes import Change, ChangeOp
from cosmem_tui.model.history import (
    CONTENT,
    KIND,
    ORDER,
    ROLE,
    TTL,
    History,
    HistoryEvent,
)
from cosmem_tui.model.ttl import resolve_ttl


def _raw_ttl(value: JsonValue) -> object:
    # A change holds None for an absent ttl; an explicit null is treated alike by the
    # service (invalid, so the container default applies): the expiry is the same.
    return MISSING if value is None else value


def _changed(before: HistoryEvent, change: Change) -> tuple[str, ...]:
    fields: list[str] = []
    if before.ttl != change.ttl or type(before.ttl) is not type(change.ttl):
        fields.append(TTL)
    if before.digest != change.digest:
        fields.append(CONTENT)
    if before.role != change.role:
        fields.append(ROLE)
    if before.order != change.order or type(before.order) is not type(change.order):
        fields.append(ORDER)
    if before.kind != change.kind:
        fields.append(KIND)
    return tuple(fields)


def _version(change: Change, before: HistoryEvent | None, default_ttl: int | None) -> HistoryEvent:
    ts = change.ts if change.ts is not None else change.commit_time
    ttl = resolve_ttl(_raw_ttl(change.ttl), ts, default_ttl)
    prior = before if before is not None and not before.op.removes else None
    changed = _changed(prior, change) if prior is not None else ()
    moved = prior is not None and prior.expires_at != ttl.expires_at
    return HistoryEvent(
        time=change.commit_time,
        op=change.op,
        item_id=change.item_id,
        lsn=change.lsn,
        order=change.order,
        ttl=change.ttl,
        ttl_effective=ttl.effective,
        expires_at=ttl.expires_at,
        changed=changed,
        ttl_before=prior.ttl if prior is not None and TTL in changed else None,
        expires_before=prior.expires_at if moved and prior is not None else None,
        ttl_reset=moved,
        role=change.role,
        kind=change.kind,
        preview=change.preview,
        digest=change.digest,
        previous_seen=before is not None,
    )


def _removal(change: Change, before: HistoryEvent | None) -> HistoryEvent:
    version = before if before is not None and not before.op.removes else None
    expired = change.op is ChangeOp.EXPIRED
    return HistoryEvent(
        time=change.commit_time,
        op=change.op,
        item_id=change.item_id,
        lsn=change.lsn,
        order=version.order if version is not None else None,
        ttl=version.ttl if version is not None else None,
        ttl_effective=version.ttl_effective if version is not None else None,
        # An expiry is known only from a version seen; a delete keeps when it was due.
        expires_at=version.expires_at if version is not None else None,
        purged_at=change.commit_time if expired else None,
        role=version.role if version is not None else None,
        kind=version.kind if version is not None else None,
        previous_seen=before is not None,
    )


def timeline(changes: Iterable[Change], default_ttl: int | None) -> tuple[HistoryEvent, ...]:
    """Every change as an event, in the order given (the feed's commit order); a
    change seen twice (the same ``(lsn, id)``) once."""
    last: dict[str, HistoryEvent] = {}
    seen: set[tuple[int, str]] = set()
    events: list[HistoryEvent] = []
    for change in changes:
        if change.key in seen:
            continue
        seen.add(change.key)
        before = last.get(change.item_id)
        if change.op.removes:
            event = _removal(change, before)
        else:
            event = _version(change, before, default_ttl)
        last[change.item_id] = event
        events.append(event)
    return tuple(events)


def last_events(events: Iterable[HistoryEvent]) -> dict[str, HistoryEvent]:
    """Each item's last event, and (for a removal) the order its last version had."""
    last: dict[str, HistoryEvent] = {}
    for event in events:
        last[event.item_id] = event
    return last


# -- words --------------------------------------------------------------------------------


def span_words(seconds: float) -> str:
    """A duration for a sentence: ``40 s``, ``5 min``, ``2 h 50 min``, ``3 h``, ``2 d 4 h``."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86_400:
        hours, minutes = divmod(s // 60, 60)
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(s // 3600, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


def ago_words(at: int, now: int) -> str:
    """``3 h ago``; a time not yet reached (clocks apart) is ``in 5 min``."""
    if at > now:
        return f"in {span_words(at - now)}"
    return f"{span_words(now - at)} ago"


def _times_ago(times: list[int], now: int) -> str:
    newest, oldest = max(times), min(times)
    if ago_words(newest, now) == ago_words(oldest, now):
        return ago_words(newest, now)
    # "5 h–3 h ago": the oldest first, as a reader counts back
    return f"{span_words(now - oldest)}–{ago_words(newest, now)}"


def _ttl_words(values: set[int]) -> str:
    if len(values) == 1:
        return f"TTL {next(iter(values))}"
    return f"TTL {min(values)}–{max(values)}"


# -- gap markers ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GapFate:
    """What the history knows of the turns missing between two order values."""

    expired: tuple[HistoryEvent, ...]  # purged by the TTL (both times known or not)
    deleted: tuple[HistoryEvent, ...]
    lapsed: tuple[HistoryEvent, ...]  # latest-version mode: a version past its expiry
    missing: int  # how many the marker counts

    @property
    def known(self) -> int:
        return len(self.expired) + len(self.deleted) + len(self.lapsed)

    def describe(self, now: int) -> str | None:
        """``expired 3 h ago (TTL 3600), purged 2 h 50 min ago``; None: nothing known."""
        if not self.known:
            return None
        parts: list[str] = []
        whole = self.known >= self.missing and len([g for g in self._groups() if g]) == 1
        if self.expired:
            parts.append(self._count(self.expired, whole) + self._expired_words(now))
        if self.lapsed:
            times = [e.expires_at for e in self.lapsed if e.expires_at is not None]
            ttls = {e.ttl_effective for e in self.lapsed if e.ttl_effective is not None}
            ttl = f" ({_ttl_words(ttls)})" if ttls else ""
            parts.append(
                self._count(self.lapsed, whole)
                + f"expired {_times_ago(times, now)}{ttl}, purge not visible"
            )
        if self.deleted:
            times = [e.time for e in self.deleted]
            parts.append(self._count(self.deleted, whole) + f"deleted {_times_ago(times, now)}")
        unknown = self.missing - self.known
        if unknown > 0:
            parts.append(f"{unknown:,} not in the history")
        return " · ".join(parts)

    def _groups(self) -> tuple[tuple[HistoryEvent, ...], ...]:
        return self.expired, self.deleted, self.lapsed

    @staticmethod
    def _count(events: tuple[HistoryEvent, ...], whole: bool) -> str:
        return "" if whole else f"{len(events):,} "

    def _expired_words(self, now: int) -> str:
        expiries = [e.expires_at for e in self.expired if e.expires_at is not None]
        purges = [e.purged_at for e in self.expired if e.purged_at is not None]
        ttls = {e.ttl_effective for e in self.expired if e.ttl_effective is not None}
        ttl = f" ({_ttl_words(ttls)})" if ttls else ""
        if not expiries:  # no version seen since the history began: the purge alone
            return f"purged by the TTL {_times_ago(purges, now)}"
        return f"expired {_times_ago(expiries, now)}{ttl}, purged {_times_ago(purges, now)}"


def _int_order(value: JsonValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def gap_fate(history: History, low: int | None, high: int, missing: int, now: int) -> GapFate:
    """The removals the history saw of items ordered strictly between ``low`` and
    ``high`` (``low`` None: before ``high``), at most ``missing`` of them, newest first.

    An item re-created after its removal is not missing; in latest-version mode
    (no removals) a version whose expiry has passed counts as lapsed."""
    expired: list[HistoryEvent] = []
    deleted: list[HistoryEvent] = []
    lapsed: list[HistoryEvent] = []
    for event in sorted(last_events(history.events).values(), key=lambda e: -e.time):
        order = _int_order(event.order)
        if order is None or order >= high or (low is not None and order <= low):
            continue
        if event.op is ChangeOp.EXPIRED:
            expired.append(event)
        elif event.op is ChangeOp.DELETE:
            deleted.append(event)
        elif (
            not history.mode.sees_deletes
            and event.expires_at is not None
            and event.expires_at <= now
        ):
            lapsed.append(event)
    taken = 0

    def keep(events: list[HistoryEvent]) -> tuple[HistoryEvent, ...]:
        nonlocal taken
        room = max(0, missing - taken)
        kept = events[:room]
        taken += len(kept)
        return tuple(kept)

    return GapFate(keep(expired), keep(deleted), keep(lapsed), missing)
