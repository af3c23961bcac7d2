"""The embedded default: a SQLite workspace with Cosmos DB semantics."""

from cosmem_tui.sources.local.builder import WorkspaceBuilder
from cosmem_tui.sources.local.columns import ItemRejected
from cosmem_tui.sources.local.store import LocalStore
from cosmem_tui.sources.local.workspace import Workspace

__all__ = ["ItemRejected", "LocalStore", "Workspace", "WorkspaceBuilder"]
