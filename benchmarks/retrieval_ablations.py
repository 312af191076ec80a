"""Retrieval ablations (a benchmark, not a test): what else was tried to order the fused candidates
better with only the embedded model, and what each change did to hit@5 / hit@1 / MRR.

    .venv/bin/python benchmarks/retrieval_ablations.py corpus/gold.jsonl /tmp/bb
    .venv/bin/python benchmarks/retrieval_ablations.py ../shared/benchmarks/contoso/ground_truth.jsonl /tmp/contoso

Every row starts from the lexical-dense blend (the default before late interaction; the candidates now
come in MaxSim order, see benchmarks/README.md "Late interaction") over the same candidates and
adds or swaps one signal. Signals that need vectors re-embed the candidates with the local model,
the same way ingestion does; that is why this takes a minute or two, and why none of these could
be a per-question stage even if it helped.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from rerank_sweep import first_hit, retrieve_from_argv

from rag_core.embeddings.local import LocalEmbedder
from rag_core.rerank import LexicalDenseReranker
from rag_core.text import local_idf, terms
from rag_core.types import Candidate

Signal = Callable[[str, Sequence[Candidate]], list[float]]


class Vectors:
    """Local-model vectors of questions and of variants of a chunk's text, memoised."""

    def __init__(self) -> None:
        self.model = LocalEmbedder.shared()
        self._cache: dict[tuple[str, str], np.ndarray] = {}

    def of(self, text: str, kind: str = "mean") -> np.ndarray:
        key = (kind, text)
        if key not in self._cache:
            if kind == "mean":  # what ingestion stores: windows averaged
                self._cache[key] = np.asarray(self.model.embed_documents_sync([text])[0])
            else:  # one vector per 64-word-piece window (half overlapping), for max-similarity
                windows = self.model.windows(text, pieces=64, overlap=32)
                self._cache[key] = np.asarray(self.model.embed_documents_sync(windows))
        return self._cache[key]


def _heading(candidate: Candidate) -> str:
    first = candidate.content.split("\n", 1)[0]
    return first.split(" — ", 1)[1] if " — " in first else ""


def _body(candidate: Candidate, keep_heading: bool) -> str:
    body = candidate.content.split("\n", 1)[-1]
    return f"{_heading(candidate)}\n{body}" if keep_heading else body


def heading_coverage(query: str, candidates: Sequence[Candidate]) -> list[float]:
    """Share of the question's (IDF-weighted) words in the chunk's section heading."""
    asked = set(terms(query))
    idf = local_idf(asked, [set(terms(c.content)) for c in candidates])
    total = sum(idf.values()) or 1.0
    return [sum(idf[t] for t in asked & set(terms(_heading(c)))) / total for c in candidates]


def bigram_overlap(query: str, candidates: Sequence[Candidate]) -> list[float]:
    """Share of the question's adjacent word pairs that occur adjacent in the chunk."""
    asked = terms(query)
    pairs = set(zip(asked, asked[1:], strict=False))
    if not pairs:
        return [0.0] * len(candidates)
    out = []
    for c in candidates:
        words = terms(c.content)
        out.append(len(pairs & set(zip(words, words[1:], strict=False))) / len(pairs))
    return out


