"""Contoso retrieval, session 4 (a benchmark, not a test): candidate orderings over the very same
candidates (dumped by benchmarks/contoso_dump.py), hit@1/5/10 and MRR@10 per set, the misses at 5
with the reference page's rank under every signal, and the cross-encoder's added cost per question.

    PYTHONHASHSEED=0 PYTHONPATH=$PWD .venv/bin/python benchmarks/contoso_retrieval.py DUMP.pkl [DUMP.pkl ...] \
        [--cache LOGITS.json] [--misses] [--windows w128,maxp64x2,...] [--top 5,8,10] [--bm25 0,0.05] \
        [--rows LABEL,...] [--changes "LABEL;LABEL"]

The first dump is the one the misses and the cost column are about (the Contoso ground truth).
PYTHONHASHSEED=0 is how the recorded table was taken (before rag_core.rerank.BestWindow summed its
window coverage with math.fsum, equal coverages could tie-break differently in another process).

Each (question, passage) pair is read once by the cross-encoder on one intra-op thread, and its logit,
thread CPU time and length are cached on disk (``--cache``), so every row reads the same logits.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_core.eval.gold import matches
from rag_core.models.cross import CrossEncoder
from rag_core.rerank import BestWindow
from rag_core.text import local_idf, split_sentences, terms
from rag_core.types import Candidate

Order = Callable[["Row"], list[int]]  # indices into row.candidates, best first


@dataclass
class Row:
    id: str
    question: str
    query: str
    sources: list[str]
    candidates: list[Candidate]
    located: list[tuple[str, int] | None]
    bm25_rank: int | None
    dense_rank: int | None
    bm25: dict[str, float]
    query_tokens: int

    def rank(self, order: list[int], limit: int = 10) -> int | None:
        for position, i in enumerate(order[:limit], start=1):
            if matches(self.located[i], self.sources):
                return position
        return None


def load(path: Path) -> tuple[str, list[Row]]:
    data = pickle.loads(path.read_bytes())
    rows = []
    for r in data["rows"]:
        rows.append(
            Row(
                r["id"],
                r["question"],
                r["query"],
                r["sources"],
                [Candidate.model_validate(c) for c in r["candidates"]],
                r["located"],
                r["bm25_rank"],
                r["dense_rank"],
                r["bm25"],
                r["query_tokens"],
            )
        )
    return Path(data["gold"]).name, rows


class Scorer:
    """The cross-encoder, one thread, every pair cached on disk with its CPU time and word pieces."""

    def __init__(self, cache: Path | None) -> None:
        self.path = cache
        self.cache: dict[str, list[float]] = json.loads(cache.read_text()) if cache and cache.exists() else {}
        self._encoder: CrossEncoder | None = None
        self.dirty = 0

    @property
    def encoder(self) -> CrossEncoder:
        if self._encoder is None:
            self._encoder = CrossEncoder.shared(threads=1)
        return self._encoder

    def piece_offsets(self, text: str) -> list[tuple[int, int]]:
        return self.encoder.piece_offsets(text)

    def one(self, query: str, passage: str) -> list[float]:
        key = f"{query}\x00{passage}"
        if key not in self.cache:
            cpu = time.thread_time()
            logit = self.encoder.logits(query, [passage])[0]
            pieces = len(self.encoder.piece_offsets(query)) + len(self.encoder.piece_offsets(passage)) + 3
            self.cache[key] = [logit, time.thread_time() - cpu, float(pieces)]
            self.dirty += 1
            if self.dirty % 200 == 0:
                self.save()
        return self.cache[key]

    def logits(self, query: str, passages: Sequence[str]) -> list[float]:
        return [self.one(query, p)[0] for p in passages]

    def save(self) -> None:
        if self.path:
            self.path.write_text(json.dumps(self.cache))


def header_body(content: str) -> tuple[str, str]:
    header, _, body = content.partition("\n")
    return (header, body) if body else ("", content)


def windows(scorer: Scorer, content: str, pieces: int, stride: int, header: bool = True) -> list[str]:
    """Every window of ``pieces`` word pieces of the body (stride ``stride``), the chunk's first line
    (document title and section heading) prepended unless ``header`` is False."""
    first, body = header_body(content)
    first = first if header else ""
    spans = scorer.piece_offsets(body)
    if len(spans) <= pieces:
        texts = [body]
    else:
        starts = list(range(0, len(spans) - pieces + 1, stride))
        if starts[-1] != len(spans) - pieces:
            starts.append(len(spans) - pieces)
        texts = [body[spans[s][0] : spans[s + pieces - 1][1]] for s in starts]
    return [f"{first}\n{t}" if first else t for t in texts]


def sentences(content: str, span: int) -> list[str]:
    """Runs of ``span`` consecutive sentences of the body (a table row is a sentence), header prepended."""
    first, body = header_body(content)
    found = split_sentences(body) or [body]
    runs = [" ".join(found[i : i + span]) for i in range(0, max(len(found) - span + 1, 1))]
    return [f"{first}\n{r}" if first else r for r in runs]


def best_k(question: str, passages: list[str], k: int) -> list[str]:
    """The ``k`` passages covering the most of the question's words (IDF among them), earliest first on ties."""
    query = set(terms(question))
    bags = [frozenset(terms(p)) for p in passages]
    idf = local_idf(query, bags)
    # math.fsum: exact, so the score does not depend on the set's iteration order (string hashing is
    # randomised per process; a plain sum could break equal coverages differently from run to run).
    ranked = sorted(range(len(passages)), key=lambda i: (-math.fsum(idf[t] for t in query if t in bags[i]), i))
    return [passages[i] for i in ranked[:k]]


