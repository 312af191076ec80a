"""Reading ablations (a benchmark, not a test): which model picks the answering sentence out of the
four context chunks, and which model signal says the documents answer the question at all.

    # 1. run the real engine up to the context (no gates), score every sentence with every reader
    .venv/bin/python benchmarks/reading_ablations.py collect corpus/gold.jsonl /tmp/bb /tmp/r/gold.json
    .venv/bin/python benchmarks/reading_ablations.py collect ../shared/benchmarks/contoso/ground_truth.jsonl \
        /tmp/contoso /tmp/r/contoso.json --labels benchmarks/contoso_answers.jsonl
    # 2. answer accuracy per selector, answerability per signal, cost
    .venv/bin/python benchmarks/reading_ablations.py report /tmp/r/gold.json /tmp/r/holdout.json ...

``collect`` reuses the engine's scope, query rewrite, retrieval, rerank and context budget, but
reads the context even where today's gates abstain, so that a model signal can be compared with
the gate it would replace. Every sentence and table row of the context (``rag_core.reading.spans``)
gets: the shipped lexical score, cross-encoder logits (sentence alone, under its heading, under
title and heading), ColBERT MaxSim over the sentence's tokens (from the chunk's token vectors, as
ingest stores them) and bge-small cosine. Per question it also keeps the soft coverage of each
question token (its best ColBERT cosine among the context tokens). ``report`` only reads that file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag_core.context import select_context
from rag_core.eval.gold import GoldRow, apply_labels, load_gold
from rag_core.eval.harness import token_for
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.models import ColbertEncoder, CrossEncoder, DenseOnnxEncoder, bert
from rag_core.pipeline import build_pipeline
from rag_core.pipeline.gates import SimilarityGate
from rag_core.pipeline.state import QueryState
from rag_core.reading.question import reader_queries
from rag_core.reading.spans import Span, spans_of
from rag_core.settings import CoreSettings
from rag_core.types import Candidate

# Stages run to get the context: everything before the gate, then the rerank, never a gate.
_STAGES = ("scope", "rewrite", "embed", "retrieve", "rerank")


def contains_answer(text: str, must_include: Sequence[str]) -> bool:
    """The eval's rule (``RowResult.includes_any``) applied to one sentence."""
    lowered = text.lower()
    return any(m.lower() in lowered for m in must_include)


class Readers:
    """Every sentence scorer under comparison, each timed per question."""

    def __init__(self, ce_length: int) -> None:
        self.cross = CrossEncoder.shared(max_length=ce_length)
        self.colbert = ColbertEncoder.shared()
        self.dense = DenseOnnxEncoder.shared()
        self.lexical = ExtractiveGenerator()

    def score(self, question: str, query: str, context: Sequence[Candidate], spans: Sequence[Span]) -> dict[str, Any]:
        """``query`` is the engine's retrieval query (spelling-corrected), ``question`` the employee's
        words; the prefilters and ``ce_reader`` read ``reader_queries(question)``."""
        cost: dict[str, float] = {}
        asked = reader_queries(question)
        started = time.perf_counter()
        lexical = {s: score for score, s, _ in self.lexical.score_sentences(asked[0], context)}
        cost["lexical"] = time.perf_counter() - started

        started = time.perf_counter()
        query_tokens = self.colbert.encode_query(asked[0])
        cost["colbert_query"] = time.perf_counter() - started
        started = time.perf_counter()
        documents = {c.chunk_id: self.colbert.encode_document_tokens([c.content])[0] for c in context}
        cost["colbert_documents"] = time.perf_counter() - started  # paid at ingest in production
        started = time.perf_counter()
        colbert = []
        for span in spans:
            tokens = documents[span.chunk.chunk_id]
            inside = (
                (tokens.offsets[:, 0] >= span.start) & (tokens.offsets[:, 1] <= span.end) & (tokens.offsets[:, 0] >= 0)
            )
            vectors = tokens.vectors[inside]
            colbert.append(ColbertEncoder.max_sim(query_tokens, vectors) / len(query_tokens) if len(vectors) else 0.0)
        cost["colbert_spans"] = time.perf_counter() - started

        # Soft coverage: each real question token's best cosine among all context tokens.
        pieces = bert.word_pieces(self.colbert._tokenizer, asked[0])  # noqa: SLF001 (benchmark introspection)
        real = query_tokens[2 : 2 + len(pieces.ids)]
        every = np.concatenate([t.vectors for t in documents.values()]) if documents else np.zeros((0, 1))
        best = (real @ every.T).max(axis=1).tolist() if len(every) and len(real) else []
        coverage = [
            {"piece": self.colbert._tokenizer.id_to_token(i), "best": round(b, 4)}  # noqa: SLF001
            for i, b in zip(pieces.ids, best, strict=False)
        ]

        texts = [s.text for s in spans]
        framed = [s.in_context() for s in spans]
        started = time.perf_counter()
        ce = self.cross.logits(query, texts) if texts else []
        cost["ce_per_span"] = (time.perf_counter() - started) / max(1, len(texts))
        ce_heading = self.cross.logits(query, framed) if spans else []
        ce_title = self.cross.logits(query, [f"{s.chunk.title} — {s.in_context()}" for s in spans]) if spans else []
        ce_raw = self.cross.logits(question, framed) if spans else []
        per_clause = [self.cross.logits(q, framed) for q in asked] if spans else []
        ce_reader = [max(v) for v in zip(*per_clause, strict=True)] if spans else []

        started = time.perf_counter()
        q = self.dense.encode_query(asked[0])
        dense = (self.dense.encode_documents(texts) @ q).tolist() if texts else []
        cost["dense_spans"] = time.perf_counter() - started
        return {
            "spans": [
                {
                    "text": s.text,
                    "chunk_id": s.chunk.chunk_id,
                    "heading": s.heading,
                    "lexical": lexical.get(s.text),
                    "ce": round(a, 4),
                    "ce_heading": round(b, 4),
                    "ce_title": round(c, 4),
                    "ce_raw": round(f, 4),
                    "ce_reader": round(g, 4),
                    "colbert": round(d, 4),
                    "dense": round(e, 4),
                }
                for s, a, b, c, d, e, f, g in zip(
                    spans, ce, ce_heading, ce_title, colbert, dense, ce_raw, ce_reader, strict=True
                )
            ],
            "reader_queries": asked,
            "coverage": coverage,
            "cost_s": cost,
        }


