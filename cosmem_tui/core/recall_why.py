"""Why an expected item is not in the top k: the checks, in the order the issue names them.

Each check reads evidence the run already has (the item's lookup, the probes' answers)
or asks for one more look (the item in its tenant, a deeper ranking), and the first
that fails is the reason: one line with its evidence and the RU it cost to find out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from cosmem_tui.model import MISSING, JsonValue
from cosmem_tui.model.recall import Distance, ItemLookup, RecallAnswer, WhyNot, admitted
from cosmem_tui.model.times import iso_utc
from cosmem_tui.schemas import FieldPath
from cosmem_tui.schemas.retrieval import Retrieval

MIN_VECTOR = 2  # a numeric array this long somewhere else in the item is taken for a vector


@dataclass(frozen=True, slots=True)
class Verdict:
    reason: WhyNot
    why: str
    rank: int | None = None


def scope_verdict(
    item_id: str, in_scope: ItemLookup, wider: ItemLookup | None, where: str, label: str
) -> Verdict | None:
    """Not in the scope the system queries (found elsewhere, or nowhere it was looked for)."""
    if in_scope.found or in_scope.expired_at is not None:
        return None
    if wider is not None and (wider.found or wider.expired_at is not None):
        there = wider.thread.describe(label) if wider.thread is not None else "another partition"
        return Verdict(WhyNot.OUT_OF_SCOPE, f"it is in {there}; the system queries {where}")
    looked = " (nor elsewhere in the tenant)" if wider is not None else ""
    return Verdict(
        WhyNot.OUT_OF_SCOPE,
        f"no item {item_id} in {where}{looked}: a Cosmos container also hides an item "
        "the moment it expires",
    )


def expired_verdict(lookup: ItemLookup) -> Verdict | None:
    if lookup.found or lookup.expired_at is None:
        return None
    when = iso_utc(lookup.expired_at) or str(lookup.expired_at)
    return Verdict(WhyNot.EXPIRED, f"expired at {when} (its ttl counted from _ts, the last write)")


def filter_verdict(body: Mapping[str, JsonValue], retrieval: Retrieval) -> Verdict | None:
    for rule in retrieval.filters:
        if not admitted(rule, body):
            value = FieldPath.parse(rule.path).get(body)
            shown = "absent" if _is_missing(value) else "null" if value is None else _short(value)
            return Verdict(
                WhyNot.FILTERED,
                f"excluded by the filter '{rule.describe()}': {rule.path} is {shown}",
            )
    return None


def embedding_verdict(body: Mapping[str, JsonValue], path: str, dims: int | None) -> Verdict | None:
    """No embedding at all, one elsewhere than the policy's path, or of the wrong shape."""
    value = FieldPath.parse(path).get(body)
    if _is_missing(value):
        nested = find_vector(body, "")
        if nested is None:
            return Verdict(
                WhyNot.NO_EMBEDDING, f"no embedding: nothing at {path} nor anywhere else"
            )
        where, length = nested
        return Verdict(
            WhyNot.WRONG_PATH,
            f"its {length}-number embedding is at {where}, not at the policy's path {path}",
        )
    if not isinstance(value, list) or not all(_number(x) for x in value) or not value:
        return Verdict(
            WhyNot.WRONG_DIMENSIONS,
            f"{path} holds {_kind(value)}, not an array of numbers",
        )
    if dims is not None and len(value) != dims:
        return Verdict(
            WhyNot.WRONG_DIMENSIONS,
            f"{path} holds {len(value)} numbers; the vector policy says {dims} dimensions",
        )
    return None


def rank_in(answer: RecallAnswer | None, item_id: str) -> int | None:
    if answer is None:
        return None
    for hit in answer.hits:
        if hit.id == item_id:
            return hit.rank
    return None


def kth_score(answer: RecallAnswer, k: int) -> float | None:
    hits = [h for h in answer.hits if h.rank <= k]
    return hits[-1].score if hits else None


def score_text(score: float | None) -> str:
    return "—" if score is None else f"{score:.4f}"


def item_score(
    body: Mapping[str, JsonValue], path: str, vector: tuple[float, ...], distance: Distance
) -> float | None:
    value = FieldPath.parse(path).get(body)
    if isinstance(value, list) and len(value) == len(vector) and all(_number(x) for x in value):
        return distance.score([float(x) for x in value], vector)
    return None


def find_vector(node: JsonValue | Mapping[str, JsonValue], where: str) -> tuple[str, int] | None:
    """The first array of numbers (at least MIN_VECTOR long) inside ``node``, and its path."""
    if isinstance(node, list):
        if len(node) >= MIN_VECTOR and all(_number(x) for x in node):
            return where or "/", len(node)
        for n, child in enumerate(node):
            found = find_vector(child, f"{where}/{n}")
            if found is not None:
                return found
    elif isinstance(node, Mapping):
        for key, child in node.items():
            found = find_vector(child, f"{where}/{key}")
            if found is not None:
                return found
    return None


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _is_missing(value: object) -> bool:
    return value is MISSING


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "an empty array" if not value else "an array that is not all numbers"
    return "an object"


def _short(value: object) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "…"
