"""The Textual application: opens the session, owns the chrome, switches between views.

The app, not a view, owns what every view shares: the session (a reactive the views
watch), the header's ``Chrome``, notices (sign-in codes), the budget question (one
dialog at a time, whichever view's worker asks), the hold-off countdown, and every
subscription to the session's ledger (released when the session goes away). Views are
Textual modes built from the views' specs (``ui/views/``), so each keeps its state
(selection, filter, scroll) while another is shown. Keys come from the action
registry (``ui/registry.py``) and the keymap that rebinds them by id.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TextIO, TypeVar

from textual import events
from textual.actions import SkipAction
from textual.app import App
from textual.message import Message
from textual.reactive import var
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import AwaitMount, Widget

from cosmem_tui.config.files import ConfigError
from cosmem_tui.config.invocation import Invocation, session_options
from cosmem_tui.config.profiles import ConfigProfiles, ProfileChoice
from cosmem_tui.core.session import Session, SessionOptions
from cosmem_tui.core.startup import release_collection
from cosmem_tui.core.text import one_line, visible
from cosmem_tui.model import (
    BudgetQuestion,
    Clock,
    Key,
    SystemClock,
    ThreadRef,
)
from cosmem_tui.ui.actions import UiAction
from cosmem_tui.ui.app_messages import (
    Notice,
    Progress,
    Recorded,
    SessionFailed,
    SessionReady,
    Silent,
    Throttled,
)
from cosmem_tui.ui.commands import (
    Quit,
    ShowHelp,
    ShowSchema,
    SwitchProfile,
    SwitchView,
)
from cosmem_tui.ui.messages import describe_error
from cosmem_tui.ui.palette import ActionProvider
from cosmem_tui.ui.profiles import ProfileProvider, Profiles, honour_no_color
from cosmem_tui.ui.refresh import DEFAULT_INTERVAL_S, RefreshLoop
from cosmem_tui.ui.registry import the_registry
from cosmem_tui.ui.remote_terminal import animation_level, steady_cursor, why_not_quit
from cosmem_tui.ui.themes import DEFAULT_THEME, load_themes
from cosmem_tui.ui.view import APP_CSS, ViewScreen
from cosmem_tui.ui.views import VIEWS, view
from cosmem_tui.ui.widgets.header import Chrome, throttle_mark
from cosmem_tui.ui.workers import run_async

if TYPE_CHECKING:  # loaded where they are used: the session's modules once it opens
    from cosmem_tui.core.demo.live import LiveDemo
    from cosmem_tui.core.ledger_file import LedgerFile
    from cosmem_tui.core.write_log import Interrupt
    from cosmem_tui.model.lifecycle import TtlScope
    from cosmem_tui.ui.live_demo import LiveDemoTicker
    from cosmem_tui.ui.views.browse.screen import BrowseScreen

T = TypeVar("T")

TERMINAL_WATCH_S = 2.0
EXIT_TERMINAL_LOST = 129  # as if ended by SIGHUP
# Ended from outside (a kill, an SSH drop): quit the way q does, so the terminal is
# given back (no alternate screen or mouse reporting left on), a write under way first.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
COUNTDOWN_TICK_S = 0.2  # the hold-off countdown in the header, only while holding off


def terminal_alive(stream: TextIO | None) -> bool:
    """Is ``stream`` still a live terminal (not closed, not hung up, device not gone)?"""
    if stream is None or stream.closed:
        return False
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return False
        return os.path.exists(os.ttyname(fd))
    except (OSError, ValueError):
        return False


class CosmemApp(App[None]):
    TITLE = "cosmem"
    CSS = APP_CSS
    # Browse is the first screen Textual makes (no default screen made and then switched
    # away from: each switch restyles the app and re-parses the CSS).
    DEFAULT_MODE = "browse"
    COMMANDS: ClassVar = {ActionProvider, ProfileProvider}
    BINDINGS: ClassVar = the_registry().bindings(None, app_level=True)

    session: var[Session | None] = var(None)
    chrome: var[Chrome] = var(Chrome())
    live_tick_s: float | None = None  # the demo's live workload ticks (None: its own, 1 s)

    def __init__(
        self,
        options: SessionOptions | None = None,
        *,
        clock: Clock | None = None,
        theme: str | None = None,
        session_factory: Callable[[], Awaitable[Session]] | None = None,
        keymap: Mapping[str, str] | None = None,
        ledger: Path | None = None,
        refresh_s: float | None = None,
        tail_flood_share: float | None = None,
        profiles: Profiles | None = None,
        profile: str | None = None,
    ) -> None:
        honour_no_color()  # before Textual reads NO_COLOR
        super().__init__()
        self.animation_level = animation_level(os.environ)  # SSH: nothing moves by itself
        self.refresh_s = refresh_s  # a profile's live-view interval (None: the views' own)
        self.tail_flood_share = tail_flood_share  # the tail's flood warning (None: default)
        self.profiles = profiles  # :profile NAME switches to one of these
        self.profile_name = profile
        self.options = options or SessionOptions()
        self.clock = clock or SystemClock()
        self._session_factory = session_factory
        self.ledger_path = ledger  # --ledger: every request appended there (JSON Lines)
        self.ledger_file: LedgerFile | None = None
        self.registry = the_registry(keymap)
        self._write_interrupt: Interrupt | None = None  # a confirmed write under way
        self._quit_after_write: int | None = None  # a signal's exit status, once it ends
        self._signals: list[signal.Signals] = []
        self._unsubscribe: list[Callable[[], None]] = []
        self._asking = asyncio.Lock()  # one budget question on screen at a time
        self._countdown: Timer | None = None
        self._overruns_said = 0  # overruns already named on the status line
        self.live_demo: LiveDemoTicker | None = None  # the demo's live workload, while shown
        self.screens_by_view: dict[str, ViewScreen] = {}
        for spec in VIEWS:
            self._modes[spec.name] = self._screen_of(spec.name)
        # Themes are set before anything is styled: switching later restyles every widget.
        for loaded in load_themes():
            self.register_theme(loaded)
        self.theme = theme if theme in self.available_themes else DEFAULT_THEME
        if self.registry.keymap:
            self.set_keymap(dict(self.registry.keymap))

    def _screen_of(self, name: str) -> Callable[[], ViewScreen]:
        def make() -> ViewScreen:
            if name not in self.screens_by_view:
                screen = view(name).screen_class()()
                assert isinstance(screen, ViewScreen)
                self.screens_by_view[name] = screen
                self._apply_refresh(screen)
            return self.screens_by_view[name]

        return make

    @property
    def browse(self) -> ViewScreen:
        """The browse view (tests and scripts reach into it)."""
        return self._screen_of("browse")()

    @property
    def current_view(self) -> str | None:
        mode = self.current_mode
        return mode if mode in self.screens_by_view else None

    # -- start-up -------------------------------------------------------------------------

    def mount(
        self,
        *widgets: Widget,
        before: int | str | Widget | None = None,
        after: int | str | Widget | None = None,
    ) -> AwaitMount:
        # Textual mounts the app's own part of the first screen once that screen has
        # composed and painted itself; quitting in between (ctrl+c at the first frame)
        # has already taken the screen away: there is nothing left to mount into.
        screen = self.screen
        if not screen.is_attached:
            return AwaitMount(screen, [])
        return super().mount(*widgets, before=before, after=after)

    def on_mount(self) -> None:
        if not self.is_headless:
            self.set_interval(TERMINAL_WATCH_S, self._watch_terminal)
            self._catch_signals()
        # Only whether the file is there: its generation is read after the first frame.
        first_run = self.options.is_demo and not self.options.workspace_path.exists()
        if first_run and self._session_factory is None:
            self.chrome = replace(self.chrome, source="first run: creating the demo workspace…")

    def on_ready(self) -> None:
        # Textual sends Ready once the first frame is on the terminal: the user sees the
        # console before anything reaches the network (or builds the demo).
        release_collection()  # held by the entrance while it loaded (core/startup.py)
        run_async(self, self._open, group="session", exit_on_error=False)

    def _watch_terminal(self) -> None:
        # A process that outlives its terminal (an SSH drop without SIGHUP reaching it,
        # a killed multiplexer) would otherwise spin on a dead input stream at 100% CPU
        # on a shared jump box. Leave instead.
        if not terminal_alive(sys.__stdin__):
            self._quit_after_writes("a lost terminal", EXIT_TERMINAL_LOST)

    async def _open(self) -> None:
        """Build the demo on first run (on a thread), open the session, report back.

        A Cosmos session opens on this event loop: its client and credential serve
        the whole session, detection included.
        """
        # Opening runs after the first frame (on Ready): the stores, the schemas and the
        # demo generator load here, not before the console is on the screen.
        from cosmem_tui.compose import build_demo, open_session

        try:
            if self._session_factory is not None:
                session = await self._session_factory()
            else:
                if self.options.needs_demo_build():

                    def progress(done: float) -> None:
                        text = f"first run: creating the demo workspace… {done:.0%}"
                        self.post_message(Progress(text))

                    await asyncio.to_thread(
                        build_demo, self.options.workspace_path, self.clock, progress
                    )
                session = await open_session(
                    self.options,
                    self.clock,
                    notice=self._poster(Notice),  # sign-in prompts
                )
        except Exception as exc:
            self.post_message(SessionFailed(describe_error(exc)))
            return
        self.post_message(SessionReady(session))

    def _poster(self, message: Callable[[T], Message]) -> Callable[[T], None]:
        """A callback, safe from any thread, that posts ``message(value)`` to the app."""

        def post(value: T) -> None:
            self.post_message(message(value))

        return post

    def on_progress(self, message: Progress) -> None:
        self.chrome = replace(self.chrome, source=message.text)

    def on_notice(self, message: Notice) -> None:
        # Sign-in codes stay up long enough to be typed on another device.
        self.notify(message.text, title="cosmem", severity="warning", timeout=600)

    def on_session_ready(self, message: SessionReady) -> None:
        self._attach_session(message.session)

    def _attach_session(self, session: Session) -> None:
        """Subscribe to the session's ledger (every handle kept) and hand it to the views."""
        self._stop_live_demo()
        self._release()
        request_ledger = session.ledger
        self._unsubscribe = [
            request_ledger.subscribe(self._poster(Recorded)),
            request_ledger.subscribe_throttle(self._poster(Throttled)),
            request_ledger.subscribe_notice(self._poster(Notice)),
            request_ledger.subscribe_silence(self._poster(Silent)),
        ]
        self._overruns_said = 0
        request_ledger.set_confirmer(self.confirm_budget)
        self._unsubscribe.append(lambda: request_ledger.set_confirmer(None))
        ledger_error = self._attach_ledger(session)
        source = "demo workspace" if session.is_demo else session.store.label
        if self.profile_name:  # which account, said once: the profile names it
            source = f"{self.profile_name}: {source}"
        writes = session.writes is not None  # --allow-writes: offered, and shown in red
        self.registry.writes_allowed = writes
        self.chrome = replace(
            self.chrome,
            source=source,
            schema=session.schema.name,
            schema_reason=session.schema_why(self.options.schema),
            totals=request_ledger.totals(),
            writes=writes,
        )
        for screen in self.screens_by_view.values():
            if screen.is_mounted:
                screen.show_hints()
        self.session = session
        self._start_live_demo(session)
        run_async(self, self._fetch_container, group="container", exit_on_error=False)
        if session.notes:
            self.notify("; ".join(session.notes), timeout=8)
        if ledger_error:
            self.notify(ledger_error, severity="error", timeout=30)
            browse = self.screens_by_view.get("browse")
            if browse is not None:
                browse.set_status(ledger_error, error=True)

    def _start_live_demo(self, session: Session) -> None:
        """The demo's simulated agents write it while its label is in the header: only a
        demo session (never a user's workspace or an account), and not with --still."""
        if not session.is_demo or session.build_live_demo is None:
            return
        from cosmem_tui.ui.live_demo import LiveDemoTicker

        def build() -> LiveDemo | None:
            return session.live_demo  # on the first tick, in its thread

        self.live_demo = LiveDemoTicker(self, build, interval_s=self.live_tick_s)
        self.live_demo.start()

    def _stop_live_demo(self) -> None:
        if self.live_demo is not None:
            self.live_demo.stop()
            self.live_demo = None

    def _attach_ledger(self, session: Session) -> str | None:
        """Before the views start their requests; what went wrong, else None."""
        if self.ledger_path is None or self.ledger_file is not None:
            return None
        from cosmem_tui.core.ledger_file import LedgerFile  # only for a run that keeps one

        try:
            self.ledger_file = LedgerFile(self.ledger_path)
        except OSError as exc:
            return f"--ledger {self.ledger_path}: {exc.strerror or exc}"
        self.ledger_file.attach(session.ledger)
        return None

    def _release(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    async def _fetch_container(self) -> None:
        session = self.session
        if session is None:
            return
        try:
            with session.ledger.caused_by("open: read the container"):
                container = await session.browse.container()
        except Exception:
            return  # the views show the failure where it matters (their own loads)
        self.call_later(lambda: setattr(self, "chrome", replace(self.chrome, container=container)))

    def on_session_failed(self, message: SessionFailed) -> None:
        screen = self.screens_by_view.get("browse")
        if isinstance(screen, ViewScreen):
            screen.set_status(message.error, error=True)

        def retry(again: bool | None) -> None:
            if again:
                self.chrome = replace(self.chrome, source="opening again…")
                run_async(self, self._open, group="session", exit_on_error=False)

        from cosmem_tui.ui.failure import SessionFailedScreen

        self.push_screen(SessionFailedScreen(message.error, self._where()), retry)

    def _where(self) -> str:
        options = self.options
        if options.cosmos is not None:
            return options.cosmos.describe()
        return f"the workspace {options.workspace_path}"

    # -- the ledger, throttling, the budget ------------------------------------------------

    def on_recorded(self, message: Recorded) -> None:
        if self.session is not None:
            totals = self.session.ledger.totals()
            self.chrome = replace(self.chrome, totals=totals)
            if totals.overruns > self._overruns_said:  # the header marks it; say which
                self._overruns_said = totals.overruns
                overrun = self.session.ledger.overruns()[-1]
                self._say(f"over the RU budget: {overrun.describe()}")

    def on_silent(self, message: Silent) -> None:
        """Said once when the account goes silent: background work stops, a key retries."""
        if self.session is not None:
            self.chrome = replace(self.chrome, totals=self.session.ledger.totals())
        if message.event.silent:
            self._say(f"{message.event.text}: background counts stopped · r tries again")

    def _say(self, text: str) -> None:
        screen = self.screen
        view = screen if isinstance(screen, ViewScreen) else None
        if view is None:  # under a dialog: the view it covers
            view = self.screens_by_view.get(self.current_view or "browse")
        if view is not None:
            view.say(text)

    def on_throttled(self, message: Throttled) -> None:
        """A 429: count down the session's hold-off in the header until it is over."""
        self._show_hold_off()
        if self._countdown is None:
            self._countdown = self.set_interval(COUNTDOWN_TICK_S, self._show_hold_off)

    def _show_hold_off(self) -> None:
        if self.session is None:
            return
        request_ledger = self.session.ledger
        pause = request_ledger.throttle_pause_s()
        if pause > 0:  # named by its cause: only an RU budget is helped by more RU/s
            mark = throttle_mark(pause, request_ledger.last_throttle())
            self.chrome = replace(self.chrome, throttle=mark)
            return
        self.chrome = replace(self.chrome, throttle="")
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None

    async def confirm_budget(self, question: BudgetQuestion) -> bool:
        """The ledger's confirmer: one modal at a time, whichever view's worker asks."""
        async with self._asking:
            answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

            def done(result: bool | None) -> None:
                if not answer.done():
                    answer.set_result(bool(result))

            from cosmem_tui.ui.confirm import ConfirmBudget

            self.push_screen(ConfirmBudget(question), done)
            return await answer

    # -- views, commands, help -------------------------------------------------------------

    def action_switch_view(self, name: str) -> None:
        if name == self.current_mode:
            return
        self.switch_mode(name)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``:`` typed while the command bar is open is text in it, not a new bar."""
        if action == "command_bar" and isinstance(self.screen, ViewScreen):
            return not self.screen.bar_is_open
        return True

    def action_command_bar(self) -> None:
        screen = self.screen
        if isinstance(screen, ViewScreen):
            screen.open_command_bar()

    def action_help(self) -> None:
        from cosmem_tui.ui.help import HelpScreen  # loaded when first asked for

        screen = self.screen
        if isinstance(screen, HelpScreen):
            screen.dismiss()  # ? again closes it
        elif isinstance(screen, ModalScreen):
            raise SkipAction()  # a dialog keeps its keys
        else:
            self.push_screen(HelpScreen(self.registry, self.current_view))

    def action_schema(self) -> None:
        """Which schema reads the container and why (the header has room for it only
        when wide)."""
        chrome = self.chrome
        if chrome.schema:
            text = one_line(f"schema {chrome.schema}: {chrome.schema_reason}")
            self.notify(text, title="schema", timeout=10, markup=False)

    def run_command(self, line: str) -> None:
        """One ``:`` line: the app's own commands (views, help, quit) here, the rest by the
        current view, which parses them with what it knows (the schema, the tenant)."""
        command = self.registry.parse(line, None)  # app-level actions only
        match command:
            case None:
                return
            case Quit():
                self.quit_if_safe()
            case ShowHelp():
                self.action_help()
            case SwitchProfile(name):
                self.switch_profile(name)
            case ShowSchema():
                self.action_schema()
            case SwitchView(name, args):
                self.action_switch_view(name)
                screen = self.screens_by_view.get(name)
                if screen is not None:
                    screen.open_with(args)  # a typed :NAME: what it names (or nothing)
            case _:
                shown = self.screen
                if isinstance(shown, ViewScreen):
                    shown.run_view_command(line)

    def show_in_browse(self, target: Key | ThreadRef, item_id: str | None = None) -> None:
        """Another view names a tenant, a thread or an item: browse opens it, as
        ``:tenant`` would."""
        browse = self._browse_screen()
        self.action_switch_view("browse")
        if isinstance(target, ThreadRef):
            browse.show_thread(target)
            if item_id is not None:
                browse.open_detail((item_id, None))
        else:
            browse.show_tenant(target)

    def recall_turn(self, ref: ThreadRef, item_id: str, *, expected: bool = False) -> None:
        """Browse's "what does this recall?" (or "why not this?") on a turn."""
        from cosmem_tui.ui.views.recall.screen import RecallScreen  # loaded when first used

        recall = self._screen_of("recall")()
        assert isinstance(recall, RecallScreen)
        self.action_switch_view("recall")
        if expected:
            recall.expect_turn(ref, item_id)
        else:
            recall.probe_like(ref, item_id)

    def browse_selection(self) -> TtlScope:
        screen = self.screens_by_view.get("browse")
        if screen is None or not screen.is_mounted:
            from cosmem_tui.model.lifecycle import TtlScope

            return TtlScope.container()
        return self._browse_screen().lifecycle_scope()

    def _browse_screen(self) -> BrowseScreen:
        from cosmem_tui.ui.views.browse.screen import BrowseScreen

        browse = self.browse
        assert isinstance(browse, BrowseScreen)
        return browse

    def run_registry_action(self, action: UiAction) -> None:
        """Run an action picked from the palette, on the screen it applies to."""
        self.call_later(self.run_action, action.action, self.screen)

    # -- profiles -------------------------------------------------------------------------------

    def switch_profile(self, name: str) -> None:
        """:profile NAME: close this session, open the profile's, put on its look, browse."""
        try:
            if self.profiles is None:
                raise ConfigError("no config profiles here (cosmem config init writes a file)")
            choice = self.profiles.choose(name)
        except ConfigError as exc:  # no such profile (the message lists them), a bad value
            message = visible(str(exc))  # names from the file and the command line
            self.notify(message, title="cosmem", severity="error", timeout=10, markup=False)
            return
        self.run_worker(self._switch(choice), group="session", exclusive=True, exit_on_error=False)

    async def _switch(self, choice: ProfileChoice) -> None:
        old, self.session = self.session, None
        try:
            await self._close_session(old)
        except Exception as exc:
            self.notify(f"closing the previous session: {describe_error(exc)}", timeout=8)
        self.ledger_file = None  # reopened on the new session's ledger
        self.options = choice.options
        self._session_factory = None
        self.profile_name = choice.name
        self.theme = choice.theme if choice.theme in self.available_themes else DEFAULT_THEME
        self.registry.keymap.clear()
        self.rebind(choice.keymap)
        self.refresh_s = choice.refresh_s
        self.tail_flood_share = choice.tail_flood_share
        for screen in self.screens_by_view.values():
            self._apply_refresh(screen)
        self.chrome = replace(
            Chrome(), view=self.chrome.view, source=f"profile {choice.name}: opening…"
        )
        self.action_switch_view("browse")
        await self._open()

    def _apply_refresh(self, screen: ViewScreen) -> None:
        loop = getattr(screen, "loop", None)
        if isinstance(loop, RefreshLoop):
            loop.interval_s = self.refresh_s if self.refresh_s is not None else DEFAULT_INTERVAL_S

    def rebind(self, keymap: Mapping[str, str]) -> None:
        """New keys for actions, by id: bindings, hints, help and palette follow."""
        self.registry.rebind(keymap)
        self.set_keymap(dict(self.registry.keymap))
        for screen in self.screens_by_view.values():
            if screen.is_mounted:
                screen.show_hints()

    # -- keys ---------------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        # While the command bar is open, keys are applied here, in the order they
        # arrived, before Textual would queue them on a widget (see CommandBar).
        if isinstance(event, events.Key) and not event.is_forwarded and self._screen_stack:
            screen = self.screen
            if isinstance(screen, ViewScreen) and screen.bar_is_open and screen.bar_key(event):
                return
        await super().on_event(event)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        steady_cursor(event.widget)  # every input, whoever made it: no blink over SSH

    async def action_quit(self) -> None:  # q, ctrl+c, :q
        self.quit_if_safe()

    # -- signals ------------------------------------------------------------------------------

    def _catch_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            with suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
                loop.add_signal_handler(sig, self.signalled, sig)
                self._signals.append(sig)

    def _release_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._signals:
            with suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)
        self._signals.clear()

    def signalled(self, sig: signal.Signals) -> None:
        """SIGTERM or SIGHUP: quit as ``q`` does, a write under way stopped first."""
        self._quit_after_writes(sig.name, 128 + int(sig))

    def _quit_after_writes(self, reason: str, status: int) -> None:
        """Quit with ``status``; a write under way is first asked to stop between two
        requests, and the console quits once its audit lines are written."""
        if self._write_interrupt is None:
            self.exit(return_code=status)
            return
        self._write_interrupt.request(reason)
        self._quit_after_write = status
        why = f"{reason}: stopping the write after the request in flight, then quitting"
        if isinstance(self.screen, ViewScreen):
            self.screen.set_status(why, error=True)

    def write_applying(self, interrupt: Interrupt | None) -> None:
        self._write_interrupt = interrupt
        if interrupt is None and self._quit_after_write is not None:
            self.exit(return_code=self._quit_after_write)

    def quit_if_safe(self) -> None:
        why = why_not_quit(self.workers)
        if why is None:
            self.exit()
            return
        if isinstance(self.screen, ViewScreen):
            self.screen.set_status(why, error=True)
        self.notify(why, title="not quitting", severity="warning", markup=False)

    async def on_unmount(self) -> None:
        self._release_signals()
        await self._close_session(self.session)

    async def _close_session(self, session: Session | None) -> None:
        """Let go of ``session``: the ledger's subscriptions and confirmer first, then the
        session, then the --ledger file (after the session: its last records are in)."""
        self._stop_live_demo()  # the session closes the workload after its tick in progress
        self._release()
        try:
            if session is not None:
                await session.close()
        finally:
            if self.ledger_file is not None:
                self.ledger_file.close()


def run_app(invocation: Invocation) -> int:
    """The console with one run's settings (resolved by ``cli`` from flags, environment
    and profile); the config file's profiles can be switched to when one was read."""
    app = CosmemApp(
        session_options(invocation),
        theme=invocation.theme,
        ledger=invocation.ledger,
        keymap=invocation.keymap,
        refresh_s=invocation.refresh_s,
        tail_flood_share=invocation.tail_flood_share,
        profiles=ConfigProfiles(_action_ids) if invocation.configured else None,
        profile=invocation.profile,
    )
    app.run()
    return app.return_code or 0


def _action_ids() -> list[str]:
    return [action.id for action in the_registry().actions]
