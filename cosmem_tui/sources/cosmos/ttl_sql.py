"""The Cosmos TTL rules of ``model/ttl.py`` as SQL conditions, for aggregate queries.

Each function returns a condition over ``c`` that is true exactly for the items the
model puts in a class, or that expire in a window, are of a kind, or live other than
their kind should. The container's DefaultTimeToLive is known before any query, so
it shapes the text; values (times, kinds, lifetimes) travel as ``@parameters``.

Conditions are kept flat: an OR of ANDs of atoms (``Dnf``), written without nested
parentheses. A query engine's cost can grow with nesting (the test peer's parser is
exponential in it), and a flat text reads like the rule table it comes from. Every
atom that compares ``ttl`` as a number is guarded by ``IS_NUMBER`` in its conjunction,
so a string, boolean or null ttl makes a conjunction false, never undefined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cosmem_tui.model import TtlClass
from cosmem_tui.model.ttl import MAX_TTL
from cosmem_tui.schemas import Schema
from cosmem_tui.sources.cosmos.sql import prop

TTL = 'c["ttl"]'
DEFINED = f"IS_DEFINED({TTL})"
UNDEFINED = f"NOT IS_DEFINED({TTL})"
NUMBER = f"IS_NUMBER({TTL})"

Conjunction = tuple[str, ...]


@dataclass(frozen=True)
class Dnf:
    """An OR of ANDs of atoms; no conjunction is false, the empty conjunction is true."""

    terms: tuple[Conjunction, ...]

    @classmethod
    def atoms(cls, *atoms: str) -> Dnf:
        return cls((tuple(atoms),))

    def __or__(self, other: Dnf) -> Dnf:
        return Dnf(self.terms + other.terms)

    def __and__(self, other: Dnf) -> Dnf:
        return Dnf(tuple(a + b for a in self.terms for b in other.terms))

    @property
    def never(self) -> bool:
        return not self.terms

    def text(self) -> str:
        if not self.terms:
            return "false"
        if any(not t for t in self.terms):
            return "true"
        return " OR ".join(" AND ".join(t) for t in self.terms)


FALSE = Dnf(())
TRUE = Dnf(((),))

# The item's own ttl, by what the service makes of it.
OWN_POSITIVE = Dnf.atoms(NUMBER, f"{TTL} = FLOOR({TTL})", f"{TTL} >= 1", f"{TTL} <= {MAX_TTL}")
OWN_NEVER = Dnf.atoms(NUMBER, f"{TTL} = -1")
INVALID = (
    Dnf.atoms(DEFINED, f"NOT {NUMBER}")  # null, a string, a boolean, an array, an object
    | Dnf.atoms(NUMBER, f"{TTL} != FLOOR({TTL})")  # a fraction
    | Dnf.atoms(NUMBER, f"{TTL} < 1", f"{TTL} != -1")  # 0, negative other than -1
    | Dnf.atoms(NUMBER, f"{TTL} > {MAX_TTL}")
)
ABSENT = Dnf.atoms(UNDEFINED)
DEFAULTED = ABSENT | INVALID  # no ttl the service accepts: the container default applies


@dataclass
class Condition:
    """SQL text and the parameters it names."""

    text: str
    parameters: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, dnf: Dnf, parameters: list[dict[str, Any]] | None = None) -> Condition:
        """The text of ``dnf`` with the parameters it still names (a false part drops some)."""
        text = dnf.text()
        named = set(re.findall(r"@\w+", text))
        return cls(text, [p for p in parameters or [] if p["name"] in named])

    @property
    def never(self) -> bool:
        return self.text == "false"


def class_dnf(ttl_class: TtlClass, default_ttl: int | None) -> Dnf:
    """True for the items ``model.ttl.classify`` puts in ``ttl_class``."""
    if ttl_class is TtlClass.DEFAULT:
        return ABSENT
    if default_ttl is None:  # TTL off: any ttl present is ignored
        return Dnf.atoms(DEFINED) if ttl_class is TtlClass.IGNORED else FALSE
    return {
        TtlClass.IGNORED: FALSE,
        TtlClass.INVALID: INVALID,
        TtlClass.LONG: OWN_NEVER,
        TtlClass.SHORT: OWN_POSITIVE,
    }[ttl_class]


def class_condition(ttl_class: TtlClass, default_ttl: int | None) -> str:
    return class_dnf(ttl_class, default_ttl).text()


def expiring_dnf(default_ttl: int | None) -> Dnf:
    """True for an item whose effective ttl is positive (it will expire)."""
    if default_ttl is None:
        return FALSE  # TTL off: nothing expires
    if default_ttl == -1:
        return OWN_POSITIVE
    return OWN_POSITIVE | DEFAULTED  # all but items pinned with ttl -1


def expiring_condition(default_ttl: int | None) -> str:
    return expiring_dnf(default_ttl).text()


def expiring_between(default_ttl: int | None, now: int, until: int) -> Condition:
    """True for an item that expires in ``(now, until]`` (epoch seconds)."""
    if default_ttl is None:
        return Condition.of(FALSE)
    own = OWN_POSITIVE & Dnf.atoms(f"c._ts + {TTL} > @now", f"c._ts + {TTL} <= @until")
    parameters = [{"name": "@now", "value": now}, {"name": "@until", "value": until}]
    if default_ttl == -1:
        return Condition.of(own, parameters)
    # Items on the default expire at _ts + default: a range of _ts, which an index serves.
    by_default = DEFAULTED & Dnf.atoms("c._ts > @since_ts", "c._ts <= @until_ts")
    parameters += [
        {"name": "@since_ts", "value": now - default_ttl},
        {"name": "@until_ts", "value": until - default_ttl},
    ]
    return Condition.of(own | by_default, parameters)


def class_expiring_between(
    ttl_class: TtlClass, default_ttl: int | None, now: int, until: int
) -> Condition:
    """True for an item of ``ttl_class`` that expires in ``(now, until]``."""
    if default_ttl is None or ttl_class in (TtlClass.LONG, TtlClass.IGNORED):
        return Condition.of(FALSE)
    parameters = [{"name": "@now", "value": now}, {"name": "@until", "value": until}]
    if ttl_class is TtlClass.SHORT:
        window = Dnf.atoms(f"c._ts + {TTL} > @now", f"c._ts + {TTL} <= @until")
        return Condition.of(OWN_POSITIVE & window, parameters)
    if default_ttl == -1:
        return Condition.of(FALSE)  # on the default, and the default is never
    of_class = ABSENT if ttl_class is TtlClass.DEFAULT else INVALID
    parameters = [
        {"name": "@since_ts", "value": now - default_ttl},
        {"name": "@until_ts", "value": until - default_ttl},
    ]
    # Items on the default expire at _ts + default: a range of _ts, which an index serves.
    return Condition.of(of_class & Dnf.atoms("c._ts > @since_ts", "c._ts <= @until_ts"), parameters)


def kind_dnf(schema: Schema, kinds: frozenset[str], tag: str) -> tuple[Dnf, list[dict[str, Any]]]:
    """True for the items whose kind (``Schema.item_kind``) is one of ``kinds``."""
    if schema.kind is None:
        return (TRUE if schema.default_kind in kinds else FALSE), []
    field_ = prop(schema.kind)
    raws = sorted({raw for kind in kinds for raw in schema.raw_kinds(kind)})
    names = [f"@{tag}{i}" for i in range(len(raws))]
    dnf = Dnf.atoms(f"{field_} IN ({', '.join(names)})") if raws else FALSE
    if schema.default_kind in kinds:  # no usable kind field: the default kind
        dnf = dnf | Dnf.atoms(f"NOT IS_STRING({field_})") | Dnf.atoms(f'{field_} = ""')
    return dnf, [{"name": n, "value": r} for n, r in zip(names, raws, strict=True)]


def kind_condition(schema: Schema, kinds: frozenset[str], tag: str) -> Condition:
    dnf, parameters = kind_dnf(schema, kinds, tag)
    return Condition.of(dnf, parameters)


def other_lifetime(default_ttl: int | None, lifetime: int, name: str) -> Dnf:
    """True for an item whose effective lifetime is not ``lifetime`` s (-1: never).

    An item lives its own positive ttl (short-term), forever (ttl -1), or the
    container's default (no valid ttl of its own); with TTL off, forever."""
    if default_ttl is None:
        return TRUE if lifetime != -1 else FALSE
    differs = OWN_POSITIVE & Dnf.atoms(f"{TTL} != {name}") if lifetime != -1 else OWN_POSITIVE
    if lifetime != -1:
        differs = differs | OWN_NEVER
    if default_ttl != lifetime:
        differs = differs | DEFAULTED
    return differs


def drift_condition(schema: Schema, default_ttl: int | None) -> Condition:
    """True for an item whose lifetime differs from what the schema expects for its kind."""
    by_lifetime: dict[int, set[str]] = {}
    for kind, lifetime in schema.lifetimes().items():
        by_lifetime.setdefault(lifetime, set()).add(kind)
    dnf = FALSE
    parameters: list[dict[str, Any]] = []
    for n, (lifetime, kinds) in enumerate(sorted(by_lifetime.items())):
        of_kind, kind_parameters = kind_dnf(schema, frozenset(kinds), f"dk{n}_")
        name = f"@life{n}"
        dnf = dnf | (of_kind & other_lifetime(default_ttl, lifetime, name))
        parameters += [*kind_parameters, {"name": name, "value": lifetime}]
    return Condition.of(dnf, parameters)
