"""Gates: the similarity and topic gate, the context budget, another state's policy, and policy precedence."""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.context import select_context
from rag_core.jurisdictions import named_states
from rag_core.pipeline.base import StageBase
from rag_core.pipeline.corpus import CorpusView
from rag_core.pipeline.read import READ_LANGUAGES
from rag_core.pipeline.state import QueryState
from rag_core.registry import Registry
from rag_core.types import AbstainReason, DocumentMeta


class SimilarityGate(StageBase):
    """Abstain ``low_similarity`` when the best candidate is under the model's calibrated cutoff,
    or when the question names a topic no visible document contains and the match is not strong
    enough to read that word as phrasing ("pick", "versus") rather than a topic ("funeral").
    ``topic_after_reading``: the words are left to ``TopicGate`` after the reader (the dense cutoff
    still applies here)."""

    name = "gate"

    def __init__(
        self,
        cutoff: float,
        unknown_word_cutoff: float | None,
        *,
        topic_after_reading: bool = False,
        rescue_band: float = 0.0,
    ) -> None:
        """``rescue_band``: a match at most this far under the cutoff goes on to the reader, which must
        then read it strongly (``AnswerabilityGate.rescue_min_score``); 0 when nothing reads after."""
        self.cutoff = cutoff
        self.unknown_word_cutoff = unknown_word_cutoff
        self.topic_after_reading = topic_after_reading
        self.rescue_band = rescue_band

    def topic_blocks(self, unknown: Sequence[str], best_similarity: float) -> bool:
        if not unknown or self.topic_after_reading:
            return False
        return self.unknown_word_cutoff is None or best_similarity < self.unknown_word_cutoff

    def gate_score(self, state: QueryState) -> float:
        """What the cutoff is compared with; 0 when the topic gate stops the question whatever the
        cutoff (calibration sweeps the cutoff over this)."""
        return 0.0 if self.topic_blocks(state.unknown_words, state.best_similarity) else state.best_gate_similarity

    async def run(self, state: QueryState) -> None:
        # The undocumented-word bar judges the whole question: its situation's words count there.
        if self.topic_blocks(state.unknown_words, state.best_similarity):
            state.abstain(AbstainReason.LOW_SIMILARITY, self.name)
        elif state.best_gate_similarity < self.cutoff:
            floor = self.cutoff - self.rescue_band
            if self.rescue_band > 0 and state.language in READ_LANGUAGES and state.best_gate_similarity >= floor:
                state.rescue_floor = floor  # the reader decides, at its rescue bar
            else:
                state.abstain(AbstainReason.LOW_SIMILARITY, self.name)


class ContextBudget(StageBase):
    """The retrieval contract's budget: at most N chunks and T tokens, none under the cutoff."""

    name = "context"

    def __init__(self, cutoff: float, max_chunks: int, max_tokens: int) -> None:
        self.cutoff = cutoff
        self.max_chunks = max_chunks
        self.max_tokens = max_tokens

    async def run(self, state: QueryState) -> None:
        cutoff = self.cutoff if state.rescue_floor is None else min(self.cutoff, state.rescue_floor)
        state.context = select_context(
            state.candidates, cutoff=cutoff, max_chunks=self.max_chunks, max_tokens=self.max_tokens
        )
        if not state.context:
            state.abstain(AbstainReason.LOW_SIMILARITY, self.name)


class PrecedenceGate(StageBase):
    """A state variant and a US-wide policy both in scope with no declared ``overrides``: the
    documents disagree on which applies, so abstain ``conflict`` rather than pick one."""

    name = "precedence"

    def __init__(self, corpus: CorpusView) -> None:
        self.corpus = corpus

    async def run(self, state: QueryState) -> None:
        if self.corpus.registry.unresolved_variants((c.policy_id for c in state.context), state.require_access()):
            state.abstain(AbstainReason.CONFLICT, self.name)


def other_state_policy(registry: Registry, state: QueryState) -> tuple[str, DocumentMeta] | None:
    """The named state's own version of a policy in the context, when the asker's scope lacks that
    state (``Registry.variant_elsewhere``): what ``NamedStateGate`` abstains on and the explainer names."""
    states = named_states(state.question)
    if not states or state.access is None:
        return None
    return registry.variant_elsewhere((c.policy_id for c in state.context), state.access, state.language, states)


class NamedStateGate(StageBase):
    """A question about a state whose own version of the policy exists, asked by someone whose work
    location on file is elsewhere ("How many weeks of parental leave do I get in California?" with no
    California in the HR record), abstains ``other_jurisdiction`` instead of answering from the
    policy that applies to the asker (the US-wide 12 weeks where California's is 16): the scope
    comes from the HR record, never from the question, so the bot cannot answer for California, and
    quoting the US policy would answer a different question. The abstention names the state's
    policy so the employee can ask HR to fix their work location."""

    name = "jurisdiction"

    def __init__(self, corpus: CorpusView) -> None:
        self.corpus = corpus

    async def run(self, state: QueryState) -> None:
        if other_state_policy(self.corpus.registry, state) is not None:
            state.abstain(AbstainReason.OTHER_JURISDICTION, self.name)
