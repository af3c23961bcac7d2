"""Where data comes from: the MemoryStore contract, its backends, and the request ledger."""
