"""A sentence whose subject is a bare pronoun is read and quoted with the sentence it points back to,
on the real core (ingest, retrieval, the reader): "whats the EAP phone number?" is answered by "It is
free, confidential… at 1-888-555-0119." only through "The Tailspin EAP is provided by Steadfast
Pathways." before it (the Tailspin corpus, benchmarks/README.md "Session 18")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.pipeline import build_pipeline
from rag_core.reading import spans
from rag_core.types import Answer
from tests.rag_core.conftest import core_settings, token
from tests.rag_core.corpus_factory import DOCS, Doc, _md, ingest_with_local_models

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

PHONE = "1-800-555-0177"
LEGAL_PLAN = Doc(
    file="docs/legal-plan-2026.md",
    document_id="legal-plan-2026",
    policy_id="legal-plan",
    title="Fabrikam Legal Assistance Plan 2026",
    body=_md(f"""
        # Fabrikam Legal Assistance Plan 2026

        ## The legal assistance line

        The legal assistance line is run by Calloway Legal Partners. It is free, confidential and staffed by
        attorneys on weekdays from 8 a.m. to 8 p.m. at {PHONE}. Calloway attorneys can review a lease,
        draft a simple will or answer questions about a traffic ticket.

        ## What it does not cover

        Court representation, business matters and disputes with Fabrikam are not covered.
        """),
)
QUESTION = "whats the phone number for the legal assistance line?"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def data_dir(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Path]:
    yield await ingest_with_local_models(tmp_path_factory.mktemp("back-reference"), (*DOCS, LEGAL_PLAN))


async def ask(data_dir: Path) -> Answer:
    pipeline = build_pipeline(core_settings(data_dir), generator=ExtractiveGenerator())
    try:
        return await pipeline.answer(QUESTION, token(["employees"]))
    finally:
        await pipeline.aclose()


async def test_the_pronoun_sentence_answers_with_the_sentence_it_points_back_to(data_dir: Path) -> None:
    answer = await ask(data_dir)
    assert not answer.abstained, answer.abstain_reason
    assert PHONE in answer.answer
    assert "run by Calloway Legal Partners" in answer.answer  # what "It" is, quoted with it
    assert all(c.chunk_id.startswith("legal-plan-2026_p1_c") for c in answer.citations)


async def test_without_the_joining_the_answer_quotes_it_without_what_it_is(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The mutation the first test catches: no sentence joins the one it points back to. Here the model
    # still reads the phone sentence well enough, and the employee is shown "It is free…" about nothing
    # named (on Tailspin's EAP page the lone sentence read under the gate: an abstention).
    monkeypatch.setattr(spans, "BACK_REFERENCE_SENTENCES", 0)
    answer = await ask(data_dir)
    assert answer.answer.startswith("It is free") and "Calloway Legal Partners" not in answer.answer
