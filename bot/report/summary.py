"""The unanswered-topics report: what the bot abstained on and what got thumbs-down, by topic."""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from bot.report.recorder import ABSTAINED, ANSWERED, THUMBS_DOWN, day_key, questions_key
from bot.store import Store

log = logging.getLogger(__name__)

NO_TOPIC = "(no topic words)"


@dataclass
class TopicRow:
    topic: tuple[str, ...]
    asked: int = 0
    abstained: Counter[str] = field(default_factory=Counter)  # reason -> count
    thumbs_down: int = 0
    questions: list[dict[str, str]] = field(default_factory=list)  # only with REPORT_STORE_QUESTIONS

    @property
    def label(self) -> str:
        return ", ".join(self.topic) or NO_TOPIC

    @property
    def unanswered(self) -> int:
        return sum(self.abstained.values()) + self.thumbs_down

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": list(self.topic),
            "asked": self.asked,
            "abstained": dict(self.abstained),
            "thumbs_down": self.thumbs_down,
            "questions": self.questions,
        }


@dataclass
class Report:
    since: date
    until: date
    rows: list[TopicRow]
    asked: int
    answered: int
    reasons: Counter[str]
    thumbs_down: int
    questions_stored: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat(),
            "until": self.until.isoformat(),
            "asked": self.asked,
            "answered": self.answered,
            "abstained": dict(self.reasons),
            "thumbs_down": self.thumbs_down,
            "questions_stored": self.questions_stored,
            "topics": [r.to_json() for r in self.rows],
        }

    def render(self) -> str:
        lines = [
            f"Unanswered topics {self.since} .. {self.until}: {self.asked} questions, {self.answered} "
            f"answered, {sum(self.reasons.values())} abstained, {self.thumbs_down} thumbs-down"
        ]
        if self.reasons:
            lines.append("abstentions by reason: " + ", ".join(f"{r} {n}" for r, n in self.reasons.most_common()))
        if not self.rows:
            lines.append("Nothing unanswered in this period.")
            return "\n".join(lines)
        lines.append("")
        width = max(len(r.label) for r in self.rows)
        lines.append(f"{'topic'.ljust(width)}  asked  abstained  thumbs-down  reasons")
        for row in self.rows:
            reasons = ", ".join(f"{r} {n}" for r, n in row.abstained.most_common()) or "-"
            lines.append(
                f"{row.label.ljust(width)}  {row.asked:>5}  {sum(row.abstained.values()):>9}  "
                f"{row.thumbs_down:>11}  {reasons}"
            )
            for sample in row.questions:
                lines.append(f"{'':{width}}    [{sample['kind']}] {sample['question']}")
        if not self.questions_stored:
            lines.append("")
            lines.append("Question text is not stored (REPORT_STORE_QUESTIONS=false): topic words and reasons only.")
        return "\n".join(lines)


def _parse_field(raw: str) -> tuple[str, str, tuple[str, ...]] | None:
    try:
        kind, reason, topic = json.loads(raw)
        return str(kind), str(reason), tuple(str(w) for w in topic)
    except (ValueError, TypeError):
        log.warning("skipping an unreadable report counter")
        return None


async def build_report(store: Store, *, days: int, today: date, questions_stored: bool) -> Report:
    """The last ``days`` days up to ``today``: topics with an abstention or a thumbs-down, the most
    unanswered first, each with how often it was asked at all."""
    since = today - timedelta(days=days - 1)
    rows: dict[tuple[str, ...], TopicRow] = {}
    asked = answered = thumbs = 0
    reasons: Counter[str] = Counter()
    for offset in range(days):
        day = since + timedelta(days=offset)
        for raw, count in (await store.hgetall(day_key(day))).items():
            parsed = _parse_field(raw)
            if parsed is None:
                continue
            kind, reason, topic = parsed
            row = rows.setdefault(topic, TopicRow(topic))
            n = int(count)
            if kind in (ANSWERED, ABSTAINED):
                row.asked += n
                asked += n
            if kind == ANSWERED:
                answered += n
            elif kind == ABSTAINED:
                row.abstained[reason] += n
                reasons[reason] += n
            elif kind == THUMBS_DOWN:
                row.thumbs_down += n
                thumbs += n
        if questions_stored:
            for raw in await store.recent(questions_key(day), 500):
                try:
                    entry = json.loads(raw)
                    topic = tuple(str(w) for w in entry["topic"])
                    sample = {
                        "kind": str(entry["kind"]),
                        "reason": str(entry.get("reason", "")),
                        "question": str(entry["question"]),
                        "day": day.isoformat(),
                    }
                except (ValueError, KeyError, TypeError):
                    continue
                rows.setdefault(topic, TopicRow(topic)).questions.append(sample)
    listed = sorted((r for r in rows.values() if r.unanswered), key=lambda r: (-r.unanswered, -r.asked, r.label))
    return Report(since, today, listed, asked, answered, reasons, thumbs, questions_stored)
