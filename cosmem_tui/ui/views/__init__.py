"""The views: one package per view, and the list the app is built from.

Each package holds its screen (``screen.py``), the rows, tiles and columns it draws,
and its ``spec.py``: a ``ViewSpec`` that says, as plain data, its name (also its
``:`` command and its Textual mode), title, keys, what it shows, the shared action
families it takes and its own actions and commands. The screen class is only named
there, so reading ``VIEWS`` imports no screen: the app imports one when the view is
first shown. The app builds its modes, its view-switching actions, the help and the
palette from this list; adding a view is one package plus one entry here.
"""

from __future__ import annotations

from cosmem_tui.ui.actions import ViewSpec
from cosmem_tui.ui.views.advise.spec import SPEC as ADVISE
from cosmem_tui.ui.views.browse.spec import SPEC as BROWSE
from cosmem_tui.ui.views.doctor.spec import SPEC as DOCTOR
from cosmem_tui.ui.views.hot.spec import SPEC as HOT
from cosmem_tui.ui.views.lifecycle.spec import SPEC as LIFECYCLE
from cosmem_tui.ui.views.recall.spec import SPEC as RECALL
from cosmem_tui.ui.views.requests.spec import SPEC as REQUESTS
from cosmem_tui.ui.views.tail.spec import SPEC as TAIL
from cosmem_tui.ui.views.throughput.spec import SPEC as THROUGHPUT

VIEWS: tuple[ViewSpec, ...] = (
    BROWSE,
    REQUESTS,
    THROUGHPUT,
    HOT,
    ADVISE,
    LIFECYCLE,
    RECALL,
    TAIL,
    DOCTOR,
)


def view(name: str) -> ViewSpec:
    for spec in VIEWS:
        if spec.name == name:
            return spec
    raise KeyError(name)
