"""The one registry of actions: bindings, footer hints, help, ``:`` commands and the palette.

Each ``UiAction`` says once what it is: an id (``browse.open``), its default keys, what
it does, where it applies (the views, or everywhere), its short footer hint, its ``:``
command if it has one, and whether the palette lists it. Everything the user reads
about keys is generated from here and from the app's keymap (rebinding by id), so
nothing about keys is written twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from textual.binding import Binding

# How the help and the hints write Textual key names.
_SHOWN = {
    "down": "↓",
    "up": "↑",
    "left": "←",
    "right": "→",
    "enter": "Enter",
    "escape": "Esc",
    "pagedown": "PgDn",
    "pageup": "PgUp",
    "home": "Home",
    "end": "End",
    "slash": "/",
    "colon": ":",
    "question_mark": "?",
    "space": "space",
    "tab": "Tab",
}


def show_key(key: str) -> str:
    """``ctrl+f`` → ``ctrl+f``, ``question_mark`` → ``?``, ``pagedown`` → ``PgDn``."""
    key = key.strip()
    if key in _SHOWN:
        return _SHOWN[key]
    if key.startswith("f") and key[1:].isdigit():
        return key.upper()
    return key


_SHORT = {"enter": "⏎", "escape": "esc", "slash": "/", "colon": ":", "question_mark": "?"}


def short_key(key: str) -> str:
    """The footer's compact form: ``⏎``, ``esc``, ``^p``."""
    key = key.strip()
    if key in _SHORT:
        return _SHORT[key]
    if key.startswith("ctrl+") and len(key) == 6:
        return "^" + key[-1]
    return show_key(key)


def show_keys(keys: str) -> str:
    return "  ".join(show_key(k) for k in keys.split(",") if k.strip())


@dataclass(frozen=True)
class CommandSpec:
    """How an action is typed after ``:`` (``tenant NAME``)."""

    names: tuple[str, ...]  # the first is shown; the others are accepted too
    args: tuple[str, ...] = ()  # placeholders for the help: NAME, ID, [TENANT] …
    help: str = ""

    @property
    def usage(self) -> str:
        return " ".join((f":{self.names[0]}", *self.args))


@dataclass(frozen=True)
class UiAction:
    id: str
    keys: str  # Textual key names, comma separated ("" for command-only actions)
    action: str  # the Textual action it runs ("open", "app.switch_view('requests')")
    description: str
    group: str  # help section
    views: frozenset[str] | None = None  # None: everywhere
    hint: str | None = None  # the footer hint ("open"); None: not in the footer
    hint_rank: int = 9  # footer order: what matters most first (the line is cut when narrow)
    commands: tuple[CommandSpec, ...] = ()
    palette: bool = True
    priority: bool = False  # runs in the app's key loop (browse keys: typed-ahead order)
    writes: bool = False  # a guarded write: offered only in a session that allows writes

    def applies_to(self, view: str | None) -> bool:
        return self.views is None or (view is not None and view in self.views)

    def binding(self, keys: str | None = None) -> Binding:
        return Binding(
            keys or self.keys,
            self.action,
            self.description,
            show=False,
            priority=self.priority,
            id=self.id,
        )


BROWSE = frozenset({"browse"})
REQUESTS = frozenset({"requests"})
ADVISE = frozenset({"advise"})
LIFECYCLE = frozenset({"ttl"})
HOT = frozenset({"hot"})
TELEMETRY = frozenset({"throttle", "hot"})  # the views fed by Azure Monitor (or the simulator)
LISTS = frozenset({"browse", "requests", "advise", "ttl", "hot", "doctor"})
# Esc clears the focused list's filter in every list view (ViewScreen.action_back); hot
# tenants has its own back (to the tenants from their keys), which clears it first too.
BACK = LISTS - HOT
LIVE = frozenset({"requests", "throttle", "hot"})  # views with a refresh loop
TABLES = LISTS | {"throttle"}  # views with a table to export (throughput: its series)