def z(values: list[float]) -> list[float]:
    mean = statistics.fmean(values)
    sd = statistics.pstdev(values) or 1.0
    return [(v - mean) / sd for v in values]


def blend_scores(row: Row, dense_weight: float = 0.25, bm25_weight: float = 0.0) -> list[float]:
    """MaxSim per question token + ``dense_weight`` x cosine (the default), optionally + ``bm25_weight`` x
    the BM25 score relative to the best candidate's."""
    top = max(row.bm25.values(), default=0.0) or 1.0
    return [
        (c.late_score or 0.0) + dense_weight * c.dense_score + bm25_weight * row.bm25.get(c.chunk_id, 0.0) / top
        for c in row.candidates
    ]


def blend_order(row: Row, dense_weight: float = 0.25, bm25_weight: float = 0.0) -> list[int]:
    score = blend_scores(row, dense_weight, bm25_weight)
    return sorted(range(len(row.candidates)), key=lambda i: (-score[i], row.candidates[i].chunk_id))


def by(row: Row, values: list[float]) -> list[int]:
    return sorted(range(len(row.candidates)), key=lambda i: (-values[i], row.candidates[i].chunk_id))


class Cross:
    """The cross-encoder's score of a chunk for a row's question under one passage choice (the max
    logit over the passages ``passages`` cuts from the chunk: MaxP), memoised per (row, chunk)."""

    def __init__(self, scorer: Scorer, passages: Callable[[str, str], list[str]], description: str) -> None:
        self.scorer = scorer
        self.passages = passages
        self.description = description
        self.memo: dict[tuple[str, str], float] = {}

    def logit(self, row: Row, i: int) -> float:
        c = row.candidates[i]
        key = (row.id + row.query, c.chunk_id)
        if key not in self.memo:
            self.memo[key] = max(self.scorer.one(row.query, t)[0] for t in self.passages(row.query, c.content))
        return self.memo[key]


def head_rerank(row: Row, top_n: int, base: list[int], key: Callable[[list[int]], list[float]]) -> list[int]:
    head, tail = base[:top_n], base[top_n:]
    scores = key(head)
    order = sorted(range(len(head)), key=lambda j: (-scores[j], row.candidates[head[j]].chunk_id))
    return [head[j] for j in order] + tail


def cross_alone(cross: Cross, top_n: int, bm25: float = 0.0) -> Order:
    def order(row: Row) -> list[int]:
        base = blend_order(row, bm25_weight=bm25)
        return head_rerank(row, top_n, base, lambda head: [cross.logit(row, i) for i in head])

    return order


def cross_rrf(cross: Cross, top_n: int, k: float, cross_weight: float = 1.0, bm25: float = 0.0) -> Order:
    """RRF of the blend's rank and the cross-encoder's rank within the head."""

    def order(row: Row) -> list[int]:
        def key(head: list[int]) -> list[float]:
            logits = [cross.logit(row, i) for i in head]
            by_cross = sorted(range(len(head)), key=lambda j: (-logits[j], j))
            cross_rank = {j: r for r, j in enumerate(by_cross, start=1)}
            return [1 / (k + j + 1) + cross_weight / (k + cross_rank[j]) for j in range(len(head))]

        return head_rerank(row, top_n, blend_order(row, bm25_weight=bm25), key)

    return order


def cross_z(cross: Cross, top_n: int, weight: float, bm25: float = 0.0) -> Order:
    """z-score of the blend score plus ``weight`` x z-score of the logit, within the head."""

    def order(row: Row) -> list[int]:
        def key(head: list[int]) -> list[float]:
            scores = blend_scores(row, bm25_weight=bm25)
            base = [scores[i] for i in head]
            logits = [cross.logit(row, i) for i in head]
            return [b + weight * x for b, x in zip(z(base), z(logits), strict=True)]

        return head_rerank(row, top_n, blend_order(row, bm25_weight=bm25), key)

    return order


