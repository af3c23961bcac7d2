"""Opening what is named rather than picked: ``:tenant NAME``, ``:thread [TENANT] ID``,
and a tenant or thread another view hands over (through the app's ``Host``)."""

from __future__ import annotations

from cosmem_tui.core.text import one_line
from cosmem_tui.model import Key, Meter, Thread, ThreadRef
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import describe_error
from cosmem_tui.ui.views.browse.levels import BrowseLevels, Level
from cosmem_tui.ui.workers import run_async


class BrowseByName(BrowseLevels):
    def __init__(self) -> None:
        super().__init__()
        self.tenant_loader = Loader(self, "tenant")  # :tenant NAME, found before it is shown

    def show_tenant(self, tenant: Key | str) -> None:
        """A tenant's threads, its row selected in the list: ``:tenant NAME`` (typed text)
        and the other views (a Key, which keeps its JSON type) both come here."""
        if self.session is None:
            return
        self._select_key_row(tenant)
        self.open_threads(tenant)

    def action_open_tenant_prompt(self) -> None:
        """A key bound to ``browse.tenant`` (none is by default): ``:tenant`` to finish."""
        label = self.session.schema.tenant_label if self.session is not None else "tenant"
        self.open_command_bar(f"{label} ")

    def action_open_thread_prompt(self) -> None:
        """A key bound to ``browse.thread``: ``:thread`` to finish."""
        self.open_command_bar("thread ")

    def open_named_tenant(self, text: str) -> None:
        """``:tenant NAME``: list the tenant's threads first, then show them; a name
        that is no tenant says so and leaves the view where it was (an open thread
        stays open)."""
        assert self.session is not None
        session = self.session

        def found(value: tuple[Key, list[Thread]], cost: Meter) -> None:
            self._select_key_row(value[0])
            self.thread_column.show_found(session, value, cost)
            self.level = Level.THREADS
            self.layout_columns()

        def failed(error: str) -> None:
            self.set_status(error, error=True)

        self.tenant_loader.bump()
        self.set_status(f"looking for {session.schema.tenant_label} {one_line(text, 40)}…")
        self.tenant_loader.start(
            session,
            lambda: session.browse.threads_named(text),
            found,
            failed,
            cause="browse: open a tenant",
        )

    def show_thread(self, ref: ThreadRef) -> None:
        """A thread's turns, named by keys (no lookup): its tenant's threads beside them."""
        if self.session is None:
            return
        if ref.tenant is not None:
            self.show_tenant(ref.tenant)
        else:
            self._select_key_row(ref.thread)
        self._open_resolved(ref)

    def _open_named_thread(self, tenant: str | None, thread: str, *, tenant_given: bool) -> None:
        """``:thread [TENANT] ID``: resolve the typed names to keys, then open the turns."""
        assert self.session is not None
        session = self.session
        if tenant_given and tenant is not None:
            self.show_tenant(tenant)
        current = self.tenant if not tenant_given else None

        async def resolve() -> None:
            try:  # the CLI's reading of names: the first that exists wins
                ref = await session.browse.resolve(current or tenant, thread)
            except Exception as exc:
                self.call_later(self.set_status, describe_error(exc), True)
                return
            self.call_later(self._open_resolved, ref)

        run_async(self, resolve, group="resolve", exclusive=True, exit_on_error=False)

    def _open_resolved(self, ref: ThreadRef) -> None:
        # The columns beside the turns highlight the thread opened (and its tenant), not
        # the rows the cursor was on before the command.
        if ref.tenant is not None:
            self._select_key_row(ref.tenant)
            if self.thread_column.tenant in (None, ref.tenant):
                self.thread_column.select_thread(ref.thread)
        else:
            self._select_key_row(ref.thread)
        threads = self.thread_column.threads
        known = next((t for t in threads if t.ref == ref), None)
        self.open_turns(ref, known.items if known else None)
