"""Browse's guarded writes (only with ``--allow-writes``): pin a turn, give it a new ttl,
erase a thread, each after the confirmation that says exactly what will be written."""

from __future__ import annotations

from cosmem_tui.model import ThreadRef
from cosmem_tui.ui.views.browse.levels import BrowseLevels, Level

WRITE_ACTIONS = frozenset({"pin", "set_ttl", "erase_thread"})  # only with --allow-writes


class BrowseWrites(BrowseLevels):
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in WRITE_ACTIONS:  # not offered, not run: the session cannot write
            return self.session is not None and self.session.writes is not None
        return super().check_action(action, parameters)

    def hint_applies(self, action_id: str) -> bool:
        """A hint only where its key does something: pin on a turn, erase on a thread."""
        if action_id == "write.pin":
            return self.level >= Level.TURNS
        if action_id == "write.erase":
            return self.level >= Level.THREADS or (
                self.session is not None and not self.session.schema.has_tenant_level
            )
        return super().hint_applies(action_id)

    def target_item(self) -> tuple[ThreadRef, str] | None:
        """The turn a pin or a new ttl applies to: the current row, or the open turn."""
        if self.level is Level.DETAIL and (key := self.detail_pane.key) is not None:
            ref = self.turn_column.ref
            return (ref, key[0]) if ref is not None else None
        if self.level is Level.TURNS and (turn := self.turn_column.current_turn) is not None:
            ref = self.turn_column.ref
            return (ref, turn.item_id) if ref is not None else None
        return None

    def target_thread(self) -> ThreadRef | None:
        """The thread an erase applies to: the open one, or the current thread row."""
        if self.level >= Level.TURNS:
            return self.turn_column.ref
        if self.level is Level.THREADS and (thread := self.thread_column.current_thread):
            return thread.ref
        if self.level is Level.TENANTS and self.session is not None:
            key = self.top.current_key
            if key is not None and not self.session.schema.has_tenant_level:
                return ThreadRef(None, key)  # the top list holds the threads
        return None

    def action_pin(self) -> None:
        self._write_ttl(-1)

    def action_set_ttl(self) -> None:
        if self.target_item() is None:
            self.set_status("open a thread and pick a turn to give it a new ttl", error=True)
            return
        self.open_command_bar("set-ttl ")

    def _write_ttl(self, ttl: int) -> None:
        target = self.target_item()
        if target is None:
            self.set_status("open a thread and pick a turn first", error=True)
            return
        ref, item_id = target
        verb = "pin" if ttl == -1 else "set ttl"
        from cosmem_tui.ui.write_flow import run_write  # the writes load when first used

        run_write(
            self,
            f"browse: {verb}",
            lambda writes: writes.plan_ttl(ref, item_id, ttl, listed=True),
            lambda outcome: self.action_reload(),
        )

    def action_erase_thread(self) -> None:
        ref = self.target_thread()
        if ref is None:
            self.set_status("pick a thread to erase", error=True)
            return
        from cosmem_tui.ui.write_flow import run_write

        run_write(
            self,
            "browse: erase thread",
            lambda writes: writes.plan_erase(ref),
            lambda outcome: self._erased(ref),
        )

    def _erased(self, ref: ThreadRef) -> None:
        """Back to the list the thread was in, reloaded."""
        if self.session is None:
            return
        if ref.tenant is not None and self.session.schema.has_tenant_level:
            self.open_threads(ref.tenant)
        else:
            self.level = Level.TENANTS
            self.layout_columns()
            self.session.browse.directory.forget(ref.thread)
            self.top.load()
