"""Browse's ``:`` commands: what their words mean (``spec.py`` declares them, the screen
runs them). Pure: no widgets."""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.core.text import one_line
from cosmem_tui.ui.commands import Mistake, ParsedCommand, Typed


@dataclass(frozen=True)
class ShowTenants(ParsedCommand):
    pass


@dataclass(frozen=True)
class OpenTenant(ParsedCommand):
    tenant: str


@dataclass(frozen=True)
class OpenThread(ParsedCommand):
    tenant: str | None  # None: the current tenant (or a schema without tenants)
    thread: str
    tenant_given: bool = False


@dataclass(frozen=True)
class Pin(ParsedCommand):
    pass


@dataclass(frozen=True)
class SetTtl(ParsedCommand):
    seconds: int


@dataclass(frozen=True)
class EraseThread(ParsedCommand):
    pass


@dataclass(frozen=True)
class NarrowExpiring(ParsedCommand):
    within: int | None  # seconds; None: no narrowing


EXPIRING_WORDS = {"1h": 3600, "24h": 86_400, "1d": 86_400, "7d": 604_800, "off": None}


@dataclass(frozen=True)
class SearchThread(ParsedCommand):
    text: str  # as typed after the verb (inner spaces kept)


def parse_expiring(typed: Typed) -> ParsedCommand:
    args = typed.args
    if len(args) != 1 or args[0].lower() not in EXPIRING_WORDS:
        return Mistake("usage: :expiring 1h|24h|7d|off")
    return NarrowExpiring(EXPIRING_WORDS[args[0].lower()])


def parse_search(typed: Typed) -> ParsedCommand:
    rest = typed.line.strip().lstrip(":").split(maxsplit=1)
    text = rest[1].strip() if len(rest) == 2 else ""
    return SearchThread(text) if text else Mistake("usage: :search TEXT")


def parse_tenants(typed: Typed) -> ParsedCommand:
    schema, label = typed.schema, typed.label
    if typed.args:
        return Mistake(f"usage: :{label}s")
    if schema is not None and not schema.has_tenant_level:
        return Mistake(f"schema {schema.name} has no {label} level")
    return ShowTenants()


def parse_tenant(typed: Typed) -> ParsedCommand:
    schema, label = typed.schema, typed.label
    if schema is not None and not schema.has_tenant_level:
        return Mistake(f"schema {schema.name} has no {label} level: use :thread ID")
    if len(typed.args) != 1:
        return Mistake(f"usage: :{label} NAME (the {label} to open)")
    return OpenTenant(typed.args[0])


def parse_thread(typed: Typed) -> ParsedCommand:
    schema, label, args = typed.schema, typed.label, typed.args
    tenants = schema is None or schema.has_tenant_level
    if len(args) == 2:
        if not tenants:
            name = schema.name if schema else ""
            return Mistake(f"schema {name} has no {label} level: use :thread ID")
        return OpenThread(args[0], args[1], tenant_given=True)
    if len(args) == 1:
        if tenants and typed.current_tenant is None:
            return Mistake(f"open a {label} first, or use :thread {label.upper()} ID")
        return OpenThread(typed.current_tenant, args[0])
    return Mistake(f"usage: :thread ID, or :thread {label.upper()} ID")


def parse_set_ttl(typed: Typed) -> ParsedCommand:
    """``:set-ttl SECONDS`` (offered only when writes are on, like ``:pin`` and
    ``:erase-thread``)."""
    if len(typed.args) != 1:
        return Mistake("usage: :set-ttl SECONDS (-1 for never)")
    try:
        return SetTtl(int(typed.args[0]))
    except ValueError:
        return Mistake(
            f"usage: :set-ttl SECONDS, a whole number, not {one_line(typed.args[0], 20)}"
        )


def parse_pin(typed: Typed) -> ParsedCommand:
    return Mistake("usage: :pin") if typed.args else Pin()


def parse_erase(typed: Typed) -> ParsedCommand:
    return Mistake("usage: :erase-thread") if typed.args else EraseThread()
