"""Rerank stage behind one Protocol: identity, MaxSim + cosine, a local lexical-dense blend, a local
cross-encoder over the head of the MaxSim order, or Cohere Rerank."""

from __future__ import annotations

import asyncio
import math
import statistics
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Protocol

from rag_core.errors import BenefitsBotError
from rag_core.text import local_idf, terms
from rag_core.types import Candidate

if TYPE_CHECKING:  # aiohttp costs ~0.2 s CPU to import; only the Cohere path needs it, so it loads there
    import aiohttp


@lru_cache(maxsize=4096)
def _title_terms(title: str) -> frozenset[str]:
    return frozenset(terms(title))


class Reranker(Protocol):
    name: str

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]: ...

    async def aclose(self) -> None: ...


class FusedOrder:
    """Keep the index's order: MaxSim with late interaction on, else Qdrant's RRF order."""

    name = "none"

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        return list(candidates)

    async def aclose(self) -> None:
        return None


class LateDenseBlend:
    """The MaxSim score (per question token) plus a share of the dense cosine: token-level matching
    first, the whole-chunk similarity as a tie-breaker between near-equal MaxSim scores (they cluster
    within a few hundredths). Ties by chunk id, as the index breaks them. The weight was picked on
    Contoso and checked on corpus/ (benchmarks/README.md, "Late interaction")."""

    name = "late"

    def __init__(self, dense_weight: float = 0.25) -> None:
        self.dense_weight = dense_weight

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        rescored = [
            c.model_copy(update={"rerank_score": (c.late_score or 0.0) + self.dense_weight * c.dense_score})
            for c in candidates
        ]
        return sorted(rescored, key=lambda c: (-(c.rerank_score or 0.0), c.chunk_id))

    async def aclose(self) -> None:
        return None


class LexicalDenseReranker:
    """Cosine similarity blended with how much of the question's vocabulary a chunk covers
    (weighted by rarity among the candidates), optionally a little of the fused rank, and whether the
    question names the chunk's document ("...under Northwind Health Plus?"). Cheap, local and
    deterministic; the weights come from benchmarks/rerank_sweep.py."""

    name = "lexical"

    def __init__(
        self, weight: float = 0.35, rrf_weight: float = 0.0, title_weight: float = 0.05, late_weight: float = 0.0
    ) -> None:
        self.weight = weight
        self.rrf_weight = rrf_weight
        self.title_weight = title_weight
        self.late_weight = late_weight  # of the MaxSim score per question token (late interaction on)
        # A chunk's terms never change for a given revision: tokenise each chunk once, not per question.
        self._terms: dict[tuple[str, int], frozenset[str]] = {}

    def _bag(self, candidate: Candidate) -> frozenset[str]:
        key = (candidate.chunk_id, hash(candidate.content))
        bag = self._terms.get(key)
        if bag is None:
            if len(self._terms) > 50_000:
                self._terms.clear()
            bag = self._terms[key] = frozenset(terms(candidate.content))
        return bag

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        query = set(terms(question))
        if not query or not candidates:
            return list(candidates)
        bags = [self._bag(c) for c in candidates]
        idf = local_idf(query, bags)
        total = math.fsum(idf.values()) or 1.0  # fsum: order-free, so ties break the same in every process
        # Title words that tell the candidates' documents apart ("plus" vs "standard"), not the
        # ones every title shares.
        titles = {c.title: _title_terms(c.title) for c in candidates}
        shared = frozenset.intersection(*titles.values())
        rescored = []
        for rank, (candidate, bag) in enumerate(zip(candidates, bags, strict=True)):
            coverage = math.fsum(idf[t] for t in query if t in bag) / total
            distinctive = titles[candidate.title] - shared
            named = len(query & distinctive) / len(distinctive) if distinctive else 0.0
            score = (
                candidate.dense_score
                + self.weight * coverage
                + self.rrf_weight / (rank + 1)
                + self.title_weight * named
                + self.late_weight * (candidate.late_score or 0.0)
            )
            rescored.append(candidate.model_copy(update={"rerank_score": score}))
        return sorted(rescored, key=lambda c: -(c.rerank_score or 0.0))

    async def aclose(self) -> None:
        return None


class CohereReranker:
    """Cohere Rerank (``COHERE_API_KEY``); on failure the fused order stands (never an outage)."""

    name = "cohere"

    def __init__(
        self,
        api_key: str,
        model: str = "rerank-v3.5",
        base_url: str = "https://api.cohere.com/v2",
        timeout_s: float = 5.0,
    ) -> None:
        self.api_key = api_key
        self.model = model
        self.base_url = base_url.rstrip("/")
        import aiohttp

        self.timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._session: aiohttp.ClientSession | None = None

    def _http(self) -> aiohttp.ClientSession:
        """One pooled session for all questions (a new one per question would redo TLS each time)."""
        if self._session is None or self._session.closed:
            import aiohttp

            self._session = aiohttp.ClientSession(timeout=self.timeout)
        return self._session

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        if not candidates:
            return []
        import aiohttp

        body = {"model": self.model, "query": question, "documents": [c.content for c in candidates]}
        try:
            async with self._http().post(
                f"{self.base_url}/rerank", json=body, headers={"Authorization": f"Bearer {self.api_key}"}
            ) as response:
                if response.status != 200:
                    raise BenefitsBotError(f"Cohere rerank returned HTTP {response.status}")
                results = (await response.json())["results"]
        except (aiohttp.ClientError, TimeoutError, KeyError, BenefitsBotError):
            return list(candidates)
        ordered = []
        for item in results:
            candidate = candidates[int(item["index"])]
            ordered.append(candidate.model_copy(update={"rerank_score": float(item["relevance_score"])}))
        return ordered

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class PairScorer(Protocol):
    """A cross-encoder: reads the question and a passage together (rag_core.models.cross.CrossEncoder)."""

    def logits(self, query: str, passages: Sequence[str]) -> list[float]: ...

    def piece_offsets(self, text: str) -> list[tuple[int, int]]: ...


