"""What late interaction costs per question (a benchmark, not a test): the question's token vectors, and
the index query with the MaxSim stage against the same query without it, interleaved question by
question so a busy machine weighs on both alike.

    .venv/bin/python benchmarks/late_latency.py ../shared/benchmarks/contoso/ground_truth.jsonl /tmp/contoso
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from rag_core.eval.gold import load_gold
from rag_core.eval.harness import token_for
from rag_core.pipeline import build_pipeline
from rag_core.pipeline.retrieve import RetrieveStage
from rag_core.retrieval import HybridRetriever, encode_query_tokens
from rag_core.settings import CoreSettings


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 2), "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2)}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("gold", type=Path)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(args.data_dir))
    pipeline = build_pipeline(settings)
    stage = pipeline.stage("retrieve")
    assert isinstance(stage, RetrieveStage) and stage.retriever.late is not None
    late = stage.retriever
    plain = HybridRetriever(late.index, late.embedder, candidates=late.candidates)
    timings: dict[str, list[float]] = {"encode_query_tokens": [], "query_with_maxsim": [], "query_without": []}
    for row in load_gold(args.gold):
        state = await pipeline.run_until("embed", row.question, token_for(settings, row), as_of=row.as_of)
        if state.finished or state.query_vector is None:
            continue
        access = state.require_access()
        for _ in range(args.repeat):
            started = time.perf_counter()
            tokens = await encode_query_tokens(late.late, state.query)  # type: ignore[arg-type]
            timings["encode_query_tokens"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await late.retrieve(state.query, access, query_vector=state.query_vector, query_tokens=tokens)
            timings["query_with_maxsim"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await plain.retrieve(state.query, access, query_vector=state.query_vector)
            timings["query_without"].append((time.perf_counter() - started) * 1000)
    await pipeline.aclose()
    print(
        json.dumps(
            {
                "questions": len(timings["query_without"]) // args.repeat,
                **{name: percentiles(values) for name, values in timings.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
