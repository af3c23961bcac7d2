"""Command mode (``:``): parse one typed line into what the browse pane should do.

Pure: no widgets, so every command and every mistake is testable on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.core.text import one_line
from cosmem_tui.schemas import Schema


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class ShowHelp:
    pass


@dataclass(frozen=True)
class ShowTenants:
    pass


@dataclass(frozen=True)
class OpenTenant:
    tenant: str


@dataclass(frozen=True)
class OpenThread:
    tenant: str | None  # None: the current tenant (or a schema without tenants)
    thread: str
    tenant_given: bool = False


@dataclass(frozen=True)
class Mistake:
    message: str


Command = Quit | ShowHelp | ShowTenants | OpenTenant | OpenThread | Mistake


def parse_command(line: str, schema: Schema, current_tenant: str | None) -> Command | None:
    """What ``line`` asks for; None for an empty line."""
    words = line.strip().lstrip(":").split()
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    label = schema.tenant_label
    if verb in ("q", "quit", "exit") and not args:
        return Quit()
    if verb in ("help", "h", "?") and not args:
        return ShowHelp()
    if verb in ("tenant", "user", label) and len(args) == 1:
        if not schema.has_tenant_level:
            return Mistake(f"schema {schema.name} has no {label} level: use :thread ID")
        return OpenTenant(args[0])
    if verb in ("tenants", "users", f"{label}s") and not args:
        if not schema.has_tenant_level:
            return Mistake(f"schema {schema.name} has no {label} level")
        return ShowTenants()
    if verb == "thread" and len(args) == 2:
        if not schema.has_tenant_level:
            return Mistake(f"schema {schema.name} has no {label} level: use :thread ID")
        return OpenThread(args[0], args[1], tenant_given=True)
    if verb == "thread" and len(args) == 1:
        if schema.has_tenant_level and current_tenant is None:
            return Mistake(f"open a {label} first, or use :thread {label.upper()} ID")
        return OpenThread(current_tenant, args[0])
    return Mistake(f"unknown command: {one_line(line, 40)} (try :help)")
