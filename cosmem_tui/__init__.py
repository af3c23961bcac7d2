"""cosmem-tui: a terminal operations console for Cosmos DB accounts that hold AI-agent memory."""

__version__ = "0.1.0"
