"""The topic gate after reading, with the REAL bundled cross-encoder: an undocumented word that is
situation told around the question ("my knee surgery") lets the reader's answer through; one that
is the topic the documents fail to cover ("pet insurance") abstains."""

from __future__ import annotations

import math

import pytest

from rag_core.models import CrossEncoder
from rag_core.pipeline.read import ReadStage, TopicGate
from rag_core.pipeline.state import QueryState
from rag_core.reading.question import asked_terms
from rag_core.reading.reader import SpanReader
from rag_core.reading.topic import key_words, without_words
from rag_core.settings import DEFAULT_TOPIC_ABLATION_MARGIN
from rag_core.types import AbstainReason, Candidate
from tests.fakes.network import network_disabled
from tests.rag_core.candidates import candidate
from tests.rag_core.reading.test_reader import MEDICAL

LIFE = candidate(
    "life-disability-2026_p1_c00",
    "Fabrikam Corp provides life, accidental death and dismemberment (AD&D), short-term disability (STD) and "
    "long-term disability (LTD) insurance to protect you and your family.\n"
    "Basic Life, Basic AD&D, STD and LTD are paid for entirely by Fabrikam, and you are enrolled automatically.",
    policy_id="life-disability",
    title="Fabrikam Life and Disability Insurance 2026",
    heading="Overview",
)


@pytest.mark.unit
def test_the_unknown_words_are_taken_out_by_stem_and_nothing_else() -> None:
    assert (
        without_words("Does Fabrikam offer pet insurance for my puppies?", ["pet", "puppy"])
        == "Does Fabrikam offer insurance for my ?"
    )
    assert without_words("can my boss find out?", ["knee"]) == "can my boss find out?"


@pytest.mark.unit
def test_the_key_words_are_the_rarest_documented_topic_words() -> None:
    counts = {"reimburse": 3, "adoption": 2, "expense": 40, "fabrikam": 500}
    assert key_words("How much does Fabrikam reimburse for adoption expenses?", counts) == ["adoption", "reimburse"]
    assert key_words("How much does Fabrikam reimburse for adoption expenses?", counts, exclude=["adoption"], k=1) == [
        "reimburse"
    ]
    assert key_words("What is the pet policy?", counts) == []


@pytest.mark.unit
def test_the_key_words_are_asked_not_told() -> None:
    """With the asked clauses' terms, the situation's rare words are not key words; "whats" (a stop
    word without its apostrophe) never is one."""
    question = "we're adopting, the agency costs are insane 😩 how much does fabrikam reimburse for adoption expenses?"
    counts = {"cost": 1, "agency": 2, "reimburse": 3, "adoption": 5, "expense": 40, "fabrikam": 500}
    assert key_words(question, counts) == ["cost", "agency"]
    assert key_words(question, counts, asked=asked_terms(question)) == ["reimburse", "adoption"]
    assert key_words("whats the max i can elect?", {"what": 0, "elect": 2, "maximum": 9}) == ["elect", "maximum"]


@pytest.mark.unit
def test_the_asked_kind_is_no_key_word() -> None:
    """A question "how often" asks for a frequency, which "Performance reviews are conducted annually" gives
    without the word: the word after "how" is never a key word."""
    counts = {"often": 1, "long": 1, "performance": 3, "review": 4}
    assert key_words("how often do we get performance reviews?", counts) == ["performance", "review"]
    assert key_words("How long does a review take?", counts) == ["review"]


@pytest.fixture(scope="module")
def scorer() -> CrossEncoder:
    with network_disabled() as attempts:
        built = CrossEncoder.shared(max_length=128)
    assert attempts == []
    return built


async def read_then_gate(
    scorer: CrossEncoder, question: str, unknown: list[str], context: list[Candidate]
) -> QueryState:
    state = QueryState(question, "token")
    state.unknown_words = unknown
    state.context = context
    await ReadStage(SpanReader(scorer)).run(state)
    await TopicGate(scorer, DEFAULT_TOPIC_ABLATION_MARGIN, unknown_word_cutoff=None).run(state)
    return state


@pytest.mark.integration
async def test_a_situation_word_lets_the_answer_through(scorer: CrossEncoder) -> None:
    state = await read_then_gate(
        scorer,
        "whats the OOP max on the PPO? trying to figure out worst case for my knee surgery",
        ["trying", "figure", "worst", "knee"],
        [MEDICAL],
    )
    assert state.abstain_reason is None


