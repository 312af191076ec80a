"""One structured log record per question. Question text only with LOG_QUERIES=true; the user
is a salted hash, never a name or id."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

query_log = logging.getLogger("benefitsbot.query")


def user_hash(subject: str) -> str:
    return hashlib.sha256(f"benefitsbot:{subject}".encode()).hexdigest()[:16]


def log_question(record: dict[str, Any], *, question: str | None) -> None:
    if question is not None:
        record = {**record, "question": question}
    query_log.info(json.dumps(record, sort_keys=True, default=str))
