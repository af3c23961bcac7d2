"""The change feed route: ``GET …/docs`` with an ``A-IM`` header, as azure-cosmos 4.17.1
sends it (``_change_feed/change_feed_state.py``, ``change_feed_start_from.py``):

* ``A-IM: Incremental Feed`` — latest version; ``A-IM: Full-Fidelity Feed`` with
  ``x-ms-cosmos-changefeed-wire-format-version: 2021-09-15`` — all versions and deletes,
  each document ``{"current", "metadata": {operationType, lsn, crts, previousImageLSN,
  timeToLiveExpired, id and partitionKey for a delete}}`` (a delete has no ``current``);
* ``x-ms-documentdb-partitionkeyrangeid`` names the physical range (a retired one answers
  410/1002, and the SDK splits its continuation over the children); ``x-ms-start-epk`` /
  ``x-ms-end-epk`` narrow it to a key prefix, or to one key (its EPK and the EPK's
  successor, as ``PartitionKey._get_epk_range_for_partition_key`` builds them);
* where it starts: ``If-None-Match: *`` now, an etag a saved position, none the
  beginning, ``If-Modified-Since`` a time (latest version only);
* the answer: 200 with ``Documents`` and the position after the last one as ``etag``,
  or 304 with the position unchanged when nothing is new. A position is an LSN of the
  container's change log (``change_log``), quoted.

A container created with ``all_versions=False`` answers 400 to the all-versions mode,
and a position older than the retention window answers 400.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any

from tests.fake_cosmos import charges
from tests.fake_cosmos.change_log import Entry
from tests.fake_cosmos.ranges import MAX_EPK
from tests.fake_cosmos.store import Container, Doc
from tests.fake_cosmos.wire import Ctx, Env, HttpError, Reply, budget, range_header

INCREMENTAL = "incremental feed"
FULL_FIDELITY = "full-fidelity feed"
WIRE_FORMAT = "2021-09-15"  # http_constants.HttpHeaders.SeparateMetaWithCrts
DEFAULT_PAGE = 100
NOT_OFFERED = (
    "The all versions and deletes change feed mode is not enabled for this container: it "
    "needs continuous backup and the account's enableAllVersionsAndDeletesChangeFeed."
)
OUTSIDE_RETENTION = (
    "The requested change feed position is outside the retention window of the "
    "all versions and deletes change feed."
)
FEED_RU = 1.0  # a change feed page: like a point read, plus what it returns
FEED_RU_PER_KB = 0.1


def read(env: Env, ctx: Ctx, container: Container) -> Reply:
    aim = (ctx.header("a-im") or "").lower()
    if aim not in (INCREMENTAL, FULL_FIDELITY):
        raise HttpError(400, f"Unknown A-IM value {ctx.header('a-im')!r}.")
    full = aim == FULL_FIDELITY
    if full and not container.feed.all_versions:
        raise HttpError(400, NOT_OFFERED, charge=charges.NOT_FOUND_RU)
    if full and ctx.header("x-ms-cosmos-changefeed-wire-format-version") != WIRE_FORMAT:
        raise HttpError(
            400, "The all versions and deletes change feed needs wire format 2021-09-15."
        )
    now = env.store.now()
    container.purge(now)
    container.feed.trim(now)
    range_id = range_header(ctx.headers)
    if range_id is None:
        raise HttpError(400, "A change feed read names its partition key range.")
    rng = container.range_by_id(range_id)
    if rng is None:
        raise HttpError(
            410,
            f"The partition key range {range_id!r} is gone (it was split or merged).",
            sub_status=1002,
        )
    budget(env, container, rng)
    lo = max(ctx.header("x-ms-start-epk") or rng.min, rng.min)
    end = ctx.header("x-ms-end-epk")
    hi = None if rng.max == MAX_EPK else rng.max
    if end is not None and end != MAX_EPK:
        hi = end if hi is None else min(end, hi)
    match = (ctx.header("if-none-match") or "").strip().strip('"')
    if match == "*":  # from now: the position is the log's head, nothing is sent
        return _not_modified(container, container.feed.lsn, rng.id)
    if match == "":
        if full:
            raise HttpError(
                400, "The all versions and deletes change feed starts only now or from an etag."
            )
        since = 0
    else:
        try:
            since = int(match)
        except ValueError as exc:
            raise HttpError(400, f"Invalid change feed etag {match!r}.") from exc
    modified_since = _http_time(ctx.header("if-modified-since")) if not full else None
    page_size = ctx.max_items() or DEFAULT_PAGE
    if page_size < 0:
        page_size = DEFAULT_PAGE
    if full:
        if since < container.feed.trimmed_through:
            raise HttpError(400, OUTSIDE_RETENTION)
        entries = container.feed.since(since, lo, hi)[:page_size]
        rows = [_versioned(container, e) for e in entries]
        last = entries[-1].lsn if entries else since
    else:
        docs = _latest(container, rng, since, lo, hi, now, modified_since)[:page_size]
        rows = [{**d.body, "_lsn": d.lsn} for d in docs]
        last = docs[-1].lsn if docs else since
    if not rows:
        return _not_modified(container, since, rng.id)
    size = sum(len(str(r)) for r in rows)
    charge = round(FEED_RU + FEED_RU_PER_KB * size / 1024, 2)
    env.faults.consume(container.rid, rng.id, charge)
    body = {"_rid": container.rid, "Documents": rows, "_count": len(rows)}
    headers = {
        "etag": f'"{last}"',
        "x-ms-item-count": str(len(rows)),
        "x-ms-documentdb-partitionkeyrangeid": rng.id,
        "lsn": str(container.feed.lsn),
    }
    return Reply(200, body, charge, headers, item_count=len(rows), range_id=rng.id)


def _not_modified(container: Container, position: int, range_id: str) -> Reply:
    headers = {
        "etag": f'"{position}"',
        "x-ms-documentdb-partitionkeyrangeid": range_id,
        "lsn": str(container.feed.lsn),
    }
    return Reply(304, None, FEED_RU, headers, range_id=range_id)


def _in(epk: str, lo: str, hi: str | None) -> bool:
    return epk >= lo and (hi is None or epk < hi)


def _latest(
    container: Container,
    rng: Any,
    since: int,
    lo: str,
    hi: str | None,
    now: float,
    modified_since: float | None,
) -> list[Doc]:
    """The visible items of the range last written after ``since``, in write order."""
    docs = [
        d
        for d in rng.docs.values()
        if d.lsn > since
        and _in(d.epk, lo, hi)
        and container.visible(d, now)
        and (modified_since is None or d.ts >= modified_since)
    ]
    return sorted(docs, key=lambda d: d.lsn)


def _versioned(container: Container, entry: Entry) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "operationType": entry.op,
        "lsn": entry.lsn,
        "crts": entry.crts,
    }
    if entry.previous_lsn is not None:
        metadata["previousImageLSN"] = entry.previous_lsn
    if entry.op == "delete":
        metadata["timeToLiveExpired"] = entry.ttl_expired
        metadata["id"] = entry.id
        names = [p.strip("/").split("/")[-1] for p in container.key.paths]
        metadata["partitionKey"] = dict(zip(names, entry.key, strict=False))
        return {"metadata": metadata}
    assert entry.body is not None
    return {"current": {**entry.body, "_lsn": entry.lsn}, "metadata": metadata}


def _http_time(raw: str | None) -> float | None:
    if not raw:
        return None
    try:
        return parsedate_to_datetime(raw).timestamp()
    except (TypeError, ValueError) as exc:
        raise HttpError(400, f"Invalid If-Modified-Since {raw!r}.") from exc