HEARING = candidate(
    "northwind-standard-benefits-details_p30_c00",
    "The Northwind Standard plan covers all types of hearing care services, including hearing tests, hearing aids "
    "and hearing aid accessories, as well as cochlear implants.\n"
    "In addition, the Northwind Standard plan covers up to $500 per ear for hearing aid accessories, such as ear "
    "molds, batteries, and tubing.",
    policy_id="northwind-standard",
    title="Northwind Standard Benefits Details",
    heading="Hearing Care",
)


@pytest.mark.integration
async def test_words_told_only_as_situation_skip_the_ablation(scorer: CrossEncoder) -> None:
    # "fortune" sits only in the situation before the question clause, which the reader read alone
    # (5.8 for the $500 row): the reader's gate decides. The mutation "ablate every undocumented word"
    # abstains here: without "fortune" the whole question reads 0.33 higher.
    situation = (
        "on northwind standard, my hearing aid batteries + ear molds cost a fortune 😩 "
        "is there a limit on what they cover for accessories"
    )
    assert (await read_then_gate(scorer, situation, ["fortune"], [HEARING])).abstain_reason is None
    asked = "does the PPO cover pet insurance for vet bills?"
    assert (await read_then_gate(scorer, asked, ["vet", "pet"], [MEDICAL])).decided_by == "topic"


@pytest.mark.integration
async def test_an_undocumented_topic_word_abstains(scorer: CrossEncoder) -> None:
    state = await read_then_gate(scorer, "Does Fabrikam offer pet insurance?", ["pet"], [LIFE])
    assert state.abstain_reason is AbstainReason.LOW_SIMILARITY and state.decided_by == "topic"


@pytest.mark.integration
async def test_without_a_reading_the_unknown_word_blocks_as_before(scorer: CrossEncoder) -> None:
    state = QueryState("¿Cubre Fabrikam el seguro para mascotas?", "token")
    state.unknown_words = ["mascotas"]
    await TopicGate(scorer, DEFAULT_TOPIC_ABLATION_MARGIN, unknown_word_cutoff=None).run(state)
    assert state.decided_by == "topic"


@pytest.mark.unit
async def test_questions_without_unknown_words_are_not_touched(scorer: CrossEncoder) -> None:
    state = QueryState("How much is the ER copay on the PPO?", "token")
    await TopicGate(scorer, DEFAULT_TOPIC_ABLATION_MARGIN, unknown_word_cutoff=None).run(state)
    assert state.abstain_reason is None and state.reading is None


async def gate_under_a_strong_match(
    scorer: CrossEncoder, question: str, unknown: list[str], dense_pass_margin: float
) -> QueryState:
    """The gate after reading, for a question whose best candidate matches at 0.80 (over a 0.77 cutoff)."""
    state = QueryState(question, "token")
    state.unknown_words = unknown
    state.context = state.candidates = [LIFE]  # dense 0.8
    await ReadStage(SpanReader(scorer)).run(state)
    gate = TopicGate(
        scorer, DEFAULT_TOPIC_ABLATION_MARGIN, unknown_word_cutoff=0.77, dense_pass_margin=dense_pass_margin
    )
    await gate.run(state)
    return state


@pytest.mark.integration
async def test_a_strong_match_lets_a_word_rise_the_reading_only_so_far(scorer: CrossEncoder) -> None:
    """Taking "pet" out raises the LIFE overview's reading by more than 3 logits: a topic the documents
    lack, whatever the dense match. With no bound (``math.inf``, the rule until session 24) it passes."""
    question = "Does Fabrikam offer pet insurance?"
    assert (await gate_under_a_strong_match(scorer, question, ["pet"], 3.0)).decided_by == "topic"
    assert (await gate_under_a_strong_match(scorer, question, ["pet"], math.inf)).abstain_reason is None


@pytest.mark.integration
async def test_without_a_reading_a_strong_match_still_passes(scorer: CrossEncoder) -> None:
    state = QueryState("¿Cubre Fabrikam el seguro para mascotas?", "token")
    state.unknown_words = ["mascotas"]
    state.candidates = [LIFE]  # dense 0.8
    await TopicGate(scorer, DEFAULT_TOPIC_ABLATION_MARGIN, unknown_word_cutoff=0.77, dense_pass_margin=3.0).run(state)
    assert state.abstain_reason is None