class BestWindow:
    """The part of a chunk worth reading: its first line (document title and section heading, written
    by the chunker) plus the window of ``pieces`` word pieces of the body that covers the most of the
    question's vocabulary (weighted by rarity among the windows). Costs a tokenizer pass and a few
    term bags, so a cross-encoder reads ~``pieces`` pieces per chunk instead of the whole chunk."""

    def __init__(self, pieces: int = 128, stride: int = 32) -> None:
        if pieces < 16 or not 0 < stride <= pieces:
            raise ValueError("window pieces must be >= 16 and 0 < stride <= pieces")
        self.pieces = pieces
        self.stride = stride

    def __call__(self, question: str, content: str, offsets: Callable[[str], list[tuple[int, int]]]) -> str:
        header, _, body = content.partition("\n")
        if not body:
            header, body = "", content
        spans = offsets(body)
        if len(spans) <= self.pieces:
            return content
        starts = list(range(0, len(spans) - self.pieces + 1, self.stride))
        if starts[-1] != len(spans) - self.pieces:
            starts.append(len(spans) - self.pieces)
        windows = [body[spans[s][0] : spans[s + self.pieces - 1][1]] for s in starts]
        query = set(terms(question))
        bags = [frozenset(terms(w)) for w in windows]
        idf = local_idf(query, bags)
        # Earliest window wins ties: the chunk's start is where its section says what it is about. fsum is
        # exact, so equal coverages tie whatever order the set of question words iterates in (string
        # hashing differs per process; a plain sum could round them apart and flip the choice between runs).
        best = max(range(len(windows)), key=lambda i: (math.fsum(idf[t] for t in query if t in bags[i]), -i))
        return f"{header}\n{windows[best]}" if header else windows[best]


class CrossEncoderRerank:
    """Reads the first ``top_n`` candidates of ``base``'s order (MaxSim + cosine by default) with a
    cross-encoder, on each chunk's header plus its best window (``BestWindow``), and reorders them;
    the rest keep the base order below them. Cost is ``top_n`` model runs of ~window pieces per
    question, off the event loop.

    ``fusion="z"`` (the default): within the head, the z-score of the base score plus ``cross_weight``
    × the z-score of the cross-encoder logit: the model corrects the base order without discarding
    it (benchmarks/README.md, "Contoso retrieval (session 4)": replacing loses 3-6 gold rows at rank
    1, fusing 1-2). ``fusion="probability"``: the model's probability plus ``base_weight`` × the base
    score (the first version, benchmarks/rerank_sweep.py)."""

    name = "cross"

    def __init__(
        self,
        scorer: PairScorer,
        *,
        top_n: int = 10,
        window: BestWindow | None = None,
        base: Reranker | None = None,
        base_weight: float = 0.0,
        fusion: Literal["z", "probability"] = "z",
        cross_weight: float = 1.0,
    ) -> None:
        self.scorer = scorer
        self.top_n = top_n
        self.window = window or BestWindow()
        self.base = base or LateDenseBlend()
        self.base_weight = base_weight
        self.fusion = fusion
        self.cross_weight = cross_weight

    def passages(self, question: str, candidates: Sequence[Candidate]) -> list[str]:
        return [self.window(question, c.content, self.scorer.piece_offsets) for c in candidates]

    def _read(self, question: str, head: Sequence[Candidate]) -> list[float]:
        return self.scorer.logits(question, self.passages(question, head))

    def _fused(self, head: Sequence[Candidate], logits: Sequence[float]) -> list[float]:
        base = [c.rerank_score or 0.0 for c in head]
        if self.fusion == "z":
            return [b + self.cross_weight * x for b, x in zip(_z(base), _z(logits), strict=True)]
        return [1.0 / (1.0 + math.exp(-x)) + self.base_weight * b for b, x in zip(base, logits, strict=True)]

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        ordered = await self.base.rerank(question, candidates)
        head, tail = ordered[: self.top_n], ordered[self.top_n :]
        if not head:
            return ordered
        logits = await asyncio.to_thread(self._read, question, head)
        rescored = [
            c.model_copy(update={"rerank_score": score})
            for c, score in zip(head, self._fused(head, logits), strict=True)
        ]
        return sorted(rescored, key=lambda c: (-(c.rerank_score or 0.0), c.chunk_id)) + tail

    async def aclose(self) -> None:
        await self.base.aclose()


def _z(values: Sequence[float]) -> list[float]:
    """Standard scores (population deviation); all equal -> all zero."""
    mean = statistics.fmean(values)
    spread = statistics.pstdev(values) or 1.0
    return [(v - mean) / spread for v in values]
