"""The command palette (``ctrl+p``): every action of the registry that applies here, by name."""

from __future__ import annotations

from functools import partial
from typing import cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from cosmem_tui.ui.actions import UiAction, show_keys
from cosmem_tui.ui.host import Host


class ActionProvider(Provider):
    """Lists the registry's actions for the current view, with their current keys."""

    def _actions(self) -> list[tuple[UiAction, str]]:
        app = cast(Host, self.app)
        registry = app.registry
        view = app.current_view
        return [
            (action, show_keys(registry.keys(action.id)))
            for action in registry.for_view(view)
            if action.palette and registry.keys(action.id)
        ]

    def _run(self, action: UiAction) -> None:
        cast(Host, self.app).run_registry_action(action)

    async def discover(self) -> Hits:
        for action, keys in self._actions():
            yield DiscoveryHit(action.description, partial(self._run, action), help=keys)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for action, keys in self._actions():
            score = matcher.match(action.description)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(action.description),
                    partial(self._run, action),
                    help=keys,
                )
