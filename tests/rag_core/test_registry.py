"""Which documents a scope may search: superseded versions, overrides, translations, and
unresolved state variants, all decided before the query (the pre-filter's must_not)."""

from __future__ import annotations

from datetime import date

import pytest

from rag_core.index.base import AccessFilter
from rag_core.registry import Registry, visible
from rag_core.types import DocumentMeta

pytestmark = pytest.mark.unit

TODAY = date(2026, 11, 30)


def doc(
    document_id: str,
    policy_id: str,
    *,
    jurisdiction: str = "US-ALL",
    effective: str = "2026-01-01",
    version: str = "1",
    language: str = "en",
    groups: tuple[str, ...] = ("employees",),
    overrides: tuple[str, ...] = (),
) -> DocumentMeta:
    return DocumentMeta(
        file=f"{document_id}.md",
        document_id=document_id,
        policy_id=policy_id,
        title=document_id.replace("-", " ").title(),
        jurisdiction=jurisdiction,
        effective_date=date.fromisoformat(effective),
        version=version,
        source_uri=f"https://hr.fabrikam.example/{document_id}",
        acl_groups=groups,
        language=language,
        overrides=overrides,
    )


def scope(
    groups: tuple[str, ...] = ("employees",),
    state: str | None = None,
    as_of: date = TODAY,
    language: str | None = None,
) -> AccessFilter:
    jurisdictions = frozenset({"US-ALL", f"US-{state}"} if state else {"US-ALL"})
    return AccessFilter((frozenset(groups),), (jurisdictions,), as_of, language=language)


MED_2025 = doc("medical-2025", "medical", effective="2025-01-01", version="2025.1")
MED_2026 = doc("medical-2026", "medical", effective="2026-01-01", version="2026.1")
MED_2027 = doc("medical-2027", "medical", effective="2027-01-01", version="2027.1")

LEAVE_US_2025 = doc("leave-us-2025", "leave", effective="2025-01-01", version="2025")
LEAVE_US = doc("leave-us-2026", "leave", version="2026")
LEAVE_US_ES = doc("leave-us-2026-es", "leave", version="2026", language="es")
LEAVE_CA = doc("leave-ca-2026", "leave", jurisdiction="US-CA", overrides=("leave-us-2026",))
LEAVE_NY = doc("leave-ny-2026", "leave", jurisdiction="US-NY")
ALL = (MED_2025, MED_2026, MED_2027, LEAVE_US_2025, LEAVE_US, LEAVE_US_ES, LEAVE_CA, LEAVE_NY)


# -- superseded versions --------------------------------------------------------------------------------


def test_older_version_is_superseded_once_the_newer_is_in_effect() -> None:
    registry = Registry.of(ALL)
    assert registry.superseded(scope()) >= {"medical-2025"}
    assert "medical-2026" not in registry.superseded(scope())
    # A version that is not yet in effect supersedes nothing (the date filter hides it anyway).
    assert "medical-2026" not in registry.superseded(scope(as_of=date(2026, 12, 31)))
    assert registry.superseded(scope(as_of=date(2027, 1, 1))) >= {"medical-2025", "medical-2026"}
    assert registry.superseded(scope(as_of=date(2025, 6, 1))) == set()


def test_same_effective_date_is_decided_by_numeric_version() -> None:
    a = doc("plan-v9", "plan", version="2026.9")
    b = doc("plan-v10", "plan", version="2026.10")
    assert Registry.of((a, b)).superseded(scope()) == {"plan-v9"}
    assert Registry.of((b, a)).superseded(scope()) == {"plan-v9"}


def test_versions_in_other_jurisdictions_or_languages_do_not_supersede_each_other() -> None:
    registry = Registry.of((LEAVE_US, LEAVE_US_ES, LEAVE_CA, LEAVE_NY))
    assert registry.superseded(scope(state="CA")) == set()


def test_exclusions_drop_superseded_versions() -> None:
    excluded = Registry.of(ALL).exclusions(scope(), "en")
    assert {"medical-2025", "leave-us-2025"} <= excluded
    assert "medical-2026" not in excluded and "leave-us-2026" not in excluded


# -- overrides --------------------------------------------------------------------------------------------


def test_state_variant_overrides_the_us_policy_for_that_state_only() -> None:
    registry = Registry.of(ALL)
    ca = registry.exclusions(scope(state="CA"), "en")
    assert {"leave-us-2026", "leave-us-2026-es"} <= ca
    assert "leave-ca-2026" not in ca
    assert "leave-us-2026" not in registry.exclusions(scope(), "en")
    assert "leave-us-2026" not in registry.exclusions(scope(state="NY"), "en")


