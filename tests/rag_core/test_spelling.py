"""Query spelling correction: typos become the documents' words; real words the documents lack stay
as they are, so the topic gate can see that the question is about something uncovered."""

from __future__ import annotations

import pytest

from rag_core.settings import CoreSettings
from rag_core.spelling import QueryCorrector, is_dictionary_word

VOCABULARY = {
    "health": 40,
    "hearing": 6,
    "services": 12,
    "general": 9,
    "call": 7,
    "permiso": 5,
    "parental": 8,
    "deductible": 20,
    "dental": 10,
}


@pytest.fixture
def corrector() -> QueryCorrector:
    return QueryCorrector(VOCABULARY)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("Does Northwind Helth cover it?", "Does Northwind health cover it?"),
        ("What hearin servises are covered?", "What hearing services are covered?"),
        ("how much is the dentl deductable", "how much is the dental deductible"),
    ],
)
def test_typos_become_the_documents_words(corrector: QueryCorrector, typed: str, meant: str) -> None:
    assert corrector.correct(typed) == meant


@pytest.mark.parametrize(
    "question",
    [
        "How much does Fabrikam reimburse for a funeral?",  # not "general"
        "Does Fabrikam pay my cell phone bill?",  # not "call"
    ],
)
def test_real_words_the_documents_lack_are_not_corrected(corrector: QueryCorrector, question: str) -> None:
    assert corrector.correct(question) == question


def test_an_acronym_typed_in_capitals_is_not_a_typo(corrector: QueryCorrector) -> None:
    # "ADHD" is one edit from the documents' "add"; typed in capitals it is what the employee meant.
    vocabulary = QueryCorrector({**VOCABULARY, "add": 30})
    assert vocabulary.correct("Are ADHD stimulants covered?") == "Are ADHD stimulants covered?"
    assert "adhd" in vocabulary.unknown_topics("Are ADHD stimulants covered?")
    # A question typed all in capitals is still corrected.
    assert vocabulary.correct("IS DENTL COVERED") == "IS dental COVERED"


def test_an_uncorrected_real_word_is_an_unknown_topic(corrector: QueryCorrector) -> None:
    query = corrector.correct("How much does the plan reimburse for a funeral?")
    assert "funeral" in corrector.unknown_topics(query)


def test_spanish_questions_are_checked_against_the_spanish_word_list(corrector: QueryCorrector) -> None:
    assert corrector.correct("¿Cuánto dura el permso parental?", "es") == "¿Cuánto dura el permiso parental?"
    assert is_dictionary_word("permiso", "es") and not is_dictionary_word("permso", "es")


def test_a_language_without_a_word_list_corrects_every_unknown_word(corrector: QueryCorrector) -> None:
    assert not is_dictionary_word("funeral", "xx")
    assert corrector.correct("genaral", "xx") == "general"


def test_only_calibrated_models_let_undocumented_words_through() -> None:
    settings = CoreSettings(_env_file=None, UNKNOWN_WORD_CUTOFF=None)  # type: ignore[call-arg]
    assert settings.unknown_word_cutoff_for("bge-small-en-v1.5") == 0.77
    assert settings.unknown_word_cutoff_for("text-embedding-3-small") is None
    override = CoreSettings(_env_file=None, UNKNOWN_WORD_CUTOFF=0.8)  # type: ignore[call-arg]
    assert override.unknown_word_cutoff_for("text-embedding-3-small") == 0.8


def test_a_word_the_documents_hyphenate_is_not_an_unknown_topic() -> None:
    corrector = QueryCorrector({"pre-tax": 3, "parking": 2, "co-pays": 1, "set": 1, "waived": 1})
    assert corrector.unknown_topics("how much can i set pretax for parking") == []
    assert corrector.unknown_topics("are copays waived?") == []
    assert corrector.unknown_topics("is pretax garage parking waived?") == ["garage"]


def test_relatives_dates_and_pronouns_are_situation_not_topics() -> None:
    corrector = QueryCorrector({"bereavement": 2, "leave": 5})
    assert corrector.unknown_topics("my grandma died in august, how much bereavement leave do i get for him") == [
        "died"
    ]


