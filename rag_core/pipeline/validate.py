"""Validate the draft: citations of prompt chunks only, uncited sentences dropped, outside links
removed; then contradictory amounts are never stated silently."""

from __future__ import annotations

from collections.abc import Sequence

from rag_core.citations import CITATION, sentences, validate
from rag_core.conflicts import AmountConflict, find_amount_conflicts
from rag_core.pipeline.base import StageBase
from rag_core.pipeline.state import QueryState
from rag_core.support import SUPPORT_FLOOR, check
from rag_core.types import AbstainReason, Candidate

AMOUNT_CONFLICT_NOTICE = (
    "The official documents state different amounts for this. Each is shown with its "
    "source; please confirm with HR before relying on either."
)


class ValidateStage(StageBase):
    name = "validate"

    def __init__(self, link_hosts: Sequence[str] = ()) -> None:
        self.link_hosts = tuple(link_hosts)  # besides the context documents' own: the HR contact, trusted hosts

    async def run(self, state: QueryState) -> None:
        if state.generated is None:
            raise RuntimeError("validate() before generate()")
        checked = validate(
            state.generated.text,
            [c.chunk_id for c in state.context],
            [c.source_uri for c in state.context],
            link_hosts=self.link_hosts,
        )
        state.text = checked.text
        state.cited = list(checked.cited)
        if checked.rejected is not None:
            state.abstain(checked.rejected, self.name)


class ClaimSupportStage(StageBase):
    """Each kept sentence must be supported by the chunks it cites (figures, names, words: see
    :mod:`rag_core.support`); unsupported sentences are stripped, and an answer left with nothing
    abstains ``no_supported_claims``."""

    name = "support"

    def __init__(self, floor: float = SUPPORT_FLOOR) -> None:
        self.floor = floor
        self.stripped: list[tuple[str, str]] = []  # (sentence, reason) of the last question, for tests

    async def run(self, state: QueryState) -> None:
        content = {c.chunk_id: c.content for c in state.context}
        kept: list[str] = []
        self.stripped = []
        for sentence in sentences(state.text):
            cited = [content[c] for c in CITATION.findall(sentence) if c in content]
            verdict = check(sentence, cited, floor=self.floor)
            if verdict.supported:
                kept.append(sentence)
            else:
                self.stripped.append((sentence, verdict.reason))
        if not kept:
            state.text, state.cited = "", []
            state.abstain(AbstainReason.NO_SUPPORTED_CLAIMS, self.name)
            return
        state.text = " ".join(kept)
        state.cited = list(dict.fromkeys(c for c in CITATION.findall(state.text)))


class AmountConflictStage(StageBase):
    """The documents state two amounts for the asked thing (Contoso's Standard plan has two
    out-of-pocket maximums): each value must be shown under a citation of a chunk stating it, with
    a notice; otherwise abstain ``conflict``. Runs after validation, for any generator."""

    name = "amounts"

    async def run(self, state: QueryState) -> None:
        conflicts = find_amount_conflicts(state.query, state.context)
        if not conflicts:
            return
        if each_value_cited(state.text, conflicts, state.context):
            state.notices.append(AMOUNT_CONFLICT_NOTICE)
        else:
            state.abstain(AbstainReason.CONFLICT, self.name)


def each_value_cited(text: str, conflicts: Sequence[AmountConflict], context: Sequence[Candidate]) -> bool:
    """Every disputed amount is shown in a sentence that cites a chunk stating that amount
    (not merely somewhere in the answer, under another chunk's citation)."""
    content = {c.chunk_id: c.content.replace(" ", "") for c in context}
    kept = [(s.replace(" ", ""), CITATION.findall(s)) for s in sentences(text)]
    return all(
        any(value in sentence and any(value in content.get(cid, "") for cid in cited) for sentence, cited in kept)
        for conflict in conflicts
        for value in conflict.values
    )
