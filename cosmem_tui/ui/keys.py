"""One registry of key bindings: it drives the widgets' BINDINGS and the help screen."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class KeyAction:
    keys: str  # Textual key names, comma separated
    action: str
    description: str
    shown: str  # how the help screen writes the keys
    group: str
    id: str

    def binding(self, *, show: bool = False, priority: bool = False) -> Binding:
        return Binding(
            self.keys, self.action, self.description, show=show, priority=priority, id=self.id
        )


LIST_KEYS = (
    KeyAction("down,j", "cursor_down", "next row", "↓  j", "Move", "list.down"),
    KeyAction("up,k", "cursor_up", "previous row", "↑  k", "Move", "list.up"),
    KeyAction(
        "pagedown,ctrl+f,space",
        "page_down",
        "next page",
        "PgDn  ctrl+f  space",
        "Move",
        "list.page_down",
    ),
    KeyAction("pageup,ctrl+b", "page_up", "previous page", "PgUp  ctrl+b", "Move", "list.page_up"),
    KeyAction("home,g", "first", "first row", "Home  g", "Move", "list.first"),
    KeyAction("end,G", "last", "last row (newest turn)", "End  G", "Move", "list.last"),
)

BROWSE_KEYS = (
    KeyAction(
        "enter,l,right", "open", "open: drill into the row", "Enter  l  →", "Browse", "browse.open"
    ),
    KeyAction(
        "escape,h,left", "back", "back to the parent list", "Esc  h  ←", "Browse", "browse.back"
    ),
    KeyAction("slash", "filter", "filter the focused list", "/", "Browse", "browse.filter"),
    KeyAction(
        "colon",
        "command",
        "command mode: :tenant NAME, :thread ID",
        ":",
        "Browse",
        "browse.command",
    ),
    KeyAction("r", "reload", "reload the focused list", "r", "Browse", "browse.reload"),
)

APP_KEYS = (
    KeyAction("question_mark,f1", "help", "help: every key", "?  F1", "App", "app.help"),
    KeyAction("q", "quit", "quit", "q", "App", "app.quit"),
)

COMMANDS = (
    (":tenant NAME", 'open a tenant\'s threads (":user NAME" on user-keyed schemas)'),
    (":thread ID", "open a thread of the current tenant"),
    (":thread TENANT ID", "open a thread of any tenant"),
    (":tenants", "back to the tenant list"),
    (":help", "this help"),
    (":q", "quit"),
)

ALL_KEYS = LIST_KEYS + BROWSE_KEYS + APP_KEYS
