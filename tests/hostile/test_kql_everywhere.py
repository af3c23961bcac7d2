"""Hostile cells in Azure Monitor's answers, through the real LogsQueryClient, in the views.

A Log Analytics workspace (the fake Azure behind the SDK's transport) answers the hot
tenants' questions with every corpus value as a partition key (tenant and thread),
a physical partition id and an operation name: the hot table, its headline, the
throughput view's throttles and the browse RU share show them as data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cosmem_tui.model import FrozenClock
from cosmem_tui.model.telemetry import LogName
from cosmem_tui.ui.views.hot.screen import HotScreen
from tests.hostile.corpus import BY_NAME, CORPUS, STORABLE
from tests.hostile.test_views_everywhere import inert
from tests.sources.monitor.azure_fake import AzureFake, Reply
from tests.sources.monitor.test_logs import Workspace, result
from tests.test_cli_telemetry import NOW, metrics_answer
from tests.ui.conftest import cells, screen_text, settle
from tests.ui.test_views_over_azure_monitor import over_azure


def hostile_rows() -> dict[LogName, list[list[Any]]]:
    values = [h.value for h in CORPUS]  # lone surrogates too: JSON carries them
    keys = [json.dumps([v, v]) for v in values]
    return {
        LogName.KEY_USAGE: [
            [key, value, 2, 1000.0 - n, 100.0, 900.0, 90.0, len(keys), [value, value + "x"]]
            for n, (key, value) in enumerate(zip(keys, values, strict=True))
        ],
        LogName.PARTITION_USAGE: [[v, 1000.0, 100.0, 3] for v in values],
        LogName.THROTTLES: [["2026-11-29T23:58:00Z", v, v, 17, 1] for v in values],
        LogName.KEY_THROTTLES: [[k, 90, 2] for k in keys],
        LogName.KEY_STORAGE: [[k, 5_242_880] for k in keys],
    }


def hostile_logs() -> Workspace:
    workspace = Workspace()
    for name, rows in hostile_rows().items():
        workspace.special[name] = lambda name=name, rows=rows: Reply(200, result(name, rows))
    return workspace


async def test_hostile_kql_cells_are_inert_in_every_telemetry_view(demo_path: Path):
    fake = AzureFake()
    fake.answer("metrics", metrics_answer)
    fake.answer("logs", hostile_logs().responder())
    app = over_azure(demo_path, FrozenClock(NOW), fake)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        inert(screen_text(app), "browse")
        await pilot.press("H")
        await settle(pilot)
        assert isinstance(app.screen, HotScreen)
        rows = cells(app, "keys")
        assert len(rows) == len(CORPUS)
        drawn = screen_text(app)
        inert(drawn, "hot")
        shown = "\n".join(" ".join(row) for row in rows)
        inert(shown, "hot rows")
        assert BY_NAME["markup"].value[:30] in shown
        for h in STORABLE:
            assert h.shown[:12] in shown, h.name
        for _ in range(len(rows)):  # the cursor over every row (the detail line follows it)
            await pilot.press("j")
        await settle(pilot)
        inert(screen_text(app), "hot, every row")
        await pilot.press("T")
        await settle(pilot)
        inert(screen_text(app), "throttle")