ACTIONS: tuple[UiAction, ...] = (
    # -- moving in a list (every view with lists) ------------------------------------------
    UiAction("list.down", "down,j", "cursor_down", "next row", "Move", LISTS, priority=True),
    UiAction("list.up", "up,k", "cursor_up", "previous row", "Move", LISTS, priority=True),
    UiAction(
        "list.page_down",
        "pagedown,ctrl+f,space",
        "page_down",
        "next page",
        "Move",
        LISTS,
        priority=True,
    ),
    UiAction(
        "list.page_up", "pageup,ctrl+b", "page_up", "previous page", "Move", LISTS, priority=True
    ),
    UiAction("list.first", "home,g", "first", "first row", "Move", LISTS, priority=True),
    UiAction(
        "list.last", "end,G", "last", "last row (the newest turn)", "Move", LISTS, priority=True
    ),
    UiAction(
        "list.filter",
        "slash",
        "filter",
        "filter the focused list",
        "Move",
        LISTS,
        hint="filter",
        hint_rank=3,
        priority=True,
    ),
    UiAction(
        "list.back",
        "escape,h,left",
        "back",
        "back: first clear the filter (or narrowing), then up a level",
        "Move",
        BACK,
        hint="back",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "list.detail",
        "v",
        "row_detail",
        "the selected row in full: every field, scrollable (an open turn: all its text)",
        "Move",
        LISTS,
        hint="detail",
        hint_rank=3,
        priority=True,
    ),
    # -- browse ------------------------------------------------------------------------------
    UiAction(
        "browse.open",
        "enter,l,right",
        "open",
        "open: drill into the row",
        "Browse",
        BROWSE,
        hint="open",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "browse.reload",
        "r",
        "reload",
        "reload the focused list",
        "Browse",
        BROWSE,
        hint="reload",
        hint_rank=8,
        priority=True,
    ),
    UiAction(
        "browse.search",
        "S",
        "search_thread",
        "search the whole thread on the server for the / filter text (or :search TEXT)",
        "Browse",
        BROWSE,
        commands=(CommandSpec(("search",), ("TEXT",), "search the open thread on the server"),),
        priority=True,
    ),
    UiAction(
        "browse.next_hit",
        "n",
        "next_hit",
        "next hit of the thread search",
        "Browse",
        BROWSE,
        priority=True,
    ),
    UiAction(
        "browse.previous_hit",
        "N",
        "previous_hit",
        "previous hit of the thread search",
        "Browse",
        BROWSE,
        priority=True,
    ),
    UiAction(
        "browse.count",
        "c",
        "count_shown",
        "count the rows on screen (asks past the budget)",
        "Browse",
        BROWSE,
        priority=True,
    ),
    UiAction(
        "browse.tenant",
        "",
        "open_tenant_prompt",
        "open a tenant's threads",
        "Browse",
        BROWSE,
        commands=(CommandSpec(("tenant", "user"), ("NAME",), "open a tenant's threads"),),
        palette=False,
    ),
    UiAction(
        "browse.thread",
        "",
        "open_thread_prompt",
        "open a thread",
        "Browse",
        BROWSE,
        commands=(
            CommandSpec(("thread",), ("ID",), "open a thread of the current tenant"),
            CommandSpec(("thread",), ("TENANT", "ID"), "open a thread of any tenant"),
        ),
        palette=False,
    ),
    UiAction(
        "browse.tenants",
        "",
        "show_tenants",
        "back to the tenant list",
        "Browse",
        BROWSE,
        commands=(CommandSpec(("tenants", "users"), (), "back to the tenant list"),),
    ),
    # -- guarded writes (offered only with --allow-writes) -----------------------------------
    UiAction(
        "write.pin",
        "P",
        "pin",
        "pin the turn as long-term memory (ttl -1), after a confirmation",
        "Write",
        BROWSE,
        hint="pin",
        hint_rank=10,
        commands=(CommandSpec(("pin",), (), "pin the current turn as long-term memory"),),
        priority=True,
        writes=True,
    ),
    UiAction(
        "write.set_ttl",
        "E",
        "set_ttl",
        "give the turn a new ttl in seconds, after a confirmation",
        "Write",
        BROWSE,
        commands=(CommandSpec(("set-ttl",), ("SECONDS",), "give the current turn a new ttl"),),
        priority=True,
        writes=True,
    ),
    UiAction(
        "write.erase",
        "X",
        "erase_thread",
        "erase the thread: delete every item of it, after a confirmation",
        "Write",
        BROWSE,
        hint="erase",
        hint_rank=11,
        commands=(CommandSpec(("erase-thread",), (), "delete every item of the current thread"),),
        priority=True,
        writes=True,
    ),
    # -- the advisor -----------------------------------------------------------------------
    UiAction(
        "advise.run",
        "r",
        "run_advisor",
        "check the container again (a new sample)",
        "Advisor",
        ADVISE,
        hint="check again",
        hint_rank=1,
    ),
    UiAction(
        "browse.expiring",
        "x",
        "narrow_expiring",
        "only the turns expiring within 1h, then 24h, 7d, all",
        "Browse",
        BROWSE,
        commands=(
            CommandSpec(("expiring",), ("1h|24h|7d|off",), "narrow the turns to those expiring"),
        ),
        priority=True,
    ),
    UiAction(
        "doctor.run",
        "r",
        "run_doctor",
        "check again (metadata only; every request in the ledger)",
        "Doctor",
        frozenset({"doctor"}),
        hint="check again",
        hint_rank=1,
    ),
    # -- lifecycle (TTL) ----------------------------------------------------------------
    UiAction(
        "ttl.scope",
        "",
        "app.switch_view('ttl')",
        "the lifecycle of a tenant or thread (none: what browse has selected)",
        "Lifecycle",
        commands=(
            CommandSpec(
                ("ttl",),
                ("[TENANT [THREAD]]",),
                "lifecycle: TTL classes, forecast, soonest, long-term, idle, drift",
            ),
        ),
        palette=False,
    ),
    UiAction(
        "ttl.open",
        "enter,l,right",
        "open_in_browse",
        "open the item or thread in browse",
        "Lifecycle",
        LIFECYCLE,
        hint="open",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "ttl.container",
        "f",
        "forecast_container",
        "count the whole container (a fan-out: asks first)",
        "Lifecycle",
        LIFECYCLE,
        hint="whole container",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "ttl.reload",
        "r",
        "reload",
        "count again, as of now",
        "Lifecycle",
        LIFECYCLE,
        hint="reload",
        hint_rank=8,
        priority=True,
    ),
    UiAction(
        "ttl.idle_gap",
        "",
        "idle_gap_prompt",
        "set the idle gap (seconds) after which a resume starts a new episode",
        "Lifecycle",
        LIFECYCLE,
        commands=(CommandSpec(("idle",), ("SECONDS",), "the idle gap (default 1800)"),),
        palette=False,
    ),
    # -- hot tenants -----------------------------------------------------------------------
    UiAction(
        "hot.drill",
        "right,l",
        "drill",
        "drill in: the keys (threads) of the tenant",
        "Hot tenants",
        HOT,
        hint="keys",
        hint_rank=1,
        priority=True,
    ),
    UiAction(
        "hot.open",
        "enter,o",
        "open_in_browse",
        "open the tenant (or thread) in the browse view",
        "Hot tenants",
        HOT,
        hint="browse",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "hot.back",
        "escape,left,h",
        "back",
        "back: clear the filter, then back to the tenants",
        "Hot tenants",
        HOT,
        hint="back",
        hint_rank=2,
        priority=True,
    ),
    UiAction(
        "hot.sort",
        "s",
        "cycle_sort",
        "sort by the next column (RU, peak, budget, 429, storage, name)",
        "Hot tenants",
        HOT,
        hint="sort",
        hint_rank=4,
        priority=True,
    ),
    # -- telemetry views -------------------------------------------------------------------
    UiAction(
        "telemetry.window",
        "w",
        "cycle_window",
        "next window: 15 min, 1 h, 24 h",
        "Live",
        TELEMETRY,
        hint="window",
        hint_rank=3,
        commands=(CommandSpec(("window",), ("[15m|1h|24h]",), "the window (none: the next one)"),),
    ),
    UiAction(
        "telemetry.region",
        "z",
        "cycle_region",
        "next region: RU/s is provisioned per region, so load is shown one region at a "
        "time (the write region first)",
        "Live",
        TELEMETRY,
        hint="region",
        hint_rank=5,
        commands=(
            CommandSpec(
                ("region",), ("[NAME]",), "the region whose load is shown (none: the next)"
            ),
        ),
    ),
    # -- live views ------------------------------------------------------------------------
    UiAction(
        "live.pause",
        "p",
        "toggle_pause",
        "pause or resume the live refresh",
        "Live",
        LIVE,
        hint="pause",
        hint_rank=3,
    ),
    UiAction(
        "live.refresh",
        "ctrl+r",
        "refresh_now",
        "refresh now",
        "Live",
        LIVE,
        hint="refresh",
        hint_rank=4,
    ),
    # -- export and copy (ui/table_export.py) ---------------------------------------------
    UiAction(
        "table.export",
        "e",
        "export_table",
        "export the table shown (filter honoured) to a CSV or JSON file",
        "Export",
        TABLES,
        hint="export",
        hint_rank=8,
        priority=True,
    ),
    UiAction(
        "table.copy",
        "y",
        "copy_row",
        "copy the selected row (a turn: its raw item) as JSON to the clipboard (OSC 52)",
        "Export",
        LISTS,
        hint="copy",
        hint_rank=8,
        priority=True,
    ),
    # -- the app -------------------------------------------------------------------------
    UiAction(
        "app.command",
        "colon",
        "app.command_bar",
        "command mode (:tenant NAME, :requests …)",
        "App",
        hint="command",
        hint_rank=5,
        priority=True,
    ),
    UiAction(
        "app.palette",
        "ctrl+p",
        "app.command_palette",
        "command palette: every action by name",
        "App",
        hint="palette",
        hint_rank=9,
    ),
    UiAction(
        "app.help",
        "question_mark,f1",
        "app.help",
        "help: every key and command",
        "App",
        hint="help",
        hint_rank=6,
        commands=(CommandSpec(("help", "h", "?"), (), "this help"),),
        # In the app's key loop, like the browse keys: the overlay is up before the
        # keys typed after ? are handled, so they reach it rather than the list below.
        priority=True,
    ),
    UiAction(
        "app.profile",
        "",
        "app.command_bar",
        "switch to a profile of the config file (a new session)",
        "App",
        commands=(CommandSpec(("profile",), ("NAME",), "switch to a config profile"),),
        palette=False,  # the palette lists each profile by name (ui/profiles.py)
    ),
    UiAction(
        "app.schema",
        "",
        "app.schema",
        "the schema and why it was chosen",
        "App",
        commands=(CommandSpec(("schema",), (), "the schema and why it was chosen"),),
    ),
    UiAction(
        "app.quit",
        "q",
        "app.quit",
        "quit",
        "App",
        hint="quit",
        hint_rank=7,
        commands=(CommandSpec(("q", "quit", "exit"), (), "quit"),),
    ),
    # ctrl+c quits as in any terminal program, even from a prompt (priority: before the
    # input's copy); Textual's own ctrl+c only says which key quits.
    UiAction("app.interrupt", "ctrl+c", "app.quit", "quit", "App", palette=False, priority=True),
)


