"""One guarded write from a view: plan in a worker, confirm on screen, apply in a worker.

The plan is a fresh read (the item's ttl and ETag, or the thread's item count); the
confirmation shows ``describe_plan``'s lines; a ``y`` applies a ttl change, and only the
thread's id typed out applies an erase. While it is applied the app holds its
``Interrupt``, so a SIGTERM or SIGHUP stops an erase between two deletes (the audit log
gets its closing line) before the console quits. The outcome
(written, a 412 conflict, nothing found, declined) goes to the status line and to the
view's ``done`` callback, which reloads what changed. Without ``--allow-writes`` the
session has no ``WriteService`` and nothing here runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from cosmem_tui.core.text import one_line
from cosmem_tui.core.write_log import Interrupt
from cosmem_tui.core.writes import WriteService, describe_plan
from cosmem_tui.model.writes import WriteAction, WriteOutcome, WritePlan, WriteStatus
from cosmem_tui.ui.confirm_write import ConfirmWrite
from cosmem_tui.ui.messages import describe_error
from cosmem_tui.ui.remote_terminal import APPLY_WORKER
from cosmem_tui.ui.view import ViewScreen
from cosmem_tui.ui.workers import run_async

Planner = Callable[[WriteService], Awaitable[WritePlan]]


def run_write(
    screen: ViewScreen,
    cause: str,
    planner: Planner,
    done: Callable[[WriteOutcome], None],
) -> None:
    session = screen.session
    writes = session.writes if session is not None else None
    if session is None or writes is None:
        screen.set_status("writes are off: start cosmem with --allow-writes", error=True)
        return
    ledger = session.ledger
    screen.set_status("reading what the write would change…")

    async def plan_it() -> None:
        try:
            with ledger.caused_by(cause):
                plan = await planner(writes)
        except Exception as exc:
            screen.call_later(screen.set_status, describe_error(exc), True)
            return
        lines = describe_plan(plan, session.clock.now(), str(writes.audit.path))
        screen.call_later(confirm, plan, lines)

    def confirm(plan: WritePlan, lines: list[str]) -> None:
        def answered(yes: bool | None) -> None:
            if not yes:
                screen.set_status("nothing was written")
                return
            screen.set_status("writing…")
            interrupt = Interrupt()
            screen.cosmem.write_applying(interrupt)
            run_async(
                screen,
                partial(apply_it, plan, interrupt),
                name=APPLY_WORKER,  # the app will not quit under it
                group="write",
                exclusive=True,
                exit_on_error=False,
            )

        typed = plan.ref.thread.text if plan.action is WriteAction.ERASE_THREAD else None
        screen.app.push_screen(ConfirmWrite(lines, type_to_confirm=typed), answered)

    async def apply_it(plan: WritePlan, interrupt: Interrupt) -> None:
        def progress(deleted: int, total: int) -> None:
            screen.call_later(screen.set_status, f"erasing: {deleted:,} of {total:,} deleted")

        try:
            with ledger.caused_by(cause):
                outcome = await writes.apply(plan, progress, interrupt)
        except Exception as exc:
            screen.call_later(screen.set_status, describe_error(exc), True)
            screen.call_later(screen.cosmem.write_applying, None)
            return
        screen.call_later(finish, outcome)

    def finish(outcome: WriteOutcome) -> None:
        done(outcome)  # reloads what changed; the reloaded list clears the status line,
        failed = outcome.status is not WriteStatus.DONE  # so the outcome is a notice too
        screen.set_status(outcome.message, error=failed)
        screen.app.notify(
            one_line(outcome.message),
            title="write" if not failed else f"write: {outcome.status.value}",
            severity="error" if failed else "information",
            timeout=30 if failed else 10,
            markup=False,  # ids and keys are data
        )
        screen.cosmem.write_applying(None)  # last: a quit a signal asked for happens now

    run_async(screen, plan_it, group="write", exclusive=True, exit_on_error=False)
