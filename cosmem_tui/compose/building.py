"""The one place a ``Session`` is made, and the one way what it opened is closed on failure.

Every opener (a workspace, a Cosmos container, its doctor's session, Azure Monitor alone)
goes through a ``SessionBuilder``: the ledger first (so a sign-in prompt while opening
reaches ``notice``), the caller's credential or one built here, then each thing opened
``own``ed as it opens. The steps run inside ``closed_on_failure`` (``closed_on_failure_now``
in the synchronous workspace opener): a step that fails closes what the steps before it
opened, newest first, each once, and the failure is raised; ``session`` hands the
services and the closers to the ``Session``, which closes them when it ends. Both paths
close through ``close_in_reverse``. A credential the caller lent is never closed here
(an embedding application's, or a test's).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosmem_tui.core.browse import BrowseService
from cosmem_tui.core.directory import KeyDirectory
from cosmem_tui.core.session import (
    Closer,
    MemoryServices,
    Session,
    TelemetryServices,
    close_in_reverse,
    data_dir,
)
from cosmem_tui.model import Clock
from cosmem_tui.sources.request_ledger import RequestLedger
from cosmem_tui.sources.store import MemoryStore

if TYPE_CHECKING:
    from cosmem_tui.core.audit import AuditLog
    from cosmem_tui.core.demo.live import LiveDemo
    from cosmem_tui.core.demo.manifest import DemoManifest
    from cosmem_tui.core.doctor_service import DoctorService
    from cosmem_tui.core.recall import RecallService
    from cosmem_tui.core.writes import WriteService
    from cosmem_tui.model.recall import Embedder, EmbeddingsDeployment

Notice = Callable[[str], None]


class SessionBuilder:
    """A session while it opens: its ledger, its credential and what to close."""

    def __init__(
        self,
        clock: Clock,
        notice: Notice | None = None,
        *,
        budget_ru: float | None = None,
        writes_allowed: bool = False,
    ) -> None:
        self.clock = clock
        self.ledger = RequestLedger(budget_ru=budget_ru, clock=clock, writes_allowed=writes_allowed)
        if notice is not None:  # before any request: opening may need to sign in
            self.ledger.subscribe_notice(notice)
        self.credential: Any = None  # the session's, when built here (else None)
        self.closers: list[Closer] = []

    def own(self, close: Closer) -> None:
        """Close ``close`` with the session (or when a later step fails), before what was
        owned earlier."""
        self.closers.append(close)

    def use_credential(self, lent: Any, build: Callable[[Notice], Any]) -> Any:
        """``lent`` if given, else ``build(notice)``'s, which the session owns (closed last)."""
        if lent is not None:
            return lent
        credential = self.credential = build(self.ledger.notice)
        self.closers.insert(0, lambda: close_credential(credential))
        return credential

    async def close(self) -> None:
        """Close what is open so far, newest first, once (a failure to close is not the
        failure being reported: the step that failed is)."""
        closers, self.closers = self.closers, []
        with suppress(Exception):
            await close_in_reverse(closers)

    @asynccontextmanager
    async def closed_on_failure(self) -> AsyncIterator[None]:
        """Steps that may fail: then what is open so far is closed, and it re-raises."""
        try:
            yield
        except BaseException:
            await self.close()
            raise

    @contextmanager
    def closed_on_failure_now(self) -> Iterator[None]:
        """``closed_on_failure`` for a synchronous opener. The closers are coroutines, and
        the caller may itself run on an event loop's thread (a test, a worker), so they
        run on an event loop of their own in a thread of their own."""
        try:
            yield
        except BaseException:
            closing = threading.Thread(target=asyncio.run, args=(self.close(),), name="close")
            closing.start()
            closing.join()
            raise

    def session(
        self,
        *,
        is_demo: bool = False,
        memory: MemoryServices | None = None,
        telemetry: TelemetryServices | None = None,
        writes: WriteService | None = None,
        doctor: Callable[[], DoctorService] | None = None,
        notes: list[str] | None = None,
        manifest: DemoManifest | None = None,
        schema_reason: str = "",
        live_demo: Callable[[], LiveDemo] | None = None,
    ) -> Session:
        """The session over what was built, holding every closer (the builder lets go)."""
        closers, self.closers = self.closers, []
        session = Session(
            ledger=self.ledger,
            clock=self.clock,
            is_demo=is_demo,
            memory=memory,
            writes=writes,
            build_doctor=doctor,
            credential=self.credential,
            manifest=manifest,
            notes=notes or [],
            schema_reason=schema_reason,
            build_live_demo=live_demo,
            closers=closers,
        )
        session.use_telemetry(telemetry)
        return session


def memory_services(
    store: MemoryStore,
    clock: Clock,
    cache_root: Path | None = None,
    *,
    embedder: Embedder | None = None,
) -> MemoryServices:
    """The use cases over one container's store, sharing one key directory; ``embedder``
    turns ``--text`` into a query vector for the recall probe (None: none configured)."""
    from cosmem_tui.core.advisor import AdvisorService
    from cosmem_tui.core.lifecycle import LifecycleService

    def recall() -> RecallService:
        from cosmem_tui.core.recall import RecallService

        return RecallService(store, store.schema, embedder=embedder, now=lambda: int(clock.now()))

    directory = KeyDirectory(store, clock, cache_root)
    browse = BrowseService(store, clock, directory)
    return MemoryServices(
        store=store,
        browse=browse,
        advisor=AdvisorService(store, directory),
        lifecycle=LifecycleService(store, browse),
        build_recall=recall,
    )


def choose_embedder(
    *,
    is_demo: bool,
    deployment: EmbeddingsDeployment | None = None,
    builder: SessionBuilder | None = None,
    credential: Any = None,
    auth: Any = None,
) -> Embedder | None:
    """The embedder a session's recall probe uses for ``--text``, None when none is
    configured (then --text is key terms only, and the probe says so).

    The one place an embedder is picked: the demo's deterministic ``DemoEmbedder``
    (``core/demo/embedder.py``, labelled "demo embeddings") for the demo workspace, which
    embedded its own items the same way; else the profile's Azure OpenAI deployment
    (``sources/embeddings.py``), signed with the session's Entra ID credential when it
    has one, or one built for it (a key-signed Cosmos session or a workspace: ``auth``
    says how), owned and closed by the session."""
    if is_demo:
        from cosmem_tui.core.demo.embedder import DemoEmbedder

        return DemoEmbedder()
    if deployment is None or builder is None:
        return None
    from cosmem_tui.sources.cosmos.auth import build_token_credential
    from cosmem_tui.sources.cosmos.settings import AuthMode
    from cosmem_tui.sources.embeddings import AzureOpenAIEmbedder

    if credential is None or not hasattr(credential, "get_token"):  # none, or a key
        mode = AuthMode.DEVICE_CODE if auth is AuthMode.DEVICE_CODE else AuthMode.AAD
        credential = built = build_token_credential(mode, builder.ledger.notice)
        builder.own(lambda: close_credential(built))
    return AzureOpenAIEmbedder(
        deployment.endpoint, deployment.deployment, credential, builder.ledger
    )


def audit_log() -> AuditLog:
    """Where guarded writes are recorded: ``$XDG_DATA_HOME/cosmem/audit.jsonl``."""
    from cosmem_tui.core.audit import AUDIT_FILE, AuditLog

    return AuditLog(data_dir() / AUDIT_FILE)


async def close_credential(credential: Any) -> None:
    """Close a token credential (sync or async); a key string needs nothing."""
    close = getattr(credential, "close", None)
    if close is not None:
        result = close()
        if inspect.isawaitable(result):
            await result
