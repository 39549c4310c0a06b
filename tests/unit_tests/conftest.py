"""Fixtures the unit tests share."""

import pytest

from langchain_reliable import create_verifier


@pytest.fixture(scope="module")
def check():
    """The default verifier, as a user makes it (`create_verifier()`), one per test module."""
    return create_verifier()
