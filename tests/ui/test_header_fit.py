"""The header at every width: whole parts dropped in DROP_ORDER, never the schema's name
or the session's cost; the schema's reason shown when there is room."""

from __future__ import annotations

import pytest

from cosmem_tui.model import ContainerProperties, SessionTotals
from cosmem_tui.model.entities import PartitionKeyDefinition
from cosmem_tui.ui.widgets.header import DROP_ORDER, Chrome, fit_parts, header_parts

ENDPOINT = "cosmos https://contoso-agents-prod.documents.azure.com:443/"
CHROME = Chrome(
    source=ENDPOINT,
    container=ContainerProperties(
        "agentmemory", "turns", PartitionKeyDefinition(("/tenantId", "/threadId")), -1
    ),
    schema="lab",
    schema_reason="detected: 24 of 24 items have threadId+turn",
    totals=SessionTotals(41, 331.5, False, {}, 2, budget_ru=1000.0),
)
NEVER_DROPPED = ("schema lab", "331.5 / 1,000 RU")


def line(chrome: Chrome, room: int) -> str:
    left, right = fit_parts(header_parts(chrome), room)
    assert len(left) + 1 + len(right) <= room
    return f"{left} {right}"


@pytest.mark.parametrize("room", [40, 50, 62, 80, 100, 120, 160, 200])
def test_the_schema_and_the_cost_are_never_dropped(room):
    text = line(CHROME, room)
    assert all(essential in text for essential in NEVER_DROPPED), text
    assert "…" not in text  # parts go whole: nothing is cut in the middle


def test_parts_go_in_the_one_priority_order():
    widths = range(200, 30, -1)
    seen = [line(CHROME, room) for room in widths]
    gone_at = {}
    for marker, name in [
        ("detected:", "schema_reason"),
        ("(no default)", "ttl"),
        ("41 req", "requests"),
        ("ttl on", "ttl"),
        ("pk [", "pk"),
        ("agentmemory/turns", "container"),
        ("2×429", "throttled"),
        ("contoso-agents-prod", "source"),
    ]:
        gone_at[marker] = next(
            room for room, text in zip(widths, seen, strict=True) if marker not in text
        )
        assert name in DROP_ORDER
    # Each goes at a narrower width than the one before it (none comes back).
    order = list(gone_at.values())
    assert order == sorted(order, reverse=True), gone_at


def test_everything_fits_when_there_is_room_and_the_reason_reads_as_a_reason():
    text = line(CHROME, 240)
    assert "schema lab (detected: 24 of 24 items have threadId+turn)" in text
    assert "ttl on (no default)" in text and "41 req" in text and "2×429" in text


def test_a_very_narrow_header_still_ends_with_the_cost():
    _, right = fit_parts(header_parts(CHROME), 24)
    assert right.startswith("331.5 / 1,000 RU")
