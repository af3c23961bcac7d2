"""What the halves of ``CosmosStore`` share: the store's members they call, declared once.

``KeyListings``, ``TurnPages``, ``ItemReads`` and ``LifecycleQueries`` are mixins over
the store's one query runner; each subclasses ``StorePart`` so the type checker knows
what ``CosmosStore`` provides (nothing of it exists at run time here).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import ContainerProperties, Item, JsonValue, Key, ThreadRef
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.cosmos.calls import Parameters, Route
from cosmem_tui.sources.request_ledger import RequestLedger


def int_value(value: Any) -> int | None:
    """A query's integer answer, or None (a bool is no count)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class StorePart:
    """A half of ``CosmosStore`` (a mixin: it uses the store's runner)."""

    if TYPE_CHECKING:  # provided by CosmosStore

        @property
        def ledger(self) -> RequestLedger: ...

        @property
        def _schema(self) -> Schema: ...

        async def _ready(self) -> ContainerProperties: ...

        def _tenant_route(self, tenant: Key) -> Route | None: ...

        def _turn_parameters(self, ref: ThreadRef) -> tuple[dict[str, Any], ...]: ...

        def _partition_key_argument(self, values: tuple[JsonValue, ...]) -> Any: ...

        def _item(self, body: Mapping[str, JsonValue]) -> Item: ...

        def _rows(
            self,
            name: str,
            route: Route | None,
            *,
            operation: str,
            target: str,
            parameters: Parameters = (),
            background: bool = False,
            slots: Mapping[str, str] | None = None,
            scanned: int | Sequence[int] | None = None,
            remaining_ru: float | None = None,
        ) -> AsyncIterator[Any]: ...
