"""Use cases shared by the TUI and the CLI. Never imports textual or an Azure SDK."""
