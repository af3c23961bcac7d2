"""Cosmos DB sub-status codes the console names: why a 429 came, and what to do about it.

A response's ``x-ms-substatus`` header tells apart answers that share a status code.
For a 429 it is the cause, and the causes want different fixes: only an RU budget
that ran out is helped by more RU/s (learn "Diagnose and troubleshoot request rate
too large": metadata-rate and transient-service 429s are not). This module is the
one place the console (ledger, header, failure texts, ``cosmem doctor``) reads them.

Where the numbers and names come from (none of them was seen on a live account here):

* azure-cosmos 4.17.1 (``http_constants.SubStatusCodes``) names no 429 sub-status at
  all: it only parses the header into ``CosmosHttpResponseError.sub_status``. Its
  410/403/400/404 names are the ones below.
* .NET ``Microsoft.Azure.Documents.SubStatusCodes`` (azure-cosmos-dotnet-v3):
  ``RUBudgetExceeded = 3200``, ``GatewayThrottled = 3201``,
  ``StoredProcedureConcurrency = 3084`` (not "system resource unavailable"), the RBAC
  403s 5300–5306.
* The Rust SDK's sub-status table (azure-sdk-for-rust):
  ``SystemResourceUnavailable = 3092`` (retried like a 503 there),
  ``ThroughputBucketLimitExhausted = 3212``, ``TooManyThroughputBucketUpdates = 3213``,
  ``HotPartitionKeyThrottled = 3214``.
* learn "throughput buckets FAQ": a full bucket answers 429/3212; changing bucket
  settings more than once in 10 minutes answers 429/3213.
"""

from __future__ import annotations

from dataclasses import dataclass

TOO_MANY_REQUESTS = 429
GONE = 410

# 410 Gone (azure-cosmos ``SubStatusCodes``): the routing the client holds is stale.
NAME_CACHE_IS_STALE = 1000
PARTITION_KEY_RANGE_GONE = 1002  # a split (or merge) retired the range the request named
COMPLETING_SPLIT = 1007
COMPLETING_PARTITION_MIGRATION = 1008

# 429 Too Many Requests.
RU_BUDGET_EXCEEDED = 3200
GATEWAY_THROTTLED = 3201
STORED_PROCEDURE_CONCURRENCY = 3084
SYSTEM_RESOURCE_UNAVAILABLE = 3092
THROUGHPUT_BUCKET_EXHAUSTED = 3212
THROUGHPUT_BUCKET_UPDATES = 3213
HOT_PARTITION_KEY = 3214


@dataclass(frozen=True, slots=True)
class ThrottleCause:
    """One cause of a 429, as the console tells it."""

    sub_status: int | None
    name: str  # the SDKs' name ("RUBudgetExceeded"), "" when none is known
    label: str  # for people: "RU budget exceeded"
    tag: str  # at most 6 cells, for the ledger's STATUS column: "RU"
    ru_helps: bool  # would raising the RU/s address it?
    fix: str  # what to do, one clause
    brief: str = ""  # a few words, for the header's countdown: "metadata rate"

    def describe(self) -> str:
        """``429/3200 RU budget exceeded`` (``429 too many requests`` without one)."""
        code = f"/{self.sub_status}" if self.sub_status is not None else ""
        return f"429{code} {self.label}"


