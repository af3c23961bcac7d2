"""A scope typed as names (``:ttl acme t1``, ``:tail acme``), resolved in a worker.

Resolving may read (a thread's typed key is looked up): the view stays responsive, and
the answer is handed back on the UI's loop, where the view checks it is still wanted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.dom import DOMNode

from cosmem_tui.core.lifecycle import LifecycleService
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.ui.workers import run_async


def resolve_scope_names(
    node: DOMNode,
    service: LifecycleService,
    names: Sequence[str],
    *,
    group: str,
    found: Callable[[TtlScope], None],
    failed: Callable[[str], None],
) -> None:
    """Resolve ``names`` to a scope; ``found`` or ``failed`` (a readable line) follows."""

    async def resolve() -> None:
        try:
            scope = await service.scope_named(list(names))
        except Exception as exc:
            from cosmem_tui.ui.messages import describe_error

            node.call_later(failed, describe_error(exc))
            return
        node.call_later(found, scope)

    run_async(node, resolve, group=group, exclusive=True, exit_on_error=False)
