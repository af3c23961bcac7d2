"""What the two telemetry views share: the window, the refresh loop, the status line.

A telemetry view asks the session's service on the platform's refresh loop while it is
on screen, drops an answer to a question it no longer asks (another window, another
region, another level), redraws nothing when the answer is what it shows already, and
says how to configure telemetry when the session has none. The status line carries the
window (and the region, on an account with several) and the loop's state, or what
went wrong with the last refresh.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from rich.text import Text
from textual.widgets import Static

from cosmem_tui.core.regions import RegionView, next_region
from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model.telemetry import HotKeysReport, TelemetryAbout, ThroughputReport, Window
from cosmem_tui.ui.commands import Mistake
from cosmem_tui.ui.messages import describe_error
from cosmem_tui.ui.refresh import RefreshLoop
from cosmem_tui.ui.telemetry.commands import SetRegion, SetWindow
from cosmem_tui.ui.telemetry.reports import forget_answers, is_unconfigured, next_window
from cosmem_tui.ui.view import ViewScreen

R = TypeVar("R", ThroughputReport, HotKeysReport)


class Line1(Static):
    """A short Static (a line or two) that redraws only when its text changed."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.shown: Text | None = None

    def say(self, text: Text) -> None:
        if self.shown is not None and text == self.shown:
            return
        self.shown = text
        self.update(text)


class TelemetryScreen(ViewScreen, Generic[R]):
    LOOP_NAME = "telemetry"

    def __init__(self) -> None:
        super().__init__()
        self.window = Window.M15
        # The region asked for (z, :region); None: the write region. (Not ``region``:
        # that is every Textual widget's place on screen.)
        self.chosen_region: str | None = None
        self.report: R | None = None
        self.loop: RefreshLoop[R | None] = RefreshLoop(
            self, self._fetch, self._arrived, failed=self._fetch_failed, name=self.LOOP_NAME
        )
        self._error: str | None = None
        self._status_shown: tuple[str, bool] | None = None

    # -- what each view says ------------------------------------------------------------------

    def source(self) -> TelemetryAbout | None:
        """The service's ``about``; None when the session has no telemetry."""
        raise NotImplementedError

    async def ask(self) -> R:
        """The report for what the view shows now (called only with a source)."""
        raise NotImplementedError

    def asked(self, report: R) -> bool:
        """Does ``report`` answer what the view asks now?"""
        return report.window is self.window and report.region_asked == self.chosen_region

    def put(self, report: R) -> None:
        """Show a report that differs from the one on screen."""
        raise NotImplementedError

    def unconfigured(self) -> None:
        """Say how to configure telemetry where the data would be."""
        raise NotImplementedError

    def question_changed(self) -> None:
        """The window changed: the view empties what no longer holds, the loop asks."""
        self.loop.changed()

    # -- the session and the loop -----------------------------------------------------------

    def session_ready(self, session: Session) -> None:
        about = self.source()
        if about is None:
            self.unconfigured()
            return
        self.query_one("#headline", Line1).say(Text(f"asking {about.label}…"))
        if not self.loop.hidden:
            self.loop.refresh_now()

    def on_screen_resume(self) -> None:
        if self.session is None or self.source() is not None:
            self.loop.shown()

    def on_screen_suspend(self) -> None:
        self.loop.hidden_now()

    async def _fetch(self) -> R | None:
        session = self.session
        if session is None or self.source() is None:
            return None
        with session.ledger.caused_by(f"{self.VIEW}: refresh {self.window.label}"):
            return await self.ask()

    def _fetch_failed(self, error: BaseException) -> None:
        self._error = f"{self.VIEW}: {describe_error(error)} · ctrl+r retries"
        self.show_status()

    def _arrived(self, report: R | None) -> None:
        if report is None:
            if self.session is not None and self.source() is None:
                self.unconfigured()
            return
        if not self.asked(report):
            return  # the answer to a question asked before the last w, → or ←
        self._error = None
        if is_unconfigured(report.problems):
            self.unconfigured()
            return
        if report == self.report:
            self.show_status()
            return  # nothing new: write nothing to the terminal
        self.put(report)
        self.show_status()

    # -- the status line ----------------------------------------------------------------------

    def status_text(self) -> str | None:
        """The line when all is well; None leaves the line as it is."""
        region = ""
        report = self.report
        if report is not None and len(report.regions) > 1 and report.region:
            region = f" · region {one_line(report.region, 30)} (z cycles)"
        return f"window {self.window.label} (w cycles){region} · refresh {self.loop.describe()}"

    def show_status(self) -> None:
        if self._error is not None:
            shown: tuple[str, bool] = (self._error, True)
        else:
            text = self.status_text()
            if text is None:
                return
            shown = (text, False)
        if shown != self._status_shown:  # an unchanged line must not redraw
            self._status_shown = shown
            self.set_status(*shown)

    # -- actions --------------------------------------------------------------------------------

    def action_cycle_window(self) -> None:
        self.set_window(next_window(self.window))

    def set_window(self, window: Window) -> None:
        if window is self.window:
            return
        self.window = window
        if self.source() is None:
            self.show_status()
            return
        self.question_changed()
        self.show_status()

    def action_cycle_region(self) -> None:
        self.set_region(None)

    def set_region(self, region: str | None) -> None:
        """Show ``region`` (None: the one after the region shown)."""
        report = self.report
        choices = report.regions if report is not None else ()
        if region is None:
            shown = RegionView(report.region, "", choices) if report is not None else None
            region = next_region(shown, choices)
            if region is None or len(choices) < 2:
                self._status_shown = None
                self.set_status("this account has one region known: no other to show")
                return
        if region == self.chosen_region:
            return
        self.chosen_region = region
        if self.source() is None:
            self.show_status()
            return
        self.question_changed()
        self.show_status()

    def action_toggle_pause(self) -> None:
        paused = self.loop.toggle_pause()
        self.show_status()
        if paused:
            self._status_shown = None
            self.set_status("paused: what is shown stays as it is (p resumes)")

    def action_refresh_now(self) -> None:
        if self.source() is not None:
            forget_answers(self.session)  # asked for now: not an answer kept from before
            self.loop.refresh_now()

    def run_view_command(self, line: str) -> None:
        command = self.cosmem.registry.parse(line, self.VIEW)
        match command:
            case SetWindow(window):
                self.set_window(window if window is not None else next_window(self.window))
            case SetRegion(region):
                self.set_region(region)
            case Mistake(message):
                self._status_shown = None
                self.set_status(message, error=True)
            case _:
                pass
