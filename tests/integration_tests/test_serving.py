"""The served app over real HTTP: what it says it serves, and the one input contract.

uvicorn serves `langchain_reliable.server:app` (offline demo) on loopback.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration_tests._servers import client, serving_app

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

PASSAGES = ["The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."]
GOOD = "The Treaty of Versailles was signed on 28 June 1919."
OFF_SCRIPT = "What is the capital of France?"
EXPECTED = (
    "unknown input key 'ctx': the verifier takes 'answer' (or 'response', 'actual_output'), "
    "'passages' (or 'retrieved_contexts', 'retrieval_context', 'contexts', 'context'), "
    "'question' (or 'user_input', 'input') (optional)"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    pytest.importorskip("langserve")
    work = tmp_path_factory.mktemp("serving")
    with serving_app(work) as base:
        yield base, work


def test_health_landing_and_log_say_the_demo_is_served(served):
    base, work = served
    with client(base) as http:
        health = http.get("/health").json()
        landing = http.get("/").text
    assert health["mode"] == "demo" and health["model"] is None
    assert health["serves"].startswith("offline demo: answers are recorded")
    assert 'id="serving" class="serving demo"' in landing
    assert "any other question is refused" in landing
    log = (work / "server.log").read_text()
    assert "langchain-reliable" in log and "serves offline demo: answers are recorded" in log


def test_an_unknown_key_over_http_is_a_422_naming_the_expected_keys(served):
    base, _ = served
    with client(base) as http:
        refused = http.post("/verify/invoke", json={"input": {"answer": GOOD, "ctx": PASSAGES}})
        rag = http.post("/reliable-rag/invoke", json={"input": {"query": OFF_SCRIPT}})
    assert refused.status_code == 422
    assert EXPECTED in refused.text  # the same message as in Python and the CLI
    assert rag.status_code == 422
    assert "unknown input key 'query': the Reliable RAG graph takes 'question'" in rag.text


@pytest.mark.parametrize(
    "payload",
    [
        {"response": GOOD, "retrieved_contexts": PASSAGES, "user_input": "When?"},
        {"actual_output": GOOD, "retrieval_context": PASSAGES},
        {"answer": GOOD, "contexts": PASSAGES},
    ],
    ids=["ragas", "deepeval", "contexts"],
)
def test_peers_names_over_http(served, payload):
    base, _ = served
    with client(base) as http:
        answered = http.post("/verify/invoke", json={"input": payload})
    assert answered.status_code == 200, answered.text
    output = answered.json()["output"]
    assert list(output)[:3] == ["score", "passed", "reason"]
    assert output["decision"] == "return" and output["passed"] is True


def test_the_readme_remote_runnable_example_tells_the_truth_in_demo_mode(served):
    """A question the demo has no answer for: refused, not passed, the reason naming the mode."""
    pytest.importorskip("langserve")
    from langserve import RemoteRunnable

    base, _ = served
    remote = RemoteRunnable(f"{base}/reliable-rag/")
    out = remote.invoke(OFF_SCRIPT)
    report = out["report"]
    assert out["decision"] == "refuse" and report["passed"] is False
    assert "offline demo mode: no answer was recorded for this question" in report["reason"]
    assert list(report)[:3] == ["score", "passed", "reason"]


def test_the_playground_render_route_marks_each_claim(served):
    base, _ = served
    answer = GOOD + " Germany had to pay $442 billion in reparations."
    request = {"answer": answer, "passages": PASSAGES}
    with client(base) as http:
        output = http.post("/verify/invoke", json={"input": request}).json()["output"]
        shown = http.post("/verify/playground/render", json={"input": request, "output": output})
        bad = http.post("/verify/playground/render", json={"input": request, "output": {"x": 1}})
    assert shown.status_code == 200, shown.text
    result = shown.json()
    assert '<mark class="supported"' in result["html"]
    assert '<del class="unsupported"' in result["html"]
    assert result["passed"] is False and result["decision"] in ("filter", "refuse")
    assert bad.status_code == 422 and "cannot render" in bad.text