def length_normalised(power: float, median_tokens: float) -> Order:
    """MaxSim summed over the question's tokens / tokens**power, + 0.25 x cosine. power 1 is the default
    (a mean cosine per token); scaled so the median-length question keeps the default's weighting."""

    def order(row: Row) -> list[int]:
        n = max(row.query_tokens, 1)
        weight = 0.25 * (median_tokens / n) ** (1 - power)
        return by(row, [(c.late_score or 0.0) + weight * c.dense_score for c in row.candidates])

    return order


def bm25_blend(weight: float) -> Order:
    return lambda row: blend_order(row, bm25_weight=weight)


def cost(rows: list[Row], cross: Cross, top_n: int, bm25: float = 0.0) -> tuple[float, float, float, float]:
    """Per question: CPU ms of the pairs read (one thread), and the wall ms on two parallel single-thread
    sessions (pairs dealt longest-first to the less loaded session); mean and p95 of each."""
    cpu_ms, wall_ms = [], []
    for row in rows:
        per_pair: list[float] = []
        for i in blend_order(row, bm25_weight=bm25)[:top_n]:
            c = row.candidates[i]
            for t in cross.passages(row.query, c.content):
                per_pair.append(1000 * cross.scorer.one(row.query, t)[1])
        cpu_ms.append(sum(per_pair))
        lanes = [0.0, 0.0]
        for ms in sorted(per_pair, reverse=True):
            lanes[lanes.index(min(lanes))] += ms
        wall_ms.append(max(lanes))

    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[-1]

    return statistics.fmean(cpu_ms), p95(cpu_ms), statistics.fmean(wall_ms), p95(wall_ms)


def metrics(rows: list[Row], order: Order) -> tuple[float, float, float, float]:
    ranks = [row.rank(order(row)) for row in rows]
    n = len(ranks)
    return (
        sum(r == 1 for r in ranks if r) / n,
        sum(1 for r in ranks if r and r <= 5) / n,
        sum(1 for r in ranks if r) / n,
        sum(1 / r for r in ranks if r) / n,
    )


def print_misses(rows: list[Row], signals: dict[str, Order]) -> None:
    names = list(signals)
    print("misses at 5 under the blend; rank of the first reference-page chunk under each signal")
    print("(BM25 / dense: over the whole visible corpus, top 200; others: within the candidates)")
    print("id | question | reference | BM25 | dense | " + " | ".join(names))
    for row in rows:
        blend_rank = row.rank(blend_order(row), limit=len(row.candidates))
        if blend_rank is not None and blend_rank <= 5:
            continue
        ranks = [row.rank(signals[n](row), limit=len(row.candidates)) for n in names]
        print(
            f"{row.id} | {row.question} | {', '.join(row.sources)} | {row.bm25_rank} | {row.dense_rank} | "
            + " | ".join(str(r) for r in ranks)
        )


