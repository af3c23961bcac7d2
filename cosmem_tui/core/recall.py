"""The recall probe: what would the agent retrieve, and why not the item the user remembers?

``RecallService.plan`` works out the query the memory system runs (the schema's
``[retrieval]``: embedding path, text paths, filters, scope, k; the distance from the
container's vector embedding policy), the query vector (a stored item's embedding read
by id, a vector file, or text through the configured embedder) and the probes to send:
the system's own, plus the exact one (recall@k of the index) and, for hybrid, the
vector-only and text-only ones (``FullTextScore`` and ``RRF`` cannot be selected, so
per-signal ranks need separate probes). A scope without a key is a cross-partition
fan-out: the plan says so with an estimate, and ``run`` refuses it until confirmed.

``RecallService.run`` sends them and, for each expected item, says the one reason it is
not in the top k (``core/recall_why.py``), checking in the issue's order.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from cosmem_tui.core.errors import LookupFailed
from cosmem_tui.core.recall_report import (
    ExpectedVerdict,
    PlannedProbe,
    RankedHit,
    RecallPlan,
    RecallReport,
    Signals,
    VectorSummary,
)
from cosmem_tui.core.recall_why import (
    Verdict,
    embedding_verdict,
    expired_verdict,
    filter_verdict,
    item_score,
    kth_score,
    rank_in,
    scope_verdict,
    score_text,
)
from cosmem_tui.model import MISSING, ContainerProperties, Item, JsonValue, ThreadRef, resolve_ttl
from cosmem_tui.model.lifecycle import ScopeLevel, TtlScope
from cosmem_tui.model.recall import (
    MAX_PROBE_K,
    MAX_TEXT_TERMS,
    RRF_K,
    Embedder,
    ItemLookup,
    ProbeMode,
    RecallAnswer,
    RecallQuery,
    WhyNot,
    rrf,
)
from cosmem_tui.model.times import iso_utc
from cosmem_tui.model.ttl import format_duration
from cosmem_tui.schemas import Schema
from cosmem_tui.schemas.retrieval import Retrieval, RetrievalScope
from cosmem_tui.sources.store import MemoryStore

DEEP_FACTOR = 10  # how much deeper than k the "ranked N" look goes (at least DEEP_MIN)
DEEP_MIN = 100
SOON_S = 24 * 3600  # "about to expire": within a day
# A few English function words: AMT filters stop words out of its keywords before
# FullTextScore (research notes §1.6); the list is the console's, not AMT's.
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)


class RecallError(LookupFailed):
    """A probe that cannot be asked as given: one line saying what to change."""


class FanOutNotConfirmed(RecallError):
    """A container-wide probe (a cross-partition fan-out) that was not confirmed."""


@dataclass(frozen=True, slots=True)
class RecallRequest:
    scope: TtlScope  # what the user named: a tenant, or a thread
    like: str | None = None  # item id: its embedding is the query vector
    vector: tuple[float, ...] | None = None  # --vector FILE
    text: str | None = None  # --text: key terms (and the query vector with an embedder)
    k: int | None = None  # None: the schema's retrieval k
    mode: ProbeMode | None = None  # None: hybrid with text and a vector, else vector or text
    expect: tuple[str, ...] = ()


def key_terms(text: str) -> tuple[str, ...]:
    """The distinct words of ``text`` minus stop words, lower-cased, at most 30."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOP_WORDS:
            seen.setdefault(word, None)
    return tuple(seen)[:MAX_TEXT_TERMS]


