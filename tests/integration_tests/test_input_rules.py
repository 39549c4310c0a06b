"""The same input rules in Python and over HTTP, on a real server.

The RAG graph takes a plain string as its question: `rag.invoke("What is X?")` in
Python, `{"input": "What is X?"}` over HTTP (and in a batch, and from a
`RemoteRunnable`), the same as `{"question": "What is X?"}`. The verifier takes a
dict only: a string is an `InputError` in Python and a JSON 422 over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.errors import InputError
from tests.integration_tests._servers import REQUEST_TIMEOUT, client, serving_app, sse_events

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

RETURNED = "When and where was the Treaty of Versailles signed?"
FILTERED = "How does aspirin work and what is it used for?"
VERIFY = {
    "answer": "The Treaty of Versailles was signed on 28 June 1919.",
    "context": ["The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."],
}
SHOWN = ("question", "answer", "decision", "attempts")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("langserve")
    with serving_app(tmp_path_factory.mktemp("input-rules")) as base:
        yield base


def _shown(output: dict) -> tuple:
    return tuple(output[key] for key in SHOWN)


def test_a_string_is_the_question_over_http(server):
    with client(server) as http:
        as_dict = http.post("/reliable-rag/invoke", json={"input": {"question": RETURNED}})
        as_text = http.post("/reliable-rag/invoke", json={"input": RETURNED})
        assert as_dict.status_code == as_text.status_code == 200, as_text.text
        assert _shown(as_text.json()["output"]) == _shown(as_dict.json()["output"])
        assert as_text.json()["output"]["decision"] == "return"

        r = http.post("/reliable-rag/batch", json={"inputs": [RETURNED, {"question": FILTERED}]})
        assert r.status_code == 200, r.text
        assert [o["decision"] for o in r.json()["output"]] == ["return", "filter"]

        with http.stream("POST", "/reliable-rag/stream", json={"input": RETURNED}) as r:
            assert r.status_code == 200
            events = list(sse_events(r))
    assert events[-1][0] == "end"
    data = [payload for event, payload in events if event == "data"]
    assert any(isinstance(d, dict) and d.get("decision") == "return" for d in data), data


def test_a_remote_runnable_takes_a_string_as_in_python(server):
    from langserve import RemoteRunnable

    rag = RemoteRunnable(
        f"{server}/reliable-rag/",
        timeout=REQUEST_TIMEOUT.read,
        client_kwargs={"trust_env": False},
    )
    assert rag.invoke(RETURNED)["decision"] == "return"


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"input": "   "}, "blank"),
        ({"input": ""}, "at least 1 character"),
        ({"input": "x" * 5000}, "4000"),
        ({"inputs": [RETURNED, " "]}, "inputs[1]"),
    ],
)
def test_a_bad_string_question_is_a_422_naming_the_problem(server, body, named):
    path = "/reliable-rag/batch" if "inputs" in body else "/reliable-rag/invoke"
    with client(server) as http:
        r = http.post(path, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert named in str(r.json()["detail"])


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/verify/invoke", {"input": "The treaty was signed in 1919."}),
        ("/verify/stream", {"input": "The treaty was signed in 1919."}),
        ("/verify/batch", {"inputs": [VERIFY, "The treaty was signed in 1919."]}),
    ],
)
def test_the_verifier_refuses_a_string_everywhere(server, path, body):
    with pytest.raises(InputError, match="the verifier takes a dict"):
        create_verifier().invoke("The treaty was signed in 1919.")
    with client(server) as http:
        r = http.post(path, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/json")
    detail = str(r.json()["detail"])
    assert "valid dictionary" in detail and "VerifyRequest" in detail, detail


def test_the_schemas_still_show_the_question_form(server):
    with client(server) as http:
        spec = http.get("/openapi.json").json()
        request = spec["components"]["schemas"]["RAGRequest"]
        assert request["required"] == ["question"]
        assert "plain string" in request["description"]
        schema = http.get("/reliable-rag/input_schema").json()
        assert schema["type"] == "object" and schema["required"] == ["question"]
        assert http.get("/reliable-rag/playground/").status_code == 200


def test_the_batch_limit_holds_under_a_config_hash_path(server):
    """`/c/{hash}/batch` is bounded like `/batch` (checked before the hash is read)."""
    with client(server) as http:
        r = http.post("/verify/c/any/batch", json={"inputs": [VERIFY] * 65})
    assert r.status_code == 413, r.text
    assert "over the limit of 64" in r.json()["detail"]
