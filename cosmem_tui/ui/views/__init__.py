"""The view registry: one entry per view, and everything the app derives from it.

A view is a Textual screen registered once: its name (also its ``:`` command and its
Textual mode), title, key, and the session services it needs. The app builds its
modes, its view-switching actions and its palette entries from this list; adding a
view is one screen plus one entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.screen import Screen

from cosmem_tui.ui.actions import ViewKey


@dataclass(frozen=True)
class ViewSpec:
    name: str  # the mode name and the ":" command, e.g. "requests"
    title: str
    keys: str  # the default keys that switch to it
    make: Callable[[], Screen[None]]
    needs: frozenset[str] = frozenset()  # session services it reads ("memory", …)
    description: str = ""

    @property
    def key(self) -> ViewKey:
        return ViewKey(self.name, self.keys, self.title)


def _browse() -> Screen[None]:
    from cosmem_tui.ui.views.browse import BrowseScreen

    return BrowseScreen()


def _requests() -> Screen[None]:
    from cosmem_tui.ui.views.requests.screen import RequestsScreen

    return RequestsScreen()


def _advise() -> Screen[None]:
    from cosmem_tui.ui.views.advise.screen import AdviseScreen

    return AdviseScreen()


def _lifecycle() -> Screen[None]:
    from cosmem_tui.ui.views.lifecycle.screen import LifecycleScreen

    return LifecycleScreen()


def _throughput() -> Screen[None]:
    from cosmem_tui.ui.views.throughput.screen import ThroughputScreen

    return ThroughputScreen()


def _doctor() -> Screen[None]:
    from cosmem_tui.ui.views.doctor.screen import DoctorScreen

    return DoctorScreen()


def _hot() -> Screen[None]:
    from cosmem_tui.ui.views.hot.screen import HotScreen

    return HotScreen()


VIEWS: tuple[ViewSpec, ...] = (
    ViewSpec(
        "browse",
        "Browse",
        "B",
        _browse,
        frozenset({"memory"}),
        "tenants → threads → turns → one turn",
    ),
    ViewSpec(
        "requests",
        "Requests",
        "R",
        _requests,
        frozenset(),
        "every request this session made: the ledger, live",
    ),
    ViewSpec(
        "throttle",
        "Throughput",
        "T",
        _throughput,
        frozenset({"throughput"}),
        "is the account throttling: RU/s against provisioned, partitions, 429s, live",
    ),
    ViewSpec(
        "hot",
        "Hot tenants",
        "H",
        _hot,
        frozenset({"hot_keys"}),
        "which tenant spends the RU: keys by RU with their shares, live",
    ),
    ViewSpec(
        "advise",
        "Advisor",
        "A",
        _advise,
        frozenset({"memory", "advisor"}),
        "the container advisor: findings with rule, severity, evidence and fix",
    ),
    ViewSpec(
        "ttl",
        "Lifecycle",
        "L",
        _lifecycle,
        frozenset({"memory"}),
        "what expires, when and why: TTL classes, forecast, soonest, long-term, idle, drift",
    ),
    ViewSpec(
        "doctor",
        "Doctor",
        "D",
        _doctor,
        frozenset({"doctor"}),
        "what this account lets the console do: each capability's verdict, evidence and fix",
    ),
)


def view(name: str) -> ViewSpec:
    for spec in VIEWS:
        if spec.name == name:
            return spec
    raise KeyError(name)
