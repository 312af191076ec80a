"""Step 2: training pairs from readings. Per row and reader question: the answering sentences
(label 1, at most 3) and hard negatives (label 0): the sentences the shipped reader read best that
do not answer, then two others of the context at random. Rows that must abstain because the
documents do not cover them (near misses) give negatives only; rows whose answer no single
sentence holds, and rows that abstain for access or jurisdiction, give nothing."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from common import load_readings, queries_of

NEAR_MISS = {"near-miss", "unanswerable", "chat-near-miss"}


def eligible(reading: dict[str, Any]) -> bool:
    if reading.get("language", "en") != "en":
        return False
    if reading["expect"] == "answer":
        return any(span["label"] for span in reading["spans"])
    return reading["expect"] == "abstain" and reading["category"] in NEAR_MISS


def pairs_for(
    reading: dict[str, Any], rng: random.Random, read_negatives: int = 6, other_negatives: int = 2
) -> list[tuple[str, str, int]]:
    labels: dict[str, int] = {}
    for span in reading["spans"]:
        labels[span["text"]] = max(span["label"], labels.get(span["text"], 0))
    positives = [text for text, label in labels.items() if label][:3]
    negatives = [text for text in dict.fromkeys(reading["read"]) if not labels.get(text, 0)][:read_negatives]
    others = [text for text, label in labels.items() if not label and text not in negatives]
    rng.shuffle(others)
    negatives += others[:other_negatives]
    return [
        (q, t, y) for q in queries_of(reading) for t, y in [*((p, 1) for p in positives), *((n, 0) for n in negatives)]
    ]


def build(paths: list[Path], seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    data = []
    for path in paths:
        for reading in load_readings(path):
            if eligible(reading):
                row = f"{reading['set']}/{reading['id']}"
                data += [{"row": row, "q": q, "t": t, "y": y} for q, t, y in pairs_for(reading, rng)]
    return data
