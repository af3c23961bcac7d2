"""The KQL texts: one per question and mode, each aggregating and bounded, and values
that go in as literals no tenant name can break out of."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cosmem_tui.model import Key
from cosmem_tui.model.telemetry import (
    LOG_COLUMNS,
    PARTITION_IDS,
    KeyLevel,
    LogName,
    LogQuery,
    Span,
)
from cosmem_tui.sources.monitor.kql import (
    AGGREGATED,
    KqlError,
    LogMode,
    RequestLog,
    kql_dynamic,
    kql_string,
    query_text,
    render,
    text_name,
)
from cosmem_tui.sources.query_texts import queries_root
from tests.kusto.checker import TABLES_FILE
from tests.sources.monitor.azure_fake import RESOURCE_ID

SPAN = Span(1_795_996_800 - 900, 1_795_996_800)
RS, PER_REQUEST = LogMode.RESOURCE_SPECIFIC, RequestLog.PER_REQUEST
# Every text: each question in each mode, and those the aggregated request logs answer
# (one text for both of them: the table is a parameter).
TEXTS = [(n, m, PER_REQUEST) for n in LogName for m in LogMode] + [
    (n, RS, RequestLog.AGGREGATED_5M) for n in sorted(AGGREGATED)
]
TEXT_IDS = [f"{n}-{m}" + ("" if r is PER_REQUEST else "-aggregated") for n, m, r in TEXTS]
HOSTILE = [
    'acme"; CDBDataPlaneRequests | take 1000000 //',
    "back\\slash\\",
    'ends with a backslash and quote \\"',
    "new\nline | take 1000000",
    "carriage\rreturn",
    "tab\there",
    "nul\x00and\x1bescape",
    "bidi \u202e txt",
    "lone \ud800 surrogate",
    "'single' quotes",
    '@"verbatim"',
    "",
]

# -- a small lexer for KQL string literals (what the service would see as one token) -------

_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r"}


def lex(text: str) -> list[tuple[str, str]]:
    """Tokens of ``text``: ("string", value) for each string literal, ("code", text) for
    the code between them. Raises on an unterminated literal or a raw line break in one."""
    tokens: list[tuple[str, str]] = []
    code: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if ch == "@" and i + 1 < len(text) and text[i + 1] in "\"'":
            quote, j, value = text[i + 1], i + 2, []
            while True:
                if j >= len(text) or text[j] == "\n":
                    raise ValueError(f"unterminated verbatim literal at {i}")
                if text[j] == quote:
                    if text[j + 1 : j + 2] == quote:
                        value.append(quote)
                        j += 2
                        continue
                    break
                value.append(text[j])
                j += 1
        elif ch in "\"'":
            quote, j, value = ch, i + 1, []
            while True:
                if j >= len(text) or text[j] in "\r\n":
                    raise ValueError(f"unterminated literal at {i}: {text[i : i + 40]!r}")
                if text[j] == "\\":
                    if text[j + 1] not in _ESCAPES:
                        raise ValueError(f"unknown escape \\{text[j + 1]}")
                    value.append(_ESCAPES[text[j + 1]])
                    j += 2
                    continue
                if text[j] == quote:
                    break
                value.append(text[j])
                j += 1
        else:
            code.append(ch)
            i += 1
            continue
        tokens.append(("code", "".join(code)))
        code = []
        tokens.append(("string", "".join(value)))
        i = j + 1
    tokens.append(("code", "".join(code)))
    return tokens


def literal_value(literal: str) -> str:
    """The string a literal made by ``kql_string`` stands for, checking its shape."""
    tokens = lex(literal)
    strings = [value for kind, value in tokens if kind == "string"]
    assert len(strings) == 1, tokens
    outside = "".join(value for kind, value in tokens if kind == "code")
    if outside == "":
        return strings[0]
    assert outside == "tostring(parse_json())", outside
    decoded = json.loads(strings[0])
    assert isinstance(decoded, str)
    return decoded


@pytest.mark.parametrize("value", HOSTILE)
def test_a_string_parameter_is_one_literal_that_reads_back_as_itself(value: str):
    literal = kql_string(value)
    assert "\n" not in literal and "\r" not in literal
    assert literal_value(literal) == value


def test_a_dynamic_parameter_keeps_the_json_types():
    literal = kql_dynamic([42, "42", True, None, 'a"b\n'])
    tokens = lex(literal)
    assert [kind for kind, _ in tokens] == ["code", "string", "code"]
    assert tokens[0][1] == "parse_json(" and tokens[2][1] == ")"
    assert json.loads(tokens[1][1]) == [42, "42", True, None, 'a"b\n']


def skeleton(text: str) -> str:
    """``text`` with every string value blanked: what the query *does*. A value spelled
    through JSON (``tostring(parse_json("…"))``) counts as one string too."""
    code = "".join(value if kind == "code" else "<string>" for kind, value in lex(text))
    return code.replace("tostring(parse_json(<string>))", "<string>")


def p_tenant(text: str) -> object:
    line = next(line for line in text.splitlines() if line.startswith("let p_tenant = "))
    tokens = lex(line)
    (value,) = [v for k, v in tokens if k == "string"]
    return json.loads(value)


@pytest.mark.parametrize(
    ("name", "mode", "requests"),
    [t for t in TEXTS if t[0] is not LogName.TABLES],
    ids=[i for t, i in zip(TEXTS, TEXT_IDS, strict=True) if t[0] is not LogName.TABLES],
)
def test_a_hostile_tenant_stays_one_literal_in_every_query(
    name: LogName, mode: LogMode, requests: RequestLog
):
    benign = render(
        LogQuery(name, SPAN, level=KeyLevel.KEY, tenant=Key.of("acme"), top=50, region="eastus"),
        mode,
        resource_id=RESOURCE_ID,
        database="memory",
        container="turns",
        requests=requests,
    )
    for value in HOSTILE:
        text = render(
            LogQuery(name, SPAN, level=KeyLevel.KEY, tenant=Key.of(value), top=50, region=value),
            mode,
            resource_id=RESOURCE_ID,
            database=value,
            container=value,
            requests=requests,
        )
        assert skeleton(text) == skeleton(benign)
        assert p_tenant(text) == [value]
        assert "let p_top = 50;" in text


def rendered(query: LogQuery) -> str:
    return render(
        query, LogMode.RESOURCE_SPECIFIC, resource_id=RESOURCE_ID, database=None, container=None
    )


def test_numbers_and_strings_stay_apart_in_the_tenant_filter():
    as_number = rendered(LogQuery(LogName.KEY_USAGE, SPAN, tenant=Key.of(42)))
    as_string = rendered(LogQuery(LogName.KEY_USAGE, SPAN, tenant=Key.of("42")))
    assert p_tenant(as_number) == [42]
    assert p_tenant(as_string) == ["42"]
    assert "let p_has_tenant = true;" in as_number
    unfiltered = rendered(LogQuery(LogName.KEY_USAGE, SPAN))
    assert "let p_has_tenant = false;" in unfiltered
    assert 'let p_database = "";' in unfiltered  # no filter: every database of the account


def test_top_is_bounded():
    for top in (0, -5, 10_000_000):
        with pytest.raises(KqlError):
            rendered(LogQuery(LogName.KEY_USAGE, SPAN, top=top))


# -- the texts themselves ------------------------------------------------------------------


def statements(text: str) -> list[str]:
    """The top-level statements of ``text`` (split at ``;``), string values blanked."""
    code = "".join(v if k == "code" else '""' for k, v in lex(text))
    depth, found, current = 0, [], []
    for ch in code:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == ";" and depth == 0:
            found.append("".join(current))
            current = []
        else:
            current.append(ch)
    found.append("".join(current))
    return [s for s in found if s.strip()]


def stages(text: str) -> list[str]:
    """The top-level pipe stages of the final statement (after the last ``let``)."""
    final = statements(text)[-1]
    parts, depth, current = [], 0, []
    for ch in final:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "|" and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return parts


@pytest.mark.parametrize(("name", "mode", "requests"), TEXTS, ids=TEXT_IDS)
def test_every_text_aggregates_and_ends_in_a_bound(
    name: LogName, mode: LogMode, requests: RequestLog
):
    text = query_text(name, mode, requests)
    final = [" ".join(stage.split()) for stage in stages(text)]
    # ``top`` takes exactly one sort key (Kusto.Language ParseTopOperator); ordering by
    # two is ``sort by … | take``.
    one_key = re.fullmatch(r"top p_top by \w+ (desc|asc)", final[-1])
    sorted_cut = final[-1] == "take p_top" and re.fullmatch(
        r"sort by \w+ (desc|asc)(, \w+ (desc|asc))+", final[-2]
    )
    # Or one row by construction: a summarize with no group-by, then only columns made.
    last = max((i for i, stage in enumerate(final) if stage.startswith("summarize ")), default=None)
    one_row = (
        last is not None
        and " by " not in final[last]
        and all(stage.startswith(("extend ", "project ")) for stage in final[last + 1 :])
    )
    assert one_key or sorted_cut or one_row, final[-2:]
    assert "summarize" in text  # aggregated in Log Analytics: never raw rows
    assert len(re.findall(r"\b(take|limit)\b", text)) == (1 if sorted_cut else 0)
    used = set(re.findall(r"\bp_\w+", text))
    assert used <= {
        "p_resource_id",
        "p_database",
        "p_container",
        "p_by_tenant",
        "p_has_tenant",
        "p_tenant",
        "p_top",
        "p_console",
        "p_requests",  # the aggregated texts: the table, its interval
        "p_bin",
        "p_minutes",
        "p_region",
    }
    assert "p_resource_id" in used  # never another account's rows in a shared workspace


@pytest.mark.parametrize(("name", "mode", "requests"), TEXTS, ids=TEXT_IDS)
def test_every_text_says_the_columns_the_contract_fixes(
    name: LogName, mode: LogMode, requests: RequestLog
):
    path = queries_root() / "kql" / f"{text_name(name, mode, requests)}.kql"
    raw = path.read_text(encoding="utf-8")
    line = next(line for line in raw.splitlines() if line.startswith("// Columns: "))
    assert tuple(line.removeprefix("// Columns: ").split(", ")) == LOG_COLUMNS[name]
    # That the query returns them, in this order and type: test_kql_parser (the real parser).


@pytest.mark.parametrize("mode", list(LogMode))
def test_a_keys_partitions_are_named_within_a_bound(mode: LogMode):
    text = " ".join(query_text(LogName.KEY_USAGE, mode).split())
    assert f"PartitionIds = make_set(Partition, {PARTITION_IDS})" in text


def test_legacy_texts_read_the_suffixed_columns_defensively():
    for name in (LogName.KEY_USAGE, LogName.THROTTLES, LogName.KEY_STORAGE):
        text = query_text(name, LogMode.AZURE_DIAGNOSTICS)
        assert 'ResourceProvider == "MICROSOFT.DOCUMENTDB"' in text
        assert 'column_ifexists("databaseName_s", "")' in text
        assert 'column_ifexists("databasename_s", "")' in text
    assert 'todouble(column_ifexists("requestCharge_s", ""))' in query_text(
        LogName.KEY_USAGE, LogMode.AZURE_DIAGNOSTICS
    )
    assert 'toint(column_ifexists("statusCode_s", ""))' in query_text(
        LogName.THROTTLES, LogMode.AZURE_DIAGNOSTICS
    )


_CUT = re.compile(r"\b(top|take|limit|sample|top-nested)\b")


@pytest.mark.parametrize(("name", "mode", "requests"), TEXTS, ids=TEXT_IDS)
def test_a_cut_table_used_twice_is_materialized(name: LogName, mode: LogMode, requests: RequestLog):
    """A ``let`` is evaluated again wherever it is named, and a top-N with ties at the
    cut-off may keep different rows each time: joined with itself, keys drop out. A
    cut table named more than once is ``materialize``d (computed once, the same rows
    everywhere)."""
    found = statements(query_text(name, mode, requests))
    for n, statement in enumerate(found):
        let = re.fullmatch(r"\s*let\s+(\w+)\s*=\s*(.*)", statement, re.DOTALL)
        if let is None or not _CUT.search(let.group(2)):
            continue
        later = " ".join(found[n + 1 :])
        uses = len(re.findall(rf"\b{let.group(1)}\b", later))
        if uses > 1:
            assert let.group(2).lstrip().startswith("materialize("), (let.group(1), uses)


def test_every_kql_file_is_a_question_in_one_mode():
    root = queries_root() / "kql"
    files = {str(p.relative_to(root).with_suffix("")) for p in Path(root).rglob("*.kql")}
    expected = {text_name(n, m, r) for n, m, r in TEXTS}
    assert files == expected


@pytest.mark.parametrize("mode", list(LogMode))
def test_429s_count_distinct_requests_not_log_rows(mode: LogMode):
    """As Microsoft's own 429 query does (``dcountif(ActivityId, StatusCode == 429)``):
    a request logged more than once, or joined to several RU-log rows, is one request."""
    keys = " ".join(query_text(LogName.KEY_THROTTLES, mode).split())
    assert "Requests = dcount(ActivityId)" in keys
    assert "Throttled = dcountif(ActivityId, StatusCode == 429)" in keys
    totals = " ".join(query_text(LogName.REQUEST_TOTALS, mode).split())
    assert "Requests = dcountif(ActivityId, not(Console))" in totals
    assert "Throttled = dcountif(ActivityId, not(Console) and StatusCode == 429)" in totals
    for text in (keys, totals):
        assert not re.search(r"(?<!d)count(if)?\(", text)
    throttles = " ".join(query_text(LogName.THROTTLES, mode).split())
    assert "Throttled = dcount(ActivityId)" in throttles
    # The 429s no RU-log row names a key for: every request kept (a left outer join).
    assert "join kind=leftouter keyed on ActivityId" in totals
    assert (
        "Unattributed = dcountif(ActivityId, not(Console) and StatusCode == 429 and isnull(Keyed))"
    ) in totals


@pytest.mark.parametrize("mode", list(LogMode))
def test_the_request_logs_partition_is_its_guid_not_a_range_id(mode: LogMode):
    """CDBDataPlaneRequests.PartitionId (partitionId_g) is the physical partition's GUID;
    the RU log's PartitionKeyRangeId is another id: never one "Partition" column."""
    text = query_text(LogName.THROTTLES, mode)
    assert "Partition =" not in text and "PartitionId" in text
    for name in (LogName.KEY_USAGE, LogName.PARTITION_USAGE):
        assert "PartitionId" not in query_text(name, mode).replace("PartitionIds", "")


