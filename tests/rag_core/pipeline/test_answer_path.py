"""The answer path end to end, over a real index and the real local model: access pre-filter,
temporal and jurisdiction precedence, translations, ACL canaries, audience narrowing, amount
conflicts, poisoned documents, the similarity gate, generator failures and the query log."""

from __future__ import annotations

import json
import logging
import math
import re
from datetime import date

import numpy as np
import pytest

from rag_core.citations import CITATION, sentences
from rag_core.generation.extractive import ExtractiveGenerator
from rag_core.ingest.extract import slugify
from rag_core.observability import user_hash
from rag_core.pipeline import Pipeline
from rag_core.pipeline.explain import HORIZON
from rag_core.pipeline.validate import AMOUNT_CONFLICT_NOTICE
from rag_core.retrieval import HybridRetriever, to_candidate
from rag_core.settings import DEFAULT_ABSTAIN_TEXTS
from rag_core.tokens import count_tokens
from rag_core.types import AbstainReason, Answer, Candidate
from tests.rag_core.conftest import TODAY, FixtureCorpus, gate_of, generator_of, token
from tests.rag_core.corpus_factory import (
    CANARIES,
    CANARY_DOCS,
    CANARY_QUESTIONS,
    CANARY_TITLES,
    DOCS_BY_ID,
    EVIL_HOST,
    HOST,
)
from tests.rag_core.spies import FailingGenerator, ScriptedGenerator, SpyGenerator, SpyIndex

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="session")]

DEDUCTIBLE_Q = "What is the medical plan deductible?"
LEAVE_Q = "How many weeks of parental leave do I get?"
OOP_Q = "What is the HMO out-of-pocket maximum?"
VENDOR_Q = "Who is the new pharmacy benefit manager?"
ABSENT_Q = "Does the company offer pet insurance for my dog?"
_ENDS_WITH_CITATION = re.compile(r"(?:\s*\[\^[^\]\s]+\])+\s*[.!?]?$")


# -- helpers -------------------------------------------------------------------------------------------


def doc_of(chunk_id: str) -> str:
    return chunk_id.rsplit("_p", 1)[0]


def cited_docs(answer: Answer) -> set[str]:
    return {c.document_id for c in answer.citations}


def assert_grounded(answer: Answer, generator: SpyGenerator | None = None) -> None:
    """An answer (not an abstention): every sentence cited, every citation real and in scope."""
    assert not answer.abstained and answer.abstain_reason is None, answer
    assert answer.citations, "an answer without citations"
    parts = sentences(answer.answer)
    assert parts
    for sentence in parts:
        assert _ENDS_WITH_CITATION.search(sentence), f"uncited sentence: {sentence!r}"
    in_text = set(CITATION.findall(answer.answer))
    assert in_text == {c.chunk_id for c in answer.citations}
    for citation in answer.citations:
        assert citation.chunk_id in answer.retrieved
        assert citation.document_id == doc_of(citation.chunk_id)
        doc = DOCS_BY_ID[citation.document_id]
        assert citation.title == doc.title
        assert citation.page == 1  # markdown: one page
        assert citation.source_uri.startswith(doc.source_uri + "#")
    if generator is not None:
        context_ids = {c.chunk_id for call in generator.calls for c in call.context}
        assert {c.chunk_id for c in answer.citations} <= context_ids


def assert_clean_abstention(answer: Answer, reason: AbstainReason | None = None) -> None:
    assert answer.abstained
    if reason is not None:
        assert answer.abstain_reason == reason, (answer.abstain_reason, answer.answer)
    assert answer.abstain_reason is not None
    assert answer.citations == []
    assert answer.notices == []
    assert answer.answer == DEFAULT_ABSTAIN_TEXTS[answer.abstain_reason.value]
    assert "[^" not in answer.answer


def leaked_strings(answer: Answer, spy: SpyIndex, generator: SpyGenerator | None, needle: str) -> list[str]:
    """Every place ``needle`` shows up: the answer, its citations, the retrieved ids, anything the
    index returned for this pipeline, anything that reached the generator."""
    places = []
    if needle in answer.answer:
        places.append("answer text")
    if needle in json.dumps([c.model_dump() for c in answer.citations]):
        places.append("citations")
    if any(needle in chunk_id for chunk_id in answer.retrieved):
        places.append("retrieved ids")
    if any(needle in content for content in spy.returned_contents()):
        places.append("index results")
    if generator is not None and any(needle in c.content for call in generator.calls for c in call.context):
        places.append("generator context")
    return places


