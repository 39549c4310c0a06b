"""The package's layout and its tools: layers, cycles, module sizes, scripts that run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit_tests._scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*(ROOT / "scripts").glob("*.py"), *(ROOT / "scripts").glob("*.sh")])


layout = load_script("check_layout")


def test_no_import_runs_up_the_layers() -> None:
    assert layout.upward_imports(layout.modules()) == []


def test_no_import_cycle() -> None:
    assert layout.cycles(layout.modules()) == []


def test_no_module_is_too_long() -> None:
    assert layout.too_long(layout.modules()) == []


def test_the_rules_import_no_model_tier() -> None:
    assert layout.model_tiers_reached(layout.modules()) == []


def test_the_checker_finds_what_it_looks_for(tmp_path: Path) -> None:
    package = tmp_path / "langchain_reliable"
    (package / "checks").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "checks" / "__init__.py").write_text("")
    (package / "checks" / "a.py").write_text("from langchain_reliable.graph import b\n" * 500)
    (package / "graph").mkdir()
    (package / "graph" / "__init__.py").write_text("")
    (package / "graph" / "b.py").write_text("from langchain_reliable.checks import a\n")
    mods = layout.modules(package)
    assert "checks.a (2) -> graph.b (8)" in layout.upward_imports(mods)
    assert ["checks.a", "graph.b", "checks.a"] in layout.cycles(mods)
    assert layout.too_long(mods) == ["checks.a: 500 lines"]
    (package / "evidence").mkdir()
    (package / "evidence" / "__init__.py").write_text("")
    (package / "evidence" / "accurate.py").write_text("")
    (package / "rules").mkdir()
    (package / "rules" / "__init__.py").write_text("from langchain_reliable.checks import a\n")
    (package / "checks" / "a.py").write_text("from langchain_reliable.evidence import accurate\n")
    assert layout.model_tiers_reached(layout.modules(package)) == ["evidence.accurate"]


def test_an_extractor_that_reaches_into_a_verifier_is_caught(tmp_path: Path) -> None:
    """Even from inside a function: the claim extractors sit below the verifiers."""
    package = tmp_path / "langchain_reliable"
    for folder in ("claims", "verifiers"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "claims" / "llm.py").write_text(
        "def f():\n    from langchain_reliable.verifiers.base import g\n"
    )
    (package / "verifiers" / "base.py").write_text("from langchain_reliable.claims import llm\n")
    mods = layout.modules(package)
    assert layout.upward_imports(mods) == ["claims.llm (6) -> verifiers.base (7)"]


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_every_script_answers_help(script: Path) -> None:
    runner = "bash" if script.suffix == ".sh" else sys.executable
    done = subprocess.run([runner, str(script), "--help"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


def test_the_readme_layout_map_names_every_root_module_and_folder() -> None:
    """The layout map the README points to (docs/architecture.md) names the package."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = page.index("```\nlangchain_reliable/", page.index("## Layout"))
    block = page[start : page.index("```\n", start + 4)]
    named = {
        line.split()[0]
        for line in block.splitlines()[2:]
        if line.startswith("  ") and line[2] != " "
    }
    package = ROOT / "langchain_reliable"
    present = {p.name for p in package.glob("*.py")} | {
        f"{p.name}/" for p in package.iterdir() if p.is_dir() and not p.name.startswith("__")
    }
    assert present - named == set(), "missing from the layout map in docs/architecture.md"
    assert named - present == set(), "in the layout map of docs/architecture.md, not the package"
