"""Telemetry as plain data: what is asked of a monitoring source and what it answers.

Two sources answer these questions — Azure Monitor (metrics through getBatch, logs
through Log Analytics KQL) and the simulator of the embedded default — and they answer
them in the same shapes, so nothing above the sources can tell them apart:

* a ``MetricQuery`` is one metrics call: every metric in it shares one grain, one
  aggregation and one dimension filter (the getBatch rule); its answer is one
  ``Series`` per combination of the split dimensions, with ``None`` for empty buckets
  (never 0) and dimension names lower-cased as Azure returns them;
* a ``LogQuery`` names one of a fixed set of aggregations (``LogName``) that the source
  runs where the logs are (KQL in Log Analytics; the simulator's own tallies) and that
  returns a bounded table with the columns ``LOG_COLUMNS`` fixes — never raw log rows;
* anything that goes wrong comes back as a ``TelemetryProblem`` that says what happened
  and what fixes it, beside whatever data did arrive (a partial result keeps its rows).

The reports built from these answers (``ThroughputReport``, ``HotKeysReport``) are what
the views and the CLI show; they are made by the core services.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from cosmem_tui.model.keys import Key

# Apart, re-exported here: the command line's options and the tenant list load them alone.
from cosmem_tui.model.telemetry_choices import DEFAULT_KEYS_TOP as DEFAULT_KEYS_TOP
from cosmem_tui.model.telemetry_choices import KeyLevel as KeyLevel
from cosmem_tui.model.telemetry_choices import Window as Window

# -- windows ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Span:
    """A closed-open time range in epoch seconds (UTC)."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start


# -- metrics ------------------------------------------------------------------------------

# The Cosmos DB platform metrics the console reads (Microsoft.DocumentDB/databaseAccounts).
TOTAL_REQUEST_UNITS = "TotalRequestUnits"
TOTAL_REQUESTS = "TotalRequests"
NORMALIZED_RU = "NormalizedRUConsumption"
PROVISIONED_THROUGHPUT = "ProvisionedThroughput"
AUTOSCALE_MAX_THROUGHPUT = "AutoscaleMaxThroughput"
# Server-side latency is reported per connection mode: Direct exists only in the .NET and
# Java SDKs; Python and JavaScript clients (and the console) are in Gateway mode (learn
# "Azure Cosmos DB SDK connection modes"). Both are asked in one call and shown apart.
SERVER_LATENCY_DIRECT = "ServerSideLatencyDirect"
SERVER_LATENCY_GATEWAY = "ServerSideLatencyGateway"

# Dimension names as the console asks for them; answers carry them lower-cased.
DATABASE = "DatabaseName"
COLLECTION = "CollectionName"
STATUS_CODE = "StatusCode"
OPERATION_TYPE = "OperationType"
PARTITION_KEY_RANGE = "PartitionKeyRangeId"
REGION = "Region"  # provisioned RU/s is per region: load is read one region at a time


def region_key(name: str) -> str:
    """A region as one comparable word: "East US", "eastus" and "EAST US" are one region
    (ARM and the Cosmos account say "East US", hosts and some answers "eastus")."""
    return "".join(name.split()).lower()


@dataclass(frozen=True, slots=True)
class MetricQuery:
    """One metrics call. ``name`` is the console's own id for it (for the ledger and
    for matching answers); the rest is what the call asks Azure Monitor for.

    ``where`` pins dimensions to values (``StatusCode == "429"``); ``split`` asks for one
    series per value of each named dimension (``'*'`` in the filter grammar). The
    database and container always filter the call when set.
    """

    name: str
    metrics: tuple[str, ...]
    aggregation: str  # "Total" | "Count" | "Maximum" | "Average"
    grain_s: int
    span: Span
    database: str | None = None
    container: str | None = None
    where: tuple[tuple[str, str], ...] = ()
    split: tuple[str, ...] = ()
    max_results: int | None = None  # series per metric; Azure's default is 10 when filtered
    # Filtered by the database alone, never by a container: a database's shared RU/s is
    # reported at database granularity (a CollectionName filter answers nothing there).
    database_level: bool = False