def print_pair_costs(scorer: Scorer) -> None:
    """CPU per cross-encoder pair (one thread) by its length in word pieces, over every cached pair."""
    buckets: dict[int, list[float]] = {}
    for _, cpu, pieces in scorer.cache.values():
        buckets.setdefault(int(pieces) // 32 * 32, []).append(1000 * cpu)
    print("cross-encoder pair cost (one intra-op thread): pieces | pairs | CPU ms median / p95")
    for start in sorted(buckets):
        values = sorted(buckets[start])
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"  {start:3}-{start + 31:3} | {len(values):5} | {statistics.median(values):5.1f} / {p95:5.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dumps", type=Path, nargs="+")
    parser.add_argument("--cache", type=Path)
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--rows", default="all", help="comma-separated row labels to run, or all")
    parser.add_argument("--windows", default="w128,w64,maxp64x2,maxp48x2,maxp32x3", help="passage choices")
    parser.add_argument("--changes", default="", help="';'-separated row labels: print each row's rank change")
    parser.add_argument("--top", default="5,8,10", help="how many of the base order the cross-encoder reads")
    parser.add_argument("--bm25", default="0", help="BM25 weights in the base order under the cross-encoder")
    args = parser.parse_args()
    sets = [load(p) for p in args.dumps]
    scorer = Scorer(args.cache)

    def best_window(pieces: int) -> Callable[[str, str], list[str]]:
        window = BestWindow(pieces, pieces // 4)
        return lambda q, content: [window(q, content, scorer.piece_offsets)]

    def maxp(pieces: int, keep: int, header: bool = True) -> Callable[[str, str], list[str]]:
        return lambda q, content: best_k(q, windows(scorer, content, pieces, pieces // 2, header), keep)

    def maxs(span: int, keep: int) -> Callable[[str, str], list[str]]:
        return lambda q, content: best_k(q, sentences(content, span), keep)

    option = Cross(scorer, best_window(128), "window 128")
    crosses = {
        "w128": option,
        "w64": Cross(scorer, best_window(64), "window 64"),
        "w32": Cross(scorer, best_window(32), "window 32"),
        "maxp64x2": Cross(scorer, maxp(64, 2), "max of best 2 of 64-piece windows"),
        "maxp64x2-nohead": Cross(scorer, maxp(64, 2, header=False), "the same without the title + heading line"),
        "maxs2x3": Cross(scorer, maxs(2, 3), "max of best 3 runs of 2 sentences"),
        "maxs1x4": Cross(scorer, maxs(1, 4), "max of best 4 sentences"),
        "maxp48x2": Cross(scorer, maxp(48, 2), "max of best 2 of 48-piece windows"),
        "maxp32x3": Cross(scorer, maxp(32, 3), "max of best 3 of 32-piece windows"),
    }

    rows_spec: dict[str, tuple[Order, Cross | None, int, float]] = {
        "blend (default)": (blend_order, None, 0, 0.0),
        "ColBERT MaxSim": (lambda r: by(r, [c.late_score or 0.0 for c in r.candidates]), None, 0, 0.0),
        "dense cosine": (lambda r: by(r, [c.dense_score for c in r.candidates]), None, 0, 0.0),
        "RRF (fused)": (lambda r: by(r, [c.fused_score for c in r.candidates]), None, 0, 0.0),
        **{f"blend + BM25 x{w}": (bm25_blend(w), None, 0, 0.0) for w in (0.02, 0.05, 0.1)},
        **{f"MaxSim + cosine x{w}": (lambda r, w=w: blend_order(r, w), None, 0, 0.0) for w in (0.15, 0.35)},
    }
    median = statistics.median(r.query_tokens for _, rows in sets for r in rows)  # over every loaded set
    for power in (0.0, 0.5):
        rows_spec[f"MaxSim sum / tokens^{power} + cos"] = (length_normalised(power, median), None, 0, 0.0)
    for key, cross in crosses.items():
        if key not in args.windows.split(","):
            continue
        for bm25 in [float(b) for b in args.bm25.split(",")]:
            base = f" bm25 x{bm25}" if bm25 else ""
            for n in (int(t) for t in args.top.split(",")):
                rows_spec[f"cross {key}{base} top {n} alone"] = (cross_alone(cross, n, bm25), cross, n, bm25)
                for k in (2, 5, 60):
                    rows_spec[f"cross {key}{base} top {n} RRF k={k}"] = (
                        cross_rrf(cross, n, k, bm25=bm25),
                        cross,
                        n,
                        bm25,
                    )
                for w in (0.5, 1.0, 2.0):
                    rows_spec[f"cross {key}{base} top {n} z x{w}"] = (cross_z(cross, n, w, bm25), cross, n, bm25)
    wanted = None if args.rows == "all" else set(args.rows.split(","))

    if args.misses:
        print_misses(
            sets[0][1],
            {
                "ColBERT": rows_spec["ColBERT MaxSim"][0],
                "BM25 (candidates)": lambda r: by(r, [r.bm25.get(c.chunk_id, 0.0) for c in r.candidates]),
                "blend": blend_order,
                "cross (option: top 10, window 128)": cross_alone(option, 10),
            },
        )

    header = "order".ljust(34) + "".join(f" | {name[:22]:>22} h1/h5/h10 MRR" for name, _ in sets)
    print(header + " | cross CPU ms mean/p95, 2-lane wall mean/p95 (first set)")
    for label, (order, cross, n, bm25) in rows_spec.items():
        if wanted and not any(label.startswith(w) for w in wanted):
            continue
        line = label.ljust(34)
        for _, rows in sets:
            h1, h5, h10, mrr = metrics(rows, order)
            line += f" | {h1:.2f}/{h5:.2f}/{h10:.2f} {mrr:.3f}".rjust(37)
        if cross is not None:
            line += " | " + " / ".join(f"{v:.0f}" for v in cost(sets[0][1], cross, n, bm25))
        print(line, flush=True)
    for label in args.changes.split(";") if args.changes else []:
        order = rows_spec[label][0]
        for name, rows in sets:
            moved = [
                f"{r.id}:{r.rank(blend_order(r))}->{r.rank(order(r))}"
                for r in rows
                if r.rank(blend_order(r)) != r.rank(order(r))
            ]
            print(f"rank changes vs blend, {label}, {name}: {' '.join(moved) or '-'}")
    print_pair_costs(scorer)
    scorer.save()


if __name__ == "__main__":
    main()
