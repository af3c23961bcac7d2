"""The KQL the console sends to Log Analytics: texts by name, values as literals.

Texts live in ``queries/kql/`` (resource-specific tables) and
``queries/kql/azurediagnostics/`` (the legacy ``AzureDiagnostics`` table), one per
``LogName``; ``queries/kql/aggregated/`` answers the questions the aggregated request
logs can (``AGGREGATED``: CDBDataPlaneRequests5M / 15M, named by ``p_requests``).
Each reads its parameters from ``let`` statements that ``render`` puts in front of it
(``p_resource_id``, ``p_database``, ``p_container``, ``p_by_tenant``,
``p_has_tenant``, ``p_tenant``, ``p_top``, ``p_console``, ``p_region``: the region
whose rows count, as ``region_key`` spells it, or empty for every region): values are
never spliced into the text itself, and every string goes through ``kql_string``, so a
hostile tenant name stays one string literal. Plain text work, no SDK.
"""

from __future__ import annotations

import json
from enum import StrEnum

from cosmem_tui.model.telemetry import KeyLevel, LogName, LogQuery
from cosmem_tui.sources.agent import CONSOLE_MARK
from cosmem_tui.sources.query_texts import load_query

MAX_TOP = 100_000  # Log Analytics answers at most 500,000 rows; the console needs far fewer


class LogMode(StrEnum):
    """Where a workspace keeps Cosmos DB diagnostic logs."""

    RESOURCE_SPECIFIC = "resource-specific"  # CDBPartitionKeyRUConsumption, …
    AZURE_DIAGNOSTICS = "AzureDiagnostics"  # the legacy shared table


class Category(StrEnum):
    """The diagnostic-setting categories the aggregations read."""

    PARTITION_KEY_RU = "PartitionKeyRUConsumption"
    DATA_PLANE = "DataPlaneRequests"
    PARTITION_KEY_STATISTICS = "PartitionKeyStatistics"
    # The request log aggregated per 5 / 15 minutes (resource-specific only): Microsoft's
    # recommendation over the per-request one, up to 95 % cheaper (learn "Monitor data
    # using aggregated diagnostics logs"). No activity id, no partition key.
    DATA_PLANE_5M = "DataPlaneRequests5M"
    DATA_PLANE_15M = "DataPlaneRequests15M"

    @property
    def table(self) -> str:
        """The resource-specific table of this category."""
        return f"CDB{self.value}"

    @property
    def legacy_table(self) -> str:
        """How the TABLES probe names this category's rows in AzureDiagnostics."""
        return f"AzureDiagnostics/{self.value}"

    @property
    def aggregated(self) -> bool:
        """An aggregated request log: written to resource-specific tables only."""
        return self in (Category.DATA_PLANE_5M, Category.DATA_PLANE_15M)

    def table_in(self, mode: LogMode) -> str:
        if mode is LogMode.RESOURCE_SPECIFIC or self.aggregated:
            return self.table
        return self.legacy_table


# The per-request categories: which of them hold rows decides the dialect (the aggregated
# ones exist in resource-specific tables only, beside either).
PER_REQUEST_CATEGORIES = (
    Category.PARTITION_KEY_RU,
    Category.DATA_PLANE,
    Category.PARTITION_KEY_STATISTICS,
)


class RequestLog(StrEnum):
    """Which request log answers the questions it can: per request, or aggregated."""

    PER_REQUEST = "per-request"
    AGGREGATED_5M = "5M"
    AGGREGATED_15M = "15M"

    @property
    def category(self) -> Category:
        return {
            RequestLog.PER_REQUEST: Category.DATA_PLANE,
            RequestLog.AGGREGATED_5M: Category.DATA_PLANE_5M,
            RequestLog.AGGREGATED_15M: Category.DATA_PLANE_15M,
        }[self]

    @property
    def minutes(self) -> int:
        """How long one of its rows' intervals is (per request: the texts' 1-minute bins)."""
        return {RequestLog.PER_REQUEST: 1, RequestLog.AGGREGATED_5M: 5}.get(self, 15)


# The questions the aggregated request logs answer; the others need per-request rows
# (activity ids, partition keys) or other categories.
AGGREGATED = frozenset({LogName.THROTTLES, LogName.REQUEST_TOTALS})

