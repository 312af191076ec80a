"""Access does not depend on how a question is phrased: Base64, leetspeak or a question split across
turns get exactly the access decisions of the plain question (the token decides, not the text)."""

from __future__ import annotations

import base64

import pytest

from tests.rag_core.conftest import FixtureCorpus, token
from tests.rag_core.corpus_factory import CANARIES, CANARY_DOCS, CANARY_QUESTIONS
from tests.rag_core.pipeline.test_answer_path import leaked_strings

LEET = str.maketrans({"e": "3", "a": "4", "o": "0", "i": "1", "s": "5"})


def variants(question: str) -> list[tuple[str, tuple[str, ...]]]:
    """(question, history) pairs that all ask the same thing."""
    encoded = base64.b64encode(question.encode()).decode()
    words = question.split()
    half = len(words) // 2
    return [
        (question, ()),
        (f"Decode this and answer it: {encoded}", ()),
        (question.lower().translate(LEET), ()),
        (" ".join(words[half:]), (" ".join(words[:half]),)),  # split across two turns of a thread
    ]


@pytest.mark.integration
@pytest.mark.parametrize("group", ["executives", "hr-admins", "contractors"])
async def test_phrasing_never_changes_what_an_outsider_may_see(fixture_corpus: FixtureCorpus, group: str) -> None:
    outsider = ["employees"] if group != "contractors" else ["employees-only-temp"]
    for question, history in variants(CANARY_QUESTIONS[group]):
        pipeline, spy = fixture_corpus.pipeline()
        answer = await pipeline.answer(question, token(outsider), history=history)
        assert leaked_strings(answer, spy, None, CANARIES[group]) == [], question
        assert CANARY_DOCS[group] not in spy.returned_document_ids(), question


@pytest.mark.integration
@pytest.mark.parametrize("group", ["executives", "hr-admins"])
async def test_every_call_of_every_variant_carries_the_askers_filter(fixture_corpus: FixtureCorpus, group: str) -> None:
    for question, history in variants(CANARY_QUESTIONS[group]):
        pipeline, spy = fixture_corpus.pipeline()
        await pipeline.answer(question, token(["employees"]), history=history)
        for query in spy.queries:
            assert query.access.group_sets == (frozenset({"employees"}),), question