@dataclass(frozen=True, slots=True)
class MetricPoint:
    at: float  # start of the bucket, epoch seconds
    value: float | None  # None: no data in this bucket (not zero)


@dataclass(frozen=True, slots=True)
class Series:
    """One time series of one metric for one combination of split dimension values."""

    metric: str
    aggregation: str
    unit: str
    dimensions: tuple[tuple[str, str], ...]  # (lower-cased name, value), sorted by name
    points: tuple[MetricPoint, ...]

    def dimension(self, name: str) -> str | None:
        wanted = name.lower()
        for key, value in self.dimensions:
            if key == wanted:
                return value
        return None

    def total(self) -> float | None:
        """Sum of the non-empty buckets; None when every bucket is empty."""
        values = [p.value for p in self.points if p.value is not None]
        return sum(values) if values else None

    def peak(self) -> float | None:
        values = [p.value for p in self.points if p.value is not None]
        return max(values) if values else None

    def latest(self) -> MetricPoint | None:
        """The newest bucket that has data."""
        for point in reversed(self.points):
            if point.value is not None:
                return point
        return None


# -- logs ---------------------------------------------------------------------------------


class LogName(StrEnum):
    """The aggregations a source runs where its logs live (one KQL text each)."""

    KEY_USAGE = "key_usage"  # RU per key in the window, its peak second, its partition
    PARTITION_USAGE = "partition_usage"  # RU per physical partition, its peak second
    THROTTLES = "throttles"  # 429s per minute by operation and physical partition
    KEY_THROTTLES = "key_throttles"  # 429s per key, where logged (joined by activity id)
    REQUEST_TOTALS = "request_totals"  # the window's requests, 429s, 429s of no known key
    KEY_STORAGE = "key_storage"  # estimated storage of the largest keys
    TABLES = "tables"  # which diagnostic tables hold rows for this account


# The columns each aggregation returns, in order. ``Key`` is always the key as a JSON
# array text (``["contoso"]``, ``["contoso","t-1"]``, ``[42]``) so numbers stay numbers;
# at tenant level it holds the first element only. ``Partition`` is the physical
# partition's PartitionKeyRangeId (the RU log's, and the metrics' dimension);
# ``PartitionId`` the request log's physical partition GUID — two names for two kinds
# of id that cannot be matched to each other, never one column.
PARTITION_IDS = 16  # partition ids a key_usage row names at most (its count says all)

LOG_COLUMNS: dict[LogName, tuple[str, ...]] = {
    # Keys: distinct keys in the window (the same on every row; more than the rows when
    # the top-N cut the list). Partition: the one where the key spent most; Partitions:
    # how many it touched. PeakRUps: the largest RU the key spent in one second, all its
    # partitions together. PartitionRU / PartitionPeakRUps: the same on its Partition
    # alone (what it takes of that partition, and of that partition's budget).
    # PartitionIds: the partitions it touched (at most PARTITION_IDS of them, any order).
    LogName.KEY_USAGE: (
        "Key",
        "Partition",
        "Partitions",
        "RU",
        "PeakRUps",
        "PartitionRU",
        "PartitionPeakRUps",
        "Keys",
        "PartitionIds",
    ),
    LogName.PARTITION_USAGE: ("Partition", "RU", "PeakRUps", "Keys"),
    # Requests and Throttled count distinct requests (activity ids), not log rows.
    # Minutes: how long each row's bin is (1 from the per-request log; 5 or 15 from
    # the aggregated ones, whose rows are per interval).
    LogName.THROTTLES: ("TimeGenerated", "OperationName", "PartitionId", "Throttled", "Minutes"),
    # Only the requests an RU-log row names a key for (a 429 charges nothing and may
    # have none): "where logged".
    LogName.KEY_THROTTLES: ("Key", "Requests", "Throttled"),
    # One row for the container: its requests and 429s in the window, and how many of
    # those 429s no RU-log row names a key for (Unattributed) — the console's own
    # requests left out of these and counted apart, with the RU they cost.
    LogName.REQUEST_TOTALS: (
        "Requests",
        "Throttled",
        "Unattributed",
        "ConsoleRequests",
        "ConsoleRU",
    ),
    LogName.KEY_STORAGE: ("Key", "SizeKb"),
    # Newest: the latest log time in that table (how far ingestion has got: "data as of").
    LogName.TABLES: ("Table", "Rows", "Newest"),
}


