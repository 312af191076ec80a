"""Which sentences the reader reads, with the REAL bundled ColBERT and cross-encoder: the spans word
overlap leaves out are ranked by ColBERT MaxSim, and the best of them are read too, so the sentence that
answers in other words ("a therapist without paying" -> "free counseling sessions") is read beside the
one that shares the question's everyday words ("see", "times")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from rag_core.index.base import token_vectors
from rag_core.models import ColbertEncoder, CrossEncoder
from rag_core.reading.reader import InChunkPrefilter, LateInteractionPrefilter, SpanReader
from rag_core.reading.spans import Span, spans_of
from rag_core.types import Candidate
from tests.fakes.network import network_disabled
from tests.rag_core.candidates import candidate

pytestmark = pytest.mark.integration

EAP = candidate(
    "eap-wellness-2026_p1_c00",
    "The Employee Assistance Program offers confidential support at no cost to you.\n"
    "Each covered member may use up to 8 free counseling sessions per issue, per year.\n"
    "You can see the times the program office is open on the benefits portal.\n"
    "To reach the program, call the number on the back of your ID card, any time, day or night.",
    policy_id="eap-wellness",
    title="Fabrikam EAP and Wellness 2026",
    heading="Employee Assistance Program",
)
QUESTION = "how many times can I see a therapist without paying"
ANSWER = "up to 8 free counseling sessions"


@pytest.fixture(scope="module")
def models() -> tuple[CrossEncoder, ColbertEncoder]:
    with network_disabled() as attempts:
        built = CrossEncoder.shared(max_length=128), ColbertEncoder.shared()
    assert attempts == []
    return built


def test_maxsim_ranks_the_answer_said_in_other_words_first(models: tuple[CrossEncoder, ColbertEncoder]) -> None:
    spans = spans_of([EAP])
    scores = LateInteractionPrefilter(models[1]).scores(QUESTION, spans)
    assert ANSWER in spans[max(range(len(spans)), key=scores.__getitem__)].text


def test_the_model_reads_beside_word_overlap(models: tuple[CrossEncoder, ColbertEncoder]) -> None:
    scorer, late = models
    reader = SpanReader(scorer, keep=2, model=LateInteractionPrefilter(late), model_spans=1)
    pool = reader.pool(QUESTION, spans_of([EAP]))
    assert "office is open" in pool[0].text and ANSWER in pool[1].text  # word overlap's best, then the model's
    reading = reader.read(QUESTION, [EAP])
    assert ANSWER in reading.spans[0].span.text
    # The mutation "word overlap picks every span read": the answering sentence is never read.
    by_words = SpanReader(scorer, keep=2, model=LateInteractionPrefilter(late), model_spans=0).read(QUESTION, [EAP])
    assert not any(ANSWER in read.span.text for read in by_words.spans)


def test_model_spans_cannot_exceed_what_is_read(models: tuple[CrossEncoder, ColbertEncoder]) -> None:
    with pytest.raises(ValueError, match="model_spans"):
        SpanReader(models[0], keep=2, model=LateInteractionPrefilter(models[1]), model_spans=3)


class _Refuses:
    def scores(self, question: str, spans: Sequence[Span]) -> list[float]:
        raise AssertionError("the prefilter ran though every span is read")


def test_no_prefilter_runs_when_every_span_fits(models: tuple[CrossEncoder, ColbertEncoder]) -> None:
    reading = SpanReader(models[0], keep=12, model=_Refuses(), model_spans=4).read(QUESTION, [EAP])
    assert len(reading.spans) == len(spans_of([EAP]))
    assert ANSWER in reading.spans[0].span.text


def stored_vectors(late: ColbertEncoder, *chunks: Candidate) -> dict[str, np.ndarray]:
    """What the index stores for each chunk: its token vectors rounded to float16 (``token_vectors``)."""
    return {c.chunk_id: np.asarray(token_vectors(late.encode_documents([c.content])[0])) for c in chunks}


def test_spans_are_scored_inside_the_stored_chunk_vectors(models: tuple[CrossEncoder, ColbertEncoder]) -> None:
    """The stored vectors' MaxSim over each span's own tokens finds the answer said in other words,
    and the reader reads it beside word overlap's pick, with no model run on the spans."""
    scorer, late = models
    spans = spans_of([EAP])
    in_chunk = InChunkPrefilter(late, stored_vectors(late, EAP))
    scores = in_chunk.scores(QUESTION, spans)
    assert ANSWER in spans[max(range(len(spans)), key=scores.__getitem__)].text
    reader = SpanReader(scorer, keep=2, model=_Refuses(), model_spans=1)  # the question's prefilter replaces it
    reading = reader.read(QUESTION, [EAP], model=in_chunk)
    assert ANSWER in reading.spans[0].span.text


def test_a_span_scores_only_its_own_tokens(models: tuple[CrossEncoder, ColbertEncoder]) -> None:
    """A span's score comes from the vectors inside its characters: with every other token's vector
    zeroed, its score is unchanged; with its own zeroed, it falls to nothing."""
    _, late = models
    spans = spans_of([EAP])
    answer = next(s for s in spans if ANSWER in s.text)
    stored = stored_vectors(late, EAP)
    offsets = late.document_offsets(EAP.content)
    inside = (offsets[:, 0] >= answer.start) & (offsets[:, 1] <= answer.end) & (offsets[:, 0] >= 0)
    assert 0 < inside.sum() < len(offsets)
    full = InChunkPrefilter(late, stored).scores(QUESTION, [answer])[0]
    only_own = {EAP.chunk_id: np.where(inside[:, None], stored[EAP.chunk_id], 0.0)}
    assert InChunkPrefilter(late, only_own).scores(QUESTION, [answer])[0] == pytest.approx(full)
    none_own = {EAP.chunk_id: np.where(inside[:, None], 0.0, stored[EAP.chunk_id])}
    assert InChunkPrefilter(late, none_own).scores(QUESTION, [answer])[0] == pytest.approx(0.0)


def test_a_chunk_without_stored_vectors_has_its_spans_encoded(models: tuple[CrossEncoder, ColbertEncoder]) -> None:
    """No stored vectors (or vectors that do not line up with the text): each span is encoded on its
    own, as ``LateInteractionPrefilter`` does, so the pick does not silently fall to nothing."""
    _, late = models
    spans = spans_of([EAP])
    alone = LateInteractionPrefilter(late).scores(QUESTION, spans)
    assert InChunkPrefilter(late, {}).scores(QUESTION, spans) == pytest.approx(alone)
    misaligned = {EAP.chunk_id: stored_vectors(late, EAP)[EAP.chunk_id][:-1]}
    assert InChunkPrefilter(late, misaligned).scores(QUESTION, spans) == pytest.approx(alone)
