"""Prometheus metrics and privacy-preserving log helpers.

Each application gets its own :class:`~prometheus_client.CollectorRegistry`, so several apps
(tests, the benchmark) never fight over global metric names.
"""

from __future__ import annotations

import hashlib
import hmac

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 20.0, 30.0, 60.0)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "benefitsbot_requests", "Requests received from chat platforms", ["platform", "kind"], registry=r
        )
        self.answers = Counter(
            "benefitsbot_answers", "Questions handled, by outcome", ["platform", "outcome"], registry=r
        )
        self.abstentions = Counter(
            "benefitsbot_abstentions", "Abstentions by reason", ["platform", "reason"], registry=r
        )
        self.latency = Histogram(
            "benefitsbot_answer_latency_seconds",
            "Time from question to answer ready (core call included)",
            ["platform"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.errors = Counter("benefitsbot_errors", "Errors by kind", ["platform", "kind"], registry=r)
        self.duplicates = Counter(
            "benefitsbot_duplicate_deliveries",
            "Retried deliveries dropped by dedupe",
            ["platform"],
            registry=r,
        )
        self.rate_limited = Counter(
            "benefitsbot_rate_limited",
            "Questions refused by the per-user rate limit",
            ["platform"],
            registry=r,
        )
        self.cache_hits = Counter("benefitsbot_answer_cache_hits", "Answers served from cache", registry=r)
        self.feedback = Counter("benefitsbot_feedback", "Thumbs up/down on answers", ["platform", "vote"], registry=r)
        self.store_up = Gauge("benefitsbot_store_available", "1 when the shared store (Redis) answers", registry=r)
        self.store_up.set(1)


def text_digest(text: str, key: str) -> str:
    """A short keyed digest that lets logs correlate identical questions without containing them.
    Keyed (HMAC with a key derived from a server secret), because a plain hash of a question is
    reversed by hashing guesses ("Does my plan cover HIV medication?")."""
    subkey = hmac.new(key.encode(), b"benefitsbot/log-digest/v1", hashlib.sha256).digest()
    return hmac.new(subkey, text.encode(), hashlib.sha256).hexdigest()[:12]


def loggable_question(question: str, log_queries: bool, key: str) -> str:
    """The question itself only when LOG_QUERIES=true; otherwise a keyed digest and the length."""
    if log_queries:
        return repr(question)
    return f"<redacted hmac={text_digest(question, key)} len={len(question)}>"
