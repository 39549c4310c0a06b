"""The same input rules in Python and over HTTP, on a real server.

The RAG graph takes a plain string as its question: `rag.invoke("What is X?")` in
Python, `{"input": "What is X?"}` over HTTP (and in a batch, and from a
`RemoteRunnable`), the same as `{"question": "What is X?"}`. The verifier takes a
dict only: a string is an `InputError` in Python and a JSON 422 over HTTP.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.errors import InputError
from tests.integration_tests._servers import (
    FILTERED,
    REQUEST_TIMEOUT,
    RETURNED,
    VERIFY,
    child_env,
    client,
    sse_events,
)

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

SHOWN = ("question", "answer", "decision", "attempts")


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
    ("path", "body", "named"),
    [
        ("/verify/invoke", {"input": "The treaty was signed in 1919."}, "'input'"),
        ("/verify/stream", {"input": "The treaty was signed in 1919."}, "'input'"),
        ("/verify/batch", {"inputs": [VERIFY, "The treaty was signed in 1919."]}, "inputs[1]"),
    ],
)
def test_the_verifier_refuses_a_string_everywhere(server, path, body, named):
    """One message naming the keys the verifier takes, not pydantic's generic one."""
    with pytest.raises(InputError, match="the verifier takes a dict"):
        create_verifier().invoke("The treaty was signed in 1919.")
    with client(server) as http:
        r = http.post(path, json=body)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/json")
    detail = r.json()["detail"]
    assert detail.startswith(f"{named} must be a JSON object with the keys 'answer'"), detail
    assert "'passages'" in detail and detail.endswith("got a string"), detail


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


def test_a_missing_passages_key_is_one_error_in_python_the_cli_and_http(server):
    """Python raises, the CLI exits 2 and HTTP answers 422, each with the same message."""
    body = {"answer": "The Treaty of Versailles was signed on 28 June 1919."}
    with pytest.raises(InputError) as raised:
        create_verifier().invoke(body)
    message = str(raised.value)
    assert message.startswith("missing input key 'passages': the verifier takes 'answer'")
    with client(server) as http:
        r = http.post("/verify/invoke", json={"input": body})
    assert r.status_code == 422 and message in r.text, r.text
    done = subprocess.run(
        [sys.executable, "-m", "langchain_reliable.cli", "verify"],
        input='{"answer": "The Treaty of Versailles was signed on 28 June 1919."}',
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=300,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_the_playground_cites_each_claims_own_sentence(server):
    signed = "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."
    in_force = "It came into force on 10 January 1920."
    body = {
        "answer": "The Treaty of Versailles was signed on 28 June 1919. " + in_force,
        "passages": [f"{signed} {in_force}"],
    }
    with client(server) as http:
        output = http.post("/verify/invoke", json={"input": body}).json()["output"]
        r = http.post("/verify/playground/render", json={"input": body, "output": output})
    assert r.status_code == 200, r.text
    html = r.json()["html"]
    assert f'<li value="1">passage 1: <q>{signed}</q></li>' in html
    assert f'<li value="1">passage 1: <q>{in_force}</q></li>' in html
