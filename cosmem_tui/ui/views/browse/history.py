"""Browse's ``i``: the history panel of the focused turn, or of the thread (on a gap
marker, a thread row, or a top-level thread)."""

from __future__ import annotations

from cosmem_tui.model import ThreadRef
from cosmem_tui.ui.views.browse.levels import BrowseLevels, Level


class BrowseHistory(BrowseLevels):
    def history_target(self) -> tuple[ThreadRef, str | None] | None:
        """What ``i`` reads: the open turn, the turn under the cursor, or on a gap
        marker (the turns it counts are gone) the whole thread; a thread row's thread."""
        column = self.turn_column
        if self.level is Level.DETAIL and (key := self.detail_pane.key) is not None:
            return (column.ref, key[0]) if column.ref is not None else None
        if self.level is Level.TURNS and column.ref is not None:
            index = column.current_index
            if column.rows is not None and index is not None and column.rows.gap_at(index):
                return column.ref, None
            turn = column.current_turn
            return column.ref, turn.item_id if turn is not None else None
        if self.level is Level.THREADS and (thread := self.thread_column.current_thread):
            return thread.ref, None
        if self.level is Level.TENANTS and self.session is not None:
            top_key = self.top.current_key
            if top_key is not None and not self.session.schema.has_tenant_level:
                return ThreadRef(None, top_key), None
        return None

    def action_history(self) -> None:
        target = self.history_target() if self.session is not None else None
        if target is None or self.session is None:
            self.set_status("open or pick a thread first: the history is of a turn or a thread")
            return
        from cosmem_tui.ui.history_panel import HistoryPanel

        ref, item_id = target
        self.app.push_screen(
            HistoryPanel(self.session, ref, item_id, read=self.turn_column.gap_history.take)
        )
