"""Injected failures: throttling, errors, slow and hung answers, per-range RU budgets.

Three sources of trouble, checked in this order for every request:

1. **Rules** (``Fault``): the next ``count`` requests that match (kind, method, path
   regex, query text, range id, or any predicate) get a status (429 with
   ``x-ms-retry-after-ms`` and sub-status 3200 unless ``sub_status`` says another
   cause, with that cause's message; 401, 403, 503, 410…), a delay, or hang
   until the test releases them or the gateway stops — before the request runs, or
   after it (``applied=True``: the write is made, its answer never comes, the way a
   timeout after the service committed looks to a client).
2. **A storm**: a seeded random fraction of (matching) requests answers 429 — the same
   seed gives the same sequence for the same request order.
3. **Throughput**: a provisioned RU/s split evenly over a container's ranges; a range
   that has consumed its share in the current second answers 429 until the next one,
   so a hot partition throttles while the others do not.
"""

from __future__ import annotations

import math
import random
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

ERROR_BODIES: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "The request is invalid."),
    401: ("Unauthorized", "The input authorization token can't serve the request."),
    403: (
        "Forbidden",
        "Request blocked by Auth fake-gateway : Request is blocked because principal "
        "[00000000-0000-0000-0000-000000000000] does not have required RBAC permissions to "
        "perform action [Microsoft.DocumentDB/databaseAccounts/readMetadata] on resource [/].",
    ),
    404: ("NotFound", "Resource Not Found."),
    408: ("RequestTimeout", "Request timed out."),
    410: ("Gone", "The requested resource is no longer available at the server."),
    429: (
        "TooManyRequests",
        "Request rate is large. More Request Units may be needed, so no changes were made.",
    ),
    449: (
        "RetryWith",
        "Conflicting request to resource has been attempted. Retry to avoid conflicts.",
    ),
    500: ("InternalServerError", "Unknown server error occurred when processing this request."),
    503: ("ServiceUnavailable", "Service is currently unavailable."),
}


# A 429's message by its sub-status: the three texts of learn "Diagnose and troubleshoot
# request rate too large". Which sub-status carries the "transient service error" text
# is not documented: 3092 (SystemResourceUnavailable) is this fake's guess.
THROTTLE_MESSAGES: dict[int, str] = {
    3200: ERROR_BODIES[429][1],
    3201: "The request didn't complete due to a high rate of metadata requests.",
    3092: "The request didn't complete due to a transient service error.",
}

# Partition merge on: the service blocks SDKs that do not declare merge support (learn
# "Merge partitions"; a client declares it with bit 0 of this header). The answer's
# status is the one reported for a blocked Go SDK (azure-sdk-for-go#20709: 400
# BadRequest); its text is this fake's own, the real one was not found.
CAPABILITIES_HEADER = "x-ms-cosmos-sdk-supportedcapabilities"
PARTITION_MERGE_CAPABILITY = 1
MERGE_BLOCKED = (
    400,
    "Partition merge is enabled on this account: requests from an SDK that does not "
    "support partition merge are blocked. Upgrade to an SDK version that supports merge.",
)


def declares_merge(headers: dict[str, str]) -> bool:
    """Does the request say its SDK handles partition merges?"""
    raw = headers.get(CAPABILITIES_HEADER, "")
    try:
        return bool(int(raw) & PARTITION_MERGE_CAPABILITY)
    except ValueError:
        return False


@dataclass(frozen=True)
class RequestFacts:
    """What a rule can match on (filled in before the request runs)."""

    method: str
    path: str
    kind: str  # metadata | pkranges | query | query-plan | point | feed
    query: str | None
    range_id: str | None
    headers: dict[str, str]


@dataclass
class Fault:
    """One injection rule; the first rule that matches a request wins."""

    status: int | None = 429  # None: no error, only delay / hang
    count: int | None = None  # how many requests to hit; None = all
    kind: str | Iterable[str] | None = None
    method: str | None = None
    path: str | None = None  # regex searched in the request path
    query: str | None = None  # substring of the query text
    range_id: str | None = None
    predicate: Callable[[RequestFacts], bool] | None = None
    retry_after_ms: int = 5
    sub_status: int | None = None
    delay_s: float = 0.0
    hang: bool = False
    applied: bool = False  # with hang: run the request first, then never answer
    message: str | None = None
    hits: int = 0

    def matches(self, facts: RequestFacts) -> bool:
        if self.count is not None and self.hits >= self.count:
            return False
        if self.kind is not None:
            kinds = {self.kind} if isinstance(self.kind, str) else set(self.kind)
            if facts.kind not in kinds:
                return False
        if self.method is not None and facts.method.upper() != self.method.upper():
            return False
        if self.path is not None and re.search(self.path, facts.path) is None:
            return False
        if self.query is not None and (facts.query is None or self.query not in facts.query):
            return False
        if self.range_id is not None and facts.range_id != self.range_id:
            return False
        return self.predicate is None or bool(self.predicate(facts))

    @property
    def label(self) -> str:
        if self.hang:
            return "hang after applying" if self.applied else "hang"
        if self.status is None:
            return f"delay {self.delay_s}s"
        return f"status {self.status}"


