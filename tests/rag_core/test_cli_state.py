"""``benefitsbot ask --state``: a two-letter US state code, any case; anything else is an error
that lists the valid codes (a typo must not silently mean "no state")."""

from __future__ import annotations

import pytest

from rag_core.cli import main

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("state", ["XX", "Calif", "C", "US-CA", ""])
def test_unknown_state_is_an_error_listing_the_codes(state: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "How much is the dental deductible?", "--state", state]) == 2
    err = capsys.readouterr().err
    assert f"--state {state!r} is not a US state code" in err
    assert "CA" in err and "NY" in err and "WY" in err and "DC" in err


def test_a_known_state_any_case_passes_the_check() -> None:
    from rag_core.cli import _state_code

    assert _state_code("ca") == "CA" and _state_code(" NY ") == "NY" and _state_code(None) is None
