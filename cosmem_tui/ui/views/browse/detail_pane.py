"""One turn (browse's last column): transcript, TTL, problems and the raw item."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import cast

from textual.containers import VerticalScroll
from textual.widgets import Static

from cosmem_tui.core.browse import TurnDetail
from cosmem_tui.core.session import Session
from cosmem_tui.core.turn_window import TurnKey
from cosmem_tui.model import Meter, ThreadRef, Turn
from cosmem_tui.ui.actions import show_key
from cosmem_tui.ui.host import Host
from cosmem_tui.ui.loader import Loader
from cosmem_tui.ui.messages import cost_text, plain
from cosmem_tui.ui.views.browse.detail import RawItem, raw_item, render_detail
from cosmem_tui.ui.views.browse.status import RETRY, Status
from cosmem_tui.ui.widgets.long_static import LongStatic


class DetailPane(VerticalScroll):
    """One turn: transcript, TTL, problems and the raw item (one point read)."""

    def __init__(self) -> None:
        super().__init__(LongStatic(id="detail-body"), id="detail", can_focus=True)
        self.session: Session | None = None
        self.key: TurnKey | None = None
        self.detail: TurnDetail | None = None
        self.raw: RawItem | None = None  # self.detail's raw section, encoded once
        self.loader = Loader(self, "detail")
        self._turn_of: Callable[[TurnKey], Turn | None] = lambda _key: None
        self._label_of: Callable[[TurnKey], str] = lambda _key: "turn"

    def open(
        self,
        session: Session,
        ref: ThreadRef,
        key: TurnKey,
        turn_of: Callable[[TurnKey], Turn | None],
        label_of: Callable[[TurnKey], str],
    ) -> None:
        self.session = session
        self.loader.bump()
        self.key = key
        self.detail = None
        self.raw = None
        self._turn_of = turn_of
        self._label_of = label_of
        self.border_title = plain(label_of(key))
        self.border_subtitle = plain("point read…")
        self.render_turn()
        self.scroll_home(animate=False)
        service = session.browse
        item_id, part = key

        async def fetch() -> tuple[TurnDetail, RawItem]:
            detail = await service.detail(ref, item_id, part)
            # Encoding a large item (indented JSON is Python's slow encoder) waits in a
            # thread, not on the screen: 50,000 messages take most of a second.
            return detail, await asyncio.to_thread(raw_item, detail)

        self.loader.start(session, fetch, self._loaded, self._failed, cause="browse: open a turn")

    def _loaded(self, loaded: tuple[TurnDetail, RawItem], cost: Meter) -> None:
        self.detail, self.raw = loaded
        self.render_turn()
        self.border_subtitle = plain(f"point read {cost_text(cost)}")
        self.post_message(Status(""))

    def _failed(self, error: str) -> None:
        self.border_subtitle = plain("failed")
        self.render_turn(raw_status=error)
        self.post_message(Status(f"{error} · {RETRY}", error=True))

    @property
    def read_key(self) -> str:
        """The key that reads a cut text in full, as the user has it bound."""
        key = cast(Host, self.app).registry.first_key("list.detail")
        return show_key(key) if key else "ctrl+p"

    def follow_label(self) -> None:
        """Rows moved (pages arrived): a turn named by its position is named anew."""
        if self.key is None:
            return
        label = plain(self._label_of(self.key))
        if label != self.border_title:
            self.border_title = label
            self.render_turn()

    def render_turn(self, raw_status: str | None = None) -> None:
        if self.session is None or self.key is None:
            return
        if self.detail is not None and self.detail.turn.key == self.key:
            turn: Turn | None = self.detail.turn
        else:
            turn = self._turn_of(self.key)
        if turn is None:
            return
        body = render_detail(
            turn,
            self.detail,
            self.session.clock.now(),
            raw_status=raw_status,
            read_key=self.read_key,
            label=self._label_of(self.key),
            raw=self.raw,
        )
        self.query_one("#detail-body", Static).update(body)