# The categories each aggregation reads from the per-request logs (TABLES reads whatever
# exists); ``needs`` says what it reads from an aggregated one.
NEEDS: dict[LogName, tuple[Category, ...]] = {
    LogName.KEY_USAGE: (Category.PARTITION_KEY_RU,),
    LogName.PARTITION_USAGE: (Category.PARTITION_KEY_RU,),
    LogName.THROTTLES: (Category.DATA_PLANE,),
    LogName.KEY_THROTTLES: (Category.DATA_PLANE, Category.PARTITION_KEY_RU),
    LogName.KEY_STORAGE: (Category.PARTITION_KEY_STATISTICS,),
    LogName.REQUEST_TOTALS: (Category.DATA_PLANE, Category.PARTITION_KEY_RU),
    LogName.TABLES: (),
}


def needs(name: LogName, requests: RequestLog = RequestLog.PER_REQUEST) -> tuple[Category, ...]:
    """The categories ``name`` reads when the request log is ``requests``."""
    if requests is RequestLog.PER_REQUEST or name not in AGGREGATED:
        return NEEDS[name]
    return (requests.category,)


class KqlError(ValueError):
    """A query the console will not send (a parameter out of range)."""


def kql_string(value: str) -> str:
    """``value`` as a KQL string literal that cannot end early or change the query.

    Printable text is quoted with the documented escapes (``\\\\``, ``\\"``, ``\\n``,
    ``\\t``). Anything else (a carriage return, other control characters, a lone
    surrogate) goes through JSON with every non-ASCII character escaped, and KQL's own
    ``parse_json`` turns it back into the same string.
    """
    if all(ch.isprintable() or ch in "\n\t" for ch in value):
        escaped = (
            value.replace("\\", "\\\\")
            .replace('"', '\\"')
            .replace("\n", "\\n")
            .replace("\t", "\\t")
        )
        return f'"{escaped}"'
    return f"tostring(parse_json({kql_string(json.dumps(value, ensure_ascii=True))}))"


def kql_dynamic(value: object) -> str:
    """A JSON value as a KQL ``dynamic`` (types kept: 42 is not "42")."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return f"parse_json({kql_string(text)})"


def text_name(name: LogName, mode: LogMode, requests: RequestLog = RequestLog.PER_REQUEST) -> str:
    """The file under ``queries/kql/`` that answers ``name`` in ``mode`` (the TABLES probe
    reads both kinds of table, so it has one text; an aggregated request log is in
    resource-specific tables whatever the mode of the others)."""
    if requests is not RequestLog.PER_REQUEST and name in AGGREGATED:
        return f"aggregated/{name.value}"
    if mode is LogMode.RESOURCE_SPECIFIC or name is LogName.TABLES:
        return name.value
    return f"azurediagnostics/{name.value}"


def query_text(name: LogName, mode: LogMode, requests: RequestLog = RequestLog.PER_REQUEST) -> str:
    """The text of ``name`` in ``mode`` without its ``//`` comment lines (they are for
    reviewers, not worth sending with every refresh)."""
    lines = load_query("kql", text_name(name, mode, requests)).splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//")).strip()


def render(
    query: LogQuery,
    mode: LogMode,
    *,
    resource_id: str,
    database: str | None,
    container: str | None,
    requests: RequestLog = RequestLog.PER_REQUEST,
) -> str:
    """The whole query: the parameters as ``let`` statements, then the text. For a
    question an aggregated request log answers, ``p_requests`` names its table (one of
    the console's own names, never a value from outside) and ``p_bin`` / ``p_minutes``
    its interval."""
    if not 0 < query.top <= MAX_TOP:
        raise KqlError(f"top must be between 1 and {MAX_TOP:,}, not {query.top}")
    tenant = list(query.tenant.values) if query.tenant is not None else []
    lets = [
        ("p_resource_id", kql_string(resource_id)),
        ("p_database", kql_string(database or "")),
        ("p_container", kql_string(container or "")),
        ("p_by_tenant", "true" if query.level is KeyLevel.TENANT else "false"),
        ("p_has_tenant", "true" if query.tenant is not None else "false"),
        ("p_tenant", kql_dynamic(tenant)),
        ("p_top", str(int(query.top))),
        # The console's own requests carry this in their UserAgent (sources/agent.py):
        # the texts that read the request log leave them out.
        ("p_console", kql_string(CONSOLE_MARK)),
        ("p_region", kql_string(query.region or "")),
    ]
    if requests is not RequestLog.PER_REQUEST and query.name in AGGREGATED:
        lets += [
            ("p_requests", requests.category.table),
            ("p_bin", f"{requests.minutes}m"),
            ("p_minutes", str(requests.minutes)),
        ]
    preamble = "".join(f"let {name} = {value};\n" for name, value in lets)
    return preamble + query_text(query.name, mode, requests) + "\n"
