"""The settings object: values kept across the sessions that renamed or widened them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rag_core.settings import CoreSettings


def test_the_title_switch_keeps_its_boolean_values() -> None:
    # Session 20's READER_TITLE_WORDS=true / false read every span / none under its document's title.
    assert CoreSettings(READER_TITLE_WORDS="true").reader_title_words == "all"
    assert CoreSettings(READER_TITLE_WORDS="false").reader_title_words == "off"
    assert CoreSettings(READER_TITLE_WORDS=False).reader_title_words == "off"
    assert CoreSettings(READER_TITLE_WORDS="rows").reader_title_words == "rows"


def test_an_unknown_title_reading_is_a_clear_error() -> None:
    with pytest.raises(ValidationError, match="'off', 'rows' or 'all'"):
        CoreSettings(READER_TITLE_WORDS="sometimes")