@pytest.mark.parametrize(("name", "mode", "requests"), TEXTS, ids=TEXT_IDS)
def test_the_consoles_own_requests_are_left_out_of_the_request_log(
    name: LogName, mode: LogMode, requests: RequestLog
):
    """Every text that reads the request log (CDBDataPlaneRequests, its aggregated
    tables, or the DataPlaneRequests rows of AzureDiagnostics) sets the console's own
    requests — their UserAgent carries ``cosmem/`` — apart from the application's."""
    text = query_text(name, mode, requests)
    reads_requests = (
        "CDBDataPlaneRequests" in text
        or '"DataPlaneRequests"' in text
        or requests is not PER_REQUEST
    )
    if name is LogName.TABLES or not reads_requests:
        return
    field = "UserAgent" if mode is LogMode.RESOURCE_SPECIFIC else 'column_ifexists("userAgent_s"'
    assert re.search(rf"{re.escape(field)}[^\n]*contains p_console", text), name
    rendered_text = render(
        LogQuery(name, SPAN),
        mode,
        resource_id=RESOURCE_ID,
        database=None,
        container=None,
        requests=requests,
    )
    assert 'let p_console = "cosmem/";' in rendered_text


@pytest.mark.parametrize("requests", [r for r in RequestLog if r is not PER_REQUEST])
def test_an_aggregated_request_log_is_a_parameter_of_the_consoles_own(requests: RequestLog):
    """The aggregated texts read the table ``p_requests`` names, set by the console from
    its own enum (never a value from outside), with its interval; the questions they
    cannot answer keep their per-request text."""
    text = render(
        LogQuery(LogName.THROTTLES, SPAN),
        RS,
        resource_id=RESOURCE_ID,
        database=None,
        container=None,
        requests=requests,
    )
    table = f"CDBDataPlaneRequests{requests.value}"
    assert f"let p_requests = {table};" in text
    assert f"let p_bin = {requests.minutes}m;" in text
    assert f"let p_minutes = {requests.minutes};" in text
    assert text.endswith(query_text(LogName.THROTTLES, RS, requests) + "\n")
    keys = render(
        LogQuery(LogName.KEY_THROTTLES, SPAN),
        RS,
        resource_id=RESOURCE_ID,
        database=None,
        container=None,
        requests=requests,
    )
    assert "p_requests" not in keys  # per key needs activity ids: the per-request text
    assert keys.endswith(query_text(LogName.KEY_THROTTLES, RS) + "\n")


