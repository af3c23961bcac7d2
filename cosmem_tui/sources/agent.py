"""How the console names itself to Azure, so its own traffic can be told from the
application's.

Every Cosmos DB request carries ``cosmem/<version>`` at the end of its User-Agent
(azure-cosmos 4.17.1 takes it as ``user_agent_suffix``, appended after its own
``azsdk-python-cosmos-async/…`` text), and the KQL that reads the request log
(``CDBDataPlaneRequests``, its ``UserAgent`` column; ``userAgent_s`` in
AzureDiagnostics) leaves out the rows that contain ``CONSOLE_MARK``: the console's
low-priority queries are not the application's load. What Cosmos DB writes to that
column for a gateway-mode client is not documented (the table reference speaks of the
suffix "when running in Direct mode"); the hot-keys report says when the log shows
none of the session's own requests as the console's.
"""

from __future__ import annotations

from cosmem_tui import __version__

CONSOLE_MARK = "cosmem/"  # what the KQL looks for in UserAgent (any version)
USER_AGENT_SUFFIX = f"{CONSOLE_MARK}{__version__}"
