"""The unanswered-topics report for HR: ``benefitsbot report`` and the playground's report page."""

from __future__ import annotations

import logging

from bot.core_service import AnswerService, CoreAnswerService
from bot.report.recorder import OutcomeRecorder, ReportRecorder, VocabularySource
from bot.report.summary import Report, TopicRow, build_report
from bot.report.topics import TopicVocabulary
from rag_core.errors import BenefitsBotError

__all__ = [
    "OutcomeRecorder",
    "Report",
    "ReportRecorder",
    "TopicRow",
    "TopicVocabulary",
    "build_report",
    "vocabulary_of",
]

log = logging.getLogger(__name__)


def vocabulary_of(service: AnswerService) -> VocabularySource:
    """The documents' words as topic vocabulary, rebuilt only when a re-ingest changes the index;
    the benefits term list alone when the service has no index (or it cannot be read)."""
    fallback = TopicVocabulary({})
    cached: dict[str, TopicVocabulary] = {}

    async def load() -> TopicVocabulary:
        if not isinstance(service, CoreAnswerService):
            return fallback
        try:
            manifest = await (await service.pipeline()).corpus.manifest()
        except BenefitsBotError:
            return fallback
        version = manifest.index_version
        if version not in cached:
            cached.clear()
            cached[version] = TopicVocabulary.of_documents(r.vocabulary for r in manifest.documents.values())
        return cached[version]

    return load
