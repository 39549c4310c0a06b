"""Fixtures the unit tests share."""

import pytest

from langchain_reliable import create_verifier


@pytest.fixture(scope="module")
def check():
    """The default verifier, as a user makes it (`create_verifier()`), one per test module."""
    return create_verifier()


@pytest.fixture(scope="module", params=["balanced", "strict"])
def balanced_and_strict(request: pytest.FixtureRequest):
    """The default verifier under `balanced`, then `strict`: a test taking it runs under both."""
    return create_verifier(policy=request.param)
