"""Run the notebooks top to bottom and store them with their outputs.

Each notebook in `notebooks/` (or those named) runs in a fresh kernel of this
interpreter, from the `notebooks/` folder, offline and untraced, every warning shown;
it is written back only if no cell failed and nothing reached stderr (a warning, a log
line). Run it from a clean checkout, so that the outputs are those of committed code:

    python scripts/store_notebooks.py [01_quickstart.ipynb ...]

`tests/integration_tests/test_notebooks.py` checks the stored outputs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbclient
import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
OFFLINE = {
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    "LANGSMITH_DISABLE_TELEMETRY": "true",
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "PYTHONWARNINGS": "always",
}


def store(path: Path) -> list[str]:
    """Execute the notebook at `path`; write it back unless a cell failed or printed to stderr."""
    nb = nbformat.read(path, as_version=4)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELIABLE_RAG_")}
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute(env={**env, **OFFLINE})
    problems = [
        f"cell {number}: {output.get('text') or output.get('evalue')}"
        for number, cell in enumerate(nb.cells)
        for output in cell.get("outputs", [])
        if output["output_type"] == "error" or output.get("name") == "stderr"
    ]
    if not problems:
        nbformat.write(nb, path)
    return problems


def main(argv: list[str]) -> int:
    """Store each notebook named (all by default); 1 if any was not stored."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks in notebooks/ (default: all)")
    names = parser.parse_args(argv).names
    paths = [NOTEBOOKS / name for name in names] or sorted(NOTEBOOKS.glob("*.ipynb"))
    failed = 0
    for path in paths:
        problems = store(path)
        print(f"{path.name}: {'stored' if not problems else 'NOT stored'}")
        for problem in problems:
            print(f"  {problem.strip()[:500]}")
        failed += bool(problems)
    return int(failed > 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
