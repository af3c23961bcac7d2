"""What every row of every list passes on its way to the terminal.

Rows quote item data (tenant and thread keys, ids, kinds, roles, message text) and
what services said (log rows, findings, capability evidence): ``safe_cells`` is the
one exit each row source (browse, the ledger, hot tenants, the lifecycle, the advisor,
the doctor) returns its cells through, so no cell reaches the terminal as markup or an
escape, whichever field it shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from cosmem_tui.core.text import one_line
from cosmem_tui.ui.widgets.row_list import Cell

SOON = 3600  # "expires within the hour" is what support gets asked about


def safe_cells(cells: Sequence[Cell]) -> list[Cell]:
    """The one exit of every row: each cell on one line with nothing left to escape.

    Fields are escaped (and shortened) where they are formatted too, keys, ids, order
    values, kinds and roles with ``exact`` (a backslash shown as ``\\\\``, so ESC and
    the text ``\\x1b`` never print alike); this pass makes a field added or formatted
    later safe without anyone remembering to. It is idempotent (it leaves backslashes
    alone), so text escaped once is unchanged.
    """
    return [(one_line(text), tone) for text, tone in cells]