@pytest.mark.parametrize("name", sorted(AGGREGATED))
def test_the_aggregated_texts_count_requests_as_the_table_reference_names_them(name: LogName):
    """RequestCount is the table reference's column (learn "CDBDataPlaneRequests5M");
    the how-to's queries sum a SampleCount it does not list: tried only where
    RequestCount is absent, and both named in tables.json with their sources."""
    text = query_text(name, RS, RequestLog.AGGREGATED_5M)
    assert (
        'coalesce(column_ifexists("RequestCount", real(null)), '
        'column_ifexists("SampleCount", real(null)))'
    ) in text
    tables = json.loads(TABLES_FILE.read_text(encoding="utf-8"))["tables"]
    for table in ("CDBDataPlaneRequests5M", "CDBDataPlaneRequests15M"):
        assert tables[table]["columns"]["RequestCount"] == "real"
        assert "SampleCount" not in tables[table]["columns"]
        assert tables[table]["console_fallbacks"] == {"SampleCount": "real"}
        assert "monitor-aggregated-logs" in tables[table]["console_fallbacks_source"]


REGIONAL = (LogName.KEY_USAGE, LogName.PARTITION_USAGE, LogName.THROTTLES, LogName.KEY_THROTTLES)


@pytest.mark.parametrize("name", REGIONAL)
@pytest.mark.parametrize("mode", list(LogMode))
def test_every_usage_text_reads_one_region_when_asked(name: LogName, mode: LogMode):
    """RU/s is provisioned per region: a text that sums RU or counts requests keeps only
    the rows of ``p_region`` (when set), once for each table it reads, comparing the
    region as ``region_key`` spells it ("East US" is "eastus")."""
    text = query_text(name, mode)
    tables = 2 if name is LogName.KEY_THROTTLES and mode is LogMode.RESOURCE_SPECIFIC else 1
    filters = re.findall(r"where isempty\(p_region\) or replace_string\(tolower\(", text)
    assert len(filters) == tables, text
    rendered_text = render(
        LogQuery(name, SPAN, region="eastus"),
        mode,
        resource_id=RESOURCE_ID,
        database=None,
        container=None,
    )
    assert 'let p_region = "eastus";' in rendered_text
