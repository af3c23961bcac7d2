"""The request ledger view (``:requests``, ``R``)."""
