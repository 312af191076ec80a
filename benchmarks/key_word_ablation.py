"""Key-word ablation after the reader (a benchmark, not a test): does the best read sentence depend
on the question's most specific documented word?

For each question the reader is about to answer (the real pipeline run up to the ``topic`` stage,
not finished), take the 1-2 rarest documented content words of the question out (rarest = lowest
count in the scope's vocabulary, ``QueryCorrector.vocabulary``) and read the best 4 sentences again
(``rag_core.reading.topic.ablation_rise``). A sentence that scores as well without the asked word
("adoption expenses" -> the wellness stipend) does not answer what was asked. The report joins the
drops with a baseline ``benefitsbot eval --details`` file of the same set and prints, per variant
and margin, the figures the eval would show with the gate "abstain when drop <= margin" added.

    .venv/bin/python benchmarks/key_word_ablation.py collect corpus/gold.jsonl /tmp/bb /tmp/k/gold.json
    .venv/bin/python benchmarks/key_word_ablation.py report /tmp/k/gold.json /tmp/k/gold-details.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path
from typing import Any

from rag_core.eval.gold import load_gold
from rag_core.eval.harness import token_for
from rag_core.models import CrossEncoder
from rag_core.pipeline import build_pipeline
from rag_core.reading.topic import ablation_rise, without_words
from rag_core.settings import CoreSettings
from rag_core.text import stem, topic_terms

TOP = 4
# k rarest words; names = Title-case words after the first (company and plan names such as
# "Fabrikam", "Northwind Standard") kept out of the choice or not.
VARIANTS = {"k1": (1, False), "k2": (2, False), "k1-names": (1, True), "k2-names": (2, True)}
MARGINS = (-3.0, -2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0)
_TITLE = re.compile(r"\b[A-Z][a-z]+\b")


def key_words(question: str, counts: dict[str, int], unknown: list[str], k: int, skip_names: bool) -> list[str]:
    """The ``k`` documented topic words of ``question`` with the lowest corpus counts."""
    names = {stem(w) for w in _TITLE.findall(question)[1:]} if skip_names else set()
    if skip_names:
        first = _TITLE.match(question.strip())
        if first is None:  # "does fabrikam ..." typed lowercase: no names recognisable
            names = {stem(w) for w in _TITLE.findall(question)}
    words = [t for t in dict.fromkeys(topic_terms(question)) if t in counts and t not in unknown and t not in names]
    return sorted(words, key=lambda w: counts[w])[:k]


async def collect(gold: Path, data_dir: Path, out: Path) -> None:
    settings = CoreSettings(BENEFITSBOT_DATA_DIR=str(data_dir))  # type: ignore[call-arg]
    pipeline = build_pipeline(settings)
    scorer = CrossEncoder.shared(max_length=128)
    records: list[dict[str, Any]] = []
    try:
        for row in load_gold(gold):
            state = await pipeline.run_until("topic", row.question, token_for(settings, row), as_of=row.as_of)
            record: dict[str, Any] = {"id": row.id, "expect": row.expect, "stopped_by": state.decided_by}
            if not state.finished and state.reading is not None:
                corrector = pipeline.corpus.corrector_for(state.require_access())
                counts: dict[str, int] = {}
                for word, n in corrector.vocabulary.items():
                    counts[stem(word)] = counts.get(stem(word), 0) + n
                record["best"] = round(state.reading.best, 3)
                for name, (k, skip) in VARIANTS.items():
                    words = key_words(row.question, counts, state.unknown_words, k, skip)
                    rise = ablation_rise(scorer, row.question, words, state.reading, TOP) if words else None
                    record[name] = {
                        "words": words,
                        "ablated": without_words(row.question, words),
                        "drop": None if rise is None else round(-rise, 3),
                    }
            records.append(record)
    finally:
        await pipeline.aclose()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"gold": str(gold), "rows": records}, indent=1), encoding="utf-8")


def _figures(details: list[dict[str, Any]], must_include: dict[str, list[str]], blocked: set[str]) -> str:
    """answered rate, answer accuracy and abstention recall as ``rag_core.eval.metrics`` computes
    them, with the ``blocked`` rows turned into abstentions."""
    must = [d for d in details if d["expect"] == "abstain"]
    answerable = [d for d in details if d["expect"] == "answer"]
    answered = [d for d in answerable if not d["abstained"] and d["id"] not in blocked]
    graded = [d for d in answered if must_include[d["id"]]]
    correct = sum(any(m.lower() in d["answer"].lower() for m in must_include[d["id"]]) for d in graded)
    recall = sum(d["abstained"] or d["id"] in blocked for d in must)
    other = sum(d["id"] in blocked for d in details if d["expect"] not in ("answer", "abstain"))
    return (
        f"answered {len(answered) / max(len(answerable), 1):.4f} accuracy {correct / max(len(graded), 1):.4f}"
        f" abstention recall {recall / max(len(must), 1):.4f} ({recall}/{len(must)})"
        + (f" conflict rows blocked {other}" if other else "")
    )


def report(collected: Path, details_path: Path) -> None:
    data = json.loads(collected.read_text(encoding="utf-8"))
    rows = data["rows"]
    must_include = {row.id: row.must_include for row in load_gold(Path(data["gold"]))}
    details = [json.loads(line) for line in details_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(f"\n{collected.name}: {len(rows)} rows, {sum('best' in r for r in rows)} reach the reader's answer")
    print(f"  baseline: {_figures(details, must_include, set())}")
    for r in rows:
        if "best" in r:
            cells = " ".join(f"{n}={r[n]['drop']}{r[n]['words']}" for n in VARIANTS)
            print(f"  {r['id']:8} {r['expect']:9} best {r['best']:6} {cells}")
    for name in VARIANTS:
        for margin in MARGINS:
            blocked = {
                r["id"] for r in rows if "best" in r and r[name]["drop"] is not None and r[name]["drop"] <= margin
            }
            print(f"  {name} margin {margin}: blocks {len(blocked)} -> {_figures(details, must_include, blocked)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("gold", type=Path)
    c.add_argument("data_dir", type=Path)
    c.add_argument("out", type=Path)
    r = sub.add_parser("report")
    r.add_argument("collected", type=Path)
    r.add_argument("details", type=Path)
    args = parser.parse_args(argv)
    if args.command == "collect":
        asyncio.run(collect(args.gold, args.data_dir, args.out))
    else:
        report(args.collected, args.details)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