class RecallService:
    def __init__(
        self,
        store: MemoryStore,
        schema: Schema,
        *,
        embedder: Embedder | None = None,
        now: Callable[[], int],
    ) -> None:
        self.store = store
        self.schema = schema
        self.embedder = embedder
        self.now = now

    @property
    def retrieval(self) -> Retrieval:
        return self.schema.how_it_retrieves

    # -- the plan -----------------------------------------------------------------------

    async def plan(self, request: RecallRequest) -> RecallPlan:
        retrieval = self.retrieval
        notes: list[str] = []
        if retrieval.guess:
            notes.append(retrieval.basis or "how this system retrieves is a guess")
        elif retrieval.basis:
            notes.append(f"retrieval as {retrieval.basis}")
        cost = 0.0
        requests = 0
        container = await self.store.container_properties()
        requests += 1
        distance, distance_from = retrieval.distance_for(container)
        policy = retrieval.vector_policy(container)
        vector_path = retrieval.embedding.text
        notes.append(f"distance {distance} from {distance_from}")

        vector = request.vector
        like_thread: ThreadRef | None = None
        if request.like is not None:
            lookup = await self.store.lookup_item(request.scope, request.like)
            cost += lookup.request_units
            requests += 1
            vector, like_thread = self._like_vector(request, lookup, vector_path)
        terms = key_terms(request.text) if request.text else ()
        if request.text is not None and not terms:
            raise RecallError(f"--text {request.text!r} has no key terms left (only stop words)")
        wants_vector = request.mode is not ProbeMode.TEXT
        if vector is None and request.text is not None and self.embedder and wants_vector:
            vector = await self.embedder.embed(request.text)
            notes.append(f"query vector: the text embedded by {self.embedder.label}")
        mode = self._mode(request, vector, terms)
        k = request.k if request.k is not None else retrieval.k
        if not 1 <= k <= MAX_PROBE_K:
            raise RecallError(f"k must be between 1 and {MAX_PROBE_K}, got {k}")
        scope, scope_note = self._system_scope(request.scope, like_thread)
        if scope_note:
            notes.append(scope_note)

        def query(probe_mode: ProbeMode, depth: int = k) -> RecallQuery:
            uses_vector = probe_mode is not ProbeMode.TEXT
            uses_text = probe_mode in (ProbeMode.TEXT, ProbeMode.HYBRID)
            return RecallQuery(
                scope=scope,
                mode=probe_mode,
                k=depth,
                vector_path=vector_path if uses_vector else None,
                distance=distance,
                vector=vector if uses_vector else None,
                text_paths=tuple(p.text for p in retrieval.texts) if uses_text else (),
                terms=terms if uses_text else (),
                filters=retrieval.filters,
            )

        probes = [PlannedProbe("system", query(mode))]
        if mode is ProbeMode.HYBRID:
            probes.append(PlannedProbe("vector signal", query(ProbeMode.VECTOR)))
            probes.append(PlannedProbe("text signal", query(ProbeMode.TEXT)))
        if mode in (ProbeMode.VECTOR, ProbeMode.HYBRID):
            probes.append(PlannedProbe("exact", query(ProbeMode.EXACT)))
        fan_out = scope.level is ScopeLevel.CONTAINER
        estimate = None
        if fan_out:
            per_probe = await self.store.ttl_summary_estimate(scope, self.now())
            requests += 1
            estimate = round(per_probe * len(probes), 1)
        dims = policy.dimensions if policy is not None else None
        if vector is not None and dims is not None and len(vector) != dims:
            notes.append(
                f"the query vector has {len(vector)} dimensions; the container's vector "
                f"policy says {dims}: no item of the policy's shape can match"
            )
        return RecallPlan(
            scope=scope,
            mode=mode,
            k=k,
            probes=tuple(probes),
            expect=tuple(dict.fromkeys(request.expect)),
            query_vector=vector,
            notes=tuple(notes),
            fan_out=fan_out,
            estimate_ru=estimate,
            confirmed=not fan_out,
            request_units=cost,
            requests=requests,
            vector_dims=policy.dimensions if policy is not None else None,
            cost_note=_index_cost_note(container, vector_path),
            default_ttl=container.default_ttl,
        )

    def _like_vector(
        self, request: RecallRequest, lookup: ItemLookup, path: str
    ) -> tuple[tuple[float, ...], ThreadRef | None]:
        where = request.scope.describe(self.schema.tenant_label)
        if lookup.item is None:
            if lookup.expired_at is not None:
                raise RecallError(f"--like {request.like}: that item has expired ({where})")
            raise RecallError(f"--like {request.like}: no such item in {where}")
        found = embedding_verdict(lookup.item.body, path, None)
        if found is not None:
            raise RecallError(f"--like {request.like}: {found.why}; give --vector or --text")
        raw = self.retrieval.embedding.get(lookup.item.body)
        assert isinstance(raw, list)
        return tuple(float(x) for x in raw), lookup.thread

    def _mode(
        self, request: RecallRequest, vector: tuple[float, ...] | None, terms: tuple[str, ...]
    ) -> ProbeMode:
        mode = request.mode
        if mode is None:
            if vector is not None and terms:
                return ProbeMode.HYBRID
            if vector is not None:
                return ProbeMode.VECTOR
            if terms:
                return ProbeMode.TEXT
            raise RecallError("give a query: --like ITEM_ID, --vector FILE or --text TEXT")
        if mode is not ProbeMode.TEXT and vector is None:
            hint = " (no embedder is configured to embed --text)" if terms else ""
            raise RecallError(f"a {mode} probe needs a query vector: --like or --vector{hint}")
        if mode in (ProbeMode.TEXT, ProbeMode.HYBRID) and not terms:
            raise RecallError(f"a {mode} probe needs key terms: --text TEXT")
        return mode

    def _system_scope(
        self, named: TtlScope, like_thread: ThreadRef | None
    ) -> tuple[TtlScope, str | None]:
        """The scope the system's own query covers, from what the user named."""
        wanted = self.retrieval.scope
        label = self.schema.tenant_label
        if wanted is RetrievalScope.CONTAINER:
            return TtlScope.container(), "the system queries the whole container (no key)"
        if wanted is RetrievalScope.TENANT and self.schema.has_tenant_level:
            if named.tenant is not None:
                return TtlScope.of_tenant(named.tenant), None
            return named, None
        if named.thread is not None:
            return named, None
        if like_thread is not None:
            note = (
                "the system queries one thread: that of the --like item "
                f"({like_thread.describe(label)})"
            )
            return TtlScope.of_thread(like_thread), note
        return named, (
            f"the system queries one thread; none named: the whole {named.describe(label)} "
            "is probed instead"
        )

    # -- confirming a fan-out -------------------------------------------------------------

    def allow_fan_out(self, plan: RecallPlan) -> RecallPlan:
        """The user said yes already (``--fan-out``)."""
        return dataclasses.replace(plan, confirmed=True)

    async def confirm(self, plan: RecallPlan) -> RecallPlan | None:
        """Ask before a fan-out (the view's question); None when the answer is no."""
        if plan.confirmed:
            return plan
        yes = await self.store.ledger.ask_first(
            "recall",
            "the whole container",
            estimate_ru=plan.estimate_ru or 0.0,
            reason=f"{len(plan.probes)} cross-partition recall probes: a fan-out over "
            "every partition",
        )
        return self.allow_fan_out(plan) if yes else None

    # -- the run --------------------------------------------------------------------------

    async def run(self, plan: RecallPlan) -> RecallReport:
        if not plan.confirmed:
            raise FanOutNotConfirmed(
                f"the probe covers the whole container: {len(plan.probes)} cross-partition "
                f"queries, about {plan.estimate_ru or 0:,.1f} RU; confirm the fan-out first"
            )
        answers: dict[str, RecallAnswer] = {}
        cost = plan.request_units
        requests = plan.requests
        index_is_exact = False
        for probe in plan.probes:
            if probe.role == "exact" and index_is_exact:
                continue  # the backend's vector answer is already the exact one
            answer = await self.store.recall(probe.query)
            answers[probe.role] = answer
            cost += answer.request_units
            requests += answer.requests
            if probe.query.mode is ProbeMode.VECTOR and answer.index_is_exact:
                index_is_exact = True
        system = answers["system"]
        index_is_exact = index_is_exact or system.index_is_exact
        vector_answer = answers.get(
            "vector signal", system if plan.mode is ProbeMode.VECTOR else None
        )
        exact = answers.get("exact")
        if exact is None and index_is_exact and vector_answer is not None:
            exact = vector_answer
        if plan.mode is ProbeMode.EXACT:
            exact = system
        notes = list(plan.notes)
        recall_at_k = None
        if index_is_exact and plan.mode in (ProbeMode.VECTOR, ProbeMode.HYBRID):
            notes.append("index = exact search (local workspace): no approximate index to measure")
        elif exact is not None and vector_answer is not None and plan.mode is not ProbeMode.EXACT:
            truth = {h.id for h in exact.hits}
            got = {h.id for h in vector_answer.hits}
            recall_at_k = len(truth & got) / len(truth) if truth else None
        if plan.mode is ProbeMode.HYBRID:
            notes.append(
                f"fused: a local RRF (constant {RRF_K}) of the vector and text ranks, an "
                "approximation: the service's RRF constant is not documented"
            )
            if system.index_is_exact:
                notes.append(
                    "hybrid order on the local workspace: the console's own RRF of exact "
                    "distances and FTS5 bm25(), not the service's"
                )
        hits = self._ranked(plan, answers, exact)
        verdicts: list[ExpectedVerdict] = []
        deep: dict[str, RecallAnswer] = {}
        for item_id in plan.expect:
            verdict, spent = await self._verdict(plan, item_id, answers, exact, deep)
            verdicts.append(verdict)
            cost += spent[0]
            requests += int(spent[1])
        return RecallReport(
            mode=plan.mode,
            k=plan.k,
            scope=plan.scope,
            hits=hits,
            expected=tuple(verdicts),
            recall_at_k=recall_at_k,
            index_is_exact=index_is_exact,
            query_vector=VectorSummary.of(plan.query_vector) if plan.query_vector else None,
            notes=tuple(notes),
            request_units=round(cost, 2),
            requests=requests,
            terms=plan.probes[0].query.terms,
        )

    def _ranked(
        self, plan: RecallPlan, answers: dict[str, RecallAnswer], exact: RecallAnswer | None
    ) -> tuple[RankedHit, ...]:
        system = answers["system"]
        vector = answers.get("vector signal")
        text = answers.get("text signal")
        exact_ids = {h.id for h in exact.hits} if exact is not None else None
        hits = []
        for hit in system.hits:
            if plan.mode is ProbeMode.HYBRID:
                v, t = rank_in(vector, hit.id), rank_in(text, hit.id)
                fused = rrf((v, t)) or None
                signals = Signals(v, t, round(fused, 6) if fused else None, rank_in(exact, hit.id))
            elif plan.mode is ProbeMode.TEXT:
                signals = Signals(text=hit.rank)
            else:
                signals = Signals(vector=hit.rank, exact=rank_in(exact, hit.id))
            in_exact = None if exact_ids is None else hit.id in exact_ids
            hits.append(RankedHit(hit.rank, hit.id, hit.thread, hit.score, signals, in_exact))
        return tuple(hits)

    # -- why not ---------------------------------------------------------------------------

    async def _verdict(
        self,
        plan: RecallPlan,
        item_id: str,
        answers: dict[str, RecallAnswer],
        exact: RecallAnswer | None,
        deep: dict[str, RecallAnswer],
    ) -> tuple[ExpectedVerdict, tuple[float, float]]:
        spent = [0.0, 0.0]
        system = answers["system"]
        rank = rank_in(system, item_id)
        if rank is not None:
            score = next(h.score for h in system.hits if h.rank == rank)
            why = f"ranked {rank} of the top {plan.k} (score {score_text(score)})"
            return self._expected(item_id, Verdict(WhyNot.FOUND, why, rank), spent, plan), (
                spent[0],
                spent[1],
            )
        verdict = await self._why_not(plan, item_id, exact, deep, spent)
        return self._expected(item_id, verdict, spent, plan), (spent[0], spent[1])

    def _expected(
        self, item_id: str, verdict: Verdict, spent: list[float], plan: RecallPlan
    ) -> ExpectedVerdict:
        uses_vector = plan.mode is not ProbeMode.TEXT
        return ExpectedVerdict(
            id=item_id,
            rank=verdict.rank,
            reason=verdict.reason,
            why=verdict.why,
            request_units=round(spent[0], 2),
            cost_note=plan.cost_note if uses_vector else None,
        )

    async def _look(self, scope: TtlScope, item_id: str, spent: list[float]) -> ItemLookup:
        lookup = await self.store.lookup_item(scope, item_id)
        spent[0] += lookup.request_units
        spent[1] += 1
        return lookup

    async def _why_not(
        self,
        plan: RecallPlan,
        item_id: str,
        exact: RecallAnswer | None,
        deep: dict[str, RecallAnswer],
        spent: list[float],
    ) -> Verdict:
        label = self.schema.tenant_label
        where = plan.scope.describe(label)
        lookup = await self._look(plan.scope, item_id, spent)
        wider = None
        missing = not lookup.found and lookup.expired_at is None
        if missing and plan.scope.level is ScopeLevel.THREAD and plan.scope.tenant is not None:
            wider = await self._look(TtlScope.of_tenant(plan.scope.tenant), item_id, spent)
        # 1. in the scope the system queries
        found = scope_verdict(item_id, lookup, wider, where, label)
        if found is not None:
            return found
        # 2. expired
        found = expired_verdict(lookup)
        if found is not None:
            return found
        assert lookup.item is not None
        verdict = await self._checked(plan, item_id, lookup.item.body, exact, deep, spent)
        soon = expiring_soon(lookup.item, plan.default_ttl, self.now())
        return dataclasses.replace(verdict, why=verdict.why + soon) if soon else verdict

    async def _checked(
        self,
        plan: RecallPlan,
        item_id: str,
        body: Mapping[str, JsonValue],
        exact: RecallAnswer | None,
        deep: dict[str, RecallAnswer],
        spent: list[float],
    ) -> Verdict:
        """Checks 3 to 8 of an item found in the scope, alive."""
        # 3. excluded by a filter
        found = filter_verdict(body, self.retrieval)
        if found is not None:
            return found
        system_query = plan.probes[0].query
        path = self.retrieval.embedding.text
        # 4–6. the embedding: none, elsewhere, or of the wrong shape
        if plan.mode is not ProbeMode.TEXT:
            dims = plan.vector_dims or (len(plan.query_vector) if plan.query_vector else None)
            found = embedding_verdict(body, path, dims)
            if found is not None:
                return found
        # 7. ranked below k (in the exact ranking for vector probes), then 8. index recall
        if plan.mode in (ProbeMode.VECTOR, ProbeMode.EXACT) and plan.query_vector is not None:
            score = item_score(body, path, plan.query_vector, system_query.distance)
            exact_rank = rank_in(exact, item_id)
            if exact_rank is not None and exact is not None:
                return Verdict(
                    WhyNot.INDEX_MISSED,
                    f"ranked {exact_rank} by exact search (score {score_text(score)}) but the "
                    f"vector index's top {plan.k} left it out",
                )
            return await self._ranked_below(plan, item_id, score, deep, spent, ProbeMode.EXACT)
        return await self._ranked_below(plan, item_id, None, deep, spent, plan.mode)

    async def _ranked_below(
        self,
        plan: RecallPlan,
        item_id: str,
        score: float | None,
        deep: dict[str, RecallAnswer],
        spent: list[float],
        mode: ProbeMode,
    ) -> Verdict:
        depth = min(MAX_PROBE_K, max(DEEP_MIN, DEEP_FACTOR * plan.k))
        key = mode.value
        if key not in deep:
            base = plan.probes[0].query
            uses_vector = mode is not ProbeMode.TEXT
            uses_text = mode in (ProbeMode.TEXT, ProbeMode.HYBRID)
            query = dataclasses.replace(
                base,
                mode=mode,
                k=depth,
                vector=base.vector if uses_vector else None,
                vector_path=base.vector_path if uses_vector else None,
                terms=base.terms if uses_text else (),
                text_paths=base.text_paths if uses_text else (),
            )
            deep[key] = await self.store.recall(query)
            spent[0] += deep[key].request_units
            spent[1] += deep[key].requests
        ranking = deep[key]
        rank = rank_in(ranking, item_id)
        kth = kth_score(ranking, plan.k)
        if rank is not None and score is None:
            score = next(h.score for h in ranking.hits if h.rank == rank)
        signal = {
            ProbeMode.EXACT: "by exact search",
            ProbeMode.TEXT: "by full-text score",
            ProbeMode.HYBRID: "by the hybrid rank",
            ProbeMode.VECTOR: "by the index",
        }[mode]
        scores = f" (score {score_text(score)}; the {plan.k}th scores {score_text(kth)})"
        if mode is ProbeMode.TEXT:
            scores = ""  # FullTextScore cannot be selected
        if rank is not None:
            return Verdict(
                WhyNot.RANKED_BELOW_K, f"ranked {rank} {signal}, k = {plan.k}{scores}", rank
            )
        if mode is ProbeMode.TEXT and plan.probes[0].query.terms:
            return Verdict(
                WhyNot.RANKED_BELOW_K,
                f"not in the first {len(ranking.hits)} {signal}: it may hold none of the terms "
                f"({', '.join(plan.probes[0].query.terms)})",
            )
        return Verdict(
            WhyNot.RANKED_BELOW_K,
            f"ranked below {len(ranking.hits)} {signal}, k = {plan.k}{scores}",
        )


def expiring_soon(item: Item, default_ttl: int | None, now: int) -> str:
    """ "; it expires in 3h (at …)" for an item within a day of its expiry, else ""."""
    ttl = resolve_ttl(item.body.get("ttl", MISSING), item.ts, default_ttl)
    if ttl.expires_at is None or not 0 < ttl.expires_at - now <= SOON_S:
        return ""
    at = iso_utc(ttl.expires_at) or str(ttl.expires_at)
    return f"; it expires in {format_duration(ttl.expires_at - now)} (at {at})"


def _index_cost_note(container: ContainerProperties, path: str) -> str | None:
    """The vector path still in the regular (range) index: a cost on every write, not a
    recall problem (learn: exclude vector paths from the indexing policy)."""
    excluded = container.indexing_policy.get("excludedPaths")
    paths: Sequence[object] = excluded if isinstance(excluded, list) else []
    names = {p.get("path") for p in paths if isinstance(p, dict)}
    if f"{path}/*" in names or f"{path}/?" in names or "/*" in names:
        return None
    return (
        f"cost, not recall: the vector path {path} is not excluded from the regular index, "
        "so every write indexes each of its numbers"
    )
