"""The app's own messages: what the session opener, the request ledger and the hold-off
post to the app, from whichever thread they run on (Textual delivers them on its loop)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from cosmem_tui.core.session import Session
    from cosmem_tui.model import RequestCharge, Silence, Throttling


class SessionReady(Message):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class SessionFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class Progress(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class Recorded(Message):
    """The ledger recorded a request (posted from whichever thread recorded it)."""

    def __init__(self, record: RequestCharge) -> None:
        super().__init__()
        self.record = record


class Throttled(Message):
    def __init__(self, event: Throttling) -> None:
        super().__init__()
        self.event = event


class Silent(Message):
    """The account stopped answering (background work stops), or answers again."""

    def __init__(self, event: Silence) -> None:
        super().__init__()
        self.event = event


class Notice(Message):
    """A line the user must read now, e.g. a device-code sign-in prompt."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