def test_chat_interjections_and_hedges_are_not_topics() -> None:
    corrector = QueryCorrector({"family": 2, "coverage": 5, "paycheck": 1, "vacation": 3})
    assert corrector.unknown_topics("lol how much is family coverage gonna be per paycheck") == []
    assert corrector.unknown_topics("kinda anxious, how much vacation do i get now") == ["anxiou"]


def test_a_filler_word_inflected_is_still_no_topic() -> None:
    # "comes", "takes", "says" and "wifes" stem to "com", "tak", "says" and "wif": still the list's
    # "come", "take", "say" and "wife"; a real topic the documents lack is still one
    corrector = QueryCorrector({"family": 2, "coverage": 5, "paycheck": 1, "plan": 4, "out": 3, "time": 2})
    assert corrector.unknown_topics("how much comes out of each paycheck for family coverage") == []
    assert corrector.unknown_topics("dentist says my wifes plan takes time, is there a pet plan") == ["dentist", "pet"]


def test_a_word_the_documents_use_in_the_plural_is_documented() -> None:
    # The documents' "colleges" is the question's "college": the light stemmer makes them "colleg" and
    # "college" (benchmarks/README.md "Session 30")
    corrector = QueryCorrector({"colleges": 1, "savings": 2, "plan": 4, "roles": 1, "charge": 2, "ev": 1})
    assert corrector.unknown_topics("is there a college savings plan") == []
    assert corrector.unknown_topics("which role") == []
    assert corrector.unknown_topics("is there ev charging") == ["charging"]  # a form, not the root


def test_with_verb_forms_a_word_the_documents_use_as_ed_or_ing_is_documented() -> None:
    vocabulary = {"admitted": 2, "copay": 4, "pay": 3, "waiting": 1, "period": 3, "involved": 1, "charge": 2, "ev": 1}
    plural = QueryCorrector(vocabulary)
    verbs = QueryCorrector(vocabulary, verb_forms=True)
    assert plural.unknown_topics("do i pay the copay if they admit me") == ["admit"]  # the default
    assert verbs.unknown_topics("do i pay the copay if they admit me") == []
    assert verbs.unknown_topics("is there a waiting period, how long do i wait") == []
    assert verbs.unknown_topics("does it involve a copay") == []
    # Only forward: a question's -ing word is not its root's ("EV charging" is no fee "charge")
    assert verbs.unknown_topics("is there ev charging") == ["charging"]


def test_a_past_tense_verb_is_what_happened_not_a_topic() -> None:
    corrector = QueryCorrector(
        {"cobra": 2, "premium": 5, "cost": 1, "percentage": 1, "dentist": 3, "predetermination": 1, "paycheck": 1}
    )
    assert corrector.unknown_topics("what percentage of the cost is charged as the cobra premium") == []
    assert corrector.unknown_topics("dentist quoted me, at what cost am i supposed to get a predetermination") == []
    assert corrector.unknown_topics("is pet insurance charged per paycheck") == ["pet", "insurance"]
    # a participle before a thing describes the thing: still a topic the documents lack
    assert corrector.unknown_topics("do I have unlimited PTO now?") == ["unlimited", "pto"]


def test_a_number_with_a_unit_glued_on_is_not_a_topic() -> None:
    corrector = QueryCorrector({"pair": 2, "discount": 1, "dental": 3, "year": 4})
    assert corrector.unknown_topics("a discount on a 2nd pair for my 14yo, 3x a year besides dental?") == []


def test_a_correction_does_not_depend_on_the_vocabularys_order() -> None:
    # Ten words as close as the right one: which of them made a top 8 used to follow the vocabulary's
    # order, which followed a frozenset of document ids (hash-seeded: "statin" became "statins" in
    # some processes and "stating" in others, and retrieval changed with it).
    close = {f"statin{letter}": 1 for letter in "abcdefghij"}
    for vocabulary in ({**close, "statins": 5}, {"statins": 5, **close}):
        assert QueryCorrector(vocabulary).correct_word("statin") == "statins"
    # equally close and equally frequent: the alphabetically first, in any order
    assert QueryCorrector({"stating": 2, "statins": 2}).correct_word("statin") == "stating"
    assert QueryCorrector({"statins": 2, "stating": 2}).correct_word("statin") == "stating"