def test_override_reaches_other_versions_of_the_overridden_policy() -> None:
    """The CA variant names the 2026 US document; a newer US version (a mid-year revision that the
    catalog author forgot to list) is overridden too, and so is the superseded one."""
    revision = doc("leave-us-2026-rev", "leave", effective="2026-07-01", version="2026.2")
    registry = Registry.of((*ALL, revision))
    overridden = registry.overridden(scope(state="CA"), set())
    assert {"leave-us-2025", "leave-us-2026", "leave-us-2026-rev", "leave-us-2026-es"} <= overridden
    assert not overridden & {"leave-ca-2026", "leave-ny-2026", "medical-2026"}


def test_override_naming_an_old_version_still_overrides_the_current_one() -> None:
    ca = doc("leave-ca-2026", "leave", jurisdiction="US-CA", overrides=("leave-us-2025",))
    registry = Registry.of((LEAVE_US_2025, LEAVE_US, ca))
    excluded = registry.exclusions(scope(state="CA"), "en")
    assert {"leave-us-2025", "leave-us-2026"} <= excluded
    assert "leave-ca-2026" not in excluded


def test_override_only_applies_once_the_variant_is_in_effect_and_visible() -> None:
    registry = Registry.of(ALL)
    assert "leave-us-2026" not in registry.exclusions(scope(state="CA", as_of=date(2025, 12, 31)), "en")
    restricted_ca = doc(
        "leave-ca-2026", "leave", jurisdiction="US-CA", overrides=("leave-us-2026",), groups=("executives",)
    )
    registry = Registry.of((LEAVE_US, restricted_ca))
    # A variant the asker may not see must not take the US policy away from them.
    assert registry.exclusions(scope(state="CA"), "en") == frozenset()
    assert registry.exclusions(scope(("employees", "executives"), state="CA"), "en") == {"leave-us-2026"}


def test_superseded_variant_does_not_override() -> None:
    old_ca = doc("leave-ca-2025", "leave", jurisdiction="US-CA", effective="2025-01-01", overrides=("leave-us-2026",))
    new_ca = doc("leave-ca-2026", "leave", jurisdiction="US-CA", version="2")
    registry = Registry.of((LEAVE_US, old_ca, new_ca))
    excluded = registry.exclusions(scope(state="CA"), "en")
    assert "leave-ca-2025" in excluded
    assert "leave-us-2026" not in excluded  # only the newest CA version's declaration counts


def test_unknown_override_target_is_ignored() -> None:
    odd = doc("leave-ca-2026", "leave", jurisdiction="US-CA", overrides=("no-such-document",))
    assert Registry.of((LEAVE_US, odd)).overridden(scope(state="CA"), set()) == set()


def test_an_overriding_document_never_excludes_itself() -> None:
    """A catalog author records that the 2026 summary replaces the 2025 one (same policy and
    jurisdiction). That must hide 2025 only, not the whole medical plan."""
    replacing = doc("medical-2026", "medical", effective="2026-01-01", version="2026.1", overrides=("medical-2025",))
    excluded = Registry.of((MED_2025, replacing)).exclusions(scope(), "en")
    assert "medical-2025" in excluded
    assert "medical-2026" not in excluded


# -- translations ---------------------------------------------------------------------------------------


def test_spanish_asker_gets_the_translation_instead_of_the_english_original() -> None:
    excluded = Registry.of(ALL).exclusions(scope(), "es")
    assert "leave-us-2026" in excluded
    assert "leave-us-2026-es" not in excluded
    assert "medical-2026" not in excluded  # no Spanish medical summary: English stays available


def test_english_asker_never_gets_the_translation() -> None:
    excluded = Registry.of(ALL).exclusions(scope(), "en")
    assert "leave-us-2026-es" in excluded
    assert "leave-us-2026" not in excluded


def test_translation_the_asker_cannot_see_does_not_hide_the_original() -> None:
    hidden_es = doc("leave-us-2026-es", "leave", language="es", groups=("hr-admins",))
    excluded = Registry.of((LEAVE_US, hidden_es)).exclusions(scope(), "es")
    assert "leave-us-2026" not in excluded


def test_no_language_means_no_translation_exclusion() -> None:
    excluded = Registry.of((LEAVE_US, LEAVE_US_ES)).exclusions(scope(), None)
    assert excluded == frozenset()


# -- unresolved variants ------------------------------------------------------------------------------------


def _with_exclusions(registry: Registry, base: AccessFilter, language: str = "en") -> AccessFilter:
    return AccessFilter(
        base.group_sets,
        base.jurisdiction_sets,
        base.as_of,
        registry.exclusions(base, language),
        base.language,
    )


