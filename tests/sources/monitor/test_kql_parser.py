"""Every KQL text the console can send, held to Microsoft's own parser.

Each question (``LogName``) in both log modes, in every parameter shape the console
renders (tenant or key level, with and without a tenant, numeric / nested / hostile
tenants, the smallest and largest ``top``, with and without a database and container),
goes through Kusto.Language — the engine of the Log Analytics query editor — with the
documented table schemas as its database (``tests/kusto/tables.json``). A syntax error,
an unknown table or column, or a column used as the wrong type fails here as it would
fail in Log Analytics; and the result's columns must be the ones ``LOG_COLUMNS`` fixes,
with the types the fake workspace answers with.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from cosmem_tui.model import Key
from cosmem_tui.model.telemetry import LOG_COLUMNS, KeyLevel, LogName, LogQuery, Span
from cosmem_tui.sources.monitor.kql import (
    AGGREGATED as AGGREGATED_NAMES,
)
from cosmem_tui.sources.monitor.kql import (
    MAX_TOP,
    LogMode,
    RequestLog,
    query_text,
    render,
)
from tests.kusto.checker import (
    AGGREGATED,
    AZURE_DIAGNOSTICS,
    AZURE_DIAGNOSTICS_BARE,
    AZURE_DIAGNOSTICS_FALLBACKS,
    RESOURCE_SPECIFIC,
    TABLES_FILE,
    WORKSPACE,
    Checked,
    KustoChecker,
)
from tests.sources.monitor.azure_fake import RESOURCE_ID
from tests.sources.monitor.test_logs import TYPES

SPAN = Span(1_795_996_800 - 900, 1_795_996_800)

# The tenants a question can carry: none, a string, a number, a boolean, a hierarchical
# prefix, and values that try to end the literal or that only JSON can carry.
TENANTS: dict[str, Key | None] = {
    "none": None,
    "string": Key.of("acme"),
    "number": Key.of(42),
    "real": Key.of(4.5),
    "boolean": Key.of(True),
    "null": Key.of(None),
    "nested": Key.of("acme", "thread-7"),
    "quote-drop": Key.of('"; drop'),
    "pipe": Key.of('acme" | take 1000000 //'),
    "newline": Key.of("new\nline | take 1"),
    "carriage-return": Key.of("carriage\rreturn"),
    "backslash": Key.of("ends\\"),
    "lone-surrogate": Key.of("lone \ud800 surrogate"),
    "control": Key.of("nul\x00esc\x1b"),
    "empty": Key.of(""),
}
PLACES: dict[str, tuple[str | None, str | None]] = {
    "account": (None, None),
    "empty": ("", ""),
    "container": ("memory", "turns"),
    "hostile": ('mem"; drop', "tu\nrns"),
}


# The regions a question can be read in: every region, one (as ``region_key`` spells
# it), and a value that tries to end its literal.
REGIONS: dict[str, str | None] = {
    "every-region": None,
    "eastus": "eastus",
    "hostile-region": 'east" or 1 == 1 | take 9 //',
}


@dataclass(frozen=True)
class Shape:
    level: KeyLevel
    tenant: str
    top: int
    place: str
    region: str = "every-region"

    @property
    def label(self) -> str:
        return f"{self.level.value}-{self.tenant}-top{self.top}-{self.place}-{self.region}"


TOPS = (1, MAX_TOP)  # both ends of the range render accepts
BASE = Shape(KeyLevel.TENANT, "none", 100, "container")


def shapes() -> list[Shape]:
    """Every value each parameter can take, each varied from the base (the parameters
    only change the ``let`` lines, each independently of the others): every tenant at
    key level, the plain ones at tenant level too, both ends of ``top``, every place."""
    plain = ("none", "string", "nested")
    found = [Shape(KeyLevel.TENANT, tenant, 100, "container") for tenant in plain]
    found += [Shape(KeyLevel.KEY, tenant, 100, "container") for tenant in TENANTS]
    found += [Shape(level, "string", top, "container") for level in KeyLevel for top in TOPS]
    found += [Shape(KeyLevel.TENANT, "none", 100, place) for place in PLACES]
    found += [Shape(KeyLevel.KEY, "nested", top, "hostile") for top in TOPS]
    found += [
        Shape(level, "string", 100, "container", region) for level in KeyLevel for region in REGIONS
    ]
    return found


def rendered(
    name: LogName, mode: LogMode, shape: Shape, requests: RequestLog = RequestLog.PER_REQUEST
) -> str:
    database, container = PLACES[shape.place]
    query = LogQuery(
        name,
        SPAN,
        level=shape.level,
        tenant=TENANTS[shape.tenant],
        top=shape.top,
        region=REGIONS[shape.region],
    )
    return render(
        query,
        mode,
        resource_id=RESOURCE_ID,
        database=database,
        container=container,
        requests=requests,
    )


def workspaces(name: LogName, mode: LogMode, requests: RequestLog) -> tuple[str, ...]:
    """The workspace shapes a text can be sent to: a mode's texts go where its tables
    are (with or without the other kind beside them); the tables probe goes everywhere;
    an aggregated request log's texts wherever its tables are, alone or not."""
    legacy = (AZURE_DIAGNOSTICS, AZURE_DIAGNOSTICS_BARE, AZURE_DIAGNOSTICS_FALLBACKS)
    if name is LogName.TABLES:
        return (WORKSPACE, RESOURCE_SPECIFIC, AGGREGATED, *legacy)
    if requests is not RequestLog.PER_REQUEST:
        return (WORKSPACE, RESOURCE_SPECIFIC, AGGREGATED)
    if mode is LogMode.RESOURCE_SPECIFIC:
        return (WORKSPACE, RESOURCE_SPECIFIC)
    return (WORKSPACE, *legacy)


