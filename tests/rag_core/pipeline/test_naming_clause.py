"""The topic gate judges a question read in clauses on the clause that names the undocumented word
(``TOPIC_NAMING_CLAUSE``; ``TopicGate._naming_clause``), on the REAL pipeline over the project's corpora.

"Does the Keystone Copay Plan cover acupuncture, and if so, how many visits per year are allowed?" is read
as its two clauses. The second reads a neighbouring benefit's row ("Chiropractic care (limit 20 visits per
year)") strongly, and without the rule that strong reading let "acupuncture", which no document names,
through the topic gate unjudged. The first
clause sets the topic the later ones ask about, so what the answer would show must answer it. A word
first named in a LATER clause is a question added to an answerable one and is left to the reader's gate.
Measured on the 443 rows of every set through session 25 that are read in clauses only, with the default
reader (v4): 2 right answers lost, 1 wrong answer and 7 near misses refused; gold and the Contoso ground
truth unchanged (benchmarks/README.md "Session 26")."""

from __future__ import annotations

import pytest

from tests.rag_core.pipeline.conftest import RealCorpus, employee_row

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

ON = {"TOPIC_NAMING_CLAUSE": True}
OFF = {"TOPIC_NAMING_CLAUSE": False}

CRITICAL_ILLNESS = (
    "Does Fabrikam offer critical illness or hospital indemnity insurance, and if so, what is the benefit amount?"
)
ACUPUNCTURE = "Does the Keystone Copay Plan cover acupuncture, and if so, how many visits per year are allowed?"
PTO_AND_CAP = "been here 4 yrs now. how much PTO do i get per year, and is there a cap on how much i can bank? 🤔"


async def test_a_first_clause_naming_what_no_document_covers_is_refused(
    real: RealCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = await real.run_until("topic", employee_row(CRITICAL_ILLNESS), **ON)
    assert refused.abstain_reason is not None and refused.decided_by == "topic"
    # The mutation: judged on the best reading of either clause, the question goes on to the answer-type
    # gate, which since session 34 refuses it too ("indemnity insurance" is not the insurance the answer
    # names); with that rule off as well, it is answered.
    passed = await real.run_until("topic", employee_row(CRITICAL_ILLNESS), **OFF)
    assert not passed.finished
    monkeypatch.setattr("rag_core.pipeline.read.names_another_purpose", lambda question, sentences: False)
    assert not (await real.answer(employee_row(CRITICAL_ILLNESS), **OFF)).abstained


async def test_a_neighbouring_benefits_row_does_not_answer_for_an_uncovered_one(tailspin: RealCorpus) -> None:
    assert (await tailspin.answer(employee_row(ACUPUNCTURE), **ON)).abstained
    # The mutation: the chiropractic row's copay answers "what is the copay per visit?".
    answered = await tailspin.answer(employee_row(ACUPUNCTURE), **OFF)
    assert not answered.abstained and "Chiropractic" in answered.answer


async def test_a_word_first_named_in_a_later_clause_leaves_the_answer(real: RealCorpus) -> None:
    """ "bank" is in no document; the later clause adds a question to an answerable one. Judging every
    clause that names such a word (the rule's first form) refused this and five more right answers."""
    answer = await real.answer(employee_row(PTO_AND_CAP), **ON)
    assert not answer.abstained and "20 days" in answer.answer
