"""LangGraph Studio: `langgraph dev` serves both graphs of `langgraph.json` over its HTTP API.

The server runs in a temporary folder holding a copy of `langgraph.json` and
`graphs/`, so its `.langgraph_api/` state stays out of the repository; the
package itself is imported from the repository (or the installed copy).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration_tests._servers import (
    FILTERED,
    HOST,
    REPO,
    RETURNED,
    child_env,
    client,
    free_port,
    running,
    sse_events,
)

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

LANGGRAPH = Path(sys.executable).parent / "langgraph"
SETTINGS = (
    "policy",
    "high_threshold",
    "medium_threshold",
    "return_at",
    "filter_at",
    "max_retries",
    "refusal_text",
    "caveat_text",
    "citations",
)


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not LANGGRAPH.exists():
        pytest.skip(f"langgraph-cli is not installed next to {sys.executable}")
    pytest.importorskip("langgraph_api", reason="needs langgraph-cli[inmem]")
    work = tmp_path_factory.mktemp("studio")
    shutil.copy(REPO / "langgraph.json", work / "langgraph.json")
    shutil.copytree(REPO / "graphs", work / "graphs", ignore=shutil.ignore_patterns("__pycache__"))
    port = free_port()
    cmd = [
        str(LANGGRAPH),
        "dev",
        "--no-browser",
        "--no-reload",
        "--host",
        HOST,
        "--port",
        str(port),
        "--config",
        str(work / "langgraph.json"),
    ]
    base = f"http://{HOST}:{port}"
    with running(cmd, health_url=f"{base}/ok", cwd=work, env=child_env(), log=work / "server.log"):
        yield base


def _assistant(base: str, graph_id: str) -> dict:
    with client(base) as http:
        found = http.post("/assistants/search", json={"graph_id": graph_id}).raise_for_status()
    assistants = found.json()
    assert assistants, f"no assistant for graph {graph_id!r}"
    return assistants[0]


def _wait(base: str, assistant: str, body: dict) -> dict:
    with client(base) as http:
        response = http.post("/runs/wait", json={"assistant_id": assistant, **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_both_graphs_registered_with_described_settings(studio):
    for graph_id, input_fields in (
        ("reliable_rag", {"question"}),
        ("verifier", {"answer", "passages", "question"}),
    ):
        assistant = _assistant(studio, graph_id)
        with client(studio) as http:
            schemas = http.get(f"/assistants/{assistant['assistant_id']}/schemas")
        assert schemas.status_code == 200, schemas.text
        schemas = schemas.json()
        assert set(schemas["input_schema"]["properties"]) == input_fields
        # Studio renders a form from the context schema: every field carries a description.
        context = schemas["context_schema"]["properties"]
        assert set(context) == set(SETTINGS)
        assert all(field.get("description") for field in context.values()), context


def test_blocking_run_of_the_full_graph(studio):
    out = _wait(studio, "reliable_rag", {"input": {"question": RETURNED}})
    assert out["decision"] == "return"
    assert out["attempts"] == 1
    assert out["level"] == "HIGH"
    report = out["report"]
    assert report["decision"] == "return"
    assert report["claims"] and all(c["label"] == "supported" for c in report["claims"])
    assert all(c["evidence"] for c in report["claims"])
    assert "28 June 1919" in out["answer"]


def test_context_settings_change_the_outcome(studio):
    balanced = _wait(studio, "reliable_rag", {"input": {"question": FILTERED}})
    strict = _wait(
        studio, "reliable_rag", {"input": {"question": FILTERED}, "context": {"policy": "strict"}}
    )
    assert (balanced["decision"], balanced["attempts"]) == ("filter", 2)
    assert (strict["decision"], strict["attempts"]) == ("refuse", 2)
    # The same settings through `configurable`, as LCEL chains pass them.
    configured = _wait(
        studio,
        "reliable_rag",
        {"input": {"question": FILTERED}, "config": {"configurable": {"policy": "strict"}}},
    )
    assert configured["decision"] == "refuse"


def test_blocking_run_of_the_verifier(studio):
    out = _wait(
        studio,
        "verifier",
        {
            "input": {
                "answer": "The Treaty of Versailles was signed on 28 June 1919. "
                "Germany had to pay $442 billion in reparations.",
                "passages": [
                    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
                    {"page_content": "It came into force on 10 January 1920.", "metadata": {}},
                ],
                "question": "When was the treaty signed?",
            }
        },
    )
    labels = [c["label"] for c in out["claims"]]
    assert len(labels) == 2
    assert labels[0] == "supported"
    assert labels[1] in ("unsupported", "contradicted")
    assert out["supported"] == 1
    assert out["decision"] in ("filter", "refuse")
    assert out["level"] in ("MEDIUM", "LOW")


def test_streamed_run_of_the_full_graph(studio):
    body = {
        "assistant_id": "reliable_rag",
        "input": {"question": RETURNED},
        "stream_mode": ["updates", "values"],
    }
    nodes: list[str] = []
    last_values: dict = {}
    kinds: set[str] = set()
    with client(studio) as http, http.stream("POST", "/runs/stream", json=body) as response:
        assert response.status_code == 200, response.read()
        for event, data in sse_events(response):
            kinds.add(event)
            assert event != "error", data
            if event == "updates":
                nodes.extend(data)
            elif event == "values":
                last_values = data
    assert {"metadata", "updates", "values"} <= kinds
    assert nodes[:4] == ["retrieve", "generate", "extract_claims", "verify"]
    assert nodes[-1] == "return"
    assert last_values["decision"] == "return"
    assert last_values["attempts"] == 1
    assert last_values["report"]["claims"]
    json.dumps(last_values)  # plain JSON all the way down


def test_streamed_run_of_the_verifier(studio):
    body = {
        "assistant_id": "verifier",
        "input": {
            "answer": "The treaty came into force on 10 January 1920.",
            "context": ["The treaty came into force on 10 January 1920."],
        },
        "stream_mode": "updates",
    }
    nodes: list[str] = []
    with client(studio) as http, http.stream("POST", "/runs/stream", json=body) as response:
        assert response.status_code == 200, response.read()
        for event, data in sse_events(response):
            assert event != "error", data
            if event == "updates":
                nodes.extend(data)
                if "verify" in data:
                    verdict = data["verify"]
    assert nodes == ["extract_claims", "verify"]
    assert [c["label"] for c in verdict["claims"]] == ["supported"]
