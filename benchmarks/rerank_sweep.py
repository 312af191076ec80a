"""Rerank sweep (a benchmark, not a test): hit@1/5/10 and MRR of the candidate orders the answer path
can produce, on one gold set and an already-ingested data dir (ingested with token vectors, the default).

    .venv/bin/python benchmarks/rerank_sweep.py corpus/gold.jsonl /tmp/bb
    .venv/bin/python benchmarks/rerank_sweep.py ../shared/benchmarks/contoso/ground_truth.jsonl /tmp/contoso

Candidates are retrieved once per question by the answer path itself, run up to its retrieve stage
(the same access filter, spelling correction and candidate count): once with late interaction off
(Qdrant's RRF order over the dense + BM25 prefetches, as before token vectors) and once with it on
(the same fused candidates rescored by MaxSim inside Qdrant). Only the ordering differs between rows.

``--cross`` adds the cross-encoder rows (rag_core.rerank.CrossEncoderRerank over the MaxSim + cosine
order): top N x window x weight of the base score, each pair read once (one intra-op thread, as on an
idle core per question) and cached; a row's added cost per question is the CPU (thread) and wall time
of the pairs it reads plus its window selection.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag_core.eval.gold import chunk_location, load_gold, matches
from rag_core.eval.harness import token_for
from rag_core.models.cross import CrossEncoder
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.rerank import BestWindow, CrossEncoderRerank, FusedOrder, LateDenseBlend, LexicalDenseReranker, Reranker
from rag_core.settings import CoreSettings
from rag_core.types import Candidate

Retrieved = list[tuple[list[str], str, list[Candidate]]]


async def retrieve_gold(gold: Path, data_dir: Path, **overrides: Any) -> tuple[Pipeline, dict[str, str], Retrieved]:
    """The candidates of every answerable gold row: (reference sources, rewritten query, candidates),
    plus the document-id → file map that matching a source needs. ``overrides``: settings."""
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(data_dir), **overrides)
    pipeline = build_pipeline(settings)
    manifest = await pipeline.corpus.manifest()
    files = {doc_id: record.meta.file for doc_id, record in manifest.documents.items()}
    rows = [r for r in load_gold(gold) if r.expect == "answer" and r.sources]
    retrieved: Retrieved = []
    for row in rows:
        state = await pipeline.run_until("retrieve", row.question, token_for(settings, row), as_of=row.as_of)
        retrieved.append((row.sources, state.query, state.candidates))
    return pipeline, files, retrieved


def first_hit(ranked: list[Candidate], sources: list[str], files: dict[str, str]) -> int | None:
    """1-based rank of the first candidate on a reference page (within one page), within the top 10."""
    return next(
        (i for i, c in enumerate(ranked[:10], start=1) if matches(chunk_location(c.chunk_id, files), sources)), None
    )


def parse_argv() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("gold", type=Path)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--cross", action="store_true", help="add the cross-encoder rows (slow)")
    parser.add_argument("--windows", default="96,128,192,first128", help="window pieces; firstN: no selection")
    parser.add_argument("--top", default="5,8,10,15", help="how many of the MaxSim + cosine order are read")
    parser.add_argument("--weights", default="0,1,4,16", help="weights of the base score in the blend")
    return parser.parse_args()


async def retrieve_from_argv(**overrides: Any) -> tuple[Pipeline, dict[str, str], Retrieved]:
    """``GOLD DATA_DIR`` from the command line, retrieved (the benchmarks' shared entry)."""
    args = parse_argv()
    return await retrieve_gold(args.gold, args.data_dir, **overrides)


@dataclass
class Scores:
    hit1: float
    hit5: float
    hit10: float
    mrr: float

    def render(self) -> str:
        return f"hit@1 {self.hit1:.2f}  hit@5 {self.hit5:.2f}  hit@10 {self.hit10:.2f}  MRR {self.mrr:.3f}"


async def score(reranker: Reranker, retrieved: Retrieved, files: dict[str, str]) -> Scores:
    ranks = [
        first_hit(await reranker.rerank(query, candidates), sources, files) for sources, query, candidates in retrieved
    ]
    n = len(ranks)
    return Scores(
        sum(r == 1 for r in ranks) / n,
        sum(bool(r and r <= 5) for r in ranks) / n,
        sum(r is not None for r in ranks) / n,
        sum(1 / r for r in ranks if r) / n,
    )


class ByScore:
    """Candidates sorted by one score (ties by chunk id, as the index breaks them)."""

    def __init__(self, name: str, key: str) -> None:
        self.name = name
        self.key = key

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        return sorted(candidates, key=lambda c: (-(getattr(c, self.key) or 0.0), c.chunk_id))

    async def aclose(self) -> None:
        return None


class RankFusion:
    """RRF of two orders of the same candidates (k=60): the index's MaxSim order and another reranker's."""

    name = "rank-fusion"

    def __init__(self, other: Reranker, k: int = 60) -> None:
        self.other = other
        self.k = k

    async def rerank(self, question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        other = {c.chunk_id: rank for rank, c in enumerate(await self.other.rerank(question, candidates))}
        fused = {
            c.chunk_id: 1 / (self.k + rank) + 1 / (self.k + other[c.chunk_id]) for rank, c in enumerate(candidates)
        }
        return sorted(candidates, key=lambda c: (-fused[c.chunk_id], c.chunk_id))

    async def aclose(self) -> None:
        return None


class TimedScorer:
    """The cross-encoder with each (question, passage) logit cached and its CPU/wall cost recorded."""

    def __init__(self, encoder: CrossEncoder) -> None:
        self.encoder = encoder
        self.cache: dict[tuple[str, str], tuple[float, float, float]] = {}  # logit, cpu s, wall s

    def piece_offsets(self, text: str) -> list[tuple[int, int]]:
        return self.encoder.piece_offsets(text)

    def logits(self, query: str, passages: Sequence[str]) -> list[float]:
        for passage in passages:
            if (query, passage) not in self.cache:
                cpu, wall = time.thread_time(), time.perf_counter()
                logit = self.encoder.logits(query, [passage])[0]
                self.cache[query, passage] = (logit, time.thread_time() - cpu, time.perf_counter() - wall)
        return [self.cache[query, p][0] for p in passages]

    def cost(self, query: str, passages: Sequence[str]) -> tuple[float, float]:
        return (sum(self.cache[query, p][1] for p in passages), sum(self.cache[query, p][2] for p in passages))


class FirstWindow(BestWindow):
    """The header and the body's first ``pieces`` word pieces: the window selection's ablation."""

    def __call__(self, question: str, content: str, offsets: Callable[[str], list[tuple[int, int]]]) -> str:
        header, _, body = content.partition("\n")
        spans = offsets(body)
        return content if len(spans) <= self.pieces else f"{header}\n{body[: spans[self.pieces - 1][1]]}"


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def window_of(spec: str) -> BestWindow:
    if spec.startswith("first"):
        return FirstWindow(int(spec.removeprefix("first")))
    return BestWindow(int(spec), int(spec) // 4)


async def cross_rows(retrieved: Retrieved, files: dict[str, str], args: argparse.Namespace) -> None:
    scorer = TimedScorer(CrossEncoder.shared(threads=1))
    for label in args.windows.split(","):
        window = window_of(label)
        for top_n in (int(n) for n in args.top.split(",")):
            costs: list[tuple[float, float]] = []
            for weight in (float(w) for w in args.weights.split(",")):
                reranker = CrossEncoderRerank(scorer, top_n=top_n, window=window, base_weight=weight)  # type: ignore[arg-type]
                print(
                    f"    cross top {top_n:2} window {label:9} + base x{weight:<4} "
                    f"{(await score(reranker, retrieved, files)).render()}",
                    flush=True,
                )
                if not costs:
                    for _, query, candidates in retrieved:
                        head = (await reranker.base.rerank(query, candidates))[:top_n]
                        cpu = time.thread_time()
                        passages = reranker.passages(query, head)
                        select = time.thread_time() - cpu
                        read_cpu, read_wall = scorer.cost(query, passages)
                        costs.append((1000 * (read_cpu + select), 1000 * (read_wall + select)))
            cpu_ms, wall_ms = [c for c, _ in costs], [w for _, w in costs]
            print(
                f"      added per question: CPU mean {statistics.mean(cpu_ms):.0f} / p95 {p95(cpu_ms):.0f} ms, "
                f"wall mean {statistics.mean(wall_ms):.0f} / p95 {p95(wall_ms):.0f} ms",
                flush=True,
            )


async def main() -> None:
    args = parse_argv()
    plain, files, fused = await retrieve_gold(args.gold, args.data_dir, LATE_INTERACTION="none")
    await plain.aclose()
    pipeline, _, late = await retrieve_gold(args.gold, args.data_dir)
    await pipeline.aclose()

    rows: list[tuple[str, Retrieved, Reranker]] = [
        ("(a) RRF order (late interaction off)", fused, FusedOrder()),
        ("    RRF + lexical blend (default before)", fused, LexicalDenseReranker()),
        ("(b) MaxSim order", late, FusedOrder()),
        ("    RRF order of the same candidates", late, ByScore("rrf", "fused_score")),
        ("    dense cosine order", late, ByScore("dense", "dense_score")),
        ("(c) lexical blend on MaxSim candidates", late, LexicalDenseReranker()),
    ]
    rows += [
        (f"    lexical blend + MaxSim x{w}", late, LexicalDenseReranker(late_weight=w))
        for w in (0.25, 0.5, 1.0, 2.0, 4.0)
    ]
    rows += [
        (f"    lexical blend + MaxSim rank bonus {r}", late, LexicalDenseReranker(rrf_weight=r))
        for r in (0.05, 0.1, 0.2)
    ]
    rows += [
        (f"    lexical w={w} + MaxSim x{m}", late, LexicalDenseReranker(weight=w, late_weight=m))
        for w in (0.1, 0.2)
        for m in (1.0, 2.0)
    ]
    rows += [
        (f"    MaxSim + dense x{d}" + (" (default)" if d == 0.25 else ""), late, LateDenseBlend(d))
        for d in (0.1, 0.25, 0.5, 1.0)
    ]
    rows += [
        ("    RRF(MaxSim rank, lexical blend rank)", late, RankFusion(LexicalDenseReranker())),
        ("    RRF(MaxSim rank, fused RRF rank)", late, RankFusion(ByScore("rrf", "fused_score"))),
    ]
    print(f"{args.gold} ({len(late)} answerable rows with sources), data dir {args.data_dir}")
    for name, retrieved, reranker in rows:
        print(f"{name:44} {(await score(reranker, retrieved, files)).render()}")
    if args.cross:
        await cross_rows(late, files, args)


if __name__ == "__main__":
    asyncio.run(main())
