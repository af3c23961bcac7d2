"""Requests and RU per navigation step, held by counts that do not depend on the machine.

``navigation_requests.txt`` is what the real console sends to the fake Cosmos server,
step by step, through the fixed script of ``navigation.py``: a step that sends more
requests of any kind, or charges more RU, than the table says fails; so does one that
sends fewer (the table stays true, and a later regression back is caught). The fake is
deterministic (fixed data and clocks, one terminal size, no waits that depend on time),
so the counts are exact. After a change that rightly moves them, rewrite the table with

    python -m tests.perf.navigation --write
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.perf.navigation import KINDS, TABLE, StepCount, format_table, read_table, walk


def differences(expected: list[StepCount], measured: list[StepCount]) -> list[str]:
    said = []
    if [c.step for c in expected] != [c.step for c in measured]:
        return [f"the script's steps {[c.step for c in measured]} are not the table's"]
    for want, got in zip(expected, measured, strict=True):
        for (_, kind), wanted, sent in zip(KINDS, want.by_kind, got.by_kind, strict=True):
            if sent != wanted:
                more = "more" if sent > wanted else "fewer"
                said.append(f"{got.step}: {sent} {kind} requests, {more} than the {wanted} listed")
        if got.ru != want.ru:
            more = "more" if got.ru > want.ru else "less"
            said.append(f"{got.step}: {got.ru:.2f} RU, {more} than the {want.ru:.2f} listed")
    return said


async def test_each_navigation_step_sends_the_requests_and_charges_the_ru_listed(
    fake_cosmos: Any, tmp_path: Path
) -> None:
    expected = read_table(TABLE.read_text())
    assert expected and any(c.requests for c in expected)  # the table is not empty
    measured = await walk(fake_cosmos, tmp_path)
    said = differences(expected, measured)
    assert not said, (
        "\n".join(said)
        + "\n(if the change is right, rewrite the table: python -m tests.perf.navigation --write)"
        + "\n"
        + format_table(measured)
    )


def test_the_table_reads_back_as_written() -> None:
    counts = [
        StepCount("open: tenant list with counts", (3, 43, 0, 0, 2, 12), 101.59),
        StepCount("/ filter the threads", (0, 0, 0, 0, 0, 0), 0.0),
    ]
    assert read_table(format_table(counts)) == counts


def test_a_step_over_the_table_is_named_with_what_it_sent() -> None:
    listed = [StepCount("open a tenant (acme)", (0, 1, 0, 0, 0, 0), 9.57)]
    extra_read = [StepCount("open a tenant (acme)", (1, 1, 0, 0, 0, 0), 10.57)]
    assert differences(listed, extra_read) == [
        "open a tenant (acme): 1 metadata requests, more than the 0 listed",
        "open a tenant (acme): 10.57 RU, more than the 9.57 listed",
    ]
    assert differences(listed, listed) == []
