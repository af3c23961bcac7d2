"""The advisor's rules about indexing and vectors, as pure functions.

They read the container's indexing policy and vector embedding policy as
``container.read()`` returns them, and the vectors the sample found (path and
dimensions, measured where the items are).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from cosmem_tui.core.advice_rules import examples
from cosmem_tui.model import ContainerProperties, Severity
from cosmem_tui.model.advice import Finding, ItemShape
from cosmem_tui.schemas import Schema


def _policy_vectors(container: ContainerProperties) -> dict[str, Mapping[str, Any]]:
    policy = container.vector_embedding_policy or {}
    entries = policy.get("vectorEmbeddings") if isinstance(policy, Mapping) else None
    return {
        e["path"]: e
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, Mapping) and isinstance(e.get("path"), str)
    }


def _seen_vectors(shapes: Sequence[ItemShape]) -> dict[str, list[tuple[ItemShape, int]]]:
    seen: dict[str, list[tuple[ItemShape, int]]] = defaultdict(list)
    for shape in shapes:
        for path, dims in shape.vectors:
            seen[path].append((shape, dims))
    return seen


def _dims(found: list[tuple[ItemShape, int]]) -> int:
    return Counter(d for _, d in found).most_common(1)[0][0]


def vector_embedding_policy(
    container: ContainerProperties, shapes: Sequence[ItemShape]
) -> list[Finding]:
    """Embeddings nested inside messages, or at the top level with no (or a wrong) policy."""
    declared = _policy_vectors(container)
    findings: list[Finding] = []
    for path, found in sorted(_seen_vectors(shapes).items()):
        dims = _dims(found)
        ids = examples([s.id for s, _ in found])
        where = f"{len(found):,} of {len(shapes):,} sampled items hold {dims}-d vectors at {path}"
        if path.count("/") > 1:
            findings.append(
                Finding(
                    "vector-embedding-policy",
                    Severity.WARN,
                    f"embeddings nested inside the document ({path}), not at the top level",
                    f"{where}: a vector policy cannot name a path inside an array, so they "
                    "cannot be indexed for VectorDistance, and they ride along with every read "
                    "of the document",
                    "store one embedding per item at the top level (/embedding), one item per "
                    "message or exchange, and declare it in the vector embedding policy",
                    len(found),
                    ids,
                )
            )
        elif path not in declared:
            findings.append(
                Finding(
                    "vector-embedding-policy",
                    Severity.WARN,
                    f"{path} holds embeddings but the container has no vector policy for it",
                    f"{where}; the vector embedding policy declares "
                    f"{', '.join(sorted(declared)) or 'nothing'}: VectorDistance over {path} "
                    "scans every item, with no vector index",
                    f"declare {{path: {path}, dataType: float32, dimensions: {dims}, "
                    "distanceFunction: cosine}} in the vector embedding policy (set when the "
                    "container is created) and add a vector index for it",
                    len(found),
                    ids,
                )
            )
        elif (
            isinstance(declared[path].get("dimensions"), int)
            and declared[path]["dimensions"] != dims
        ):
            findings.append(
                Finding(
                    "vector-embedding-policy",
                    Severity.WARN,
                    f"{path}: the policy's dimensions differ from the stored vectors",
                    f"{where}; the policy declares {declared[path]['dimensions']} dimensions: "
                    "the vector index cannot serve them",
                    "embed with the model the policy was made for, or recreate the container "
                    "with the model's dimensions",
                    len(found),
                    ids,
                )
            )
    return findings


def vector_index(container: ContainerProperties) -> list[Finding]:
    """Vector paths declared in the policy but given no vector index."""
    declared = _policy_vectors(container)
    indexes = container.indexing_policy.get("vectorIndexes") or []
    indexed = {i.get("path") for i in indexes if isinstance(i, Mapping)}
    missing = sorted(p for p in declared if p not in indexed)
    if not missing:
        return []
    return [
        Finding(
            "vector-index-type",
            Severity.WARN,
            f"no vector index for {', '.join(missing)}",
            f"the vector embedding policy declares {', '.join(missing)} but the indexing policy "
            "has no vectorIndexes entry for it: every VectorDistance query compares every item",
            "add {path, type: quantizedFlat or diskANN} to vectorIndexes in the indexing "
            "policy (flat only for vectors up to 505 dimensions)",
            len(missing),
            tuple(missing),
        )
    ]


def _index_steps(path: str) -> list[str]:
    """An item path in index-path form: array positions become ``[]``."""
    return ["[]" if part.isdigit() else part for part in path.strip("/").split("/")]


def _covers(pattern: str, steps: list[str]) -> bool:
    """Does an index path (``/embedding/*``, ``/messages/[]/*``, ``/*``) cover ``steps``?"""
    parts = [p.strip('"') for p in pattern.strip("/").split("/") if p]
    if not parts or parts[-1] not in ("*", "?"):
        return False
    prefix = parts[:-1]
    return len(prefix) <= len(steps) and all(
        p == s or (p == "[]" and s == "[]") for p, s in zip(prefix, steps, strict=False)
    )


def _range_indexed(policy: Mapping[str, Any], path: str) -> bool:
    if str(policy.get("indexingMode", "consistent")).lower() == "none":
        return False
    steps = _index_steps(path)
    paths = [p.get("path", "") for p in policy.get("excludedPaths") or [] if isinstance(p, Mapping)]
    if any(_covers(p, steps) for p in paths if isinstance(p, str)):
        return False
    included = policy.get("includedPaths")
    if included is None:
        return True  # the default policy includes /*
    paths = [p.get("path", "") for p in included if isinstance(p, Mapping)]
    return any(_covers(p, steps) for p in paths if isinstance(p, str))


def index_exclude_vectors(
    container: ContainerProperties, shapes: Sequence[ItemShape]
) -> list[Finding]:
    """Embeddings range-indexed number by number: write RU and index storage for nothing."""
    seen = _seen_vectors(shapes)
    paths = sorted(set(seen) | set(_policy_vectors(container)))
    indexed = [p for p in paths if _range_indexed(container.indexing_policy, p)]
    if not indexed:
        return []
    excluded = ", ".join(f"{p.replace('/0/', '/[]/')}/*" for p in indexed)
    found = [s.id for p in indexed for s, _ in seen.get(p, [])]
    return [
        Finding(
            "index-exclude-unused",
            Severity.WARN,
            f"embeddings are range-indexed: {', '.join(indexed)}",
            f"the indexing policy includes {', '.join(indexed)} (no excluded path covers it): "
            "every write indexes each number of the vector, costing write RU and index storage; "
            "no query filters on them",
            f"add {excluded} to excludedPaths (the vector index is separate and unaffected)",
            len(found) or None,
            examples(found),
        )
    ]


def index_composite_order(container: ContainerProperties, schema: Schema) -> list[Finding]:
    """The turn list's WHERE key = … ORDER BY order field, with no composite index for it."""
    if schema.order is None:
        return []
    policy = container.indexing_policy
    if str(policy.get("indexingMode", "consistent")).lower() == "none":
        return []
    order = schema.order.path.text
    keys = set(container.partition_key.paths)
    for composite in policy.get("compositeIndexes") or []:
        if not isinstance(composite, list):
            continue
        paths = [c.get("path") for c in composite if isinstance(c, Mapping)]
        rest = [p for p in paths if p not in keys]
        if rest and rest[0] == order:
            return []
    last = container.partition_key.paths[-1]
    return [
        Finding(
            "index-composite",
            Severity.INFO,
            f"no composite index for the turn order ({last} = …, ORDER BY {order})",
            f"each page of a thread runs WHERE {' AND '.join(sorted(keys))} ORDER BY {order} "
            f"(and DESC); the container's composite indexes do not start with {order} after "
            "the key paths, so the range index sorts it at more RU per page",
            f'add compositeIndexes [{{"path": "{last}", "order": "ascending"}}, {{"path": '
            f'"{order}", "order": "ascending"}}] and the same with both descending',
        )
    ]
