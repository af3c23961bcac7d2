"""What the thread's history says of browse's gap markers ("⋯ 11 turns missing").

The turn column keeps the last history read for the open thread: from the history
panel (``i`` on a marker reads the thread's), or read by itself in the background when
the console has a feed position saved for the thread (the history, or a tail, read it
before), so opening a thread never starts a feed read the user did not ask for. With
one, each marker says what happened (``expired 3 h ago (TTL 3600), purged 2 h 50 min
ago``, ``deleted 5 min ago``) instead of "expired or deleted".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.dom import DOMNode

from cosmem_tui.core.session import Session
from cosmem_tui.model import Clock, Meter, ThreadRef
from cosmem_tui.model.lifecycle import TtlScope
from cosmem_tui.ui.loader import Loader

if TYPE_CHECKING:  # the history's modules load when a thread with gaps is opened
    from cosmem_tui.core.turn_gaps import Gap
    from cosmem_tui.model.history import History


class GapHistory:
    """The open thread's history, as far as the markers need it."""

    def __init__(self, owner: DOMNode, changed: Callable[[], None]) -> None:
        self.loader = Loader(owner, "gap-history")
        self.changed = changed  # the markers' words changed: redraw
        self.ref: ThreadRef | None = None
        self.history: History | None = None
        self.clock: Clock | None = None
        self.asked = False

    def open(self, ref: ThreadRef, clock: Clock) -> None:
        """A thread was opened: forget the last one's history."""
        self.loader.bump()
        self.ref, self.clock, self.history, self.asked = ref, clock, None, False

    def take(self, history: History) -> None:
        """A history was read (the panel's): keep it when it is the open thread's."""
        if history.item_id is None and history.ref == self.ref:
            self.history = history
            self.changed()

    def gaps_found(self, session: Session) -> None:
        """Gaps are on screen: read the history once, if a position was saved for it."""
        ref = self.ref
        if self.asked or self.history is not None or ref is None:
            return
        self.asked = True
        from cosmem_tui.core.history import history_service
        from cosmem_tui.model.changes import FeedMode

        service = history_service(session)
        scopes = [TtlScope.of_thread(ref)]
        if ref.tenant is not None:
            scopes.append(TtlScope.of_tenant(ref.tenant))
        if all(service.bookmarks.oldest(s, FeedMode.ALL_VERSIONS) is None for s in scopes):
            return  # nothing saved: the marker offers the key instead

        def done(history: History, cost: Meter) -> None:
            self.take(history)

        self.loader.start(
            session,
            lambda: service.history(ref, None, background=True),
            done,
            lambda error: None,  # background: the marker keeps its plain words
            cause="browse: history of the gaps",
        )

    def words(self, gap: Gap) -> str | None:
        history, clock = self.history, self.clock
        if history is None or clock is None or gap.high is None:
            return None
        from cosmem_tui.core.history_timeline import gap_fate

        now = int(clock.now())
        return gap_fate(history, gap.low, gap.high, gap.missing, now).describe(now)
