"""The notebooks in `notebooks/` run top to bottom, offline, as a user would run them.

Each one is executed with nbclient in a fresh kernel (ipykernel on this very
interpreter, through a kernel spec written to a temporary `JUPYTER_PATH`), in the
`notebooks/` folder, with the offline, untraced environment the server tests use,
every warning shown: none may be printed. Nothing is written back. The notebooks are
stored with their outputs (a reader on a code host sees the results), and what a test
asserts on a fresh run it asserts on the stored outputs too.

To store them again after a change, from a clean checkout:
`python scripts/store_notebooks.py`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration_tests._servers import HOST, REPO, child_env

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

NOTEBOOKS = REPO / "notebooks"
KERNEL_NAME = "langchain-reliable-tests"
CELL_TIMEOUT = 120  # seconds per cell
NAMES = ["01_quickstart.ipynb", "02_graph_in_lcel.ipynb", "03_deploy.ipynb"]
# Former names that still work with a DeprecationWarning; a notebook teaches the current ones.
FORMER_NAMES = re.compile(
    r"""["']context["']\s*:|--context\b|\bout\[["'](?:confidence|documents)["']\]"""
)
LANGGRAPH = Path(sys.executable).parent / "langgraph"


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A kernel spec running ipykernel on `sys.executable`, visible through JUPYTER_PATH."""
    pytest.importorskip("nbclient")
    pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")
    data = tmp_path_factory.mktemp("jupyter")
    spec = data / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "langchain-reliable tests", "language": "python"})
    )
    paths = [str(data), *filter(None, os.environ.get("JUPYTER_PATH", "").split(os.pathsep))]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", os.pathsep.join(paths))
        yield KERNEL_NAME


def _stored(name: str):
    import nbformat

    return nbformat.read(NOTEBOOKS / name, as_version=4)


def _outputs(cells) -> str:
    """The text a reader sees: streams, results and displays (plain text and markdown).

    What a cell wrote to stderr (a warning, a log line) is marked ``STDERR``. A kernel
    under load may flush one line of a stream in pieces: adjacent pieces of the same
    stream are joined as written, the way a notebook front end shows them.
    """
    parts: list[str] = []
    for cell in cells:
        previous_stream = None
        for output in cell.get("outputs", []):
            stream = output.get("name") if output["output_type"] == "stream" else None
            if stream is not None and stream == previous_stream:
                parts[-1] += output["text"]
            elif stream == "stderr":
                parts.append(f"STDERR {output['text']}")
            elif stream is not None:
                parts.append(output["text"])
            elif output["output_type"] in ("execute_result", "display_data"):
                data = output["data"]
                parts.append(data.get("text/markdown") or data.get("text/plain", ""))
            elif output["output_type"] == "error":
                parts.append(f"ERROR {output['ename']}: {output['evalue']}")
            previous_stream = stream
    return "\n".join(parts)


def execute(name: str, kernel_name: str, seen: list[str] | None = None) -> str:
    """Run notebook `name` in a fresh kernel; return the text of its outputs.

    A first cell, added in memory only, prints the kernel's interpreter, which
    must be this one, and a variable of the environment the kernel was given, and
    shows every warning from then on. `seen` receives the outputs even when a cell fails.
    """
    import nbclient
    import nbformat

    nb = _stored(name)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    probe = (
        "import os, sys, warnings\nwarnings.simplefilter('always')\n"
        "print(sys.executable, os.environ.get('LANGSMITH_TRACING'))"
    )
    nb.cells.insert(0, nbformat.v4.new_code_cell(probe))
    client = nbclient.NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    started = time.monotonic()
    try:
        client.execute(env=child_env())
    finally:
        text = _outputs(nb.cells)
        if seen is not None:
            seen.append(text)
        print(f"{name}: {time.monotonic() - started:.1f} s\n{text}")
    executable, tracing = _outputs(nb.cells[:1]).split()
    assert os.path.realpath(executable) == os.path.realpath(sys.executable), executable
    assert tracing == "false"  # the offline, untraced environment of `child_env`
    assert "ERROR" not in text
    assert "STDERR" not in text and "Warning" not in text, text  # no warning, no log line
    return text


def stored_outputs(name: str) -> str:
    """The text of the outputs stored in notebook `name`."""
    return _outputs(_stored(name).cells)


@pytest.mark.parametrize("name", NAMES)
def test_notebook_is_stored_with_its_outputs(name: str):
    """Run top to bottom in one kernel, every code cell's outputs kept; none warns or fails."""
    nb = _stored(name)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1))
    assert sum(bool(cell.outputs) for cell in code) >= len(code) // 2
    text = stored_outputs(name)
    assert "ERROR" not in text and "STDERR" not in text and "Warning" not in text, text
    assert str(REPO) not in text  # nothing of the machine it was run on but loopback ports
    for cell in nb.cells:
        assert "tests." not in cell.source, cell.source[:60]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_teaches_the_current_names(name: str):
    for cell in _stored(name).cells:
        assert not FORMER_NAMES.search(cell.source), cell.source


