"""The README's test command works on what it installs, and says what CI installs.

`pip install -e ".[all]" --group dev && python -m pytest` must pass on a clean clone:
the tests of what that install lacks skip, naming the group or extra; a script's
`--help` needs none of it. The CI block of DEVELOPERS.md and `.ci/run` install the same.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text("utf-8")
DEVELOPERS = (ROOT / "DEVELOPERS.md").read_text("utf-8")
CI = (ROOT / ".ci" / "run").read_text("utf-8")
SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))
NOT_IN_DEV = (
    "torch",
    "transformers",
    "sentence_transformers",
    "sklearn",
    "scipy",
    "onnx",
    "safetensors",
    "ray",
    "llama_cpp",
)
"""Modules of the heavy groups (and what builds the accurate model): hidden from `--help`."""


@pytest.fixture(scope="module")
def hidden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose packages shadow `NOT_IN_DEV`: importing one fails as if not installed."""
    folder = tmp_path_factory.mktemp("not-installed")
    for name in NOT_IN_DEV:
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError('No module named {name!r}', name={name!r})\n"
        )
    return folder


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_every_script_answers_help_on_the_dev_install(script: Path, hidden: Path) -> None:
    env = {"PYTHONPATH": f"{hidden}{':' + str(ROOT)}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


def test_hidden_modules_do_not_import(hidden: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import safetensors"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(hidden)},
    )
    assert done.returncode != 0 and "No module named 'safetensors'" in done.stderr


INSTALL = re.compile(
    r"pip install (?:-q )?-e \"\.(?:\[(?P<extras>[^\]]*)\])?\"(?P<groups>(?: --group \S+)*)"
)


def _installs(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each `pip install -e ".[extras]" --group G ...` in `text`: (extras, groups)."""
    return [
        (m.group("extras") or "", tuple(m.group("groups").split()[1::2]))
        for m in INSTALL.finditer(text)
    ]


def test_the_readme_ci_block_installs_what_ci_installs() -> None:
    """The CI recipe the README points to (DEVELOPERS.md) installs what `.ci/run` does."""
    assert ("all", ("ci",)) in _installs(CI)
    assert ("all", ("ci",)) in _installs(DEVELOPERS)
    fetch = "from langchain_reliable.evidence.base_parts import fetch_parts"
    assert fetch in CI and fetch in DEVELOPERS  # the accurate tier's base wheels, fetched once
    assert CI.rstrip().endswith("python -m pytest")


def test_the_readme_test_command_is_the_dev_install_everywhere() -> None:
    dev = [found for found in _installs(README) if "dev" in found[1]]
    assert dev and set(dev) == {("all", ("dev",))}
    assert 'pip install -e ".[all]" --group dev && python -m pytest' in README
