"""``benefitsbot eval GOLD.jsonl``: run every gold question through the real answer path."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from tqdm import tqdm

from rag_core.access import mint_token
from rag_core.console import show_progress
from rag_core.errors import InvalidInput
from rag_core.eval.gold import GoldRow, apply_labels, chunk_location, load_gold, matches
from rag_core.eval.metrics import RowResult, compute
from rag_core.index.base import AccessFilter
from rag_core.models.cross import reader_model_name
from rag_core.pipeline import Pipeline, build_pipeline
from rag_core.pipeline.gates import SimilarityGate
from rag_core.registry import visible
from rag_core.settings import CoreSettings
from rag_core.types import Answer, DocumentMeta, split_chunk_id


def _user_scope(row: GoldRow, as_of: date) -> AccessFilter:
    jurisdictions = {"US-ALL"} | ({f"US-{row.user.state.upper()}"} if row.user.state else set())
    return AccessFilter((frozenset(row.user.groups or ["none"]),), (frozenset(jurisdictions),), as_of)


def token_for(settings: CoreSettings, row: GoldRow) -> str:
    return mint_token(
        settings.rbac_signing_key.get_secret_value(),
        subject=f"eval:{row.id}",
        acl_groups=row.user.groups,
        state=row.user.state,
        language=row.user.language,
        ttl_s=3600,
    )


def score_row(
    row: GoldRow, answer: Answer, files: dict[str, str], docs: dict[str, DocumentMeta], today: date
) -> RowResult:
    as_of = row.as_of or today
    scope = _user_scope(row, as_of)
    located = [(c, chunk_location(c, files)) for c in answer.retrieved]
    first_hit = next((rank for rank, (_, loc) in enumerate(located, start=1) if matches(loc, row.sources)), None)
    cited = [c.chunk_id for c in answer.citations]
    cited_locations = [chunk_location(c, files) for c in cited]
    leaked = []
    for chunk_id in set(answer.retrieved) | set(cited):
        parsed = split_chunk_id(chunk_id)
        meta = docs.get(parsed[0]) if parsed else None
        if meta is None or not row.user.groups or not visible(meta, scope):
            leaked.append(chunk_id)
    return RowResult(
        id=row.id,
        expect=row.expect,
        abstained=answer.abstained,
        reason=answer.abstain_reason.value if answer.abstain_reason else None,
        first_hit_rank=first_hit,
        has_sources=bool(row.sources),
        cited_match=any(matches(loc, row.sources) for loc in cited_locations),
        must_include=row.must_include,
        answer=answer.answer,
        leaked=leaked,
        invalid_citations=[c for c, loc in zip(cited, cited_locations, strict=True) if loc is None],
        latency_ms=answer.latency_ms,
        retrieved_sources=[f"{loc[0]}#page={loc[1]}" for _, loc in located if loc],
        cited_sources=[f"{loc[0]}#page={loc[1]}" for loc in cited_locations if loc],
        category=row.category,
        must_not_include=row.must_not_include,
    )


async def evaluate(pipeline: Pipeline, rows: Sequence[GoldRow], *, progress: bool = True) -> list[RowResult]:
    await pipeline.warm_up()  # latency is measured as a running server sees it, not the first question's load
    manifest = await pipeline.corpus.manifest()
    files = {doc_id: record.meta.file for doc_id, record in manifest.documents.items()}
    docs = {doc_id: record.meta for doc_id, record in manifest.documents.items()}
    today = pipeline.settings.today or date.today()
    results = []
    for row in tqdm(rows, desc="eval", unit="q", disable=not progress, leave=False):
        answer, state = await pipeline.answer_traced(row.question, token_for(pipeline.settings, row), as_of=row.as_of)
        result = score_row(row, answer, files, docs, today)
        result.decided_by = state.decided_by
        result.best_reading = round(state.reading.best, 3) if state.reading and state.reading.spans else None
        results.append(result)
    return results


async def best_similarities(pipeline: Pipeline, rows: Sequence[GoldRow]) -> list[tuple[GoldRow, float]]:
    """What the similarity gate compares for each row (the best dense cosine among its filtered
    candidates; 0 where the topic gate stops it whatever the cutoff), from the pipeline itself
    run up to retrieval."""
    gate = pipeline.stage("gate")
    assert isinstance(gate, SimilarityGate)
    out = []
    for row in rows:
        state = await pipeline.run_until("retrieve", row.question, token_for(pipeline.settings, row), as_of=row.as_of)
        out.append((row, gate.gate_score(state)))
    return out


async def reader_scores(pipeline: Pipeline, rows: Sequence[GoldRow]) -> list[tuple[GoldRow, float]]:
    """What the answerability gate compares for each row: the best cross-encoder logit among the
    sentences the reader read (-20, below any cutoff, where an earlier stage already abstained, the
    topic gate after reading abstains, or the question was not read). The topic gate runs after the
    answerability gate in the pipeline, but it decides independently of the cutoff being swept."""
    topic = [s for s in pipeline.stages if s.name == "topic"]
    out = []
    for row in rows:
        state = await pipeline.run_until("read", row.question, token_for(pipeline.settings, row), as_of=row.as_of)
        for stage in topic:
            if not state.finished:
                await stage.run(state)
        read = state.reading is not None and not state.finished and state.reading.spans
        out.append((row, state.reading.best if read and state.reading is not None else -20.0))
    return out


SIMILARITY_GRID = (0.10, 0.95, 0.01)
READER_GRID = (-8.0, 8.0, 0.25)


def calibrate(
    pairs: Sequence[tuple[GoldRow, float]],
    model: str,
    plot: Path | None,
    *,
    grid_spec: tuple[float, float, float] = SIMILARITY_GRID,
    recall_first: bool = False,
    signal: str = "similarity cutoff (cosine)",
) -> dict[str, Any]:
    """Sweep the cutoff: answerable rows kept vs unanswerable rows abstained. Pick the cutoff that
    keeps the most of both (ties go to the higher, safer cutoff). ``recall_first``: abstain on
    every unanswerable row first, then keep the most answerable ones (the reader's gate, which
    replaced the topic gate and has nothing behind it to catch an uncovered topic)."""
    import numpy as np

    answerable = [s for r, s in pairs if r.expect == "answer"]
    unanswerable = [s for r, s in pairs if r.expect == "abstain"]
    grid = [round(float(x), 3) for x in np.arange(*grid_spec)]
    curve = []
    for cutoff in grid:
        kept = sum(s >= cutoff for s in answerable) / len(answerable) if answerable else None
        abstained = sum(s < cutoff for s in unanswerable) / len(unanswerable) if unanswerable else None
        curve.append({"cutoff": cutoff, "answerable_kept": kept, "unanswerable_abstained": abstained})

    def objective(point: dict[str, Any]) -> tuple[float, ...]:
        kept = point["answerable_kept"] or 0.0
        abstained = point["unanswerable_abstained"] or 0.0
        # Losing answerable questions below 95% is worse than an extra low-similarity answer,
        # which later stages (context gate, validator) still check.
        if recall_first:
            return (abstained, kept, -point["cutoff"])
        return (min(kept, 0.95), abstained, kept, point["cutoff"])

    chosen = max(curve, key=objective)
    if plot is not None:
        try:
            import matplotlib
        except ImportError as exc:  # the default install leaves plotting out
            raise InvalidInput("the calibration plot needs matplotlib: pip install 'benefitsbot[eval]'") from exc

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.2))
        ax.plot(grid, [float(p["answerable_kept"] or 0.0) for p in curve], label="answerable questions kept")
        if unanswerable:
            ax.plot(
                grid,
                [float(p["unanswerable_abstained"] or 0.0) for p in curve],
                label="unanswerable questions abstained",
            )
        cutoff = float(chosen["cutoff"] or 0.0)
        ax.axvline(cutoff, color="grey", linestyle="--", label=f"chosen cutoff {cutoff:.2f}")
        ax.set_xlabel(f"{signal} ({model})")
        ax.set_ylabel("share of questions")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title("Gate calibration")
        ax.legend(loc="lower left")
        ax.grid(alpha=0.3)
        plot.parent.mkdir(parents=True, exist_ok=True)
        fig.tight_layout()
        fig.savefig(plot, dpi=120)
        plt.close(fig)
    return {
        "model": model,
        "chosen": chosen,
        "curve": curve,
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
    }


def _print_table(metrics: dict[str, Any], k: int) -> None:
    for key, value in metrics.items():
        if key == "latency_ms":
            for stage, stats in value.items():
                print(f"  latency {stage:<9} p50 {stats['p50']:>8.2f} ms   p95 {stats['p95']:>8.2f} ms")
        elif key == "by_category":
            for category, figures in value.items():
                print(f"  {category:<18} " + "  ".join(f"{name} {figure}" for name, figure in figures.items()))
        else:
            marker = "  <-" if key == f"hit_at_{k}" else ""
            print(f"{key:<20} {value}{marker}")


def cmd_eval(args: argparse.Namespace) -> int:
    overrides: dict[str, Any] = {}
    if args.data_dir:
        overrides["BENEFITSBOT_DATA_DIR"] = str(args.data_dir)
    if args.reranker:
        overrides["RERANKER"] = args.reranker
    settings = CoreSettings(**overrides)
    rows = load_gold(args.gold)
    if args.labels:
        rows = apply_labels(rows, args.labels)

    async def run() -> int:
        if args.corpus:
            from rag_core.index import open_index
            from rag_core.ingest.pipeline import Ingestor

            index = open_index(settings)
            summary = await Ingestor.from_settings(index, settings, progress=show_progress(args.no_progress)).run(
                args.corpus
            )
            await index.aclose()
            print(summary.render(), file=sys.stderr)
        pipeline = build_pipeline(settings)
        model = pipeline.corpus.model_name
        try:
            if args.calibrate:
                if args.signal == "reader":
                    pairs = await reader_scores(pipeline, rows)
                    plot = args.plot or Path("benchmarks/out") / "calibration-reader.png"
                    result = calibrate(
                        pairs,
                        reader_model_name(settings.reader_weights),
                        plot,
                        grid_spec=READER_GRID,
                        recall_first=True,
                        signal="best cross-encoder logit",
                    )
                else:
                    pairs = await best_similarities(pipeline, rows)
                    plot = args.plot or Path("benchmarks/out") / f"calibration-{model}.png"
                    result = calibrate(pairs, model, plot)
                print(
                    json.dumps(
                        {
                            "model": result["model"],
                            "chosen": result["chosen"],
                            "plot": str(plot),
                            "answerable": result["answerable"],
                            "unanswerable": result["unanswerable"],
                        },
                        indent=2,
                    )
                )
                return 0
            results = await evaluate(pipeline, rows, progress=show_progress(args.no_progress))
        finally:
            await pipeline.aclose()
        metrics = compute(results)
        if args.details:
            with args.details.open("w", encoding="utf-8") as handle:
                for r in results:
                    handle.write(
                        json.dumps(
                            {
                                "id": r.id,
                                "expect": r.expect,
                                "abstained": r.abstained,
                                "reason": r.reason,
                                "retrieved_sources": r.retrieved_sources,
                                "cited_sources": r.cited_sources,
                                "answer": r.answer,
                                "first_hit_rank": r.first_hit_rank,
                                "leaked": r.leaked,
                                "category": r.category,
                                "decided_by": r.decided_by,
                                "best_reading": r.best_reading,
                            }
                        )
                        + "\n"
                    )
        if args.json:
            print(json.dumps(metrics))
        else:
            _print_table(metrics, args.k)
        return 0

    return asyncio.run(run())


__all__ = ["cmd_eval", "evaluate", "calibrate", "compute"]