@dataclass(frozen=True)
class ViewKey:
    """A view's own switching action, added to the registry by the view registry."""

    name: str
    keys: str
    title: str


def view_actions(views: Iterable[ViewKey]) -> tuple[UiAction, ...]:
    return tuple(
        UiAction(
            f"view.{v.name}",
            v.keys,
            f"app.switch_view('{v.name}')",
            f"switch to the {v.title.lower()} view",
            "Views",
            commands=(CommandSpec((v.name,), (), f"the {v.title.lower()} view"),),
        )
        for v in views
    )


@dataclass
class Registry:
    """The actions and the keymap (id → keys) that overrides their default keys."""

    actions: tuple[UiAction, ...]
    keymap: dict[str, str] = field(default_factory=dict)
    writes_allowed: bool = False  # the session's: write actions are offered only then

    def get(self, action_id: str) -> UiAction:
        for action in self.actions:
            if action.id == action_id:
                return action
        raise KeyError(action_id)

    def keys(self, action_id: str) -> str:
        return self.keymap.get(action_id) or self.get(action_id).keys

    def first_key(self, action_id: str) -> str:
        """The key an action is shown by (the first it is bound to; '' when unbound)."""
        return self.keys(action_id).split(",")[0]

    def offered(self, action: UiAction) -> bool:
        return self.writes_allowed or not action.writes

    def for_view(self, view: str | None) -> list[UiAction]:
        return [a for a in self.actions if a.applies_to(view) and self.offered(a)]

    def bindings(self, view: str | None, *, app_level: bool) -> list[Binding]:
        """Bindings for a view's screen (its own actions) or the app (everywhere ones)."""
        chosen = [
            a
            for a in self.actions
            if a.keys and ((a.views is None) if app_level else (a.views is not None))
        ]
        if not app_level:
            chosen = [a for a in chosen if a.applies_to(view)]
        return [a.binding() for a in chosen]

    def hints(self, view: str | None) -> str:
        """The footer line: ``↓ j move · Enter open · …`` for the actions that have a hint."""
        return " · ".join(self.hint_parts(view))

    def hint_parts(
        self, view: str | None, applies: Callable[[str], bool] | None = None
    ) -> list[str]:
        """Each footer hint (``e export``), most important first; ``applies`` (an action
        id → does it do something here, now) leaves out the hints that do not."""
        parts = []
        hinted = [
            a
            for a in self.for_view(view)
            if a.hint is not None and self.keys(a.id) and (applies is None or applies(a.id))
        ]
        for action in sorted(hinted, key=lambda a: a.hint_rank):
            parts.append(f"{short_key(self.first_key(action.id))} {action.hint}")
        return parts

    def commands(self, view: str | None) -> list[tuple[CommandSpec, UiAction]]:
        return [(c, a) for a in self.for_view(view) for c in a.commands]

    def command_named(self, name: str, view: str | None) -> list[tuple[CommandSpec, UiAction]]:
        return [(c, a) for c, a in self.commands(view) if name in c.names]

    def rebind(self, keymap: Mapping[str, str]) -> None:
        for action_id in keymap:
            self.get(action_id)  # an unknown id is a mistake, not a silent no-op
        self.keymap.update(keymap)
