"""A thread's turns on Cosmos: single-partition pages in the schema's order and thread
search, with continuation tokens that carry a search's progress (``_Scan``) so each
page of a query that reads the whole thread is estimated before it is sent."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cosmem_tui.model import Item, JsonValue, Page, Scope, ThreadRef
from cosmem_tui.sources.cosmos.calls import CosmosCalls, Parameters, Route
from cosmem_tui.sources.cosmos.sql import render
from cosmem_tui.sources.cosmos.store_part import StorePart, int_value
from cosmem_tui.sources.errors import BadRequest
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.store import DEFAULT_PAGE_SIZE, check_page_size
from cosmem_tui.sources.text_search import check_search_text, item_matches

if TYPE_CHECKING:
    pass

_TOKEN_PREFIX = "C1."
_EMPTY_PAGES_MAX = 20  # the service may answer empty pages with a continuation; skip them
SIZE = "thread-size"  # a thread's item count (index-served): what a search reads


@dataclass(frozen=True, slots=True)
class _Scan:
    """A query that reads a whole thread to answer few rows (a search): how many items it
    reads in all, and what its pages have cost so far, carried in its continuation."""

    items: int
    spent_ru: float = 0.0
    pages: int = 0

    def estimate_ru(self, ledger: RequestLedger, operation: str) -> float:
        """The next page: at most what reading the rest of the thread costs."""
        whole = ledger.estimate_ru(operation, scanned=self.items)
        floor = ledger.estimate_ru(operation, scanned=0)
        return floor + max(0.0, whole - floor - (self.spent_ru - floor * self.pages))

    def after(self, cost_ru: float) -> _Scan:
        return _Scan(self.items, self.spent_ru + cost_ru, self.pages + 1)


def _encode_token(direction: str, token: str, scan: _Scan | None = None) -> str:
    body: list[Any] = [direction, token]
    if scan is not None:
        body += [scan.items, round(scan.spent_ru, 2), scan.pages]
    raw = json.dumps(body, separators=(",", ":")).encode("utf-8")
    return _TOKEN_PREFIX + base64.urlsafe_b64encode(raw).decode("ascii")


def _decode_token(direction: str, text: str) -> tuple[str, _Scan | None]:
    try:
        if not text.startswith(_TOKEN_PREFIX):
            raise ValueError("not a cosmem Cosmos token")
        made_for, token, *scan = json.loads(base64.urlsafe_b64decode(text[len(_TOKEN_PREFIX) :]))
        if made_for != direction or not isinstance(token, str):
            raise ValueError("made for the other direction")
        if not scan:
            return token, None
        items, spent, pages = scan
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in scan):
            raise ValueError("not a scan's progress")
        return token, _Scan(int(items), float(spent), int(pages))
    except (ValueError, binascii.Error, TypeError) as exc:
        raise BadRequest(f"invalid continuation token ({exc})") from None


class TurnPages(StorePart):
    """The turns half of ``CosmosStore`` (a mixin: it uses the store's runner)."""

    if TYPE_CHECKING:  # provided by CosmosStore
        _calls: CosmosCalls
        _slots: dict[str, str]
        _search_guards: Parameters

    # -- turns ----------------------------------------------------------------------------

    async def page_turns(
        self,
        ref: ThreadRef,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        newest_first: bool = False,
    ) -> Page[Item]:
        direction = "newest" if newest_first else "oldest"
        return await self._thread_page(
            ref,
            f"turns_{direction}_first",
            direction,
            "turns-page",
            continuation=continuation,
            page_size=page_size,
        )

    async def search_turns(
        self,
        ref: ThreadRef,
        text: str,
        *,
        continuation: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> Page[Item]:
        """Items of one thread whose text contains ``text``, ignoring case: one
        single-partition query (``turns_matching.sql``), paged like ``page_turns``.
        It answers candidates (an item longer than the probes reach comes whatever its
        text); only those whose whole text holds ``text`` are kept."""
        check_search_text(text)
        scan = None
        # How much it reads is known before its first page, from the thread's size (a
        # cheap count); a session that cannot afford even that asks about the search.
        if continuation is None and self.ledger.affordable(self.ledger.estimate_ru(SIZE)):
            scan = _Scan(await self._thread_size(ref))
        return await self._thread_page(
            ref,
            "turns_matching",
            "search",
            "search-turns",
            continuation=continuation,
            page_size=page_size,
            parameters=(*self._search_guards, {"name": "@text", "value": text}),
            keep=lambda row: item_matches(self._schema, row, text),
            scan=scan,
        )

    async def _thread_size(self, ref: ThreadRef) -> int:
        """How many items a thread holds: one index-served single-partition count, so a
        query that reads the whole thread (a search) is estimated before it is sent."""
        await self._ready()
        values = self._schema.partition_key_for(ref)
        route = Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))
        counted = self._rows(
            "thread_item_count",
            route,
            operation=SIZE,
            target=ref.describe(self._schema.tenant_label),
            parameters=self._turn_parameters(ref),
        )
        return sum([v async for v in counted if int_value(v) is not None])

    async def _thread_page(
        self,
        ref: ThreadRef,
        query_name: str,
        token_kind: str,
        operation: str,
        *,
        continuation: str | None,
        page_size: int,
        parameters: Parameters = (),
        keep: Callable[[Mapping[str, JsonValue]], bool] | None = None,
        scan: _Scan | None = None,
    ) -> Page[Item]:
        """One page of a single-partition query over the thread's items (its parameters
        after the thread's), of the rows ``keep`` accepts; pages with none are skipped.

        ``scan``: the query reads the whole thread (a search): each page is estimated
        from what is left of it, not from the rows it returns."""
        limit = check_page_size(page_size)
        await self._ready()
        values = self._schema.partition_key_for(ref)
        token = None
        if continuation is not None:
            token, scan = _decode_token(token_kind, continuation)
        first = token is None
        route = Route(Scope.PARTITION, partition_key=self._partition_key_argument(values))
        query = render(query_name, self._slots)
        everything = (*self._turn_parameters(ref), *parameters)
        items: tuple[Item, ...] = ()
        for _ in range(_EMPTY_PAGES_MAX):
            estimate = scan.estimate_ru(self.ledger, operation) if scan is not None else None
            page = await self._calls.page(
                query,
                route,
                operation=operation,
                target=ref.describe(self._schema.tenant_label),
                parameters=everything,
                page_size=limit,
                continuation=token,
                estimate_ru=estimate,
                remaining_ru=estimate,
            )
            token = page.continuation
            if scan is not None:
                if first and token is None:  # one page read the whole thread: a rate
                    self.ledger.learn_scan(operation, scan.items, page.cost_ru)
                scan = scan.after(page.cost_ru)
            first = False
            items = tuple(
                self._item(row)
                for row in page.rows
                if isinstance(row, Mapping) and (keep is None or keep(row))
            )
            if items or token is None:
                break
        if token is None:
            return Page(items, None)
        return Page(items, _encode_token(token_kind, token, scan))
