"""Pick the schema that fits a container: a pure scoring function, no I/O.

Evidence comes first from container metadata (partition key paths, container and
database names; free) and then from a small sample of items (bounded by the
caller's RU budget). Each schema file declares what to look for in ``[detect]``;
the structural fields a schema reads (thread, tenant, order, messages) count too,
so a user's schema without ``[detect]`` can still be recognised.

Scoring, in points:

* partition key paths equal to the schema's: +40; different: not a candidate;
* container name (or a sibling's) among ``container_names``: +10; database: +5;
* fields: +30 × the mean share of sampled items carrying each expected field (not
  null), +0.5 per field most items carry; below half, the schema does not fit the
  items and is not a candidate;
* ``values``: +15 per path whose sampled values are all known, less for a mix;
* ``json_strings``: +10 × the share of items holding a JSON document as a string;
* ``markers``: +3 per marker field seen (not null) in any item (at most +12).

The highest score wins (ties: by name); with no candidate, ``generic`` is derived.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from cosmem_tui.model import MISSING, JsonValue
from cosmem_tui.schemas.generic import generic_schema
from cosmem_tui.schemas.paths import FieldPath
from cosmem_tui.schemas.schema import Schema

FIELDS_NEEDED = 0.5


@dataclass(frozen=True, slots=True)
class ContainerFacts:
    """What is known about a container before reading any item."""

    partition_key: tuple[str, ...] | None  # None: unknown (an export file without flags)
    container: str | None = None
    database: str | None = None
    siblings: tuple[str, ...] = ()  # other containers of the same database


@dataclass(frozen=True, slots=True)
class Candidate:
    schema: Schema
    score: float
    evidence: tuple[str, ...]
    fits: bool
    misfit: str = ""  # why it is not a candidate


@dataclass(frozen=True, slots=True)
class Detection:
    schema: Schema
    reason: str
    candidates: tuple[Candidate, ...]  # best first


def describe_key(paths: Sequence[str]) -> str:
    return paths[0] if len(paths) == 1 else "[" + ",".join(paths) + "]"


def _expected_fields(schema: Schema) -> list[str]:
    fields = list(schema.detect.fields)
    structural = [p.top for p in schema.thread_paths]
    if schema.tenant is not None:
        structural.append(schema.tenant.top)
    if schema.messages is not None:
        structural.append(schema.messages.top)
    if schema.order is not None and schema.order.path.top != "_ts":
        structural.append(schema.order.path.top)
    for name in structural:
        if name not in fields:
            fields.append(name)
    return fields


def _field_name(path: str) -> str:
    return path.strip("/").split("/")[-1]


def score(
    schema: Schema, facts: ContainerFacts, sample: Sequence[Mapping[str, JsonValue]]
) -> Candidate:
    points = 0.0
    evidence: list[str] = []
    hints = schema.detect
    if facts.partition_key is not None:
        if tuple(schema.partition_key) != tuple(facts.partition_key):
            return Candidate(
                schema, 0.0, (), False, f"needs pk {describe_key(schema.partition_key)}"
            )
        points += 40
        evidence.append(f"pk {describe_key(schema.partition_key)}")
    names = {n for n in (facts.container, *facts.siblings) if n}
    named = sorted(names & hints.container_names)
    if named:
        points += 10
        evidence.append(f"container {named[0]}")
    if facts.database and facts.database in hints.database_names:
        points += 5
        evidence.append(f"database {facts.database}")
    if sample:
        fields = _expected_fields(schema)
        carries = _carrier(schema)
        shares = [sum(1 for body in sample if carries(body, f)) / len(sample) for f in fields]
        share = sum(shares) / len(shares)
        present = sum(1 for s in shares if s >= FIELDS_NEEDED)
        if share < FIELDS_NEEDED:
            return Candidate(
                schema, points, tuple(evidence), False, f"fields {present}/{len(fields)}"
            )
        # The small bonus per field present prefers the more specific of two fitting
        # schemas (lab's tenantId over thread's plain exchange shape).
        points += 30 * share + 0.5 * present
        evidence.append(f"fields {present}/{len(fields)}")
        points += _value_points(schema, sample, evidence)
        for path in hints.json_strings:
            holding = sum(1 for b in sample if _json_string(path.get(b)))
            if holding:
                points += 10 * holding / len(sample)
                evidence.append(f"JSON-string {_field_name(path.text)}")
        seen = [m for m in hints.markers if any(_has(body, m) for body in sample)]
        if seen:
            points += min(12, 3 * len(seen))
            evidence.append("markers " + ",".join(seen[:3]))
    return Candidate(schema, round(points, 2), tuple(evidence), True)


def _has(body: Mapping[str, JsonValue], name: str) -> bool:
    """A property that is there and not null (writers emit explicit nulls for unset ones)."""
    return body.get(name) is not None


def _carrier(schema: Schema) -> Callable[[Mapping[str, JsonValue], str], bool]:
    """``_has``, except that the schema's messages field counts only where it holds an
    array (or, for a field the schema decodes, a JSON string): ``"messages": 5`` is no
    sign of a schema that reads messages from an array."""
    messages = schema.messages
    if messages is None:
        return _has
    decoded = any(p.top == messages.top for p in schema.decode_json)

    def carries(body: Mapping[str, JsonValue], name: str) -> bool:
        if name != messages.top:
            return _has(body, name)
        value = messages.get(body)
        return isinstance(value, list) or (decoded and isinstance(body.get(name), str))

    return carries


def _json_string(value: JsonValue) -> bool:
    return isinstance(value, str) and value.lstrip()[:1] in ("{", "[")


def _value_points(
    schema: Schema, sample: Sequence[Mapping[str, JsonValue]], evidence: list[str]
) -> float:
    points = 0.0
    for path_text, known in schema.detect.values.items():
        path = FieldPath.parse(path_text)
        seen = {path.get(b) for b in sample if _hashable(path.get(b))} - {MISSING}
        if not seen:
            continue
        share = sum(1 for v in seen if isinstance(v, str) and v in known) / len(seen)
        points += 15 * share - 15 * (1 - share)
        if share == 1:
            evidence.append(f"{_field_name(path_text)} values")
    return points


def _hashable(value: JsonValue) -> bool:
    return value is MISSING or isinstance(value, str | int | float | bool) or value is None


def rank(
    schemas: Mapping[str, Schema], facts: ContainerFacts, sample: Sequence[Mapping[str, JsonValue]]
) -> list[Candidate]:
    scored = [score(s, facts, sample) for s in schemas.values()]
    return sorted(scored, key=lambda c: (not c.fits, -c.score, c.schema.name))


def detect_schema(
    schemas: Mapping[str, Schema], facts: ContainerFacts, sample: Sequence[Mapping[str, JsonValue]]
) -> Detection:
    """The best-fitting schema and a one-line reason ("matched: pk […], type values")."""
    candidates = tuple(rank(schemas, facts, sample))
    fitting = [c for c in candidates if c.fits and (c.score > 0)]
    if fitting and (facts.partition_key is not None or sample):
        best = fitting[0]
        return Detection(best.schema, "matched: " + ", ".join(best.evidence), candidates)
    schema = generic_schema(facts.partition_key, sample)
    nearest = next((c for c in candidates if c.misfit and c.score > 0), None)
    why = f"; nearest {nearest.schema.name} ({nearest.misfit})" if nearest else ""
    return Detection(schema, f"no schema matched{why}; {schema.title}", candidates)
