"""Command mode (``:``): parse one typed line into what the app or a view should do.

Pure: no widgets. The verbs come from the action registry (``ui/actions.py``): a verb
names a ``CommandSpec`` of an action that applies to the current view, and the action's
id says what the line means. So the help, the palette and the parser can never
disagree about which commands exist.
"""

from __future__ import annotations

from dataclasses import dataclass

from cosmem_tui.core.text import one_line
from cosmem_tui.model.keys import split_names
from cosmem_tui.model.telemetry import Window
from cosmem_tui.schemas import Schema
from cosmem_tui.ui.actions import Registry


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class ShowHelp:
    pass


@dataclass(frozen=True)
class SwitchProfile:
    name: str


@dataclass(frozen=True)
class ShowSchema:
    pass


@dataclass(frozen=True)
class SwitchView:
    view: str
    args: tuple[str, ...] = ()  # what the view is asked to show (":ttl acme t1")


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
class SetWindow:
    window: Window | None  # None: the next one


@dataclass(frozen=True)
class SetRegion:
    region: str | None  # as typed ("East US"); None: the next one


@dataclass(frozen=True)
class Pin:
    pass


@dataclass(frozen=True)
class SetTtl:
    seconds: int


@dataclass(frozen=True)
class EraseThread:
    pass


@dataclass(frozen=True)
class NarrowExpiring:
    within: int | None  # seconds; None: no narrowing


EXPIRING_WORDS = {"1h": 3600, "24h": 86_400, "1d": 86_400, "7d": 604_800, "off": None}


@dataclass(frozen=True)
class SearchThread:
    text: str  # as typed after the verb (inner spaces kept)


@dataclass(frozen=True)
class Mistake:
    message: str


ParsedCommand = (
    Quit
    | ShowHelp
    | ShowSchema
    | SwitchView
    | SwitchProfile
    | ShowTenants
    | OpenTenant
    | OpenThread
    | Pin
    | SetTtl
    | EraseThread
    | NarrowExpiring
    | SetWindow
    | SetRegion
    | SearchThread
    | Mistake
)


def parse_command(
    line: str,
    registry: Registry,
    view: str | None,
    schema: Schema | None = None,
    current_tenant: str | None = None,
) -> ParsedCommand | None:
    """What ``line`` asks for; None for an empty line.

    Words split at white space, but a JSON value is one word (``split_names``), so a
    key printed with spaces in it (``"x y"``, ``{"role": "system"}``) can be typed."""
    words = split_names(line.strip().lstrip(":"))
    if not words:
        return None
    verb, args = words[0].lower(), words[1:]
    label = schema.tenant_label if schema is not None else "tenant"
    matches = registry.command_named(verb, view)
    if not matches and schema is not None and verb in (label, f"{label}s"):
        # The schema's own word for its top level (":user alice" on user-keyed schemas).
        plural = verb == f"{label}s"
        matches = registry.command_named("tenants" if plural else "tenant", view)
    if not matches:
        return _elsewhere(verb, registry) or Mistake(
            f"unknown command: {one_line(line, 40)} (try :help)"
        )
    action = matches[0][1].id
    if action == "app.quit" and not args:
        return Quit()
    if action == "app.help" and not args:
        return ShowHelp()
    if action == "app.profile":
        return SwitchProfile(args[0]) if len(args) == 1 else Mistake("usage: :profile NAME")
    if action == "app.schema" and not args:
        return ShowSchema()
    if action.startswith("view.") and not args:
        return SwitchView(action.removeprefix("view."))
    if action == "ttl.scope":
        return (
            SwitchView("ttl", tuple(args))
            if len(args) <= 2
            else Mistake(f"usage: :ttl [{label.upper()} [THREAD]]")
        )
    if action == "browse.expiring":
        if len(args) != 1 or args[0].lower() not in EXPIRING_WORDS:
            return Mistake("usage: :expiring 1h|24h|7d|off")
        return NarrowExpiring(EXPIRING_WORDS[args[0].lower()])
    if action == "browse.search":
        rest = line.strip().lstrip(":").split(maxsplit=1)
        text = rest[1].strip() if len(rest) == 2 else ""
        return SearchThread(text) if text else Mistake("usage: :search TEXT")
    if action in ("browse.tenant", "browse.tenants", "browse.thread"):
        return _browse_command(action, args, label, schema, current_tenant)
    if action == "telemetry.window" and len(args) <= 1:
        if not args:
            return SetWindow(None)
        try:
            return SetWindow(Window.parse(args[0]))
        except ValueError as exc:
            return Mistake(one_line(str(exc), 80))
    if action == "telemetry.region":
        return SetRegion(" ".join(args) if args else None)
    if action.startswith("write."):
        return _write_command(action, args)
    usage = " or ".join(c.usage for c, _ in matches)
    return Mistake(f"usage: {usage}")


def _elsewhere(verb: str, registry: Registry) -> Mistake | None:
    """A command of another view: its usage and where it works, not "unknown command"."""
    found = [
        (command, action)
        for action in registry.actions
        if registry.offered(action)
        for command in action.commands
        if verb in command.names
    ]
    if not found:
        return None
    usage = " or ".join(command.usage for command, _ in found)
    views = sorted({view for _, action in found for view in action.views or ()})
    if not views:
        return Mistake(f"usage: {usage}")
    where = " or ".join(f"the {view} view (:{view})" for view in views)
    return Mistake(f"usage: {usage}, in {where}")


def _write_command(action: str, args: list[str]) -> ParsedCommand:
    """``:pin``, ``:set-ttl SECONDS``, ``:erase-thread`` (offered only when writes are on)."""
    if action == "write.set_ttl":
        if len(args) != 1:
            return Mistake("usage: :set-ttl SECONDS (-1 for never)")
        try:
            return SetTtl(int(args[0]))
        except ValueError:
            return Mistake(f"usage: :set-ttl SECONDS, a whole number, not {one_line(args[0], 20)}")
    if args:
        return Mistake(f"usage: :{'pin' if action == 'write.pin' else 'erase-thread'}")
    return Pin() if action == "write.pin" else EraseThread()


def _browse_command(
    action: str, args: list[str], label: str, schema: Schema | None, current: str | None
) -> ParsedCommand:
    tenants = schema is None or schema.has_tenant_level
    if action == "browse.tenants":
        if args:
            return Mistake(f"usage: :{label}s")
        if not tenants:
            return Mistake(f"schema {schema.name if schema else ''} has no {label} level")
        return ShowTenants()
    if action == "browse.tenant":
        if not tenants:
            name = schema.name if schema else ""
            return Mistake(f"schema {name} has no {label} level: use :thread ID")
        if len(args) != 1:
            return Mistake(f"usage: :{label} NAME (the {label} to open)")
        return OpenTenant(args[0])
    if len(args) == 2:
        if not tenants:
            name = schema.name if schema else ""
            return Mistake(f"schema {name} has no {label} level: use :thread ID")
        return OpenThread(args[0], args[1], tenant_given=True)
    if len(args) == 1:
        if tenants and current is None:
            return Mistake(f"open a {label} first, or use :thread {label.upper()} ID")
        return OpenThread(current, args[0])
    return Mistake(f"usage: :thread ID, or :thread {label.upper()} ID")
