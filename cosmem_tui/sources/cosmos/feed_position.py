"""Where a read of the Cosmos change feed stands: the store's continuation.

Opaque to callers: base64 JSON of the mode, the scope, the start and each part's place —
the SDK's own continuation for that part (its etag per physical range) and, for a page
handed out in part whose rows moved before it could be settled, the LSN it went out to
(``skip``). ``change_feed`` reads and writes it.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from cosmem_tui.model import Scope
from cosmem_tui.model.changes import FeedMode, FeedStart, StartKind
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.sources.cosmos.calls import Route

TOKEN_VERSION = 1


@dataclass
class FeedPart:
    """One part of a scope's feed and where its reading stands."""

    route: Route
    token: str | None  # the SDK's continuation; None: not read yet (from the start)
    # The page read from ``token`` was handed out up to this LSN (a read that took only
    # the start of it): read again, the page's rows up to it are not handed out twice.
    skip: int | None = None
    skipped: int = 0  # how many rows of that page were handed out (read them and more)

    def to_json(self) -> dict[str, Any]:
        where: dict[str, Any] = (
            {"fr": dict(self.route.feed_range)}
            if self.route.feed_range is not None
            else {"pk": self.route.partition_key}
        )
        return {
            **where,
            "sc": self.route.scope.value,
            "t": self.token,
            "k": self.skip,
            "kc": self.skipped,
        }

    @classmethod
    def from_json(cls, raw: Any) -> FeedPart:
        if not isinstance(raw, dict) or "sc" not in raw:
            raise ValueError("not a change feed continuation of this console")
        scope = Scope(raw["sc"])
        token, skip, skipped = (
            raw.get("t"),
            int_or_none(raw.get("k")),
            int_or_none(raw.get("kc")) or 0,
        )
        if "fr" in raw:
            return cls(Route(scope, feed_range=raw["fr"]), token, skip, skipped)
        return cls(Route(scope, partition_key=raw.get("pk")), token, skip, skipped)


@dataclass
class FeedPosition:
    """The store's continuation: the mode, the scope, the start, each part's place."""

    mode: FeedMode
    scope: str
    start: FeedStart
    parts: list[FeedPart]

    def encode(self) -> str:
        raw = {
            "v": TOKEN_VERSION,
            "m": self.mode.value,
            "s": self.scope,
            "st": [self.start.kind.value, self.start.at],
            "p": [p.to_json() for p in self.parts],
        }
        text = json.dumps(raw, separators=(",", ":"), sort_keys=True)
        return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii")

    @classmethod
    def decode(cls, token: str) -> FeedPosition:
        try:
            raw = json.loads(base64.urlsafe_b64decode(token.encode("ascii")))
            if not isinstance(raw, dict) or raw.get("v") != TOKEN_VERSION:
                raise ValueError
            kind, at = raw["st"]
            return cls(
                FeedMode(raw["m"]),
                str(raw["s"]),
                FeedStart(StartKind(kind), at),
                [FeedPart.from_json(p) for p in raw["p"]],
            )
        except (ValueError, KeyError, TypeError, UnicodeError, binascii.Error):
            raise ValueError("not a change feed continuation of this console") from None


def scope_key(scope: TtlScope) -> str:
    """What a continuation belongs to: resuming it for another scope is refused."""
    if scope.thread is not None:
        return json.dumps(["thread", str(scope.thread)])
    if scope.tenant is not None:
        return json.dumps(["tenant", repr(scope.tenant)])
    return json.dumps(["container"])


def int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def resumable(token: str) -> str:
    """azure-cosmos 4.17.1 writes a point-in-time start into its continuation in
    milliseconds but reads it back as seconds (``ChangeFeedStartFromPointInTime``:
    ``datetime.fromtimestamp(PointInTimeMs)``), so such a continuation cannot be
    resumed. The start is stored in the unit the SDK reads; the etags, which say where
    each range stands, are kept as they are."""
    try:
        state = json.loads(base64.b64decode(token))
        start = state.get("startFrom") or {}
        if start.get("Type") == "PointInTime" and start.get("PointInTimeMs", 0) > 10**11:
            start["PointInTimeMs"] = start["PointInTimeMs"] // 1000
            return base64.b64encode(json.dumps(state).encode("utf-8")).decode("ascii")
    except (ValueError, TypeError, AttributeError, binascii.Error):
        pass  # not the shape this fix is for: the SDK will say what is wrong with it
    return token