# -- the pre-filter ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("groups", "state", "as_of"),
    [
        (["employees"], None, None),
        (["employees", "executives"], "CA", None),
        (["contractors"], "NY", date(2026, 3, 1)),
        (["employees", "hr-admins"], None, date(2025, 6, 1)),
    ],
)
async def test_every_index_query_carries_the_tokens_access_filter(
    fixture_corpus: FixtureCorpus, groups: list[str], state: str | None, as_of: date | None
) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    for question in (DEDUCTIBLE_Q, LEAVE_Q, CANARY_QUESTIONS["executives"]):
        await pipeline.answer(question, token(groups, state=state), as_of=as_of)
    day = as_of or TODAY
    # One filtered query per question; a not-found question may add one for documents not yet in
    # effect (to name them), with the same filter but the date lifted. No other read.
    answering = [q for q in spy.queries if q.access.as_of == day]
    future = [q for q in spy.queries if q.access.as_of == HORIZON]
    assert len(answering) == 3 and len(answering) + len(future) == len(spy.queries)
    assert spy.counts == []
    assert spy.vector_reads == []  # every context here fits the 12 sentences read: no token vectors needed
    jurisdictions = {"US-ALL", f"US-{state}"} if state else {"US-ALL"}
    for query in spy.queries:
        assert query.access.group_sets == (frozenset(groups),)
        assert query.access.jurisdiction_sets == (frozenset(jurisdictions),)
        assert query.access.language is None  # no language claim: a preference, never a hard filter
        for point in query.results:  # and the index honoured it
            assert set(point.payload["acl_groups"]) & set(groups)
            assert point.payload["jurisdiction"] in jurisdictions
            in_effect = point.payload["effective_date"][:10] <= day.isoformat()
            assert in_effect == (query.access.as_of == day)  # the future query sees only what is not yet


async def test_the_readers_token_vectors_are_read_under_the_same_filter(fixture_corpus: FixtureCorpus) -> None:
    """With ColBERT picking some of the sentences read (``READER_MODEL_SPANS``), the context chunks'
    stored token vectors are read back under the question's own access filter, and only for chunks
    that filtered query returned: no chunk id reaches the index from anywhere else. (One sentence
    read, picked by ColBERT: this corpus's contexts hold a few sentences, and the vectors are fetched
    only when there are more sentences than are read.)"""
    pipeline, spy = fixture_corpus.pipeline(READER_KEEP=1, READER_MODEL_SPANS=1)
    for question, state in ((DEDUCTIBLE_Q, None), (LEAVE_Q, "CA")):
        await pipeline.answer(question, token(["employees"], state=state))
    assert len(spy.vector_reads) == 2
    for (chunk_ids, access), query in zip(spy.vector_reads, spy.queries, strict=True):
        assert access == query.access
        assert chunk_ids and set(chunk_ids) <= {str(point.payload["chunk_id"]) for point in query.results}


async def test_token_without_groups_abstains_no_access_without_touching_the_index(
    fixture_corpus: FixtureCorpus,
) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(DEDUCTIBLE_Q, token([]))
    assert_clean_abstention(answer, AbstainReason.NO_ACCESS)
    assert spy.touched == 0
    assert answer.retrieved == []
    assert generator_of(pipeline).calls == []


async def test_retriever_refuses_a_query_without_an_access_filter(fixture_corpus: FixtureCorpus) -> None:
    spy = SpyIndex(fixture_corpus.index)
    retriever = HybridRetriever(spy, fixture_corpus.embedder)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await retriever.retrieve(DEDUCTIBLE_Q, None)  # type: ignore[arg-type]
    assert spy.touched == 0


# -- grounded answers and clean abstentions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "groups", "state", "document_id", "heading", "fact"),
    [
        (DEDUCTIBLE_Q, ["employees"], None, "medical-plan-2026", "Deductible", "$1,250"),
        (LEAVE_Q, ["employees"], "CA", "parental-leave-ca-2026", "Amount of Leave", "16 weeks"),
        (
            CANARY_QUESTIONS["employees"],
            ["employees"],
            None,
            "bike-commuter-2026",
            "Bicycle Reimbursement",
            "$20",
        ),
        (
            VENDOR_Q,
            ["employees"],
            None,
            "vendor-notice-2026",
            "What Is Changing",
            "Northwind Pharmacy Services",
        ),
    ],
)
async def test_answers_are_cited_sentence_by_sentence_with_right_pages_and_titles(
    fixture_corpus: FixtureCorpus,
    question: str,
    groups: list[str],
    state: str | None,
    document_id: str,
    heading: str,
    fact: str,
) -> None:
    generator = SpyGenerator(ExtractiveGenerator())
    pipeline, _ = fixture_corpus.pipeline(generator)
    answer = await pipeline.answer(question, token(groups, state=state))
    assert_grounded(answer, generator)
    assert fact in answer.answer
    first = answer.citations[0]
    assert first.document_id == document_id
    assert first.title == DOCS_BY_ID[document_id].title
    assert first.source_uri == f"{DOCS_BY_ID[document_id].source_uri}#{slugify(heading)}"
    assert 0 < first.score <= 1
    assert answer.index_version and answer.query_id
    assert answer.model.endswith("+bge-small-en-v1.5")


