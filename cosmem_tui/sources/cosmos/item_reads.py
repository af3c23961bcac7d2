"""Whole items on Cosmos: a point read of one item, and the samples of recent items
(whole, or only their shapes) that schema detection and the advisor read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import ContainerProperties, Item, ItemShape, Scope, ThreadRef
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.cosmos.calls import CosmosCalls, Route
from cosmem_tui.sources.cosmos.settings import CosmosSettings
from cosmem_tui.sources.cosmos.shapes import shape_from_row, shape_projection
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.cosmos.store_part import StorePart
from cosmem_tui.sources.item_ids import check_item_id
from cosmem_tui.sources.shapes import ShapeSpec, shape_spec


class ItemReads(StorePart):
    """The point-read and sampling half of ``CosmosStore`` (a mixin over its calls)."""

    if TYPE_CHECKING:  # provided by CosmosStore
        _calls: CosmosCalls
        _slots: dict[str, str]
        _settings: CosmosSettings
        _schema_or_none: Schema | None
        _container: Any

        async def container_properties(self) -> ContainerProperties: ...

    async def read_item(self, ref: ThreadRef, item_id: str) -> Item:
        check_item_id(item_id, "a point read")
        await self._ready()
        values = self._schema.partition_key_for(ref)
        where = ref.describe(self._schema.tenant_label)

        async def read() -> Any:
            return await self._container.read_item(
                item=item_id,
                partition_key=self._partition_key_argument(values),
                priority=self._settings.priority,
            )

        body = await self._calls.call(
            "read-item",
            Scope.POINT,
            f"{item_id} in {ref.describe()}",
            read,
            not_found=f"no item {item_id!r} in {where}",
        )
        return self._item(dict(body))

    async def sample_items(self, limit: int, *, max_request_units: float) -> list[Item]:
        """Recent items, whole, range by range until ``limit`` items or the RU cap."""
        if limit < 1:
            raise ValueError(f"sample size must be at least 1, got {limit}")
        await self.container_properties()
        query = render("sample_items", self._slots)
        kept: list[Item] = []
        with self.ledger.meter() as meter:
            for feed_range in await self._calls.feed_ranges(background=True):
                if len(kept) >= limit or (kept and meter.request_units >= max_request_units):
                    break
                page = await self._calls.page(
                    query,
                    Route(Scope.RANGE, feed_range=feed_range),
                    operation="sample-items",
                    target=f"{limit} recent items",
                    parameters=({"name": "@limit", "value": limit - len(kept)},),
                    page_size=limit - len(kept),
                    background=True,
                )
                kept.extend(self._item(row) for row in page.rows if isinstance(row, Mapping))
        return kept[:limit]

    async def sample_shapes(self, limit: int, *, max_request_units: float) -> list[ItemShape]:
        """Shapes of recent items (projected), the limit shared out over the ranges."""
        if limit < 1:
            raise ValueError(f"sample size must be at least 1, got {limit}")
        props = await self.container_properties()
        spec = shape_spec(self._schema_or_none, props)
        query = render("sample_shapes", {"shape": shape_projection(spec)})
        kept: dict[tuple[str, str], ItemShape] = {}
        with self.ledger.meter() as meter:
            ranges = await self._calls.feed_ranges(background=True)
            full: dict[int, int] = {}  # ranges that gave all they were asked: maybe more
            for done, feed_range in enumerate(ranges):
                if len(kept) >= limit or (kept and meter.request_units >= max_request_units):
                    break
                # An even share of what is left per range, so one range cannot fill it.
                quota = -(-(limit - len(kept)) // (len(ranges) - done))
                rows = await self._shape_rows(query, spec, feed_range, quota, limit)
                if len(rows) >= quota:
                    full[done] = quota
                for row in rows:
                    kept.setdefault((row.id, json.dumps(row.partition_key)), row)
            # Ranges with fewer items left room: ask the full ones for more (newest first
            # again, so their first rows repeat and are skipped).
            for index, asked in full.items():
                if len(kept) >= limit or meter.request_units >= max_request_units:
                    break
                more = asked + limit - len(kept)
                rows = await self._shape_rows(query, spec, ranges[index], more, limit)
                for row in rows:
                    kept.setdefault((row.id, json.dumps(row.partition_key)), row)
        return list(kept.values())[:limit]

    async def _shape_rows(
        self, query: str, spec: ShapeSpec, feed_range: Mapping[str, Any], count: int, limit: int
    ) -> list[ItemShape]:
        page = await self._calls.page(
            query,
            Route(Scope.RANGE, feed_range=feed_range),
            operation="sample-shapes",
            target=f"shapes of {limit} recent items",
            parameters=({"name": "@limit", "value": count},),
            page_size=count,
            background=True,
        )
        return [shape_from_row(r, spec) for r in page.rows if isinstance(r, Mapping)]
