"""Fixtures the integration tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration_tests._servers import served


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The LangServe app, served on loopback for one test module, from a folder of its own."""
    yield from served(tmp_path_factory, request.module.__name__.rpartition(".")[2])