def bm25(query: str, candidates: Sequence[Candidate], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 over the candidate set (term frequency and length normalisation), scaled to [0, 1]."""
    asked = set(terms(query))
    docs = [Counter(terms(c.content)) for c in candidates]
    avg = sum(sum(d.values()) for d in docs) / max(1, len(docs))
    n = len(docs)
    idf = {t: math.log(1 + (n - sum(t in d for d in docs) + 0.5) / (sum(t in d for d in docs) + 0.5)) for t in asked}
    scores = [
        sum(idf[t] * d[t] * (k1 + 1) / (d[t] + k1 * (1 - b + b * sum(d.values()) / avg)) for t in asked if t in d)
        for d in docs
    ]
    top = max(scores, default=0.0) or 1.0
    return [s / top for s in scores]


def page_neighbours(base: list[float], candidates: Sequence[Candidate]) -> list[float]:
    """Support from the best other candidate of the same document within one page."""
    low = min(base)
    out = []
    for i, c in enumerate(candidates):
        near = [
            base[j] - low
            for j, d in enumerate(candidates)
            if j != i and d.document_id == c.document_id and abs(d.page_number - c.page_number) <= 1
        ]
        out.append(max(near, default=0.0))
    return out


async def main() -> None:
    pipeline, files, retrieved = await retrieve_from_argv()
    vectors = Vectors()
    blend = LexicalDenseReranker()
    base_scores: list[list[float]] = []
    for _, query, candidates in retrieved:
        ranked = {c.chunk_id: c.rerank_score or 0.0 for c in await blend.rerank(query, candidates)}
        base_scores.append([ranked[c.chunk_id] for c in candidates])

    def window_max(query: str, cands: Sequence[Candidate]) -> list[float]:
        q = vectors.of(query)
        return [float((vectors.of(c.content, "windows") @ q).max()) - c.dense_score for c in cands]

    def without(keep_heading: bool) -> Signal:
        def signal(query: str, cands: Sequence[Candidate]) -> list[float]:
            q = vectors.of(query)
            return [float(vectors.of(_body(c, keep_heading)) @ q) - c.dense_score for c in cands]

        return signal

    def rocchio(k: int, beta: float) -> Signal:
        """Pseudo-relevance feedback: move the question's vector towards the top k chunks."""

        def signal(query: str, cands: Sequence[Candidate]) -> list[float]:
            q = vectors.of(query)
            docs = np.stack([vectors.of(c.content) for c in cands])
            first = np.argsort(-(docs @ q))[:k]
            moved = q + beta * docs[first].mean(axis=0)
            moved /= np.linalg.norm(moved)
            return [float(v) for v in docs @ moved - docs @ q]

        return signal

    rows: list[tuple[str, Signal | None, float]] = [
        ("shipped blend (baseline)", None, 0.0),
        ("+ section-heading coverage 0.05", heading_coverage, 0.05),
        ("+ section-heading coverage 0.2", heading_coverage, 0.2),
        ("+ question bigrams in chunk 0.05", bigram_overlap, 0.05),
        ("+ question bigrams in chunk 0.2", bigram_overlap, 0.2),
        ("+ BM25 over candidates 0.05", bm25, 0.05),
        ("+ BM25 over candidates 0.2", bm25, 0.2),
        ("dense -> max over 64-piece windows", window_max, 1.0),
        ("dense -> heading+body (no title)", without(True), 1.0),
        ("dense -> body only", without(False), 1.0),
        ("dense -> Rocchio k=3 beta=0.3", rocchio(3, 0.3), 1.0),
        ("dense -> Rocchio k=2 beta=0.6", rocchio(2, 0.6), 1.0),
    ]
    neighbour_weights = (0.1, 0.3)
    print(f"{len(retrieved)} answerable rows with reference pages")
    print(f"{'ordering':40} hit@5  hit@1  MRR")
    for name, signal, weight in rows:
        _report(
            name,
            retrieved,
            files,
            [
                [s + weight * x for s, x in zip(base, signal(query, cands), strict=True)] if signal else base
                for base, (_, query, cands) in zip(base_scores, retrieved, strict=True)
            ],
        )
    for weight in neighbour_weights:
        _report(
            f"+ same-document page neighbours {weight}",
            retrieved,
            files,
            [
                [s + weight * x for s, x in zip(base, page_neighbours(base, cands), strict=True)]
                for base, (_, _, cands) in zip(base_scores, retrieved, strict=True)
            ],
        )
    await pipeline.aclose()


def _report(
    name: str, retrieved: list[tuple[list[str], str, list[Candidate]]], files: dict[str, str], scores: list[list[float]]
) -> None:
    hits = firsts = 0
    reciprocal = 0.0
    for (sources, _, candidates), row_scores in zip(retrieved, scores, strict=True):
        order = [c for _, c in sorted(zip(row_scores, candidates, strict=True), key=lambda pair: -pair[0])]
        rank = first_hit(order, sources, files)
        hits += bool(rank and rank <= 5)
        firsts += rank == 1
        reciprocal += 1 / rank if rank else 0.0
    n = len(retrieved)
    print(f"{name:40} {hits / n:.3f}  {firsts / n:.3f}  {reciprocal / n:.4f}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