async def collect(gold: Path, data_dir: Path, out: Path, labels: Path | None, ce_length: int) -> None:
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(data_dir))  # type: ignore[call-arg]
    rows: list[GoldRow] = load_gold(gold)
    if labels:
        rows = apply_labels(rows, labels)
    pipeline = build_pipeline(settings.model_copy(update={"reader": "none"}))
    gate = pipeline.stage("gate")
    assert isinstance(gate, SimilarityGate)
    readers = Readers(ce_length)
    records = []
    try:
        await pipeline.warm_up()
        for number, row in enumerate(rows, start=1):
            token = token_for(settings, row)
            answer = await pipeline.answer(row.question, token, as_of=row.as_of)
            state = QueryState(row.question, token, as_of=row.as_of)
            for name in _STAGES:  # no gate: the context is read even where a gate abstains
                await pipeline.stage(name).run(state)
            best = state.best_similarity
            context = select_context(
                state.candidates,
                cutoff=-1.0,
                max_chunks=settings.max_context_chunks,
                max_tokens=settings.max_context_tokens,
            )
            spans = spans_of(context)
            record: dict[str, Any] = {
                "id": row.id,
                "question": row.question,
                "query": state.query,
                "expect": row.expect,
                "category": row.category,
                "language": state.language,
                "must_include": row.must_include,
                "unknown": state.unknown_words,
                "topic_gate_blocks": gate.topic_blocks(state.unknown_words, best),
                "dense_best": round(best, 4),
                "cutoff": gate.cutoff,
                "context": [c.chunk_id for c in context],
                "shipped": {"abstained": answer.abstained, "reason": answer.abstain_reason, "answer": answer.answer},
            }
            record.update(readers.score(row.question, state.query, context, spans))
            records.append(record)
            print(f"{number}/{len(rows)} {row.id}", file=sys.stderr)
    finally:
        await pipeline.aclose()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"gold": str(gold), "ce_length": ce_length, "rows": records}, default=str), encoding="utf-8"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("gold", type=Path)
    c.add_argument("data_dir", type=Path)
    c.add_argument("out", type=Path)
    c.add_argument("--labels", type=Path)
    c.add_argument("--ce-length", type=int, default=128)
    r = sub.add_parser("report")
    r.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "collect":
        asyncio.run(collect(args.gold, args.data_dir, args.out, args.labels, args.ce_length))
        return 0
    from reading_report import report  # the analysis lives apart from the collection

    report(args.files)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
