"""The named-document scope on the REAL pipeline over the project's corpus: the dental, vision, medical
and life plan summaries are look-alikes ("Fabrikam … Plan Summary 2026") with the same coverage-tier
rows and different prices. A question that names the vision plan is answered from the vision plan;
without the scope the dental plan's row for the same tier was the first sentence of the answer."""

from __future__ import annotations

import pytest

from rag_core.eval.harness import token_for
from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

VISION = "just got married, adding my wife to my vision plan. whats the per paycheck cost for employee + spouse?"


async def context_documents(real: RealCorpus, question: str, **overrides: object) -> set[str]:
    state = await real.run_until("context", employee_row(question), **overrides)
    return {c.document_id for c in state.context}


async def test_a_named_plan_keeps_its_look_alikes_out_of_the_context(real: RealCorpus) -> None:
    # The mutation "no scope" (the stage off) lets the dental plan's tier row in.
    assert "dental-plan-2026" in await context_documents(real, VISION, NAMED_DOCUMENT_SCOPE=False)
    scoped = await context_documents(real, VISION)
    assert "vision-plan-2026" in scoped and "dental-plan-2026" not in scoped
    answer = await real.answer(employee_row(VISION))
    assert not answer.abstained and "$6.20" in answer.answer
    assert all(c.document_id != "dental-plan-2026" for c in answer.citations)


async def test_a_question_that_names_no_plan_keeps_every_document(real: RealCorpus) -> None:
    question = "how much does it cost per paycheck to add my spouse?"
    assert await context_documents(real, question) == await context_documents(
        real, question, NAMED_DOCUMENT_SCOPE=False
    )


async def test_only_documents_the_asker_may_search_are_read(real: RealCorpus) -> None:
    # The scope and the spelling vocabulary read the same set: visible to the asker and not excluded.
    # The mutation "every document" would let an executives-only title or a superseded plan decide.
    pipeline = real.pipeline()
    asked = employee_row(VISION)
    try:
        state = await pipeline.run_until("scope", asked.question, token_for(real.settings(), asked), as_of=asked.as_of)
        searchable = pipeline.corpus.searchable(state.require_access())
    finally:
        await pipeline.aclose()
    assert {"vision-plan-2026", "dental-plan-2026", "medical-plan-2026"} <= searchable
    assert not {"executive-compensation-2026", "hr-admin-procedures-2026", "medical-plan-2025"} & searchable
