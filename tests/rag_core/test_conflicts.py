"""Amount conflicts: two chunks of one policy giving different money values for the same term."""

from __future__ import annotations

import pytest

from rag_core.conflicts import amount_claims, find_amount_conflicts
from tests.rag_core.candidates import candidate

pytestmark = pytest.mark.unit

OOP_Q = "What is the out-of-pocket maximum?"


def test_two_sections_with_different_amounts_conflict() -> None:
    a = candidate("hmo-2026_p1_c00", "The out-of-pocket maximum is $6,000 per person each plan year.")
    b = candidate("hmo-2026_p3_c02", "Your out-of-pocket maximum is $6,350 per person once you reach it.")
    conflicts = find_amount_conflicts(OOP_Q, [a, b])
    assert len(conflicts) == 1
    conflict = conflicts[0]
    assert conflict.values == ["$6,000", "$6,350"]
    assert {conflict.first.chunk.chunk_id, conflict.second.chunk.chunk_id} == {a.chunk_id, b.chunk_id}
    assert "$6,000" in conflict.first.sentence or "$6,000" in conflict.second.sentence


def test_table_rows_conflict_like_sentences() -> None:
    a = candidate("hmo-2026_p1_c00", "Benefit: Out-of-pocket maximum; HMO: $6,000 / $12,000.")
    b = candidate("hmo-2026_p4_c01", "Benefit: Out-of-pocket maximum; HMO: $6,350 / $12,700.")
    conflicts = find_amount_conflicts("What is the HMO out-of-pocket maximum?", [a, b])
    assert len(conflicts) == 1
    assert conflicts[0].values == ["$12,000", "$12,700", "$6,000", "$6,350"]


def test_amount_formats_are_normalised_before_comparing() -> None:
    a = candidate("hmo-2026_p1_c00", "The out-of-pocket maximum is $6,000 per person.")
    b = candidate("hmo-2026_p2_c00", "The out-of-pocket maximum is $ 6,000/year for each member.")
    assert find_amount_conflicts(OOP_Q, [a, b]) == []


def test_individual_and_family_amounts_in_one_sentence_are_not_a_conflict() -> None:
    a = candidate("hmo-2026_p1_c00", "The out-of-pocket maximum is $6,000 for an individual and $12,000 for a family.")
    assert find_amount_conflicts(OOP_Q, [a]) == []
    # Nor when another section repeats one of the two amounts.
    b = candidate("hmo-2026_p2_c00", "Once you pay the out-of-pocket maximum of $6,000, the plan pays 100%.")
    assert find_amount_conflicts(OOP_Q, [a, b]) == []


def test_different_amounts_in_one_chunk_are_not_flagged() -> None:
    a = candidate(
        "hmo-2026_p1_c00",
        "The out-of-pocket maximum is $6,000 in network.\nThe out-of-pocket maximum is $12,000 out of network.",
    )
    assert find_amount_conflicts(OOP_Q, [a]) == []


def test_different_policies_are_not_a_conflict() -> None:
    a = candidate("hmo-2026_p1_c00", "The out-of-pocket maximum is $6,000 per person.", policy_id="hmo-plan")
    b = candidate("ppo-2026_p1_c00", "The out-of-pocket maximum is $4,000 per person.", policy_id="ppo-plan")
    assert find_amount_conflicts(OOP_Q, [a, b]) == []


def test_different_terms_are_not_a_conflict() -> None:
    a = candidate("hmo-2026_p1_c00", "The annual deductible is $500 per person.")
    b = candidate("hmo-2026_p2_c00", "The out-of-pocket maximum is $6,000 per person.")
    assert find_amount_conflicts("What is the deductible?", [a, b]) == []
    assert find_amount_conflicts(OOP_Q, [a, b]) == []


def test_sentences_without_money_or_off_topic_are_ignored() -> None:
    a = candidate("hmo-2026_p1_c00", "The out-of-pocket maximum resets every January.")
    b = candidate("hmo-2026_p2_c00", "A specialist visit costs $40 per visit.")
    assert amount_claims(OOP_Q, [a, b]) == []


