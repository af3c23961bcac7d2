"""The recall view, driven through the real app on the demo workspace: browse's ``m`` on a
turn ("what does this recall?") and ``W`` ("why not this?"), ``:recall`` and ``:expect``,
the hits, the why-not panel, the query vector's summary, the notes and the cost."""

from __future__ import annotations

import re

import pytest

from cosmem_tui.ui.views.browse.levels import Level
from tests.ui.conftest import cells, screen_text, settle


async def open_turns(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    for key in ("enter", "enter"):
        await pilot.press(key)
        await settle(pilot)


def recall_screen(app):  # type: ignore[no-untyped-def]
    from cosmem_tui.ui.views.recall.screen import RecallScreen

    screen = app.screens_by_view["recall"]
    assert isinstance(screen, RecallScreen)
    return screen


def summary(app) -> str:  # type: ignore[no-untyped-def]
    """The lines above the hits, whole: the probe, its query and vector, the outcome and
    the notes."""
    from cosmem_tui.ui.widgets.hint_line import FittedLine

    lines = app.screen.query_one("#recall-summary", FittedLine).text
    notes = app.screen.query_one("#recall-notes")
    return lines + ("\n" + str(notes.render()) if notes.display else "")


async def test_m_on_a_turn_shows_what_it_recalls(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_turns(pilot)
        asked = app.browse.turn_column.current_turn
        assert asked is not None
        await pilot.press("m")
        await settle(pilot)
        assert app.current_view == "recall"
        screen = recall_screen(app)
        assert screen.request is not None and screen.request.like == asked.item_id
        report = screen.report
        assert report is not None, app.screen.query_one("#status").render()
        rows = cells(app, "recall-hits")
        assert rows and len(rows) == len(report.hits) <= report.k
        assert [int(row[0]) for row in rows] == list(range(1, len(rows) + 1))
        assert [row[2] for row in rows] == [hit.id for hit in report.hits]
        text = summary(app)
        assert f"{report.mode.value} probe · top {report.k} · in tenant " in text
        assert re.search(r"query vector: \d+ dimensions, norm \d+\.\d{4}, \[", text), text
        assert "index = exact search (local workspace)" in text
        assert "demo embeddings" in text
        assert f"{report.request_units:,.1f} RU" in text
        # The query vector is summarised, never printed whole.
        shown = re.search(r"\[([^\]]*)\]", text.split("query vector:")[1])
        assert shown is not None and len(shown.group(1).split(",")) <= 5  # 4 values and "…"
        probes = [r for r in app.session.ledger.records() if r.cause == "recall: probe"]
        assert probes and sum(r.request_units for r in probes) > 0


async def test_w_on_another_turn_says_why_it_is_not_recalled(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_turns(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("B")
        await settle(pilot)
        assert app.browse.level is Level.TURNS  # browse kept its place
        await pilot.press("j", "j")
        remembered = app.browse.turn_column.current_turn
        assert remembered is not None
        await pilot.press("W")
        await settle(pilot)
        assert app.current_view == "recall"
        screen = recall_screen(app)
        assert screen.request.expect == (remembered.item_id,)
        (row,) = cells(app, "recall-why")
        verdict = screen.report.expected[0]
        assert row[0] == remembered.item_id and verdict.id == remembered.item_id
        from cosmem_tui.ui.views.recall.rows import REASON_WORDS

        assert row[1] == REASON_WORDS[verdict.reason]
        assert float(row[3]) == round(verdict.request_units, 1)


async def test_w_before_any_probe_waits_for_one(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_turns(pilot)
        remembered = app.browse.turn_column.current_turn
        await pilot.press("W")
        await settle(pilot)
        assert app.current_view == "recall"
        assert f"expected: {remembered.item_id}" in summary(app)
        assert "m  what does this recall?" in screen_text(app)
        await pilot.press("B", "j", "m")
        await settle(pilot)
        screen = recall_screen(app)
        assert screen.request.expect == (remembered.item_id,)
        assert [v.id for v in screen.report.expected] == [remembered.item_id]


async def test_enter_on_a_hit_opens_it_in_browse(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_turns(pilot)
        await pilot.press("m")
        await settle(pilot)
        hit = recall_screen(app).report.hits[0]
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_view == "browse"
        assert app.browse.level is Level.DETAIL
        assert app.browse.detail_pane.key[0] == hit.id
        assert app.browse.turn_column.ref == hit.thread


async def test_recall_commands_say_their_mistakes_in_one_line(make_app, demo_path):
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.run_command("recall --like a --text b")
        await settle(pilot)
        assert "not both" in str(app.screen.query_one("#status").render())
        app.run_command("recall no-such-tenant --like x")
        await settle(pilot)
        assert app.current_view == "recall"
        status = str(app.screen.query_one("#status").render())
        assert "no-such-tenant" in status and "\n" not in status
        assert recall_screen(app).report is None


# The demo's planted cases (DemoManifest.recall): what each is planted to show.
PLANTED = {
    "found": "found",
    "expired": "expired",
    "no_embedding_at_path": "wrong_path",
    "wrong_dimensions": "wrong_dimensions",
    "filtered": "filtered",
    "ranked_below_k": "ranked_below_k",
    "out_of_scope": "out_of_scope",
}


async def test_the_planted_cases_each_get_their_one_reason(make_app, demo_path, manifest):
    """ "It forgot X", asked of the demo's planted thread: one line per expected item, the
    reason it was planted for, its evidence, and the RU it took to find out."""
    from cosmem_tui.ui.views.recall.rows import REASON_WORDS

    planted = manifest.recall
    expected = [planted[name] for name in PLANTED]
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(
            f"recall {planted['tenant']} {planted['thread']} --like {planted['query']} "
            f"--k {planted['k']} --expect {' '.join(expected)}"
        )
        await settle(pilot)
        screen = recall_screen(app)
        report = screen.report
        assert report is not None, str(app.screen.query_one("#status").render())
        reasons = {v.id: v.reason.value for v in report.expected}
        assert reasons == {planted[name]: reason for name, reason in PLANTED.items()}
        rows = cells(app, "recall-why")
        assert [row[0] for row in rows] == expected
        by_reason = {v.id: REASON_WORDS[v.reason] for v in report.expected}
        assert [row[1] for row in rows] == [by_reason[i] for i in expected]
        assert all(float(row[3]) >= 0 for row in rows)
        # The found item is marked among the hits; the one ranked k + 1 is not there.
        hit_ids = [row[2] for row in cells(app, "recall-hits")]
        assert planted["found"] in hit_ids and planted["ranked_below_k"] not in hit_ids
        # Tab to the why-not lines: the selected one's evidence is written out whole.
        await pilot.press("tab", "j")
        await settle(pilot)
        verdict = report.expected[1]
        detail = str(app.screen.query_one("#recall-why-detail").render())
        assert verdict.why.split()[0] in detail and f"{verdict.request_units:,.1f} RU" in detail


async def test_m_and_w_in_the_planted_thread(make_app, demo_path, manifest):
    """The support engineer's path: open the thread, m on the turn the agent answered,
    back, W on the turn where it was said."""
    planted = manifest.recall
    app = make_app(demo_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {planted['tenant']} {planted['thread']}")
        await settle(pilot)
        column = app.browse.turn_column

        async def select(item_id: str) -> None:
            for _ in range(len(column.window) + 1):
                turn = column.current_turn
                if turn is not None and turn.item_id == item_id:
                    return
                await pilot.press("j")
            raise AssertionError(f"no turn {item_id}")

        await pilot.press("g")
        await select(planted["query"])
        await pilot.press("m")
        await settle(pilot)
        assert recall_screen(app).request.like == planted["query"]
        await pilot.press("B", "g")
        await select(planted["no_embedding_at_path"])  # (browse hides the expired one)
        await pilot.press("W")
        await settle(pilot)
        (verdict,) = recall_screen(app).report.expected
        assert verdict.id == planted["no_embedding_at_path"]
        assert verdict.reason.value == "wrong_path"
        shown = " ".join(screen_text(app).split())
        assert "wrong path" in shown and "/messages/0/embedding" in shown  # its evidence


async def test_the_hostile_thread_stays_inert_in_the_recall_view(make_app, demo_path, manifest):
    """The demo's hostile thread: m on a turn without an embedding says so in one line;
    a text probe's key (markup) and the items' text stay data on every line the view
    draws, and nothing reaches the terminal as an escape."""
    from rich.text import Text
    from textual.content import Content

    from cosmem_tui.core.demo.hostile import HOSTILE_THREAD
    from cosmem_tui.core.text import visible

    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command(f"thread {manifest.hostile['tenant']} {HOSTILE_THREAD}")
        await settle(pilot)
        await pilot.press("j", "m")
        await settle(pilot)
        status = str(app.screen.query_one("#status").render())
        assert "no embedding" in status and "give --vector or --text" in status
        assert recall_screen(app).report is None
        app.run_command(
            f"recall {manifest.hostile['tenant']} {HOSTILE_THREAD} --text terminal cleared message"
        )
        await settle(pilot)
        report = recall_screen(app).report
        assert report is not None, str(app.screen.query_one("#status").render())
        assert visible(HOSTILE_THREAD, exact=True) in summary(app)  # the scope, literally
        threads = {row[3] for row in cells(app, "recall-hits")}
        assert threads == {visible(HOSTILE_THREAD, exact=True)}
        title = app.screen.query_one("#recall-hits").border_title
        assert not isinstance(title, str | Text) or "[red]" not in str(title)
        assert isinstance(app.screen.query_one("#recall-notes").render(), Content)
        screenshot = app.export_screenshot()
        assert not any(ch in screenshot for ch in ("\x1b", "\u202e", "\x9b", "\x07"))
        assert "thr-[red]hostile[/red]" in " ".join(screen_text(app).split())


@pytest.fixture
def exports(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    where = tmp_path / "exports"
    monkeypatch.setenv("COSMEM_EXPORT_DIR", str(where))
    return where


async def test_e_writes_what_cosmem_recall_prints(make_app, demo_path, manifest, exports, capsys):
    """e: the hits, then the expected items, the records cosmem recall --json prints for
    the same probe; y: the selected row's."""
    import json

    from tests.ui.test_export_copy import cli, copied, export, written

    planted = manifest.recall
    words = [
        planted["tenant"],
        planted["thread"],
        "--like",
        planted["query"],
        "--expect",
        planted["found"],
        planted["no_embedding_at_path"],
    ]
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.run_command("recall " + " ".join(words))
        await settle(pilot)
        path = await export(pilot, "j", exports)
        out = written(app)
        await pilot.press("tab", "y")  # an expected item's line
        await settle(pilot)
    printed = await cli(capsys, "recall", *words, "--workspace", str(demo_path), "--json")
    lines = json.loads(printed)
    assert json.loads(path.read_text()) == lines
    assert [r.get("expected") for r in lines] == [None] * (len(lines) - 2) + [True, True]
    assert json.loads(copied(out)[0]) == lines[-2]


async def test_a_container_wide_probe_is_asked_first(make_app, demo_path, manifest):
    """A memory system that queries the whole container (a schema whose retrieval scope is
    the container): the probe is a cross-partition fan-out, asked first with the
    estimate; no sends no probe, yes sends them."""
    from dataclasses import replace

    from textual.widgets import Static

    from cosmem_tui.model import Scope
    from cosmem_tui.model.lifecycle import TtlScope
    from cosmem_tui.schemas.retrieval import RetrievalScope
    from cosmem_tui.ui.confirm import ConfirmBudget
    from tests.ui.test_lifecycle import until

    planted = manifest.recall
    app = make_app(demo_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        service = app.session.recall
        retrieval = replace(service.schema.how_it_retrieves, scope=RetrievalScope.CONTAINER)
        service.schema = replace(service.schema, retrieval=retrieval)
        ledger = app.session.ledger
        before = len(ledger.records())
        words = f"{planted['tenant']} {planted['thread']} --like {planted['query']}"
        app.run_command(f"recall {words}")
        await until(pilot, lambda: isinstance(app.screen, ConfirmBudget))
        question = str(app.screen.query_one("#question", Static).render())
        assert "cross-partition recall probes" in question and "the whole container" in question
        await pilot.press("n")
        await settle(pilot)
        screen = recall_screen(app)
        assert app.screen is screen and screen.report is None
        assert "nothing sent" in str(screen.query_one("#status").render())
        said_no = ledger.records()[before:]
        # No sends nothing but the count the estimate needed (the container's size).
        fanned = [r.operation for r in said_no if r.scope is Scope.CROSS_PARTITION]
        assert fanned == ["ttl-size"]
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmBudget))
        await pilot.press("y")
        await settle(pilot)
        assert screen.report is not None and screen.report.scope == TtlScope.container()
        probes = [r for r in ledger.records()[len(said_no) + before :]]
        assert any(r.scope is Scope.CROSS_PARTITION and r.operation != "ttl-size" for r in probes)
        assert "in the whole container" in summary(app)
