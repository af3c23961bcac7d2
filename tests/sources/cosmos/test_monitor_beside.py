"""Azure Monitor opened beside a Cosmos container (``--endpoint`` with ``--resource-id``):
the hot-keys report learns the container's partition key depth, so a tenant's storage is
a lower bound only where a tenant is many keys."""

from __future__ import annotations

from pathlib import Path

from cosmem_tui.compose import open_cosmos_session
from cosmem_tui.model import SystemClock
from cosmem_tui.sources.monitor.settings import MonitorSettings, parse_resource_id
from tests.sources.monitor.azure_fake import RESOURCE_ID, WORKSPACE, AzureFake


async def key_levels(seeded, tmp_path: Path) -> int | None:  # type: ignore[no-untyped-def]
    monitor = MonitorSettings(
        resource=parse_resource_id(RESOURCE_ID),
        workspace_id=WORKSPACE,
        region="eastus",  # no ARM read, no token asked for while opening
        database=seeded.database,
        container=seeded.container,
    )
    session = await open_cosmos_session(
        seeded.settings(),
        "lab",
        SystemClock(),
        tmp_path / "schemas",
        telemetry=monitor,
        telemetry_transport=AzureFake().transport(),
    )
    try:
        assert session.hot_keys is not None
        return session.hot_keys.where.key_levels
    finally:
        await session.close()


async def test_the_hot_keys_report_knows_the_containers_key_depth(containers, tmp_path):
    assert await key_levels(await containers(), tmp_path) == 2  # [/tenantId, /threadId]
    single = await containers(paths=("/tenantId",))
    assert await key_levels(single, tmp_path) == 1
