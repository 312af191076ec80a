"""RBAC policy loading, validation errors and mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import RbacPolicyError
from bot.rbac import load_policy, parse_policy
from tests.bot.harness import RBAC_FILE

pytestmark = pytest.mark.unit

BASE = {"version": 1, "acl_groups": ["employees", "executives"]}


def test_deploy_policy_loads() -> None:
    policy = load_policy(RBAC_FILE)
    assert policy.acl_groups == {"employees", "contractors", "executives", "hr-admins"}
    assert policy.acl_for_slack([("S1", "executives")]) == {"executives", "employees"}
    assert policy.acl_for_slack([("S9", "running-club")]) == frozenset()
    assert policy.acl_for_aad([("0a1b2c3d-0000-4000-8000-000000000002", "whatever")]) == {"contractors"}
    assert policy.employment_type(frozenset({"contractors"})) == "contractor"
    assert policy.employment_type(frozenset({"employees"})) == "employee"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("California", "CA"),
        ("california ", "CA"),
        ("CA", "CA"),
        ("ca", "CA"),
        ("Calif.", "CA"),
        ("New York", "NY"),
        ("N.Y.", "NY"),
        ("Narnia", None),
        ("", None),
        (None, None),
    ],
)
def test_state_names(raw: str | None, expected: str | None) -> None:
    assert load_policy(RBAC_FILE).state_code(raw) == expected


@pytest.mark.parametrize(
    "data, needle",
    [
        ({"acl_groups": []}, "acl_groups"),
        ({**BASE, "version": 2}, "version"),
        ({**BASE, "slack": {"usergroups": {"execs": ["executive"]}}}, "slack.usergroups.execs"),
        ({**BASE, "slack": {"usergroups": {"execs": []}}}, "slack.usergroups.execs"),
        ({**BASE, "teams": {"aad_groups": ["x"]}}, "teams.aad_groups"),
        ({**BASE, "states": {"Narnia": "NA"}}, "states.Narnia"),
        ({**BASE, "employment_types": {"contractors": "contractor"}}, "employment_types.contractors"),
        ("just a string", "<root>"),
    ],
)
def test_invalid_policies_name_the_key(data: object, needle: str) -> None:
    with pytest.raises(RbacPolicyError) as err:
        parse_policy(data, "policy.yaml")
    assert "policy.yaml" in str(err.value) and needle in str(err.value)


def test_invalid_yaml_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "rbac.yaml"
    bad.write_text("acl_groups: [employees\n")
    with pytest.raises(RbacPolicyError, match="invalid YAML"):
        load_policy(bad)
