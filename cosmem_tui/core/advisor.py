"""The container advisor: what is wrong with this container's design, with evidence and a fix.

``findings`` runs every rule (``advice_rules``, ``advice_index``) over what was read;
``AdvisorService.advise`` reads it:

* the container's properties (one metadata read: key, TTL, indexing and vector policy);
* a bounded sample of item *shapes* (``MemoryStore.sample_shapes``: at most
  ``sample_size`` recent items, ``sample_ru`` RU, background work that stops quietly at
  the session budget), measured where the items are, so no embedding is read;
* the top-level keys (the directory's listing, resumed or refreshed) and their item
  counts: the ones the directory holds, and up to ``count_keys`` more counted now as
  background work (so they stop quietly at the session budget, as ``cosmem tenants``
  counts do);
* optionally the hot-keys report (``load``): with telemetry, each tenant's share of
  its physical partition's RU, its busiest second against the partition's budget and
  its 429s feed ``partition-avoid-hotspots``; the caller (the view and ``cosmem
  advise`` alike) passes the session's 15-minute report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.model import ContainerProperties, Key
from cosmem_tui.model.advice import AdviceReport, Finding, ItemShape
from cosmem_tui.model.telemetry import HotKeysReport
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.errors import StoreError
from cosmem_tui.sources.store import MemoryStore

SAMPLE_SIZE = 200  # item shapes (about 160 bytes each on the wire)
SAMPLE_RU = 100.0  # the sample stops once it has cost this much
COUNT_KEYS = 100  # top-level keys counted for the skew rules, at most


def findings(
    container: ContainerProperties,
    schema: Schema,
    shapes: Sequence[ItemShape],
    *,
    counts: Mapping[Key, int] | None = None,
    keys_listed: int | None = None,
    load: HotKeysReport | None = None,
) -> tuple[Finding, ...]:
    """Every rule over what was read, worst first (then by rule name)."""
    # The rules load with the first advice, not with every session that could ask.
    from cosmem_tui.core.advice_index import (
        index_composite_order,
        index_exclude_vectors,
        vector_embedding_policy,
        vector_index,
    )
    from cosmem_tui.core.advice_rules import (
        growing_thread_document,
        id_constraints,
        item_size,
        partition_high_cardinality,
        partition_hotspots,
        partition_key_length,
        partition_query_patterns,
        ttl_container_off,
        ttl_invalid,
        ttl_reset_by_rewrites,
    )

    found: list[Finding] = [
        *ttl_container_off(container, shapes),
        *ttl_invalid(shapes),
        *ttl_reset_by_rewrites(container, schema, shapes),
        *partition_query_patterns(container, shapes),
        *partition_hotspots(container, schema, shapes, counts or {}, load),
        *partition_high_cardinality(container, shapes, keys_listed),
        *partition_key_length(container, shapes),
        *id_constraints(shapes),
        *item_size(shapes),
        *growing_thread_document(schema, shapes),
        *vector_embedding_policy(container, shapes),
        *vector_index(container),
        *index_exclude_vectors(container, shapes),
        *index_composite_order(container, schema),
    ]
    return tuple(sorted(found, key=lambda f: (f.severity.rank, f.rule)))


class AdvisorService:
    def __init__(
        self,
        store: MemoryStore,
        directory: KeyDirectory | None = None,
        *,
        sample_size: int = SAMPLE_SIZE,
        sample_ru: float = SAMPLE_RU,
        count_keys: int = COUNT_KEYS,
    ) -> None:
        self.store = store
        self.directory = directory
        self.sample_size = sample_size
        self.sample_ru = sample_ru
        self.count_keys = count_keys

    async def advise(
        self, *, load: HotKeysReport | None = None, count: bool = True
    ) -> AdviceReport:
        """Read, then run every rule. ``count``: count top-level keys the directory has no
        counts for (up to ``count_keys``); ``load``: the hot-keys report, when there is
        telemetry."""
        container = await self.store.container_properties()
        notes: list[str] = []
        shapes: list[ItemShape] = []
        failed: str | None = None
        with self.store.ledger.meter() as meter:
            try:
                shapes = await self.store.sample_shapes(
                    self.sample_size, max_request_units=self.sample_ru
                )
            except StoreError as exc:  # the budget (BudgetSpent) or a failure
                failed = exc.message
                notes.append(f"no item sample: {exc.message}")
        if shapes and len(shapes) < self.sample_size:
            notes.append(
                f"sampled {len(shapes):,} items (the container has fewer, or the sample "
                f"reached its {self.sample_ru:g} RU cap)"
            )
        counts, listed = await self._counts(count, notes)
        if load is None:
            notes.append("no telemetry: RU per tenant not checked")
        elif not load.rows and load.problems:  # asked, but no per-key usage came back
            notes.append(f"RU per tenant not checked: {load.problems[0].describe()}")
        report = AdviceReport(
            container=container,
            findings=findings(
                container,
                self.store.schema,
                shapes,
                counts=counts,
                keys_listed=listed,
                load=load,
            ),
            sampled=len(shapes),
            sample_request_units=meter.request_units,
            keys_listed=listed,
            keys_counted=len(counts),
            notes=tuple(notes),
            sample_failed=failed,
        )
        return report

    async def _counts(self, count: bool, notes: list[str]) -> tuple[dict[Key, int], int | None]:
        """Item counts per top-level key, and how many keys there are (None: not known)."""
        directory = self.directory
        if directory is None:
            notes.append("top-level keys not listed: key skew comes from the sample")
            return {}, None
        listing = directory.listing
        if count or not listing.keys:
            listing = await directory.list()
        if listing.stopped:
            notes.append(f"the key listing stopped early: {listing.stopped}")
        if count:
            todo = [k for k in listing.keys if directory.needs_count(k)][: self.count_keys]
            await directory.count_all(todo)
        counts: dict[Key, int] = {}
        for key in listing.keys:
            state = directory.count_state(key)
            if state is not None and state.counts is not None:
                counts[key] = state.counts.items
        if listing.keys and len(counts) < len(listing.keys):
            notes.append(
                f"item counts of {len(counts):,} of {len(listing.keys):,} top-level keys "
                "(the rest: past the budget or not counted)"
            )
        return counts, len(listing.keys) if listing.complete else None
