"""The embedded default: a SQLite workspace with Cosmos DB semantics."""

from cosmem_tui.sources.local.store import LocalStore
from cosmem_tui.sources.local.workspace import ItemRejected, Workspace

__all__ = ["ItemRejected", "LocalStore", "Workspace"]
