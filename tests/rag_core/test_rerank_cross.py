"""Cross-encoder rerank (RERANKER=cross) with the real bundled ms-marco model: what it reads of each
chunk, and how it reorders the head of the MaxSim + cosine order. Ordering only; speed is in
benchmarks/rerank_sweep.py --cross."""

from __future__ import annotations

import pytest

from rag_core.models import CrossEncoder
from rag_core.pipeline import build_reranker
from rag_core.rerank import BestWindow, CrossEncoderRerank, LateDenseBlend, LexicalDenseReranker
from rag_core.settings import CoreSettings
from rag_core.types import Candidate
from tests.fakes.network import network_disabled
from tests.hashseeds import outputs_across_hash_seeds
from tests.rag_core.candidates import candidate

QUESTION = "How much is the copay for a specialist visit?"
FILLER = " ".join(f"Members should keep receipt number {i} for their records." for i in range(40))


@pytest.fixture(scope="module")
def cross() -> CrossEncoder:
    with network_disabled() as attempts:
        encoder = CrossEncoder.shared()
    assert attempts == []
    return encoder


def scored(chunk_id: str, body: str, late: float, heading: str = "Costs") -> Candidate:
    return candidate(chunk_id, body, heading=heading, dense=0.5).model_copy(update={"late_score": late})


@pytest.mark.integration
def test_the_window_is_the_header_plus_the_part_that_matches_the_question(cross: CrossEncoder) -> None:
    body = f"{FILLER} A specialist visit costs a $60 copay after the deductible. {FILLER}"
    chunk = candidate("plan_p1_c00", body)
    window = BestWindow(96, 24)(QUESTION, chunk.content, cross.piece_offsets)
    assert window.startswith("Fabrikam HMO Plan Summary 2026 — Costs\n")
    assert "specialist visit costs a $60 copay" in window
    assert len(cross.piece_offsets(window.partition("\n")[2])) <= 96
    short = candidate("plan_p2_c00", "Specialist visits cost a $50 copay.")
    assert BestWindow(96, 24)(QUESTION, short.content, cross.piece_offsets) == short.content  # read whole


@pytest.mark.integration
async def test_the_cross_encoder_lifts_the_answer_within_the_head_and_keeps_the_tail(cross: CrossEncoder) -> None:
    candidates = [
        scored(
            "a_p1_c00",
            f"Specialist doctors in the network are listed in the provider directory. {FILLER}",
            0.80,
            heading="Finding a specialist",
        ),
        scored("b_p1_c00", "Vision exams are covered once a year at no cost to members.", 0.78),
        scored("c_p1_c00", f"{FILLER} A specialist visit costs a $60 copay after the deductible.", 0.75),
        scored("d_p1_c00", "A specialist visit costs a $60 copay.", 0.60),  # outside the head: not read
    ]
    base = await LateDenseBlend().rerank(QUESTION, candidates)
    assert [c.chunk_id for c in base] == ["a_p1_c00", "b_p1_c00", "c_p1_c00", "d_p1_c00"]
    model_order = CrossEncoderRerank(cross, top_n=3, window=BestWindow(96, 24), fusion="probability")
    ranked = await model_order.rerank(QUESTION, candidates)
    assert ranked[0].chunk_id == "c_p1_c00"  # the answer sat third by MaxSim, at the end of a long chunk
    assert ranked[-1].chunk_id == "d_p1_c00"  # the tail keeps the base order below the head
    assert sorted(c.chunk_id for c in ranked) == sorted(c.chunk_id for c in candidates)  # reorders, never drops
    head_scores = [c.rerank_score or 0.0 for c in ranked[:3]]
    assert head_scores == sorted(head_scores, reverse=True)