@dataclass(frozen=True, slots=True)
class LogQuery:
    name: LogName
    span: Span
    database: str | None = None
    container: str | None = None
    level: KeyLevel = KeyLevel.TENANT
    tenant: Key | None = None  # only keys under this tenant (drilling into one tenant)
    top: int = 5000  # at most this many rows (the source aggregates, then cuts)
    # Only the rows of this region (``region_key``: "eastus"); None: every region. RU/s
    # is provisioned per region, so usage is read for one region at a time.
    region: str | None = None


@dataclass(frozen=True, slots=True)
class LogTable:
    """An aggregated table: cells are plain Python values (datetimes as epoch seconds,
    ``dynamic`` cells already decoded from their JSON text)."""

    columns: tuple[str, ...]
    # A tuple as the sources give it; a kept hot-keys answer's is made of its report's
    # columns (model/key_usage.py: ``LogRows``).
    rows: Sequence[tuple[Any, ...]]

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


# -- what went wrong ----------------------------------------------------------------------


class ProblemKind(StrEnum):
    NO_WORKSPACE = "no-workspace"  # no Log Analytics workspace configured: logs unavailable
    NO_CATEGORY = "no-category"  # the diagnostic setting does not send a needed category
    # The logs there are cannot tell it: the aggregated request log names no request or
    # key (never a hint to enable the per-request category the workspace chose against)
    NOT_LOGGED = "not-logged"
    NO_DATA = "no-data"  # the call worked and returned nothing for this window
    UNAUTHORIZED = "unauthorized"  # 401: signed in, but no role that allows it
    FORBIDDEN = "forbidden"  # 403: e.g. the Microsoft.Insights provider not registered
    PARTIAL = "partial"  # a partial result: the rows that came are kept and marked
    QUERY_ERROR = "query-error"  # the service rejected the query (400, KQL error)
    THROTTLED = "throttled"  # 429 / 529 after the bounded retries
    NOT_COSMOS = "not-cosmos"  # the resource id is not a Cosmos DB account
    UNREACHABLE = "unreachable"  # network, TLS, DNS, timeout
    NOT_CONFIGURED = "not-configured"  # no resource id: no telemetry at all


@dataclass(frozen=True, slots=True)
class TelemetryProblem:
    kind: ProblemKind
    message: str  # what happened, in one line
    fix: str = ""  # what to do about it, in one line
    about: str = ""  # which query or tile it concerns ("metrics: ru", "logs: key_usage")
    retry_after_s: float | None = None  # when the service said to come back

    def describe(self) -> str:
        text = self.message if not self.fix else f"{self.message} — {self.fix}"
        return f"{self.about}: {text}" if self.about else text


@dataclass(frozen=True, slots=True)
class MetricAnswer:
    query: MetricQuery
    series: tuple[Series, ...] = ()
    problem: TelemetryProblem | None = None


@dataclass(frozen=True, slots=True)
class LogAnswer:
    query: LogQuery
    table: LogTable | None = None  # kept on a partial result, with ``problem`` set
    problem: TelemetryProblem | None = None
    as_of: float | None = None  # the newest log time in the answer (ingestion lags)


# How long resource logs take to reach Log Analytics: "usually available within 3 to 10
# minutes end-to-end" (learn "Log data ingestion time"). A logs window ending now has
# its newest minutes only partly ingested: up to two-thirds of a 15-minute window.
RESOURCE_LOG_DELAY_S = (180.0, 600.0)