def test_the_former_names_are_found() -> None:
    for former in ('{"context": docs}', "'context': [x]", "--context X", 'out["documents"]'):
        assert FORMER_NAMES.search(former), former
    for current in ('{"passages": docs}', 'context={"policy": "strict"}', "runtime context"):
        assert not FORMER_NAMES.search(current), current


def test_quickstart(kernel_name: str):
    for text in (
        execute("01_quickstart.ipynb", kernel_name),
        stored_outputs("01_quickstart.ipynb"),
    ):
        check_quickstart(text)


def check_quickstart(text: str) -> None:
    # The table: three claims backed by a quote, the invented dose found in no passage.
    assert text.count("**supported**") >= 3
    # The invented dose: unsupported, its note naming the number no passage gives.
    assert re.search(r"\| The maximum daily dose is 2550 mg\. \| \*\*unsupported\*\* .*'2550", text)
    assert 'metformin-2: "' in text
    assert "level MEDIUM | decision filter" in text
    assert "**contradicted**" in text and "a negation the claim does not make" in text
    for line in ("strict    -> refuse", "balanced  -> filter", "lenient   -> filter"):
        assert line in text
    assert "strict: refuse" in text and "custom: refuse" in text
    assert '"label": "contradicted"' in text  # the JSON report


def test_graph_in_lcel(kernel_name: str):
    fresh = execute("02_graph_in_lcel.ipynb", kernel_name)
    for text in (fresh, stored_outputs("02_graph_in_lcel.ipynb")):
        check_graph_in_lcel(text)


def check_graph_in_lcel(text: str) -> None:
    routes = re.findall(r"^route: (.+?)\s+level: (\w+)", text, flags=re.M)
    assert routes == [
        ("return", "HIGH"),
        ("retry → return", "HIGH"),
        ("retry → filter", "MEDIUM"),
        ("retry → refuse", "LOW"),
    ]
    assert "Note: 1 statement that could not be verified" in text  # the filtered answer
    assert "I cannot answer this from the available sources." in text  # the refusal
    settings = dict(re.findall(r"^(\{.*?\})\s+route: (.+)$", text, flags=re.M))
    assert settings == {
        "{}": "retry → filter",
        "{'policy': 'strict'}": "retry → refuse",
        "{'policy': 'lenient'}": "retry → filter",
        "{'max_retries': 0}": "refuse",
        "{'policy': 'lenient', 'max_retries': 0}": "filter",
    }
    # Streamed: one claim_verdict event per claim of both attempts (4 + 5: the second
    # answer's which-clause is checked on its own and shown as part of its sentence).
    assert text.count("claim_verdict ") == 9
    assert "route: retry → filter" in text
    # The scripted LLM judge: retry, then return; a fabricated quote is not trusted.
    assert "decision: return after 2 attempts" in text and "verifier: llm" in text
    assert re.search(r"^unsupported - number '2550 mg' not found in any passage", text, flags=re.M)
    assert "'verifier_error'" in text


def test_deploy(kernel_name: str):
    pytest.importorskip("langserve")
    pytest.importorskip("uvicorn")
    pytest.importorskip("langgraph_sdk")
    pytest.importorskip("langgraph_api", reason="needs langgraph-cli[inmem]")
    if not LANGGRAPH.exists():
        pytest.skip(f"langgraph-cli is not installed next to {sys.executable}")
    seen: list[str] = []
    try:
        text = execute("03_deploy.ipynb", kernel_name, seen)
    finally:
        # Whatever happened, no server outlives the test.
        pids = [int(pid) for pid in re.findall(r"\(pid (\d+)\)", "".join(seen))]
        leftover = [pid for pid in pids if _alive(pid)]
        for pid in leftover:
            os.killpg(pid, signal.SIGKILL)
    assert len(pids) == 2 and not leftover, (pids, leftover)
    for shown in (text, stored_outputs("03_deploy.ipynb")):
        check_deploy(shown)


def check_deploy(text: str) -> None:
    assert f"is up at http://{HOST}:" in text
    assert "invoke: return | HIGH" in text
    assert "batch: [('return', 1), ('filter', 2)]" in text
    assert "strict policy on the aspirin question: refuse" in text
    assert "final decision: filter" in text
    assert "POST /reliable-rag/batch (strict): ['return', 'refuse']" in text
    assert "assistants: ['reliable_rag', 'verifier']" in text
    assert "reliable_rag: return | HIGH" in text
    assert "reliable_rag, strict: refuse after 2 attempts" in text
    assert text.count("updates: generate") == 2 and "updates: filter" in text
    assert (
        "updates: verify 4/5 supported, MEDIUM" in text
    )  # a which-clause folded into its sentence
    assert text.count("claim_verdict: ") == 2
    assert text.count(" stopped") == 2 and "still answers" not in text


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process now
        return False
    return True
