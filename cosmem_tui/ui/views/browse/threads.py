"""The threads of a tenant (browse's second column)."""

from __future__ import annotations

from textual.message import Message

from cosmem_tui.core.session import Session
from cosmem_tui.core.text import one_line
from cosmem_tui.model import Key, Meter, Thread
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text, plain
from cosmem_tui.ui.views.browse.rows import (
    THREAD_COLUMNS,
    ThreadRows,
)
from cosmem_tui.ui.views.browse.status import RETRY, Status, failed_text
from cosmem_tui.ui.widgets.row_list import RowList


class ThreadsLoaded(Message):
    def __init__(self, tenant: Key) -> None:
        super().__init__()
        self.tenant = tenant


class ThreadsFailed(Message):
    pass


class ThreadColumn(RowList):
    def __init__(self) -> None:
        super().__init__(THREAD_COLUMNS, id="threads", empty_text="no threads", noun="threads")
        self.session: Session | None = None
        self.tenant: Key | None = None
        self.threads: list[Thread] = []
        self.loader = Loader(self, "threads")
        self.wanted: Key | None = None  # the thread to highlight once listed (":thread ID")

    def open(self, session: Session, tenant: Key | str) -> None:
        """A tenant's threads: a Key from the list, or the text a person typed."""
        self.session = session
        self.loader.bump()
        self.tenant = tenant if isinstance(tenant, Key) else None
        self.threads = []
        self.wanted = None
        self.set_source(ThreadRows([], session.clock), empty_text="loading threads…")
        name = tenant.text if isinstance(tenant, Key) else tenant
        self.set_title(f"threads of {one_line(name, exact=True)}")
        self.border_subtitle = plain("loading…")
        service = session.browse

        async def fetch() -> tuple[Key, list[Thread]]:
            if isinstance(tenant, Key):
                return tenant, await service.threads(tenant)
            return await service.threads_named(tenant)

        self.loader.start(session, fetch, self._loaded, self._failed, cause="browse: open a tenant")

    def show_found(self, session: Session, value: tuple[Key, list[Thread]], cost: Meter) -> None:
        """A tenant's threads already listed (``:tenant NAME`` found it first)."""
        self.session = session
        self.loader.bump()
        self.wanted = None
        self.clear_message()
        self._loaded(value, cost)

    def _loaded(self, value: tuple[Key, list[Thread]], cost: Meter) -> None:
        assert self.session is not None
        self.tenant, self.threads = value
        self.set_source(ThreadRows(self.threads, self.session.clock), empty_text="no threads")
        self.set_title(
            f"threads of {one_line(self.tenant.text, exact=True)}", f"{len(self.threads):,}"
        )
        if self.wanted is not None:
            self.select_thread(self.wanted)
        self.border_subtitle = plain(cost_text(cost))
        self.post_message(Status(""))
        self.post_message(ThreadsLoaded(self.tenant))

    def _failed(self, error: str) -> None:
        self.border_subtitle = plain("failed")
        self.show_message(failed_text("opening the tenant", error))
        self.post_message(Status(f"{error} · {RETRY}", error=True))
        self.post_message(ThreadsFailed())

    def select_thread(self, thread: Key) -> None:
        """Highlight ``thread``'s row; if the list is still loading, once it is listed."""
        self.wanted = thread
        index = next((i for i, t in enumerate(self.threads) if t.ref.thread == thread), None)
        if index is not None:
            self.wanted = None
            self.select_index(index)

    @property
    def current_thread(self) -> Thread | None:
        index = self.current_index
        return self.threads[index] if index is not None and index < len(self.threads) else None
