"""Composition: open what the user asked for and wire its services, in one place.

The CLI and the TUI call ``open_session``; it builds the stores (``sources``), the
use cases over them (``core``) and the ``Session`` that holds them as named, typed
fields, with one ledger and one credential. Nothing below this package opens anything
on its own, so the read path is a straight line: a use case asks its store, the store
states a query, one runner pages it under the ledger, the store maps the rows.

* ``opening``: ``open_session`` and ``open_doctor_session``, from ``SessionOptions``;
* ``local``: a workspace (the demo's first), synchronously;
* ``cosmos``: a Cosmos DB container, and the doctor's session over one;
* ``telemetry``: any registered telemetry backend (``sources/telemetry_backends.py``),
  beside a container or alone (``cosmem hot``), and the use cases over it;
* ``building``: ``SessionBuilder``, the one place a ``Session`` is made and what it
  opened is closed when a step fails;
* ``doctor``: the doctor every session has, built on first use.

Imported only what a session needs: the Azure SDK loads for a Cosmos session or Azure
Monitor, schema detection and the demo generator only when used, so a workspace opens
fast.
"""

from __future__ import annotations

from cosmem_tui.compose.building import SessionBuilder, audit_log, close_credential
from cosmem_tui.compose.cosmos import open_cosmos_doctor_session, open_cosmos_session
from cosmem_tui.compose.local import build_demo, open_local_session
from cosmem_tui.compose.opening import open_doctor_session, open_session
from cosmem_tui.compose.telemetry import open_telemetry_session, telemetry_services

__all__ = [
    "SessionBuilder",
    "audit_log",
    "build_demo",
    "close_credential",
    "open_cosmos_doctor_session",
    "open_cosmos_session",
    "open_doctor_session",
    "open_local_session",
    "open_session",
    "open_telemetry_session",
    "telemetry_services",
]