@dataclass
class Storm:
    fraction: float
    rng: random.Random
    status: int = 429
    retry_after_ms: int = 5
    kind: set[str] | None = None
    sub_status: int = 3200


@dataclass(frozen=True)
class Verdict:
    """What to do with a request before running it."""

    status: int | None = None
    retry_after_ms: int | None = None
    sub_status: int | None = None
    delay_s: float = 0.0
    hang: bool = False
    applied: bool = False
    message: str | None = None
    label: str | None = None


class Faults:
    """The gateway's fault configuration; safe to change from the test thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.rules: list[Fault] = []
        self._storm: Storm | None = None
        self._account_ru: float | None = None
        self._container_ru: dict[str, float] = {}
        self._used: dict[tuple[str, str], tuple[int, float]] = {}
        # Seconds of the RU/s windows: real time by default (the SDK waits in real time).
        self.rate_clock: Callable[[], float] = time.monotonic
        # The retry-after of a budget 429: the rest of the second unless set (tests that
        # drive ``rate_clock`` by hand set a small one so the SDK's waits stay short).
        self.budget_retry_after_ms: int | None = None
        self.on_hang_release: Callable[[], None] | None = None

    # -- configuration ----------------------------------------------------------------------

    def add(self, fault: Fault) -> Fault:
        with self._lock:
            self.rules.append(fault)
        return fault

    def next(self, count: int, status: int = 429, **match: Any) -> Fault:
        """The next ``count`` matching requests answer ``status``."""
        return self.add(Fault(status=status, count=count, **match))

    def storm(
        self,
        fraction: float,
        *,
        seed: int = 0,
        status: int = 429,
        retry_after_ms: int = 5,
        kind: str | Iterable[str] | None = None,
        sub_status: int = 3200,
    ) -> None:
        """Answer a seeded random ``fraction`` of requests (of ``kind``) with ``status``
        (a 429 with ``sub_status``: 3200 an RU budget, 3201 the metadata rate, …)."""
        kinds = None if kind is None else ({kind} if isinstance(kind, str) else set(kind))
        with self._lock:
            self._storm = Storm(
                fraction, random.Random(seed), status, retry_after_ms, kinds, sub_status
            )

    def calm(self) -> None:
        with self._lock:
            self._storm = None

    def throughput(self, ru_per_s: float | None) -> None:
        """Provision every container with ``ru_per_s`` (split evenly over its ranges)."""
        with self._lock:
            self._account_ru = ru_per_s

    def container_throughput(self, container_rid: str, ru_per_s: float | None) -> None:
        """Provision one container (``create_container(throughput=…)`` does this)."""
        with self._lock:
            if ru_per_s is None:
                self._container_ru.pop(container_rid, None)
            else:
                self._container_ru[container_rid] = ru_per_s

    def clear(self) -> None:
        with self._lock:
            self.rules.clear()
            self._storm = None
            self._account_ru = None
            self._container_ru.clear()
            self._used.clear()
        self.release()

    def release(self) -> None:
        """Let every hung request finish (with 503)."""
        if self.on_hang_release is not None:
            self.on_hang_release()

    # -- decisions (server side) --------------------------------------------------------------

    def verdict(self, facts: RequestFacts) -> Verdict | None:
        with self._lock:
            for number, rule in enumerate(self.rules):
                if rule.matches(facts):
                    rule.hits += 1
                    sub_status = rule.sub_status
                    if sub_status is None and rule.status == 429:
                        sub_status = 3200
                    return Verdict(
                        status=rule.status,
                        retry_after_ms=rule.retry_after_ms if rule.status == 429 else None,
                        sub_status=sub_status,
                        delay_s=rule.delay_s,
                        hang=rule.hang,
                        applied=rule.applied,
                        message=rule.message,
                        label=f"rule#{number} {rule.label}",
                    )
            storm = self._storm
            hit = storm is not None and (storm.kind is None or facts.kind in storm.kind)
            if storm is not None and hit and storm.rng.random() < storm.fraction:
                return Verdict(
                    status=storm.status,
                    retry_after_ms=storm.retry_after_ms if storm.status == 429 else None,
                    sub_status=storm.sub_status if storm.status == 429 else None,
                    label="storm",
                )
        return None

    def _budget(self, container_rid: str) -> float | None:
        return self._container_ru.get(container_rid, self._account_ru)

    def budget_verdict(self, container_rid: str, range_id: str, ranges: int) -> Verdict | None:
        """429 when the range has used its share of the container's RU/s this second."""
        with self._lock:
            total = self._budget(container_rid)
            if not total:
                return None
            now = self.rate_clock()
            second = math.floor(now)
            window, used = self._used.get((container_rid, range_id), (second, 0.0))
            if window != second or used < total / max(1, ranges):
                return None
            wait_ms = self.budget_retry_after_ms or max(1, math.ceil((second + 1 - now) * 1000))
            return Verdict(status=429, retry_after_ms=wait_ms, sub_status=3200, label="throughput")

    def consume(self, container_rid: str, range_id: str, charge: float) -> None:
        with self._lock:
            if not self._budget(container_rid):
                return
            second = math.floor(self.rate_clock())
            window, used = self._used.get((container_rid, range_id), (second, 0.0))
            if window != second:
                used = 0.0
            self._used[(container_rid, range_id)] = (second, used + charge)