def test_state_variant_without_declared_precedence_is_unresolved() -> None:
    registry = Registry.of(ALL)
    ny = _with_exclusions(registry, scope(state="NY"))
    assert registry.unresolved_variants(["leave", "medical"], ny) == {"leave"}


def test_declared_override_and_single_jurisdiction_are_resolved() -> None:
    registry = Registry.of(ALL)
    for state in ("CA", None):
        access = _with_exclusions(registry, scope(state=state))
        assert registry.unresolved_variants(["leave", "medical"], access) == set()


def test_variant_the_asker_cannot_see_is_not_a_conflict() -> None:
    hidden_ny = doc("leave-ny-2026", "leave", jurisdiction="US-NY", groups=("hr-admins",))
    registry = Registry.of((LEAVE_US, hidden_ny))
    access = _with_exclusions(registry, scope(state="NY"))
    assert registry.unresolved_variants(["leave"], access) == set()


# -- visibility and narrowing --------------------------------------------------------------------------------


def test_visible_requires_every_group_and_jurisdiction_set() -> None:
    exec_doc = doc("exec", "exec", groups=("executives",))
    both = AccessFilter(
        (frozenset({"employees", "executives"}), frozenset({"employees"})),
        (frozenset({"US-ALL"}), frozenset({"US-ALL"})),
        TODAY,
    )
    assert visible(exec_doc, scope(("employees", "executives")))
    assert not visible(exec_doc, both)
    assert visible(LEAVE_US, both)
    assert not visible(LEAVE_CA, scope(state="NY"))
    assert not visible(MED_2027, scope())
    assert not visible(LEAVE_US, scope(language="es"))


def test_narrowed_filter_never_widens() -> None:
    asker = AccessFilter((frozenset({"employees"}),), (frozenset({"US-ALL", "US-CA"}),), TODAY, frozenset({"a"}))
    audience = AccessFilter(
        (frozenset({"employees", "executives", "hr-admins"}),),
        (frozenset({"US-ALL", "US-NY"}),),
        date(2027, 6, 1),
        frozenset({"b"}),
        "es",
    )
    both = asker.narrowed(audience)
    assert both.group_sets == asker.group_sets + audience.group_sets
    assert both.jurisdiction_sets == asker.jurisdiction_sets + audience.jurisdiction_sets
    assert both.as_of == TODAY  # the earlier date
    assert both.exclude_document_ids == {"a", "b"}
    exec_doc = doc("exec", "exec", groups=("executives",))
    assert not visible(exec_doc, both)
    assert not visible(LEAVE_CA, both) and not visible(LEAVE_NY, both)


@pytest.mark.parametrize(("groups", "jurisdictions"), [((), ("US-ALL",)), (("employees",), ())])
def test_access_filter_refuses_empty_sets(groups: tuple[str, ...], jurisdictions: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        AccessFilter((frozenset(groups),), (frozenset(jurisdictions),), TODAY)
    with pytest.raises(ValueError):
        AccessFilter((), (frozenset({"US-ALL"}),), TODAY)


# -- another state's own version of a policy ---------------------------------------------------------------


def test_a_named_state_with_its_own_version_the_scope_lacks_is_found() -> None:
    registry = Registry.of(ALL)
    assert registry.variant_elsewhere(["leave"], scope(), None, ["CA"]) == ("CA", LEAVE_CA)
    assert registry.variant_elsewhere(["leave"], scope(state="NY"), None, ["CA"]) == ("CA", LEAVE_CA)


def test_no_variant_elsewhere_when_the_asker_works_there_or_the_policy_has_none() -> None:
    registry = Registry.of(ALL)
    assert registry.variant_elsewhere(["leave"], scope(state="CA"), None, ["CA"]) is None
    assert registry.variant_elsewhere(["medical"], scope(), None, ["CA"]) is None  # no California medical plan
    assert registry.variant_elsewhere(["leave"], scope(), None, ["TX"]) is None  # no Texas version


def test_a_state_version_the_askers_groups_may_not_see_is_never_named() -> None:
    # Only the jurisdiction is widened: the mutation "ignore the groups" would name a document
    # the asker's groups exclude.
    hidden = doc("leave-wa-2026", "leave", jurisdiction="US-WA", groups=("hr-admins",))
    registry = Registry.of((*ALL, hidden))
    assert registry.variant_elsewhere(["leave"], scope(), None, ["WA"]) is None
    assert registry.variant_elsewhere(["leave"], scope(groups=("hr-admins",)), None, ["WA"]) == ("WA", hidden)
