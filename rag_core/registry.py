"""Which documents a scope may search, decided from the index manifest before the query.

The result is a set of document ids to exclude, which goes into the Qdrant filter
(``must_not``): superseded versions, documents overridden by a state variant in scope, and
documents that have a translation in the asker's language. Nothing here filters results
after retrieval; it only shapes the pre-filter and detects unresolved precedence.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from rag_core.index.base import AccessFilter
from rag_core.types import DocumentMeta


def visible(doc: DocumentMeta, scope: AccessFilter) -> bool:
    """Mirror of the index filter's access part (groups, jurisdiction, date, language)."""
    groups = set(doc.acl_groups)
    return (
        all(groups & group_set for group_set in scope.group_sets)
        and all(doc.jurisdiction in allowed for allowed in scope.jurisdiction_sets)
        and doc.effective_date <= scope.as_of
        and (scope.language is None or doc.language == scope.language)
    )


@dataclass(frozen=True)
class Registry:
    documents: tuple[DocumentMeta, ...]

    @classmethod
    def of(cls, documents: Iterable[DocumentMeta]) -> Registry:
        return cls(tuple(documents))

    def superseded(self, scope: AccessFilter) -> set[str]:
        """Older versions of a policy (same policy, jurisdiction and language) once a newer one is in effect."""
        groups: dict[tuple[str, str, str], list[DocumentMeta]] = defaultdict(list)
        for doc in self.documents:
            if doc.effective_date <= scope.as_of:
                groups[(doc.policy_id, doc.jurisdiction, doc.language)].append(doc)
        out: set[str] = set()
        for versions in groups.values():
            newest = max(versions, key=lambda d: (d.effective_date, _version_key(d.version)))
            out.update(d.document_id for d in versions if d.document_id != newest.document_id)
        return out

    def overridden(self, scope: AccessFilter, excluded: set[str]) -> set[str]:
        """A variant in scope that declares ``overrides`` takes precedence over those documents
        (and over their other versions: same policy and jurisdiction)."""
        by_id = {d.document_id: d for d in self.documents}
        out: set[str] = set()
        for doc in self.documents:
            if not doc.overrides or doc.document_id in excluded or not visible(doc, scope):
                continue
            for target_id in doc.overrides:
                target = by_id.get(target_id)
                if target is None:
                    continue
                if (target.policy_id, target.jurisdiction) == (doc.policy_id, doc.jurisdiction):
                    out.add(target.document_id)  # a replaced version of its own policy: that one only
                    continue
                out.update(
                    d.document_id
                    for d in self.documents
                    if d.policy_id == target.policy_id and d.jurisdiction == target.jurisdiction
                )
        out.discard("")
        return out

    def translated_away(self, scope: AccessFilter, language: str, excluded: set[str]) -> set[str]:
        """Documents in another language whose policy exists in the asker's language."""
        available = {
            (d.policy_id, d.jurisdiction)
            for d in self.documents
            if d.language == language and d.document_id not in excluded and visible(d, scope)
        }
        return {
            d.document_id
            for d in self.documents
            if d.language != language and (d.policy_id, d.jurisdiction) in available
        }

    def exclusions(self, scope: AccessFilter, language: str | None) -> frozenset[str]:
        excluded = self.superseded(scope)
        excluded |= self.overridden(scope, excluded)
        if language:
            excluded |= self.translated_away(scope, language, excluded)
        return frozenset(excluded)

    def variant_elsewhere(
        self, policy_ids: Iterable[str], access: AccessFilter, language: str | None, states: Iterable[str]
    ) -> tuple[str, DocumentMeta] | None:
        """A state's own version of a policy the answer would come from, for a state the question names
        but the scope's jurisdictions lack ("…in California?" asked by someone whose HR record lists
        no California work location): ``(state code, document)``, or None. The document must be one
        the asker could search if they worked there: same groups, date and language, only the
        jurisdiction widened, so nothing is named that their groups may not see."""
        wanted = set(policy_ids)
        for state in sorted(states):
            jurisdiction = f"US-{state}"
            if all(jurisdiction in allowed for allowed in access.jurisdiction_sets):
                continue  # the asker works there: the filter already holds that state's documents
            there = AccessFilter(
                access.group_sets,
                tuple(allowed | {jurisdiction} for allowed in access.jurisdiction_sets),
                access.as_of,
                language=access.language,
            )
            excluded = self.exclusions(there, language)
            for doc in sorted(self.documents, key=lambda d: d.document_id):
                if (
                    doc.jurisdiction == jurisdiction
                    and doc.policy_id in wanted
                    and doc.document_id not in excluded
                    and visible(doc, there)
                ):
                    return state, doc
        return None

    def unresolved_variants(self, policy_ids: Iterable[str], access: AccessFilter) -> set[str]:
        """Policies with documents from more than one jurisdiction in scope and no declared precedence."""
        conflicting: set[str] = set()
        for policy_id in set(policy_ids):
            jurisdictions = {
                d.jurisdiction
                for d in self.documents
                if d.policy_id == policy_id and d.document_id not in access.exclude_document_ids and visible(d, access)
            }
            if len(jurisdictions) > 1:
                conflicting.add(policy_id)
        return conflicting


def _version_key(version: str) -> tuple[object, ...]:
    parts: list[object] = []
    for piece in version.replace("-", ".").split("."):
        parts.append((0, int(piece)) if piece.isdigit() else (1, piece))
    return tuple(parts)
