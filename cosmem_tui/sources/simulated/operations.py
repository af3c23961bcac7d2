"""What the simulated requests are: operation types, their mixes, charges and latencies.

Agent memory is read-heavy in steady use (recall queries and point reads, a turn
written per exchange); a burst is a write storm (an import or a replay writing turns).
Each mix is by request count; ``RU_PER_REQUEST`` is the average charge of one request
of each operation, so a family's RU turn into requests per operation exactly:
``requests(op) = RU × share(op) / Σ share × charge``.
"""

from __future__ import annotations

OPERATIONS = ("Query", "Read", "Upsert", "Create", "Delete")  # Azure's OperationType values
QUERY, READ, UPSERT, CREATE, DELETE = range(len(OPERATIONS))

# The status code of a served request of each operation (a throttled one is 429).
SERVED_STATUS = ("200", "200", "200", "201", "204")
THROTTLED_STATUS = "429"

RU_PER_REQUEST = (6.2, 1.4, 10.5, 9.8, 7.6)
BASE_LATENCY_MS = (5.8, 2.1, 7.2, 6.9, 5.1)  # server-side, on an idle partition

STEADY_MIX = (0.40, 0.35, 0.12, 0.10, 0.03)  # recall and a turn per exchange
BURST_MIX = (0.15, 0.05, 0.25, 0.55, 0.0)  # a write storm

STEADY, BURST = 0, 1  # the two families of demand


def _per_ru(mix: tuple[float, ...]) -> tuple[float, ...]:
    """Requests of each operation per RU of this mix."""
    ru = sum(share * charge for share, charge in zip(mix, RU_PER_REQUEST, strict=True))
    return tuple(share / ru for share in mix)


def _ru_share(mix: tuple[float, ...]) -> tuple[float, ...]:
    """The share of this mix's RU spent on each operation (sums to 1)."""
    ru = sum(share * charge for share, charge in zip(mix, RU_PER_REQUEST, strict=True))
    return tuple(share * charge / ru for share, charge in zip(mix, RU_PER_REQUEST, strict=True))


REQUESTS_PER_RU = (_per_ru(STEADY_MIX), _per_ru(BURST_MIX))  # by family, then operation
RU_SHARE = (_ru_share(STEADY_MIX), _ru_share(BURST_MIX))
REQUESTS_PER_RU_ALL = tuple(sum(rates) for rates in REQUESTS_PER_RU)  # by family


def latency_factor(utilisation: float) -> float:
    """How much slower requests are on a partition this busy (0..1 of its budget):
    flat while it has headroom, about four times as slow when saturated."""
    u = min(1.0, max(0.0, utilisation))
    return 1.0 + 3.0 * u**3