def test_the_title_line_is_not_a_claim() -> None:
    """Line 0 of a chunk is "title — heading" (which may itself hold an amount, e.g. a plan name)."""
    a = candidate(
        "hmo-2026_p1_c00",
        "Members pay the out-of-pocket maximum of $6,000.",
        heading="Out-of-pocket maximum $9,999 plan",
    )
    b = candidate("hmo-2026_p2_c00", "The out-of-pocket maximum is $6,000 per person.")
    assert find_amount_conflicts(OOP_Q, [a, b]) == []


def test_generic_words_do_not_make_a_claim() -> None:
    """'plan' and 'cost' name the document, not the thing asked about."""
    a = candidate("hmo-2026_p1_c00", "The plan cost is $200 per month.")
    b = candidate("hmo-2026_p2_c00", "The plan cost is $250 per month for a spouse.")
    assert find_amount_conflicts("What is the dental plan cost?", [a, b]) == []


def test_conflict_is_found_when_only_one_sentence_repeats_the_plan_name() -> None:
    a = candidate("hmo-2026_p1_c00", "The HMO out-of-pocket maximum is $6,000 per person each plan year.")
    b = candidate(
        "hmo-2026_p3_c02",
        "Once you reach the out-of-pocket maximum of $6,350 per person, the plan pays 100% of covered services.",
    )
    question = "What is the HMO out-of-pocket maximum?"
    assert len(amount_claims(question, [a, b])) == 2  # both sentences answer the question...
    assert len(find_amount_conflicts(question, [a, b])) == 1  # ... with different amounts


# Both cases below come from the sample corpus (corpus/docs/medical-plan-2026.pdf): with the current
# rule, gold rows g-061, g-062, g-064 and g-073 ("What's the PPO deductible for individual coverage?",
# "What is the individual deductible for the HDHP?") get the "documents state different amounts"
# notice and a padded answer, although the documents agree.

COPAY_ROW = "Benefit (in-network): Copay - primary care visit; PPO Plan: $25; HDHP with HSA: 20% after deductible."
URGENT_ROW = "Benefit (in-network): Urgent care; PPO Plan: $75 copay; HDHP with HSA: 20% after deductible."
DEDUCTIBLE_ROW = (
    "Benefit (in-network): Deductible (individual / family); PPO Plan: $1,250 / $2,500; HDHP with HSA: $1,700 / $3,400."
)


def test_rows_that_only_mention_the_term_in_another_cell_are_not_claims() -> None:
    a = candidate("medical-plan-2026_p1_c00", f"{COPAY_ROW}\n{DEDUCTIBLE_ROW}", policy_id="medical-plan")
    b = candidate("medical-plan-2026_p1_c01", URGENT_ROW, policy_id="medical-plan")
    question = "What is the individual deductible for the HDHP?"
    assert [c.sentence for c in amount_claims(question, [a, b])] == [DEDUCTIBLE_ROW]
    assert find_amount_conflicts(question, [a, b]) == []


def test_terms_at_the_other_end_of_a_sentence_do_not_make_a_claim() -> None:
    hdhp = candidate(
        "medical-plan-2026_p2_c00",
        "For family coverage, the $3,400 family deductible must be met before coinsurance applies "
        "to any family member, but no individual pays more than $4,500 out of pocket in a plan year.",
        policy_id="medical-plan",
    )
    ppo = candidate(
        "medical-plan-2026_p1_c02",
        "The family deductible is embedded: no single person pays more than the $1,250 individual deductible.",
        policy_id="medical-plan",
    )
    assert find_amount_conflicts("What's the PPO deductible for individual coverage?", [hdhp, ppo]) == []


def test_deductible_row_is_a_claim_about_the_deductible() -> None:
    a = candidate("medical-plan-2026_p1_c00", DEDUCTIBLE_ROW, policy_id="medical-plan")
    claims = amount_claims("What is the individual deductible for the HDHP?", [a])
    assert len(claims) == 1
    assert {"$1,700", "$3,400"} <= claims[0].amounts