@pytest.mark.integration
async def test_a_large_base_weight_follows_the_base_order(cross: CrossEncoder) -> None:
    candidates = [
        scored("a_p1_c00", "Vision exams are covered once a year.", 0.9),
        scored("b_p1_c00", "A specialist visit costs a $60 copay.", 0.5),
    ]
    ranked = await CrossEncoderRerank(cross, top_n=2, base_weight=100.0, fusion="probability").rerank(
        QUESTION, candidates
    )
    assert [c.chunk_id for c in ranked] == ["a_p1_c00", "b_p1_c00"]
    alone = CrossEncoderRerank(cross, top_n=2, fusion="probability")
    assert [c.chunk_id for c in await alone.rerank(QUESTION, candidates)] == ["b_p1_c00", "a_p1_c00"]


@pytest.mark.integration
async def test_z_fusion_weighs_the_model_against_the_base_order(cross: CrossEncoder) -> None:
    """Within the head both scores become z-scores: the model's weight decides how far it may move
    a candidate the base order put lower (0: the base order; large: the model's order)."""
    candidates = [
        scored("a_p1_c00", "Vision exams are covered once a year.", 0.9),
        scored("b_p1_c00", "Members may see any doctor in the network.", 0.7),
        scored("c_p1_c00", "A specialist visit costs a $60 copay.", 0.5),
    ]

    async def order(weight: float) -> list[str]:
        reranker = CrossEncoderRerank(cross, top_n=3, cross_weight=weight)
        return [c.chunk_id for c in await reranker.rerank(QUESTION, candidates)]

    assert await order(0.0) == ["a_p1_c00", "b_p1_c00", "c_p1_c00"]
    assert (await order(100.0))[0] == "c_p1_c00"
    # At weight 1 neither signal overrules the other: the answer climbs above b, not above a,
    # whose base lead is as large as the answer's lead by the model.
    assert (await order(1.0)).index("c_p1_c00") < 2


@pytest.mark.integration
def test_reranker_cross_is_built_over_the_right_base_order() -> None:
    with network_disabled():
        reranker = build_reranker(
            CoreSettings(_env_file=None, RERANKER="cross", CROSS_RERANK_TOP_N=5, CROSS_RERANK_WINDOW=96)
        )
        assert isinstance(reranker, CrossEncoderRerank)
        assert (reranker.top_n, reranker.window.pieces) == (5, 96)
        assert (reranker.fusion, reranker.cross_weight) == ("z", 1.0)
        assert isinstance(reranker.base, LateDenseBlend)
        plain = build_reranker(CoreSettings(_env_file=None, RERANKER="cross", LATE_INTERACTION="none"))
        assert isinstance(plain, CrossEncoderRerank) and isinstance(plain.base, LexicalDenseReranker)


@pytest.mark.unit
def test_window_sizes_are_checked() -> None:
    with pytest.raises(ValueError):
        BestWindow(8, 4)


# Seven 16-word windows; the question's words make windows 3 and 4 cover exactly the same IDF weight
# with different words, so which one wins depends only on the tie-break (earliest), unless the sum
# rounds differently in the order a set of strings happens to iterate in (hash-randomised per process).
TIED_WINDOWS = [
    "bravo delta foxtrot india lima",
    "bravo hotel juliet",
    "foxtrot hotel juliet",
    "alpha foxtrot golf india kilo lima",
    "alpha charlie echo golf lima",
    "bravo delta echo golf juliet",
    "bravo echo golf india juliet",
]
PICK_WINDOW = """
import re
from rag_core.rerank import BestWindow
body = " ".join(" ".join((words.split() + ["filler"] * 16)[:16]) for words in {windows!r})
offsets = lambda text: [m.span() for m in re.finditer(r"\\S+", text)]
print(BestWindow(16, 16)("charlie india kilo echo alpha", "Title — Heading\\n" + body, offsets))
"""


@pytest.mark.unit
def test_the_window_choice_does_not_depend_on_string_hashing() -> None:
    script = PICK_WINDOW.format(windows=TIED_WINDOWS)
    chosen = outputs_across_hash_seeds(script)
    fourth = " ".join(("alpha foxtrot golf india kilo lima".split() + ["filler"] * 16)[:16])
    assert chosen == {f"Title — Heading\n{fourth}\n"}  # the earliest of the two tied windows, in every process
