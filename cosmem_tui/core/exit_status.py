"""The exit statuses of ``cosmem``: its commands and ``cosmem config`` give the same."""

from __future__ import annotations

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
EXIT_PARTIAL = 3  # a listing stopped before the end (RU budget, a failure): output is short
EXIT_CONFLICT = 4  # a write met a concurrent change (412): nothing was overwritten
# The output is whole, but a request cost more than it was let through at and took the
# session past --ru-budget without a question (stderr names each): budgets are promises.
EXIT_OVER_BUDGET = 5
