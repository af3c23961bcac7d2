"""A name typed as a list prints it opens that key on every backend: the number 7 and
the string "7" apart, booleans and their words apart, JSON-looking strings as strings
(``BrowseService.resolve`` over each store)."""

from __future__ import annotations

from typing import Any

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.model import FrozenClock, Key, ThreadRef
from cosmem_tui.schemas import get_schema
from tests.conftest import ANCHOR
from tests.contract.backends import Backend

LAB = get_schema("lab")
ROLE = '{"role": "system", "content": "x"}'
THREADS: list[Any] = [7, "7", True, "true", ROLE, "[1, 2]", "x y", "NaN"]


def item(tenant: Any, thread: Any, index: int) -> dict[str, Any]:
    safe = str(thread).translate({ord(c): "_" for c in '/\\?#{}[]" :,'})
    return {
        "id": f"{type(thread).__name__}-{safe}-{index}",
        "tenantId": tenant,
        "threadId": thread,
        "turnIndex": index,
        "messages": [{"role": "user", "content": "hello"}],
    }


async def test_every_listed_thread_opens_by_its_printed_name(backend: Backend) -> None:
    items = [item("acme", thread, i) for thread in THREADS for i in range(2)]
    items += [item(42, "t", 0), item("42", "t", 0)]
    store = await backend.make_store(items, schema=LAB, default_ttl=-1)
    service = BrowseService(store, FrozenClock(ANCHOR))
    threads = await store.list_threads(Key.of("acme"))
    assert sorted(t.ref.thread.text for t in threads) == sorted(Key.of(v).text for v in THREADS)
    for thread in threads:
        assert await service.resolve("acme", thread.ref.thread.text) == thread.ref
    # The raw value of a string that is no JSON scalar opens it too.
    for raw in (ROLE, "[1, 2]", "NaN"):
        assert await service.resolve("acme", raw) == ThreadRef.of("acme", raw)
    assert await service.resolve("42", "t") == ThreadRef.of(42, "t")
    assert await service.resolve('"42"', "t") == ThreadRef.of("42", "t")