_CAUSES = (
    ThrottleCause(
        RU_BUDGET_EXCEEDED,
        "RUBudgetExceeded",
        "RU budget exceeded",
        "RU",
        True,
        "the container or one of its physical partitions used its RU/s this second: "
        ":throttle shows which partition is full; more RU/s helps only when every "
        "partition is busy (a hot key wants spreading instead)",
        brief="RU budget",
    ),
    ThrottleCause(
        GATEWAY_THROTTLED,
        "GatewayThrottled",
        "metadata requests throttled",
        "meta",
        False,
        "the account's system-reserved rate for metadata requests (container and "
        "partition-range reads) is used up: more RU/s does nothing; the console waits, "
        "and the applications should cache clients and names",
        brief="metadata rate",
    ),
    ThrottleCause(
        STORED_PROCEDURE_CONCURRENCY,
        "StoredProcedureConcurrency",
        "too many concurrent stored procedures",
        "sproc",
        False,
        "too many stored procedures run at once on the partition: more RU/s does "
        "nothing; wait, and run fewer of them at a time",
        brief="stored procedures",
    ),
    ThrottleCause(
        SYSTEM_RESOURCE_UNAVAILABLE,
        "SystemResourceUnavailable",
        "transient service error",
        "svc",
        False,
        "a transient service error, not your throughput: more RU/s does nothing; "
        "the console retries, and if it lasts for minutes open a support ticket",
        brief="service error",
    ),
    ThrottleCause(
        THROUGHPUT_BUCKET_EXHAUSTED,
        "ThroughputBucketLimitExhausted",
        "throughput bucket full",
        "bucket",
        False,
        "the request's throughput bucket (the container's default bucket: the console "
        "names none) used its maximum share, and more RU/s lifts that cap only by the same "
        "share: raise the bucket's share or clear the default bucket (Data Explorer, "
        "Scale & Settings, Throughput buckets)",
        brief="bucket full",
    ),
    ThrottleCause(
        THROUGHPUT_BUCKET_UPDATES,
        "TooManyThroughputBucketUpdates",
        "throughput bucket settings changed too often",
        "bk-cfg",
        False,
        "the container's throughput buckets were changed more than once in 10 minutes: "
        "more RU/s does nothing; wait 10 minutes and change them less often",
        brief="bucket changes",
    ),
    ThrottleCause(
        HOT_PARTITION_KEY,
        "HotPartitionKeyThrottled",
        "hot partition key",
        "hotkey",
        False,
        "one partition key takes too much of its physical partition: more RU/s barely "
        "helps; :hot shows the key, spread it (a finer or hierarchical partition key)",
        brief="hot key",
    ),
)
THROTTLE_CAUSES: dict[int, ThrottleCause] = {
    cause.sub_status: cause for cause in _CAUSES if cause.sub_status is not None
}

_NO_SUB_STATUS = ThrottleCause(
    None,
    "",
    "too many requests",
    "",
    False,
    "the account throttled the request without saying why: :throttle shows the account's load",
)


def throttle_cause(sub_status: int | None) -> ThrottleCause:
    """The cause of a 429 with this ``x-ms-substatus`` (a named one, or an unknown code)."""
    if sub_status is None or sub_status == 0:
        return _NO_SUB_STATUS
    known = THROTTLE_CAUSES.get(sub_status)
    if known is not None:
        return known
    return ThrottleCause(
        sub_status,
        "",
        f"sub-status {sub_status}",
        str(sub_status)[:6],
        False,
        "a cause the console does not know: the service's message says more; "
        ":throttle shows the account's load",
        brief=f"sub-status {sub_status}",
    )


# Other (status, sub-status) pairs with a name, for messages and ``cosmem doctor``: a
# sub-status means something only with its status (1002 is PartitionKeyRangeGone with
# 410 and ReadSessionNotAvailable with 404). azure-cosmos 4.17.1 names these, except
# the RBAC 403s after 5300, which are the .NET SDK's (azure-cosmos calls 5300
# AAD_REQUEST_NOT_AUTHORIZED, .NET RbacOperationNotSupported).
SUB_STATUS_NAMES: dict[tuple[int, int], str] = {
    (400, 1001): "PartitionKeyMismatch",
    (400, 1004): "CrossPartitionQueryNotServable",
    (400, 1024): "CollectionRidMismatch",
    (403, 3): "WriteForbidden",
    (403, 1005): "ProvisionLimitReached",
    (403, 1008): "DatabaseAccountNotFound",
    (403, 5300): "AadRequestNotAuthorized",
    (403, 5301): "RbacUnauthorizedMetadataRequest",
    (403, 5302): "RbacUnauthorizedNameBasedDataRequest",
    (403, 5303): "RbacUnauthorizedRidBasedDataRequest",
    (403, 5304): "RbacRidCannotBeResolved",
    (403, 5305): "RbacMissingUserId",
    (403, 5306): "RbacMissingAction",
    (404, 1002): "ReadSessionNotAvailable",
    (404, 1003): "OwnerResourceNotFound",
    (404, 1013): "CollectionCreateInProgress",
    (GONE, NAME_CACHE_IS_STALE): "NameCacheIsStale",
    (GONE, PARTITION_KEY_RANGE_GONE): "PartitionKeyRangeGone",
    (GONE, COMPLETING_SPLIT): "CompletingSplit",
    (GONE, COMPLETING_PARTITION_MIGRATION): "CompletingPartitionMigration",
    **{(TOO_MANY_REQUESTS, code): cause.name for code, cause in THROTTLE_CAUSES.items()},
}


def sub_status_name(status: int, sub_status: int | None) -> str:
    """The SDKs' name of this pair ("PartitionKeyRangeGone"), or "" when it has none."""
    if sub_status is None:
        return ""
    return SUB_STATUS_NAMES.get((status, sub_status), "")
