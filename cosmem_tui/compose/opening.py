"""What the CLI and the TUI call: open the session ``SessionOptions`` describe."""

from __future__ import annotations

import asyncio
from typing import Any

from cosmem_tui.compose.building import Notice
from cosmem_tui.compose.cosmos import open_cosmos_doctor_session, open_cosmos_session
from cosmem_tui.compose.local import open_local_session
from cosmem_tui.compose.telemetry import open_telemetry_session
from cosmem_tui.core.session import Session, SessionOptions, cache_dir, config_dir
from cosmem_tui.model import Clock, SystemClock


async def open_session(
    options: SessionOptions, clock: Clock | None = None, *, notice: Notice | None = None
) -> Session:
    """Open a session from async code: a Cosmos container on the caller's event loop (one
    client and one credential for detection and browsing), a workspace on a thread.

    ``notice`` receives lines the user must read while the session opens, such as a
    device-code sign-in prompt (a Cosmos session may sign in to detect the schema).
    """
    clock = clock or SystemClock()
    if options.cosmos is None:
        return await asyncio.to_thread(open_local_session, options, clock)
    return await open_cosmos_session(
        options.cosmos,
        options.schema,
        clock,
        config_dir() / "schemas",
        cache_root=cache_dir() / "listings",
        notice=notice,
        telemetry=options.telemetry,
        allow_writes=options.allow_writes,
        embeddings=options.embeddings,
    )


async def open_doctor_session(
    options: SessionOptions,
    clock: Clock | None = None,
    *,
    auth: str | None = None,
    notice: Notice | None = None,
    transport: Any = None,
    credential: Any = None,
    telemetry_transport: Any = None,
    telemetry_credential: Any = None,
) -> Session:
    """A session for ``cosmem doctor``: like ``open_session``, but a Cosmos container is
    opened without reading anything (no schema detection, no region lookup), so that
    what the identity may not do is reported, not a reason the session cannot open."""
    clock = clock or SystemClock()
    if options.cosmos is not None:
        return await open_cosmos_doctor_session(
            options.cosmos,
            options.schema,
            clock,
            config_dir() / "schemas",
            transport=transport,
            credential=credential,
            notice=notice,
            telemetry=options.telemetry,
            telemetry_transport=telemetry_transport,
            telemetry_credential=telemetry_credential,
            allow_writes=options.allow_writes,
        )
    if options.telemetry is not None and options.workspace is None:
        return await open_telemetry_session(
            options.telemetry,
            clock,
            auth=auth,
            transport=telemetry_transport,
            credential=telemetry_credential or credential,
            notice=notice,
        )
    return await open_session(options, clock, notice=notice)