@dataclass(frozen=True, slots=True)
class TelemetryAbout:
    """What a telemetry source is, for the header and for the notes beside its numbers."""

    label: str  # "Azure Monitor · agentmem" or "simulated workload"
    simulated: bool
    resource_id: str | None = None
    workspace_id: str | None = None
    has_logs: bool = True
    log_mode: str = ""  # "resource-specific", "AzureDiagnostics", "simulated", "" (unknown)
    # Answers younger than this are reused rather than asked again: Azure Monitor's
    # metrics move once a minute and every call is billed; the simulator moves each second.
    min_refresh_s: float = 60.0
    # How late its logs arrive (usual least, usual most), in seconds: past the most, a
    # window's logs are taken as whole; newer minutes may still be filling.
    log_delay_s: tuple[float, float] = RESOURCE_LOG_DELAY_S


# -- what the account says about itself ---------------------------------------------------


class ThroughputMode(StrEnum):
    """Where the RU/s the container spends come from."""

    DEDICATED = "dedicated"  # the container's own offer
    SHARED = "shared"  # its database's offer, shared with the database's other containers
    SERVERLESS = "serverless"  # no provisioned RU/s at all (EnableServerless)
    UNKNOWN = "unknown"  # not read: the ProvisionedThroughput metric is all there is


@dataclass(frozen=True, slots=True)
class Offer:
    """The throughput the container runs on, as ARM's throughputSettings say."""

    mode: ThroughputMode = ThroughputMode.UNKNOWN
    ru_s: float | None = None  # manual RU/s, or the autoscale maximum (per region)
    autoscale: bool = False
    owner: str = ""  # "container memory/turns", "database memory" (what holds the offer)


@dataclass(frozen=True, slots=True)
class AccountFacts:
    """What the account says about itself (ARM), for one container: its regions, where
    its metrics are kept, and its offer. Unknowns stay empty; ``problems`` says why."""

    regions: tuple[str, ...] = ()  # as the account names them, by failover priority
    write_region: str | None = None  # the first write region (failover priority 0)
    metrics_region: str | None = None  # the region of the metrics host asked ("westus")
    metrics_region_from: str = ""  # which: "ARM location", "--region", the write region…
    offer: Offer = Offer()
    problems: tuple[TelemetryProblem, ...] = ()


