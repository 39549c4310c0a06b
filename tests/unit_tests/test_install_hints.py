"""Install hints name a command that works: the editable install from the checkout.

The package is not on the package index yet, so `pip install 'langchain-reliable[X]'`
ends in "No matching distribution found". Every error message, skip reason and doc
line says `pip install -e ".[X]"` instead (`errors.install_hint`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from langchain_reliable.errors import install_hint

REPO = Path(__file__).resolve().parents[2]
SEARCHED = ("langchain_reliable", "tests", "graphs", "notebooks", "benchmarks", "scripts")
SUFFIXES = {".py", ".md", ".ipynb", ".txt", ".html", ".json"}
# `pip install langchain-reliable[x]`, quoted or not, with or without options in between.
FROM_THE_INDEX = re.compile(r"pip install\s+(?:-\S+\s+)*['\"]?langchain[-_]reliable\[")


def _files() -> list[Path]:
    found: list[Path] = []
    for name in SEARCHED:
        found += sorted((REPO / name).rglob("*"))
    found += sorted(REPO.glob("*.md"))
    return [
        p for p in found if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts
    ]


def extras() -> set[str]:
    """The extras pyproject.toml declares."""
    tomllib = pytest.importorskip("tomllib", reason="reads pyproject.toml (Python 3.11+)")
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    return set(project["optional-dependencies"])


def test_no_file_tells_to_install_the_package_from_the_index() -> None:
    offending = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in _files()
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if FROM_THE_INDEX.search(line) and path.name != "test_install_hints.py"
    ]
    assert not offending, "\n".join(offending)


def test_the_search_would_find_the_wrong_form() -> None:
    assert FROM_THE_INDEX.search("""pip install 'langchain-reliable[ray]'""")
    assert FROM_THE_INDEX.search('pip install -U "langchain_reliable[serve]"')
    assert not FROM_THE_INDEX.search(install_hint("ray"))


@pytest.mark.parametrize("extra", ["serve", "ingest", "eval", "nli", "batch", "ray", "openai"])
def test_every_hinted_extra_exists(extra: str) -> None:
    assert extra in extras()
    assert install_hint(extra).startswith(f'pip install -e ".[{extra}]"')


def test_the_extras_named_in_code_exist() -> None:
    """Every `install_hint("x")` in the package names an extra of pyproject.toml."""
    named = {
        match
        for path in (REPO / "langchain_reliable").rglob("*.py")
        for match in re.findall(r"install_hint\(['\"]([\w-]+)['\"]\)", path.read_text("utf-8"))
    }
    assert named >= {"serve", "ingest", "eval", "nli", "batch", "ray", "openai", "local-llm"}
    assert named <= extras(), named