async def test_abstention_names_no_restricted_title_or_canary(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(CANARY_QUESTIONS["executives"], token(["employees"]))
    assert_clean_abstention(answer)
    for needle in (CANARIES["executives"], CANARY_TITLES["executives"], CANARY_DOCS["executives"], "$1,200"):
        assert needle not in answer.answer
        assert not any(needle in r for r in answer.retrieved)
    assert CANARY_DOCS["executives"] not in spy.returned_document_ids()


# -- time ----------------------------------------------------------------------------------------------


async def test_current_deductible_is_the_2026_amount_and_never_the_superseded_one(
    generator_spy: SpyGenerator, pipeline: Pipeline, index_spy: SpyIndex
) -> None:
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"]))
    assert_grounded(answer, generator_spy)
    assert "$1,250" in answer.answer
    assert "$1,000" not in answer.answer
    assert cited_docs(answer) == {"medical-plan-2026"}
    # Superseded by the pre-filter, not by post-processing: the index never returned it.
    assert "medical-plan-2025" in index_spy.queries[0].access.exclude_document_ids
    assert "medical-plan-2025" not in index_spy.returned_document_ids()


async def test_deductible_as_of_mid_2025_is_the_2025_amount(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"]), as_of=date(2025, 6, 1))
    assert_grounded(answer)
    assert "$1,000" in answer.answer
    assert "$1,250" not in answer.answer
    assert cited_docs(answer) == {"medical-plan-2025"}
    assert "medical-plan-2026" not in spy.returned_document_ids()  # not yet in effect


async def test_future_401k_plan_is_not_used_before_it_takes_effect(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    question = "What is the 401(k) company match?"
    before = await pipeline.answer(question, token(["employees"]))
    assert_clean_abstention(before)
    assert "6%" not in before.answer
    assert "retirement-401k-2027" not in spy.queries[0].document_ids()  # not used to answer...
    assert before.abstain_detail is not None and before.abstain_detail.not_yet_effective is not None
    assert before.abstain_detail.not_yet_effective.document_id == "retirement-401k-2027"  # ...only named

    after = await pipeline.answer(question, token(["employees"]), as_of=date(2027, 1, 2))
    assert_grounded(after)
    assert "6%" in after.answer
    assert "retirement-401k-2027" in cited_docs(after)


# -- jurisdiction and language -------------------------------------------------------------------------


async def test_california_variant_overrides_the_us_policy(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(LEAVE_Q, token(["employees"], state="CA"))
    assert_grounded(answer)
    assert "16 weeks" in answer.answer
    assert "12 weeks" not in answer.answer
    assert cited_docs(answer) == {"parental-leave-ca-2026"}
    excluded = spy.queries[0].access.exclude_document_ids
    assert {"parental-leave-us-2026", "parental-leave-us-2026-es"} <= excluded
    assert not spy.returned_document_ids() & {"parental-leave-us-2026", "parental-leave-ny-2026"}


async def test_user_without_a_state_gets_the_us_policy(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(LEAVE_Q, token(["employees"]))
    assert_grounded(answer)
    assert "12 weeks" in answer.answer
    assert "16 weeks" not in answer.answer and "14 weeks" not in answer.answer
    assert cited_docs(answer) == {"parental-leave-us-2026"}
    assert not spy.returned_document_ids() & {"parental-leave-ca-2026", "parental-leave-ny-2026"}


async def test_new_york_variant_without_declared_precedence_abstains_as_conflict(
    fixture_corpus: FixtureCorpus,
) -> None:
    pipeline, _ = fixture_corpus.pipeline()
    answer = await pipeline.answer(LEAVE_Q, token(["employees"], state="NY"))
    assert_clean_abstention(answer, AbstainReason.CONFLICT)
    assert "14 weeks" not in answer.answer and "12 weeks" not in answer.answer


async def test_spanish_question_is_answered_from_the_spanish_translation(
    fixture_corpus: FixtureCorpus,
) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer("¿Cuántas semanas de permiso parental tengo?", token(["employees"]))
    assert_grounded(answer)
    assert cited_docs(answer) == {"parental-leave-us-2026-es"}
    assert "12 semanas" in answer.answer
    assert "parental-leave-us-2026" in spy.queries[0].access.exclude_document_ids  # English version


@pytest.mark.parametrize("state", [None, "CA"])
async def test_english_question_never_cites_the_spanish_translation(
    fixture_corpus: FixtureCorpus, state: str | None
) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(LEAVE_Q, token(["employees"], state=state))
    assert_grounded(answer)
    assert "parental-leave-us-2026-es" not in cited_docs(answer)
    assert "semanas" not in answer.answer
    assert "parental-leave-us-2026-es" not in spy.returned_document_ids()


async def test_language_claim_is_a_hard_filter(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(LEAVE_Q, token(["employees"], language="es"))
    assert spy.queries[0].access.language == "es"
    assert {p.payload["language"] for q in spy.queries for p in q.results} <= {"es"}
    assert cited_docs(answer) <= {"parental-leave-us-2026-es"}


# -- ACL canaries --------------------------------------------------------------------------------------

IDENTITIES: dict[str, list[str]] = {
    "employee": ["employees"],
    "contractor": ["contractors"],
    "executive": ["employees", "executives"],
    "hr_admin": ["employees", "hr-admins"],
    "unmapped": [],
}


@pytest.mark.parametrize("canary_group", sorted(CANARIES))
@pytest.mark.parametrize("identity", sorted(IDENTITIES))
async def test_canary_matrix(fixture_corpus: FixtureCorpus, identity: str, canary_group: str) -> None:
    groups = IDENTITIES[identity]
    generator = SpyGenerator(ExtractiveGenerator())
    pipeline, spy = fixture_corpus.pipeline(generator)
    answer = await pipeline.answer(CANARY_QUESTIONS[canary_group], token(groups, subject=f"{identity}@fabrikam"))
    allowed = canary_group in groups
    canary = CANARIES[canary_group]
    if allowed:
        # The positive control: the canary's document is found, read and cited for those who may see
        # it (which of its sentences answers best is the reader's call).
        assert_grounded(answer, generator)
        assert canary in " ".join(c.content for c in generator.calls[-1].context)
        assert CANARY_DOCS[canary_group] in cited_docs(answer)
    else:
        assert leaked_strings(answer, spy, generator, canary) == []
        assert leaked_strings(answer, spy, generator, CANARY_DOCS[canary_group]) == []
        assert CANARY_TITLES[canary_group] not in answer.answer
        assert CANARY_DOCS[canary_group] not in spy.returned_document_ids()
    # Whatever the question, nobody ever sees another group's canary.
    for other_group, other in CANARIES.items():
        if other_group not in groups:
            assert leaked_strings(answer, spy, generator, other) == [], (identity, other_group)
    if not groups:
        assert_clean_abstention(answer, AbstainReason.NO_ACCESS)
        assert spy.touched == 0


async def test_revoking_a_group_removes_access_on_the_next_question(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    question = CANARY_QUESTIONS["executives"]
    granted = await pipeline.answer(question, token(["employees", "executives"], subject="dana"))
    assert CANARIES["executives"] in granted.answer
    spy.queries.clear()
    revoked = await pipeline.answer(question, token(["employees"], subject="dana"))
    assert CANARIES["executives"] not in revoked.answer
    assert revoked.citations == [] or CANARY_DOCS["executives"] not in cited_docs(revoked)
    assert CANARY_DOCS["executives"] not in spy.returned_document_ids()
    assert not any(CANARIES["executives"] in c for c in spy.returned_contents())


# -- audience narrowing --------------------------------------------------------------------------------


async def test_employee_audience_narrows_an_executives_answer(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(
        CANARY_QUESTIONS["executives"],
        token(["employees", "executives"]),
        audience_tokens=[token(["employees"], subject="bob")],
    )
    assert leaked_strings(answer, spy, None, CANARIES["executives"]) == []
    assert CANARY_DOCS["executives"] not in spy.returned_document_ids()
    assert spy.queries[0].access.group_sets == (
        frozenset({"employees", "executives"}),
        frozenset({"employees"}),
    )


@pytest.mark.parametrize("canary_group", ["executives", "hr-admins"])
async def test_audience_with_more_groups_never_widens(fixture_corpus: FixtureCorpus, canary_group: str) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    wide = token(["employees", "executives", "hr-admins", "contractors"], subject="ceo")
    answer = await pipeline.answer(CANARY_QUESTIONS[canary_group], token(["employees"]), audience_tokens=[wide])
    assert leaked_strings(answer, spy, None, CANARIES[canary_group]) == []
    assert CANARY_DOCS[canary_group] not in spy.returned_document_ids()
    for query in spy.queries:
        assert frozenset({"employees"}) in query.access.group_sets


async def test_audience_narrows_jurisdiction_too(fixture_corpus: FixtureCorpus) -> None:
    """A Californian asking in a channel with a colleague with no state gets the policy both may see."""
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(
        LEAVE_Q, token(["employees"], state="CA"), audience_tokens=[token(["employees"], subject="bob")]
    )
    assert "16 weeks" not in answer.answer
    assert "parental-leave-ca-2026" not in spy.returned_document_ids()


async def test_audience_member_without_groups_makes_the_answer_abstain(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"]), audience_tokens=[token([], subject="guest")])
    assert_clean_abstention(answer, AbstainReason.NO_ACCESS)
    assert spy.touched == 0


# -- amount conflicts ----------------------------------------------------------------------------------


def _chunk_with(context: list[Candidate], needle: str) -> Candidate:
    return next(c for c in context if needle in c.content)


async def test_conflicting_amounts_abstain_or_show_each_value_with_its_own_citation(
    fixture_corpus: FixtureCorpus,
) -> None:
    generator = SpyGenerator(ExtractiveGenerator())
    pipeline, _ = fixture_corpus.pipeline(generator)
    answer = await pipeline.answer(OOP_Q, token(["employees"]))
    if answer.abstained:
        assert_clean_abstention(answer, AbstainReason.CONFLICT)
        return
    assert_grounded(answer, generator)
    assert answer.notices == [AMOUNT_CONFLICT_NOTICE]
    context = generator.calls[0].context
    for value in ("$6,000", "$6,350"):
        holder = _chunk_with(context, value)
        sentence = next(s for s in sentences(answer.answer) if value in s)
        assert holder.chunk_id in CITATION.findall(sentence), (value, sentence)


async def test_generator_picking_one_of_two_conflicting_amounts_abstains(
    fixture_corpus: FixtureCorpus,
) -> None:
    def one_side(question: str, context: list[Candidate]) -> str:
        return f"The HMO out-of-pocket maximum is $6,000 per person.[^{_chunk_with(context, '$6,000').chunk_id}]"

    pipeline, _ = fixture_corpus.pipeline(ScriptedGenerator(one_side))
    answer = await pipeline.answer(OOP_Q, token(["employees"]))
    assert_clean_abstention(answer, AbstainReason.CONFLICT)


async def test_conflicting_amount_under_the_wrong_citation_is_not_accepted(
    fixture_corpus: FixtureCorpus,
) -> None:
    """Both amounts shown, but only the $6,000 chunk cited: the $6,350 has no source of its own."""

    def both_under_one(question: str, context: list[Candidate]) -> str:
        return (
            f"The HMO out-of-pocket maximum is $6,000 or $6,350 per person.[^{_chunk_with(context, '$6,000').chunk_id}]"
        )

    pipeline, _ = fixture_corpus.pipeline(ScriptedGenerator(both_under_one))
    answer = await pipeline.answer(OOP_Q, token(["employees"]))
    if not answer.abstained:
        cited_content = {c.chunk_id for c in answer.citations}
        generator = generator_of(pipeline)
        context = generator.calls[0].context  # type: ignore[attr-defined]
        assert _chunk_with(context, "$6,350").chunk_id in cited_content
    else:  # the $6,350 sentence cites a chunk that does not state it: claim support strips it
        assert answer.abstain_reason in (AbstainReason.CONFLICT, AbstainReason.NO_SUPPORTED_CLAIMS)


# -- poisoned documents --------------------------------------------------------------------------------


async def test_poisoned_document_yields_the_fact_without_links_images_or_the_injection(
    fixture_corpus: FixtureCorpus,
) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(VENDOR_Q, token(["employees"]))
    assert_grounded(answer)
    # The ingest screen quarantined the poison: the document was retrieved, its attack was not ...
    assert any("Northwind Pharmacy Services" in c for c in spy.returned_contents())
    assert not any(EVIL_HOST in c or "IGNORE PREVIOUS" in c for c in spy.returned_contents())
    assert "vendor-notice-2026" in fixture_corpus.summary.quarantined
    # ... and nothing of it reaches the employee.
    assert EVIL_HOST not in answer.answer
    assert "![" not in answer.answer and "](" not in answer.answer
    assert not re.search(r"https?://", answer.answer)
    assert "unlimited pto" not in answer.answer.lower()
    assert "ignore previous instructions" not in answer.answer.lower()
    assert "Northwind Pharmacy Services" in answer.answer
    assert all(c.source_uri.startswith(f"https://{HOST}/") for c in answer.citations)


async def test_generator_echoing_the_poison_links_is_sanitised(fixture_corpus: FixtureCorpus) -> None:
    """Defence in depth: a model that emits the attacker's links anyway (from an index built before the
    screen, or from its own imagination) still shows none of them."""

    def echo(question: str, context: list[Candidate]) -> str:
        chunk = _chunk_with(context, "Northwind Pharmacy Services").chunk_id  # the poison was screened out
        return (
            f"The new manager is Northwind Pharmacy Services ![x](https://{EVIL_HOST}/pixel.png).[^{chunk}] "
            f"Activate at [the portal](https://{EVIL_HOST}/claim) or https://{EVIL_HOST}/claim.[^{chunk}] "
            f"The pharmacy benefit manager changes to Northwind Pharmacy Services, see "
            f"[the notice](https://{HOST}/policies/vendor-notice-2026.md).[^{chunk}]"
        )

    pipeline, _ = fixture_corpus.pipeline(ScriptedGenerator(echo))
    answer = await pipeline.answer(VENDOR_Q, token(["employees"]))
    assert not answer.abstained
    assert EVIL_HOST not in answer.answer
    assert "![" not in answer.answer
    assert f"(https://{HOST}/policies/vendor-notice-2026.md)" in answer.answer  # own host survives


# -- the similarity gate and the context budget --------------------------------------------------------


async def test_absent_topic_abstains_low_similarity_before_generation(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    answer = await pipeline.answer(ABSENT_Q, token(["employees"]))
    assert_clean_abstention(answer, AbstainReason.LOW_SIMILARITY)
    assert generator_of(pipeline).calls == []
    assert spy.queries and spy.queries[0].access.as_of == TODAY  # it did look


async def test_company_name_alone_does_not_make_an_absent_topic_answerable(
    fixture_corpus: FixtureCorpus,
) -> None:
    """Every title says "Fabrikam"; that shared word must not turn "pet insurance" into a deductible quote."""
    pipeline, _ = fixture_corpus.pipeline()
    answer = await pipeline.answer("Does Fabrikam offer pet insurance?", token(["employees"]))
    assert answer.abstained, answer.answer
    assert "$1,250" not in answer.answer


# The fixture corpus's parental-leave question with v4's weights: READER_WEIGHTS=benefits-v5, the default
# since session 27, reads both of its sentences under the gate (1.8 and 1.1; v4 2.2 and 1.5), a known loss
# of v5 (benchmarks/README.md "Session 27"); the two tests below are about the topic gate and the margin.
V4: dict[str, object] = {"READER_WEIGHTS": "benefits-v4"}


async def test_one_everyday_word_outside_the_documents_does_not_block_a_clear_match(
    fixture_corpus: FixtureCorpus,
) -> None:
    pipeline, _ = fixture_corpus.pipeline(**V4)
    answer = await pipeline.answer(
        "How many weeks of parental leave do I get after my baby is born?", token(["employees"])
    )
    assert not answer.abstained, answer.abstain_reason
    assert "parental-leave-us-2026" in cited_docs(answer)


# A known miss of ms-marco (an xfail until session 20): it scores "within 12 months of the birth" 6.3 and
# "12 weeks of paid parental leave" 1.5 for "...after my baby is born?", beyond the 5-logit margin
# (benchmarks/README.md, "Reading models"); the benefits reader, the default since, quotes the weeks.
async def test_the_reader_quotes_the_weeks_for_a_how_many_weeks_question(fixture_corpus: FixtureCorpus) -> None:
    pipeline, _ = fixture_corpus.pipeline(**V4)
    answer = await pipeline.answer(
        "How many weeks of parental leave do I get after my baby is born?", token(["employees"])
    )
    assert "12 weeks" in answer.answer


async def test_an_faq_answer_is_quoted_with_its_question_and_each_sentence_is_cited(
    fixture_corpus: FixtureCorpus,
) -> None:
    """The document's own question reads as a perfect match but answers nothing; its "No." is too
    short to read alone. Read as one unit, the answer shows both, every sentence cited."""
    pipeline, _ = fixture_corpus.pipeline()
    answer = await pipeline.answer("Can my manager see that I used the EAP?", token(["employees"]))
    assert not answer.abstained, answer.abstain_reason
    assert "No.[^eap-guide-2026_" in answer.answer
    assert "Your manager and HR are not told whether you contacted the EAP.[^eap-guide-2026_" in answer.answer
    assert "free to you" not in answer.answer  # the next question's answer is another unit


ROUGH_LEAVE_Q = "Roughly how many weeks of parental leave do I get?"  # "roughly": in no document


async def test_an_undocumented_word_passes_the_topic_gate_only_with_a_strong_match(
    fixture_corpus: FixtureCorpus,
) -> None:
    """A word no document contains is usually an uncovered topic ("pet", "funeral"); a question
    the documents still match strongly (here 0.71 against the 0.66 bar) treats it as phrasing."""
    pipeline, _ = fixture_corpus.pipeline()
    rewritten = await pipeline.run_until("rewrite", ROUGH_LEAVE_Q, token(["employees"]))
    assert rewritten.unknown_words == ["roughly"]  # left alone, not "corrected"
    answer = await pipeline.answer(ROUGH_LEAVE_Q, token(["employees"]))
    assert not answer.abstained, answer.abstain_reason
    assert "12 weeks" in answer.answer


async def test_a_stricter_bar_for_undocumented_words_abstains_before_generation(
    fixture_corpus: FixtureCorpus,
) -> None:
    # Without the rise allowance (TOPIC_RISE_ALLOWANCE_FROM): "roughly" lifts a strong reading only a
    # little when taken out, which the allowance counts as phrasing, so the stricter bar alone no
    # longer stops this question.
    # Nor with the strong-reading pass (TOPIC_STRONG_READING): the benefits reader reads the 12 weeks over its 6.0.
    pipeline, _ = fixture_corpus.pipeline(
        UNKNOWN_WORD_CUTOFF=0.99, TOPIC_RISE_ALLOWANCE_FROM=math.inf, TOPIC_STRONG_READING=math.inf, **V4
    )
    answer = await pipeline.answer(ROUGH_LEAVE_Q, token(["employees"]))
    assert_clean_abstention(answer, AbstainReason.LOW_SIMILARITY)
    assert generator_of(pipeline).calls == []


QUESTIONS_FOR_GATE = [
    DEDUCTIBLE_Q,
    LEAVE_Q,
    OOP_Q,
    VENDOR_Q,
    CANARY_QUESTIONS["employees"],
    "What does a specialist office visit cost?",
]


async def test_no_chunk_under_the_cutoff_reaches_the_generator(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    generator = generator_of(pipeline)
    below_cutoff_seen = 0
    for question in QUESTIONS_FOR_GATE:
        generator.calls.clear()
        spy.queries.clear()
        await pipeline.answer(question, token(["employees"]))
        assert len(generator.calls) == 1, question
        call = generator.calls[0]
        assert 1 <= len(call.context) <= 4
        assert sum(count_tokens(c.content) for c in call.context) <= 1600
        for chunk in call.context:
            assert chunk.dense_score >= gate_of(pipeline).cutoff, (question, chunk.chunk_id, chunk.dense_score)
        # Recompute every returned point's cosine to the query the pipeline used: the gate had work.
        vector = np.asarray(await fixture_corpus.embedder.embed_query(call.question), dtype=np.float32)
        scores = {p.payload["chunk_id"]: to_candidate(p, vector).dense_score for p in spy.queries[0].results}
        below = {cid for cid, s in scores.items() if s < gate_of(pipeline).cutoff}
        below_cutoff_seen += len(below)
        assert not below & {c.chunk_id for c in call.context}
    assert below_cutoff_seen > 0


async def test_context_budget_is_configurable_and_respected(fixture_corpus: FixtureCorpus) -> None:
    generator = SpyGenerator(ExtractiveGenerator())
    pipeline, _ = fixture_corpus.pipeline(generator, MAX_CONTEXT_CHUNKS=1, MAX_CONTEXT_TOKENS=80)
    for question in QUESTIONS_FOR_GATE:
        await pipeline.answer(question, token(["employees"]))
    assert generator.calls
    for call in generator.calls:
        assert len(call.context) <= 1
        assert sum(count_tokens(c.content) for c in call.context) <= 80


async def test_a_strict_cutoff_abstains_everything(fixture_corpus: FixtureCorpus) -> None:
    pipeline, _ = fixture_corpus.pipeline(None, SIMILARITY_CUTOFF=0.99)
    assert gate_of(pipeline).cutoff == 0.99
    for question in QUESTIONS_FOR_GATE[:3]:
        answer = await pipeline.answer(question, token(["employees"]))
        assert_clean_abstention(answer, AbstainReason.LOW_SIMILARITY)
    assert generator_of(pipeline).calls == []


# -- generator failures and what the validator does with bad output ------------------------------------


async def test_generation_failure_abstains_without_raising(fixture_corpus: FixtureCorpus) -> None:
    failing = FailingGenerator()
    pipeline, _ = fixture_corpus.pipeline(failing)
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"]))
    assert failing.calls == 1
    assert_clean_abstention(answer, AbstainReason.GENERATION_ERROR)
    assert "generate" in answer.latency_ms


async def test_citation_of_an_unknown_chunk_rejects_the_whole_answer(fixture_corpus: FixtureCorpus) -> None:
    def invent(question: str, context: list[Candidate]) -> str:
        real = context[0].chunk_id
        return (
            f"The deductible is $1,250.[^{real}] Executives get a car allowance.[^{CANARY_DOCS['executives']}_p1_c00]"
        )

    pipeline, _ = fixture_corpus.pipeline(ScriptedGenerator(invent))
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"]))
    assert_clean_abstention(answer, AbstainReason.INVALID_CITATION)


@pytest.mark.parametrize(
    "text",
    [
        "The deductible is $1,250 per person. You should be fine.",
        "INSUFFICIENT_CONTEXT",
        "",
    ],
)
async def test_output_without_supported_claims_abstains(fixture_corpus: FixtureCorpus, text: str) -> None:
    pipeline, _ = fixture_corpus.pipeline(ScriptedGenerator(lambda q, c: text))
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"]))
    assert_clean_abstention(answer, AbstainReason.NO_SUPPORTED_CLAIMS)


async def test_mixed_output_keeps_only_cited_sentences(fixture_corpus: FixtureCorpus) -> None:
    def mixed(question: str, context: list[Candidate]) -> str:
        chunk = _chunk_with(context, "$1,250").chunk_id
        return (
            f"Pet insurance is included for everyone. The annual deductible is $1,250 per person.[^{chunk}] "
            f"I think it will go down next year."
        )

    pipeline, _ = fixture_corpus.pipeline(ScriptedGenerator(mixed))
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"]))
    assert not answer.abstained
    chunk = answer.citations[0].chunk_id
    assert answer.answer == f"The annual deductible is $1,250 per person.[^{chunk}]"
    assert [c.chunk_id for c in answer.citations] == [chunk]


# -- follow-ups -----------------------------------------------------------------------------------------


async def test_follow_up_uses_the_thread_history(fixture_corpus: FixtureCorpus) -> None:
    pipeline, spy = fixture_corpus.pipeline()
    generator = generator_of(pipeline)
    history = ["What is the medical deductible?"]
    answer = await pipeline.answer("what about dental?", token(["employees"]), history=history)
    assert spy.queries[0].results
    assert answer.retrieved
    assert {doc_of(c) for c in answer.retrieved} & {"dental-plan-2026", "medical-plan-2026"}
    if generator.calls:
        assert generator.calls[0].history == history
    if not answer.abstained:
        assert_grounded(answer)


# -- the query log ---------------------------------------------------------------------------------------


def _query_records(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "benefitsbot.query"]


async def test_one_structured_log_record_per_question_without_the_question_text(
    fixture_corpus: FixtureCorpus, caplog: pytest.LogCaptureFixture
) -> None:
    pipeline, _ = fixture_corpus.pipeline()
    subject = "alice.smith@fabrikam.example"
    caplog.set_level(logging.INFO, logger="benefitsbot.query")
    answered = await pipeline.answer(DEDUCTIBLE_Q, token(["employees", "executives"], subject=subject))
    abstained = await pipeline.answer(ABSENT_Q, token(["employees"], subject=subject))
    no_access = await pipeline.answer(LEAVE_Q, token([], subject=subject))
    records = _query_records(caplog)
    assert len(records) == 3
    for record, answer in zip(records, (answered, abstained, no_access), strict=True):
        assert record["query_id"] == answer.query_id
        assert record["user"] == user_hash(subject)
        assert record["retrieved"] == answer.retrieved
        assert record["abstained"] is answer.abstained
        assert record["reason"] == (answer.abstain_reason.value if answer.abstain_reason else None)
        assert record["latency_ms"] == answer.latency_ms and "total" in answer.latency_ms  # type: ignore[operator]
        assert "question" not in record
    assert records[0]["groups"] == ["employees", "executives"]
    assert records[2]["groups"] == []
    everything = "\n".join(r.getMessage() for r in caplog.records)
    assert subject not in everything and "alice" not in everything
    for question in (DEDUCTIBLE_Q, ABSENT_Q, LEAVE_Q):
        assert question not in everything
    assert "pet insurance" not in everything.lower()


async def test_question_text_is_logged_only_when_log_queries_is_on(
    fixture_corpus: FixtureCorpus, caplog: pytest.LogCaptureFixture
) -> None:
    pipeline, _ = fixture_corpus.pipeline(None, LOG_QUERIES=True)
    caplog.set_level(logging.INFO, logger="benefitsbot.query")
    answer = await pipeline.answer(DEDUCTIBLE_Q, token(["employees"], subject="alice.smith@fabrikam.example"))
    records = _query_records(caplog)
    assert len(records) == 1
    assert records[0]["question"] == DEDUCTIBLE_Q
    assert records[0]["query_id"] == answer.query_id
    assert "alice.smith" not in caplog.text


async def test_warm_up_loads_the_word_lists_and_tokenizer_before_the_first_question(
    fixture_corpus: FixtureCorpus,
) -> None:
    from rag_core import spelling, tokens

    spelling._dictionary.cache_clear()
    tokens.encoding.cache_clear()
    pipeline, _ = fixture_corpus.pipeline()
    await pipeline.warm_up()
    assert spelling._dictionary.cache_info().currsize == 2  # English and Spanish
    assert tokens.encoding.cache_info().currsize == 1
    misses = spelling._dictionary.cache_info().misses
    await pipeline.answer(ROUGH_LEAVE_Q, token(["employees"]))
    assert spelling._dictionary.cache_info().misses == misses  # the question loaded nothing new


async def test_a_situation_word_outside_the_documents_does_not_block_the_answer(
    fixture_corpus: FixtureCorpus,
) -> None:
    """ "knee" is in no document, but it is the employee's situation, not what is asked: the topic gate
    after reading lets the reader's answer through (the exact-word gate abstained here)."""
    pipeline, _ = fixture_corpus.pipeline()
    question = "whats the PPO deductible? trying to figure out worst case for my knee surgery"
    state = await pipeline.run_until("rewrite", question, token(["employees"]))
    assert "knee" in state.unknown_words
    answer = await pipeline.answer(question, token(["employees"]))
    assert not answer.abstained, answer.abstain_reason
    assert "$1,250" in answer.answer