# -- storage without Log Analytics --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RangeStorage:
    """What one physical partition holds, as the container read reports it
    (``populatePartitionKeyRangeStatistics``). ``top_keys`` are the service's own sample
    of its largest logical keys (full keys, estimated KB): only outliers appear there."""

    range_id: str
    size_kb: int
    documents: int
    top_keys: tuple[tuple[Key, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ContainerStorage:
    """Storage of one container from Cosmos alone: per physical partition, plus the
    container's totals from ``x-ms-resource-usage`` (None when the service sent none)."""

    ranges: tuple[RangeStorage, ...]
    size_kb: int | None = None  # collectionSize: documents and indexes
    documents_size_kb: int | None = None  # documentsSize
    documents: int | None = None  # documentsCount


# -- reports ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RangeLoad:
    """Normalized RU consumption of one physical partition (percent of its budget)."""

    range_id: str
    points: tuple[MetricPoint, ...]
    peak: float | None


@dataclass(frozen=True, slots=True)
class OperationThrottles:
    operation: str
    points: tuple[MetricPoint, ...]  # 429s per minute
    total: int


@dataclass(frozen=True, slots=True)
class RegionLoad:
    """One region's RU and requests in the window (every region the metrics name)."""

    region: str
    peak_ru_s: float | None  # the busiest minute's RU/s there
    requests: int
    throttled: int


@dataclass(frozen=True, slots=True)
class ThroughputReport:
    window: Window
    span: Span
    source: TelemetryAbout
    ru_per_s: tuple[MetricPoint, ...]  # RU/s averaged over each minute (Total / 60)
    provisioned_ru_s: float | None  # the latest provisioned (or autoscale max) RU/s
    autoscale: bool
    capacity: tuple[MetricPoint, ...]  # provisioned RU/s over time (PT5M)
    ranges: tuple[RangeLoad, ...]  # by partition key range id
    throttles: tuple[OperationThrottles, ...]  # by operation, most first
    status_totals: tuple[tuple[str, int], ...]  # requests in the window by status code
    latency_gateway_ms: tuple[MetricPoint, ...]  # server-side, gateway mode, avg per minute
    latency_direct_ms: tuple[MetricPoint, ...]  # server-side, direct mode (.NET, Java)
    requests: int
    throttled: int
    data_as_of: float | None  # the newest minute with data
    headline: str
    problems: tuple[TelemetryProblem, ...] = ()
    series: tuple[Series, ...] = field(default=(), repr=False)  # everything, for export
    region: str | None = None  # the region shown (None: not known, every region's sum)
    region_note: str = ""  # why that one ("write region", "chosen", …)
    region_asked: str | None = None  # what the caller asked for (None: the default)
    regions: tuple[str, ...] = ()  # every region known, for choosing another
    region_loads: tuple[RegionLoad, ...] = ()  # every region the metrics name
    offer: Offer = Offer()
    account: AccountFacts = AccountFacts()


class KeyUsage(NamedTuple):
    """One partition key (a tenant, or a whole key) in the hot-keys table.

    A named tuple, not a frozen dataclass: a report holds up to 100,000 of them, and a
    frozen dataclass's ``__init__`` (one ``object.__setattr__`` a field) costs three
    times as much to build (0.43 s against 0.13 s for 100,000 on the benchmark machine)."""

    key: Key  # the tenant (first level) or the whole key
    ru: float  # RU in the window
    peak_ru_s: float  # the most RU it spent in one second
    share: float  # of the container's RU in the window, 0..1
    partition: str  # the physical partition where it spent most
    partitions: int  # how many physical partitions it touched
    partition_ru: float  # RU it spent on that partition
    partition_share: float | None  # its busiest second there against the partition's budget
    throttled: int | None  # 429s on its requests where logged (None: not known)
    storage_kb: int | None  # estimated storage (None: not among the largest keys)
    # True: ``storage_kb`` adds up only the key's largest sub-keys the statistics logged
    # (a tenant of a hierarchical key), so it holds at least that much; False: the key's
    # own logged estimate.
    storage_lower_bound: bool = False
    # Every physical partition it touched, ``partition`` first (the logs name at most
    # PARTITION_IDS; ``partitions`` counts them all). Empty: only ``partition`` known.
    partition_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PartitionUsage:
    partition: str
    ru: float
    peak_ru_s: float
    budget_ru_s: float | None  # provisioned RU/s split evenly over the partitions
    keys: int


@dataclass(frozen=True, slots=True)
class HotKeysReport:
    window: Window
    span: Span
    source: TelemetryAbout
    level: KeyLevel
    tenant: Key | None  # the tenant drilled into (level KEY), else None
    # By RU, most first: a tuple, or (as the join makes it) a ``KeyUsageTable`` (by
    # column, a row made when read: model/key_usage.py).
    rows: Sequence[KeyUsage]
    total_ru: float
    keys_total: int | None  # distinct keys in the window; more than len(rows) when cut
    provisioned_ru_s: float | None
    partitions: tuple[PartitionUsage, ...]
    headline: str  # "contoso = 63 % of RU on partition 2"
    data_as_of: float | None
    caveats: tuple[str, ...] = ()  # e.g. storage only for the largest keys; a cut list
    problems: tuple[TelemetryProblem, ...] = ()
    # Logs newer than this may not all have arrived (``TelemetryAbout.log_delay_s``):
    # the window's RU and 429s after it are a floor. None: the window is whole.
    incomplete_from: float | None = None
    lag_note: str = ""  # how late the logs are and what of the window that leaves out
    # The window's 429s (distinct requests) and how many of them no RU-log row names a key
    # for, so the per-key column (429s "where logged") is not taken for all of them.
    throttled_total: int | None = None
    unattributed: int | None = None
    throttle_note: str = ""
    # The console's own load, which the RU log counts as any other (it has no UserAgent):
    # every cosmem console's requests and RU as the request log marks them (None: not
    # known), and this session's own RU in the window from its ledger.
    console_requests: int | None = None
    console_ru: float | None = None
    session_ru: float = 0.0
    region: str | None = None  # the region whose logs these are (None: every region)
    region_note: str = ""
    region_asked: str | None = None
    regions: tuple[str, ...] = ()  # every region known, for choosing another
    offer: Offer = Offer()
