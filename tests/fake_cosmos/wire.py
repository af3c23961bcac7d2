"""What the routes share: the parsed request, the reply, HTTP errors, request kinds.

``classify`` names each request's kind (metadata, pkranges, query, query-plan, point,
feed) and operation once, for the log, the fault rules and the route table alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from tests.fake_cosmos.faults import ERROR_BODIES, Faults
from tests.fake_cosmos.sql_parser import SqlError
from tests.fake_cosmos.store import Container, PartitionRange, Store
from tests.fake_cosmos.wire_log import Entry


class Env(Protocol):
    """What a route may use of the gateway (``server.GatewayApp`` provides it)."""

    store: Store
    faults: Faults
    endpoint: str
    enforce_offers: bool
    max_visits_per_page: int | None


class HttpError(Exception):
    def __init__(
        self,
        status: int,
        message: str | None = None,
        *,
        sub_status: int | None = None,
        charge: float = 0.0,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        range_id: str | None = None,
        fault: str | None = None,
    ) -> None:
        code, default = ERROR_BODIES.get(status, ("Error", "error"))
        super().__init__(message or default)
        self.status = status
        self.sub_status = sub_status
        self.charge = charge
        self.body = body or {"code": code, "message": message or default}
        self.headers = headers or {}
        self.range_id = range_id
        self.fault = fault


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-able, or None for no body
    charge: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    item_count: int = 0
    continuation: str | None = None
    range_id: str | None = None
    fault: str | None = None  # an injected condition that shaped the answer


@dataclass
class Ctx:
    """One request, parsed."""

    method: str
    segments: list[str]
    headers: dict[str, str]  # lower-cased names
    body: Any
    entry: Entry

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def flag(self, name: str) -> bool:
        return (self.header(name) or "").lower() == "true"

    def max_items(self) -> int | None:
        raw = self.header("x-ms-max-item-count")
        if raw is None or raw == "":
            return None
        try:
            return int(raw)
        except ValueError as exc:
            raise HttpError(400, f"Invalid x-ms-max-item-count {raw!r}") from exc


def classify(method: str, segs: list[str], headers: dict[str, str]) -> tuple[str, str]:
    """(kind, operation) of a request."""
    n = len(segs)
    is_query = headers.get("x-ms-documentdb-isquery", "").lower() == "true"
    if n == 0:
        return "metadata", "read-account"
    if segs[0] != "dbs":
        return "metadata", f"{method.lower()}-{segs[0]}"
    names = {1: "database", 3: "container"}
    if n in (1, 3):
        noun = names[n]
        if method == "POST":
            return "metadata", f"query-{noun}s" if is_query else f"create-{noun}"
        return "metadata", f"list-{noun}s"
    if n in (2, 4):
        noun = names[n - 1]
        verb = {"GET": "read", "PUT": "replace", "DELETE": "delete"}.get(method, method.lower())
        return "metadata", f"{verb}-{noun}"
    if n == 5 and segs[4] == "pkranges":
        return "pkranges", "read-pkranges"
    if n == 5 and segs[4] == "docs":
        if method == "POST":
            if headers.get("x-ms-cosmos-is-query-plan-request", "").lower() == "true":
                return "query-plan", "query-plan"
            if is_query:
                return "query", "query"
            if headers.get("x-ms-cosmos-is-batch-request", "").lower() == "true":
                return "point", "batch"
            if headers.get("x-ms-documentdb-is-upsert", "").lower() == "true":
                return "point", "upsert-item"
            return "point", "create-item"
        if headers.get("a-im"):
            return "feed", "change-feed"
        return "feed", "read-feed"
    if n == 6 and segs[4] == "docs":
        verb = {"GET": "read", "PUT": "replace", "DELETE": "delete", "PATCH": "patch"}.get(
            method, method.lower()
        )
        return "point", f"{verb}-item"
    return "metadata", f"{method.lower()}-{'/'.join(segs[4:])}"


def budget(env: Env, container: Container, rng: PartitionRange) -> None:
    verdict = env.faults.budget_verdict(container.rid, rng.id, len(container.ranges))
    if verdict is not None:
        raise HttpError(
            429,
            headers={"x-ms-retry-after-ms": str(verdict.retry_after_ms)},
            sub_status=3200,
            range_id=rng.id,
            fault="throughput",
        )


def params_dict(params: list[dict[str, Any]] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params or []:
        name = p.get("name")
        if isinstance(name, str):
            out[name] = p.get("value")
    return out


def query_of(body: Any, kind: str) -> tuple[str | None, list[dict[str, Any]]]:
    if kind not in ("query", "query-plan", "metadata") or not isinstance(body, dict):
        return None, []
    text = body.get("query")
    params = body.get("parameters") or []
    return (text if isinstance(text, str) else None), (params if isinstance(params, list) else [])


def range_header(headers: dict[str, str]) -> str | None:
    raw = headers.get("x-ms-documentdb-partitionkeyrangeid")
    if raw is None:
        return None
    return raw.split(",")[-1].strip()


def int_or_none(raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return None


def bad_request_message(exc: Exception) -> str:
    if isinstance(exc, SqlError):
        return json.dumps(
            {"errors": [{"severity": "Error", "code": "SC1001", "message": str(exc)}]},
            separators=(",", ":"),
        )
    return str(exc)
