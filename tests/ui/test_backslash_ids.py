"""Keys and ids that differ only by ESC against the four characters ``\\x1b`` look
different in every list, title, breadcrumb and the detail: a backslash is shown as
``\\\\``. Before, both printed ``\\x1b``."""

from __future__ import annotations

from textual.widgets import Static

from cosmem_tui.ui.views.browse.levels import Level
from tests.conftest import ANCHOR
from tests.helpers import build_workspace, exchange
from tests.ui.conftest import cells, settle

ESC, TEXT = "id\x1b", "id\\x1b"  # ESC, and backslash x 1 b


def workspace(tmp_path):
    items = [
        exchange(ESC, "t\x1b", 0, id="item\x1b"),
        exchange(TEXT, "t\\x1b", 0, id="item\\x1b"),
    ]
    return build_workspace(tmp_path / "ids.sqlite", items, now=ANCHOR)


async def test_esc_and_the_text_backslash_x1b_never_look_alike(make_app, tmp_path):
    app = make_app(workspace(tmp_path), demo=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        names = sorted(row[0].lstrip("▲ ") for row in cells(app, "tenants"))
        assert names == ["id\\\\x1b", "id\\x1b"]  # the text, then ESC
        seen = []
        for tenant in ("id\\x1b", "id\\\\x1b"):
            row = next(
                n for n, r in enumerate(cells(app, "tenants")) if r[0].lstrip("▲ ") == tenant
            )
            app.browse.top.select_index(row)
            await pilot.press("enter")
            await settle(pilot)
            (thread,) = cells(app, "threads")
            await pilot.press("enter", "enter")  # the thread, then its one turn
            await settle(pilot)
            assert app.browse.level is Level.DETAIL
            crumbs = app.browse.query_one("#crumbs", Static).render().plain
            detail = app.browse.query_one("#detail-body", Static).render().plain
            item_line = next(line for line in detail.splitlines() if line.startswith("id "))
            seen.append((thread[0], crumbs.split(" › ")[1:3], item_line))
            await pilot.press("escape", "escape", "escape")
            await settle(pilot)
    assert seen == [
        ("t\\x1b", ["id\\x1b", "t\\x1b"], "id item\\x1b"),
        ("t\\\\x1b", ["id\\\\x1b", "t\\\\x1b"], "id item\\\\x1b"),
    ]
