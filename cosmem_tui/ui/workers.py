"""Starting a worker on an async function that returns nothing, with its type known.

Textual's ``run_worker`` takes a coroutine function, a plain function or an awaitable
and infers the worker's result from which it was given; a type checker cannot tell a
coroutine function from a function that returns a coroutine, so every such call would
need its result type written out. ``run_async`` writes it once.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from textual.dom import DOMNode
from textual.worker import Worker


def run_async(
    node: DOMNode,
    work: Callable[[], Coroutine[Any, Any, None]],
    *,
    name: str = "",
    group: str = "default",
    exclusive: bool = False,
    exit_on_error: bool = True,
) -> Worker[None]:
    """``node.run_worker(work, …)``: the same worker, the same options and defaults."""
    worker: Worker[None] = node.run_worker(
        work, name=name, group=group, exclusive=exclusive, exit_on_error=exit_on_error
    )
    return worker
