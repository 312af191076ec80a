"""The runner: time every stage, stop at the first abstention, write the one log line and build
the one ``Answer`` in one place."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Sequence
from datetime import date

from rag_core.errors import BenefitsBotError, IndexUnavailable
from rag_core.observability import log_question, query_log, user_hash
from rag_core.pipeline.base import AsyncCloseable, Stage
from rag_core.pipeline.corpus import CorpusView
from rag_core.pipeline.explain import Explainer
from rag_core.pipeline.state import QueryState
from rag_core.settings import CoreSettings
from rag_core.tokens import encoding
from rag_core.types import Answer, Citation


class Pipeline:
    """The answer path as an ordered list of stages over one :class:`QueryState`.

    ``answer`` runs every stage; ``run_until`` stops after a named stage, so calibration, the
    rerank sweep and the ablations run exactly what ``serve`` runs, up to the point they study.
    """

    def __init__(
        self,
        settings: CoreSettings,
        stages: Sequence[Stage],
        corpus: CorpusView,
        *,
        model_label: Callable[[str | None], str],
        resources: Sequence[AsyncCloseable] = (),
        explainer: Explainer | None = None,
    ) -> None:
        names = [s.name for s in stages]
        if len(set(names)) != len(names):
            raise ValueError(f"stage names must be unique: {names}")
        self.settings = settings
        self.stages = list(stages)
        self.corpus = corpus
        self._model_label = model_label
        self._resources = list(resources)  # shared by several stages: closed once, here
        self.explainer = explainer

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise KeyError(f"no stage named {name!r}; stages: {[s.name for s in self.stages]}")

    # -- running -----------------------------------------------------------------------------
    async def run(self, state: QueryState, *, until: str | None = None) -> QueryState:
        """Run the stages in order on ``state`` (up to and including ``until``), stopping at the
        first abstention. Core errors carry the query id and get one error log line."""
        if until is not None:
            self.stage(until)  # a typo is an error, not a silent full run
        try:
            for stage in self.stages:
                started = time.perf_counter()
                try:
                    await stage.run(state)
                finally:
                    state.timings[stage.name] = round((time.perf_counter() - started) * 1000, 3)
                if state.finished or stage.name == until:
                    break
        except BenefitsBotError as exc:
            # The edge shows this reference in its apology; the log line carries the same one.
            exc.query_id = state.query_id  # type: ignore[attr-defined]
            query_log.error(
                json.dumps(
                    {
                        "query_id": state.query_id,
                        "error": type(exc).__name__,
                        "detail": str(exc),
                        "latency_ms": state.timings,
                    }
                )
            )
            raise
        return state

    async def run_until(
        self,
        stage: str,
        question: str,
        token: str,
        *,
        as_of: date | None = None,
        audience_tokens: Sequence[str] = (),
        history: Sequence[str] = (),
    ) -> QueryState:
        state = QueryState(question, token, as_of=as_of, audience_tokens=audience_tokens, history=history)
        return await self.run(state, until=stage)

    async def answer(
        self,
        question: str,
        token: str,
        *,
        as_of: date | None = None,
        audience_tokens: Sequence[str] = (),
        history: Sequence[str] = (),
    ) -> Answer:
        """Answer ``question`` for the holder of ``token`` from the documents they may see, or abstain.

        ``audience_tokens`` narrow the scope (never widen it): each adds its own filter, so an
        answer posted in a channel uses only documents everyone in the audience may see.
        ``history`` holds earlier questions of the thread, so "what about dental?" is understood.
        """
        answer, _ = await self.answer_traced(
            question, token, as_of=as_of, audience_tokens=audience_tokens, history=history
        )
        return answer

    async def answer_traced(
        self,
        question: str,
        token: str,
        *,
        as_of: date | None = None,
        audience_tokens: Sequence[str] = (),
        history: Sequence[str] = (),
    ) -> tuple[Answer, QueryState]:
        """:meth:`answer`, plus the state it was built from (candidates, deciding stage, timings) for
        tools that explain an answer, such as the playground: one sequence, so they cannot drift."""
        started = time.perf_counter()
        state = QueryState(question, token, as_of=as_of, audience_tokens=audience_tokens, history=history)
        await self.run(state)
        await self._explain(state)
        state.timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        answer = self.build_answer(state)
        self._log(state, answer)
        return answer, state

    async def _explain(self, state: QueryState) -> None:
        """An abstention's detail (what the asker may be told about why), timed like a stage."""
        if not state.finished or self.explainer is None:
            return
        started = time.perf_counter()
        try:
            state.abstain_detail = await self.explainer.explain(state)
        except BenefitsBotError as exc:
            # The abstention stands on its own; its detail is a courtesy that must not turn it
            # into an apology.
            query_log.warning(json.dumps({"query_id": state.query_id, "explain_failed": type(exc).__name__}))
        finally:
            state.timings["explain"] = round((time.perf_counter() - started) * 1000, 3)

    # -- the one Answer ----------------------------------------------------------------------
    def build_answer(self, state: QueryState) -> Answer:
        abstain = state.abstain_reason
        by_id = {c.chunk_id: c for c in state.context}
        citations = (
            []
            if abstain
            else [
                Citation(
                    chunk_id=c,
                    document_id=by_id[c].document_id,
                    title=by_id[c].title,
                    page=by_id[c].page_number,
                    source_uri=by_id[c].link(),
                    score=round(by_id[c].dense_score, 4),
                )
                for c in state.cited
            ]
        )
        generated = state.generated
        return Answer(
            query_id=state.query_id,
            answer=self.settings.abstain_texts.get(abstain.value, "") if abstain else state.text,
            citations=citations,
            abstained=abstain is not None,
            abstain_reason=abstain,
            abstain_detail=state.abstain_detail if abstain else None,
            hr_contact=self.settings.hr_contact_url,
            model=self._model_label(generated.model if generated else None),
            retrieved=[c.chunk_id for c in state.candidates[: self.settings.top_k]],
            latency_ms=dict(state.timings),
            usage=dict(generated.usage) if generated else {},
            notices=[] if abstain else list(state.notices),
            index_version=state.index_version,
        )

    def _log(self, state: QueryState, answer: Answer) -> None:
        claims = state.claims
        log_question(
            {
                "query_id": state.query_id,
                "user": user_hash(claims.subject) if claims else None,
                "groups": sorted(claims.acl_groups) if claims else [],
                "retrieved": answer.retrieved,
                "context": [c.chunk_id for c in state.context],
                "rerank_scores": [
                    round(c.rerank_score, 4) for c in state.candidates[:10] if c.rerank_score is not None
                ],
                "abstained": answer.abstained,
                "reason": state.abstain_reason.value if state.abstain_reason else None,
                "decided_by": state.decided_by,
                "latency_ms": answer.latency_ms,
                "tokens": answer.usage,
            },
            question=state.question if self.settings.log_queries else None,
        )

    # -- lifecycle ---------------------------------------------------------------------------
    async def index_version(self) -> str:
        return await self.corpus.index_version()

    async def warm_up(self) -> None:
        """Load what the first question would otherwise pay for (manifest, word lists, tokenizer,
        models), once, before serving. An index that is not there yet is not an error here:
        readiness and the questions report it."""
        with contextlib.suppress(IndexUnavailable):
            await self.corpus.manifest()
        for stage in self.stages:
            await stage.warm_up()
        await asyncio.to_thread(encoding)

    async def aclose(self) -> None:
        """Release every stage's own clients, then the shared resources (embedder, index)."""
        for closeable in [*self.stages, *self._resources]:
            await closeable.aclose()
