"""What a command says to the person at the terminal: one question (the budget's, a
write's, an erase's typed thread id all go through it), one progress line that
rewrites itself on a terminal only and never fails the work when the terminal is gone."""

from __future__ import annotations

import io

import pytest

from cosmem_tui.cli import terminal


class Terminal(io.StringIO):
    """A stderr that is a terminal, or one that went away (EIO) when ``gone``."""

    def __init__(self, *, tty: bool = True, gone: bool = False) -> None:
        super().__init__()
        self.tty, self.gone = tty, gone

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        if self.gone:
            raise OSError(5, "Input/output error")
        return super().write(text)


@pytest.mark.parametrize(
    ("answer", "agreed"),
    [("y\n", True), ("YES\n", True), (" yes \n", True), ("n\n", False), ("\n", False)],
)
async def test_ask_writes_the_prompt_and_reads_one_line(monkeypatch, answer, agreed):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr("sys.stdin", io.StringIO(answer + "more\n"))
    assert await terminal.ask("write this? [y/N] ") is agreed
    assert err.getvalue() == "cosmem: write this? [y/N] "  # the answer goes on that line


async def test_ask_takes_the_judge_of_the_answer(monkeypatch):
    monkeypatch.setattr("sys.stderr", Terminal())
    monkeypatch.setattr("sys.stdin", io.StringIO("small\n"))
    assert await terminal.ask("type it: ", lambda line: line.strip() == "small")


def test_the_progress_line_rewrites_itself_on_a_terminal(monkeypatch):
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    line = terminal.ProgressLine()
    line.show("listing tenants: 10 so far, 3.0 RU")
    line.show("listing tenants: 20 so far, 6.0 RU")
    line.done()
    assert err.getvalue() == (
        "\rcosmem: listing tenants: 10 so far, 3.0 RU \rcosmem: listing tenants: 20 so far, "
        "6.0 RU \n"
    )


def test_no_progress_line_on_a_pipe(monkeypatch):
    err = Terminal(tty=False)
    monkeypatch.setattr("sys.stderr", err)
    line = terminal.ProgressLine()
    line.show("deleted 1 of 3")
    line.done()
    assert err.getvalue() == ""


def test_a_terminal_gone_does_not_stop_the_work(monkeypatch):
    """Before, the listing's progress class wrote unguarded: an EIO after SIGHUP ended
    the listing with a traceback (the erase's copy guarded it)."""
    monkeypatch.setattr("sys.stderr", Terminal(gone=True))
    line = terminal.ProgressLine()
    line.show("listing tenants: 10 so far, 3.0 RU")
    line.done()
    terminal.report("cosmem: done")


def test_a_listing_on_a_terminal_that_went_away_still_prints_its_output(
    capsys, demo_path, monkeypatch
):
    from cosmem_tui import cli

    with capsys.disabled():
        out = io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        monkeypatch.setattr("sys.stderr", Terminal(gone=True))
        monkeypatch.setattr("sys.stdin.isatty", lambda: False)
        code = cli.main(["tenants", "--workspace", str(demo_path), "--json", "--no-counts"])
    assert code == 0 and out.getvalue().count('"tenant"') == 48
