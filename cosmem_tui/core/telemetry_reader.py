"""One reader of a telemetry source for every view and command of a session.

It reuses an answer while it is younger than the source's ``min_refresh_s``: Azure
Monitor's metrics move once a minute and every call is billed, and Log Analytics allows
a user 200 queries per 30 s across workspaces — a console refreshing every few seconds
must not turn each refresh into new calls. The throughput and hot-keys services share one
reader, so a question both ask (the provisioned throughput) is asked once.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Hashable, Sequence
from typing import TypeVar

from cosmem_tui.model import Clock
from cosmem_tui.model.telemetry import (
    AccountFacts,
    LogAnswer,
    LogQuery,
    MetricAnswer,
    MetricQuery,
    Span,
    TelemetryAbout,
    Window,
)
from cosmem_tui.sources.telemetry import Telemetry

_A = TypeVar("_A", MetricAnswer, LogAnswer)


def span_ending(now: float, window: Window, *, whole_minutes: bool) -> Span:
    """The window ending now; for metrics it ends at the last complete minute (the
    current minute's bucket is still filling and would read as a drop)."""
    end = (now // 60) * 60 if whole_minutes else now
    return Span(end - window.seconds, end)


def _identity(query: MetricQuery | LogQuery, window: Window) -> Hashable:
    # The span moves with the clock; the question does not.
    return (type(query).__name__, window.label, dataclasses.replace(query, span=Span(0, 0)))


class TelemetryReader:
    def __init__(self, telemetry: Telemetry, clock: Clock) -> None:
        self.telemetry = telemetry
        self.clock = clock
        self._answers: dict[Hashable, tuple[float, MetricAnswer | LogAnswer]] = {}
        self._facts: dict[tuple[str | None, str | None], tuple[float, AccountFacts]] = {}
        self._lock = asyncio.Lock()

    @property
    def about(self) -> TelemetryAbout:
        return self.telemetry.about

    def _fresh(self, key: Hashable) -> MetricAnswer | LogAnswer | None:
        hit = self._answers.get(key)
        if hit is None:
            return None
        asked_at, answer = hit
        age = self.clock.now() - asked_at
        # A failed answer is not kept: the next refresh asks again (the source's own
        # hold-off keeps a throttled service from being asked too soon).
        if 0 <= age < self.about.min_refresh_s and answer.problem is None:
            return answer
        return None

    async def metrics(self, window: Window, queries: Sequence[MetricQuery]) -> list[MetricAnswer]:
        async with self._lock:
            keys = [_identity(q, window) for q in queries]
            cached = [self._fresh(k) for k in keys]
            missing = [q for q, hit in zip(queries, cached, strict=True) if hit is None]
            fresh = await self.telemetry.metrics(missing) if missing else []
            return self._merge(keys, cached, missing, fresh, MetricAnswer)

    async def logs(self, window: Window, queries: Sequence[LogQuery]) -> list[LogAnswer]:
        async with self._lock:
            keys = [_identity(q, window) for q in queries]
            cached = [self._fresh(k) for k in keys]
            missing = [q for q, hit in zip(queries, cached, strict=True) if hit is None]
            fresh = await self.telemetry.logs(missing) if missing else []
            return self._merge(keys, cached, missing, fresh, LogAnswer)

    async def account(self, database: str | None, container: str | None) -> AccountFacts:
        """The account's regions and the container's offer, reused like the answers (the
        source keeps its ARM reads longer still); with problems, asked again next time."""
        async with self._lock:
            key = (database, container)
            hit = self._facts.get(key)
            now = self.clock.now()
            fresh = hit is not None and 0 <= now - hit[0] < self.about.min_refresh_s
            if hit is not None and fresh and not hit[1].problems:
                return hit[1]
            facts = await self.telemetry.account(database, container)
            self._facts[key] = (now, facts)
            return facts

    def _merge(
        self,
        keys: list[Hashable],
        cached: list[MetricAnswer | LogAnswer | None],
        missing: Sequence[MetricQuery | LogQuery],
        fresh: list[_A],
        kind: type[_A],
    ) -> list[_A]:
        if len(fresh) != len(missing):  # the contract: one answer per question
            raise RuntimeError(
                f"telemetry answered {len(fresh)} of {len(missing)} questions ({self.about.label})"
            )
        now = self.clock.now()
        answers = iter(fresh)
        merged: list[_A] = []
        for key, hit in zip(keys, cached, strict=True):
            if hit is None:
                answer = next(answers)
                self._answers[key] = (now, answer)
                merged.append(answer)
            else:
                assert isinstance(hit, kind)
                merged.append(hit)
        return merged

    def keep_instead(self, kept: LogAnswer, smaller: LogAnswer) -> None:
        """Keep ``smaller`` where ``kept`` is kept, as old as it: an answer that stands
        for the same rows and holds less (a hot-keys report's own columns instead of
        the logs' 100,000 rows)."""
        for key, (asked_at, answer) in self._answers.items():
            if answer is kept:
                self._answers[key] = (asked_at, smaller)

    def forget(self) -> None:
        """Drop every kept answer (the user asked for a refresh now)."""
        self._answers.clear()
        self._facts.clear()