# Warnings that are the point of the text, not a fault in it: the tables probe is a fuzzy
# union over tables a workspace may not have (``isfuzzy=true`` skips them), and the
# parser says which it skipped. Any other warning fails, so a new one is looked at.
EXPECTED_WARNINGS = {
    (LogName.TABLES, "KS205"),  # "The fuzzy name '…' does not refer to any known … table"
}

# Every text: each question in each mode, and the ones the aggregated request logs
# answer from each of them (one text, the table a parameter).
QUESTIONS = [(name, mode, RequestLog.PER_REQUEST) for name in LogName for mode in LogMode] + [
    (name, LogMode.RESOURCE_SPECIFIC, requests)
    for name in sorted(AGGREGATED_NAMES)
    for requests in RequestLog
    if requests is not RequestLog.PER_REQUEST
]
IDS = [f"{n}-{m}" + ("" if r is RequestLog.PER_REQUEST else f"-{r}") for n, m, r in QUESTIONS]


def problems(name: LogName, text: str, checked: Checked) -> list[str]:
    return [
        d.located(text)
        for d in checked.diagnostics
        if d.is_error or (name, d.code) not in EXPECTED_WARNINGS
    ]


@pytest.mark.parametrize(("name", "mode", "requests"), QUESTIONS, ids=IDS)
def test_every_rendered_text_parses_and_type_checks(
    kusto: KustoChecker, name: LogName, mode: LogMode, requests: RequestLog
):
    """Every parameter shape in a workspace with every table, and the base shape in
    every kind of workspace the text can be sent to (which tables exist decides what
    resolves; the parameters do not)."""
    checks = [(shape, WORKSPACE) for shape in shapes()]
    checks += [
        (BASE, database) for database in workspaces(name, mode, requests) if database != WORKSPACE
    ]
    failures: dict[str, list[str]] = {}
    for shape, database in checks:
        text = rendered(name, mode, shape, requests)
        found = problems(name, text, kusto.check(text, database))
        if found:
            failures[f"{shape.label} in {database}"] = found
    assert not failures, "\n".join(
        f"{where}:\n  " + "\n  ".join(found) for where, found in failures.items()
    )


@pytest.mark.parametrize(("name", "mode", "requests"), QUESTIONS, ids=IDS)
def test_the_result_has_the_contracts_columns_and_types(
    kusto: KustoChecker, name: LogName, mode: LogMode, requests: RequestLog
):
    """What Log Analytics would hand back: ``LOG_COLUMNS`` in order, typed as the fake
    workspace answers (so the fake's rows are the shape the real query returns)."""
    for level in KeyLevel:
        text = rendered(name, mode, Shape(level, "none", 100, "container"), requests)
        checked = kusto.check(text, WORKSPACE)
        assert [c for c, _ in checked.columns] == list(LOG_COLUMNS[name]), text
        for column, kind in checked.columns:
            assert TYPES[column] == kind, (name.value, mode.value, column, kind)


def test_the_parser_refuses_what_log_analytics_refuses(kusto: KustoChecker):
    """The checker is a judge, not a rubber stamp: a syntax error, an unknown column, a
    column of the wrong type and an unknown table each come back as errors."""
    bad = {
        "top, two sort keys": "CDBDataPlaneRequests | top 5 by StatusCode desc, DurationMs desc",
        "unknown column": "CDBPartitionKeyRUConsumption | where PartitionKeyRange == '0'",
        "wrong type": "CDBPartitionKeyRUConsumption | where RequestCharge has 'x'",
        "not summable": "CDBPartitionKeyStatistics | summarize sum(PartitionKey)",
        "unknown table": "CDBPartitionKeyRU | count",
        "AzureDiagnostics column by name": "AzureDiagnostics | where regionname_s == 'x'",
    }
    for what, text in bad.items():
        assert kusto.check(text, WORKSPACE).errors, what
    good = "CDBDataPlaneRequests | sort by StatusCode desc, DurationMs desc | take 5"
    assert kusto.check(good, WORKSPACE).diagnostics == ()


def test_the_legacy_texts_read_only_columns_someone_documented():
    """``column_ifexists`` hides a misspelt column from the parser (the default comes back,
    every row empty), so each column the legacy texts try is one a Microsoft page names
    or one of the listed fallbacks, and every listed fallback is still tried."""
    diagnostics = json.loads(TABLES_FILE.read_text(encoding="utf-8"))["tables"]["AzureDiagnostics"]
    documented = set(diagnostics["columns"]) | set(diagnostics["cosmos_columns"])
    fallbacks = set(diagnostics["console_fallbacks"])
    tried = {
        column
        for name in LogName
        if name is not LogName.TABLES
        for column in re.findall(
            r'column_ifexists\("(\w+)"', query_text(name, LogMode.AZURE_DIAGNOSTICS)
        )
    }
    assert tried - documented <= fallbacks, sorted(tried - documented - fallbacks)
    assert fallbacks <= tried - documented, sorted(fallbacks - (tried - documented))
