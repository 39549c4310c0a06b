"""LangServe: uvicorn serves `langchain_reliable.server:app` on loopback; clients call it.

One server runs the default app as users start it (`uvicorn
langchain_reliable.server:app`, offline demo graphs); a second one has
`RELIABLE_RAG_API_KEY` set. Both run in a temporary folder and are stopped
(their process group killed) after the module.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.documents import Document

from langchain_reliable.state import RAGOutput
from tests.integration_tests._servers import (
    FILTERED,
    REQUEST_TIMEOUT,
    RETURNED,
    client,
    served,
    sse_events,
)

OUTPUT_KEYS = set(RAGOutput.__annotations__)

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

API_KEY = "test-key-3f9c"
VERIFY_INPUT = {
    "answer": "The Treaty of Versailles was signed on 28 June 1919. "
    "Germany had to pay $442 billion in reparations.",
    "context": [
        "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
        "It came into force on 10 January 1920.",
    ],
    "question": "When was the treaty signed?",
}


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from served(tmp_path_factory, "langserve-key", RELIABLE_RAG_API_KEY=API_KEY)


def remote(base: str, path: str, **kwargs):
    from langserve import RemoteRunnable

    return RemoteRunnable(
        f"{base}{path}",
        timeout=REQUEST_TIMEOUT.read,
        client_kwargs={"trust_env": False},
        **kwargs,
    )


# -- RemoteRunnable ------------------------------------------------------------


def test_remote_invoke_and_batch(server):
    rag = remote(server, "/reliable-rag/")
    out = rag.invoke({"question": RETURNED})
    assert out["decision"] == "return"
    assert out["attempts"] == 1
    assert out["level"] == "HIGH"
    assert all(c["label"] == "supported" for c in out["report"]["claims"])
    assert all(isinstance(d, Document) for d in out["passages"])  # revived by the client

    outs = rag.batch([{"question": RETURNED}, {"question": FILTERED}])
    assert [(o["decision"], o["attempts"]) for o in outs] == [("return", 1), ("filter", 2)]

    check = remote(server, "/verify/")
    report = check.invoke(
        {**VERIFY_INPUT, "context": [Document(page_content=VERIFY_INPUT["context"][0], id="p0")]}
    )
    labels = [c["label"] for c in report["claims"]]
    assert labels[0] == "supported" and labels[1] in ("unsupported", "contradicted")
    assert report["claims"][0]["evidence"][0]["passage_id"] == "p0"
    assert report["decision"] in ("filter", "refuse")


def test_remote_stream(server):
    rag = remote(server, "/reliable-rag/")
    # Output keys only; no answer is streamed before its decision (no unverified draft).
    chunks = list(rag.stream({"question": RETURNED}))
    assert chunks and all(set(c) <= OUTPUT_KEYS for c in chunks)
    assert all("decision" in c for c in chunks if "answer" in c)
    assert chunks[-1]["decision"] == "return" and chunks[-1]["attempts"] == 1

    check = remote(server, "/verify/")
    chunks = list(check.stream(VERIFY_INPUT))
    assert len(chunks[-1]["claims"]) == 2


async def test_remote_astream_events(server):
    check = remote(server, "/verify/")
    verdicts, ended = [], []
    async for event in check.astream_events(VERIFY_INPUT, version="v2"):
        if event["event"] == "on_custom_event" and event["name"] == "claim_verdict":
            verdicts.append(event["data"])
        elif event["event"] == "on_chain_end" and not event.get("parent_ids"):
            ended.append(event["data"]["output"])
    assert [v["label"] for v in verdicts][:1] == ["supported"]
    assert len(verdicts) == 2
    assert ended and ended[-1]["supported"] == 1


def test_settings_through_configurable(server):
    rag = remote(server, "/reliable-rag/")
    balanced = rag.invoke({"question": FILTERED})
    strict = rag.invoke({"question": FILTERED}, config={"configurable": {"policy": "strict"}})
    assert (balanced["decision"], strict["decision"]) == ("filter", "refuse")
    once = rag.invoke(
        {"question": FILTERED}, config={"configurable": {"policy": "strict", "max_retries": 0}}
    )
    assert (once["decision"], once["attempts"]) == ("refuse", 1)


# -- raw HTTP ------------------------------------------------------------------


def test_raw_invoke_batch_and_stream(server):
    with client(server) as http:
        r = http.post("/verify/invoke", json={"input": VERIFY_INPUT})
        assert r.status_code == 200, r.text
        report = r.json()["output"]
        assert report["claims"][0]["label"] == "supported"
        assert report["supported"] == 1 and report["claims"][1]["label"] != "supported"

        r = http.post("/reliable-rag/invoke", json={"input": {"question": RETURNED}})
        assert r.status_code == 200, r.text
        assert r.json()["output"]["decision"] == "return"

        r = http.post(
            "/reliable-rag/batch",
            json={
                "inputs": [{"question": RETURNED}, {"question": FILTERED}],
                "config": {"configurable": {"policy": "strict"}},
            },
        )
        assert r.status_code == 200, r.text
        assert [o["decision"] for o in r.json()["output"]] == ["return", "refuse"]

        with http.stream("POST", "/verify/stream", json={"input": VERIFY_INPUT}) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            events = list(sse_events(r))
    kinds = [event for event, _ in events]
    assert kinds[0] == "metadata" and kinds[-1] == "end"
    data = [payload for event, payload in events if event == "data"]
    assert data and all("decision" in d for d in data if "claims" in d)
    assert data[-1]["supported"] == 1


def test_invalid_input_and_settings_are_rejected(server):
    with client(server) as http:
        r = http.post("/reliable-rag/invoke", json={"input": {"question": ""}})
        assert r.status_code == 422
        r = http.post("/verify/invoke", json={"input": {"answer": "x"}})
        assert r.status_code == 422
        r = http.post(
            "/reliable-rag/invoke",
            json={"input": {"question": RETURNED}, "config": {"configurable": {"policy": "nope"}}},
        )
        assert r.status_code == 422
        assert "nope" in r.json()["detail"]


def test_openapi_playground_and_health(server):
    with client(server) as http:
        assert http.get("/health").json()["status"] == "ok"
        assert http.get("/docs").status_code == 200
        spec = http.get("/openapi.json").json()
        for route in ("/reliable-rag", "/verify"):
            for endpoint in ("invoke", "batch", "stream", "stream_events"):
                assert f"{route}/{endpoint}" in spec["paths"], (route, endpoint)
        schemas = spec["components"]["schemas"]
        assert schemas["RAGRequest"]["required"] == ["question"]
        assert {"answer", "passages", "question"} <= set(schemas["VerifyRequest"]["properties"])
        assert set(schemas["VerifyRequest"]["required"]) == {"answer", "passages"}
        assert {"answer", "decision", "level", "attempts", "report"} <= set(
            schemas["RAGResponse"]["properties"]
        )
        assert {"claims", "reliability_score", "level", "decision"} <= set(
            schemas["ReliabilityReport"]["properties"]
        )
        invoke = spec["paths"]["/reliable-rag/invoke"]["post"]
        body = invoke["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        request = schemas[body.rsplit("/", 1)[-1]]
        assert request["properties"]["input"]["$ref"].endswith("/RAGRequest")
        verify_out = schemas["verifyInvokeResponse"]["properties"]["output"]["$ref"]
        assert verify_out.endswith("/ReliabilityReport")
        # Policy settings are documented in the config schema.
        config = http.get("/reliable-rag/config_schema").json()
        assert "policy" in str(config)

        page = http.get("/reliable-rag/playground/")
        assert page.status_code == 200
        assert "text/html" in page.headers["content-type"]
        assert http.get("/verify/playground/").status_code == 200


# -- API key -------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-API-Key": "wrong"},
        {"Authorization": f"Bearer {API_KEY}x"},
        {"Authorization": "Basic x"},
    ],
)
def test_api_key_rejects(keyed_server, headers):
    with client(keyed_server, headers=headers) as http:
        for method, path, body in (
            ("POST", "/verify/invoke", {"input": VERIFY_INPUT}),
            ("POST", "/reliable-rag/invoke", {"input": {"question": RETURNED}}),
            ("POST", "/reliable-rag/stream", {"input": {"question": RETURNED}}),
            ("GET", "/reliable-rag/playground/", None),
            ("GET", "/verify/input_schema", None),
        ):
            r = http.request(method, path, json=body)
            assert r.status_code == 401, (path, r.status_code, r.text)
            assert r.json() == {"detail": "missing or invalid API key"}


def test_api_key_accepts_and_leaves_docs_open(keyed_server):
    with client(keyed_server) as http:
        assert http.get("/health").json()["api_key_required"] is True
        spec = http.get("/openapi.json").json()  # open, and /docs can send the key
        assert {"APIKeyHeader", "HTTPBearer"} <= set(spec["components"]["securitySchemes"])
        assert http.get("/docs").status_code == 200
    for headers in ({"X-API-Key": API_KEY}, {"Authorization": f"Bearer {API_KEY}"}):
        with client(keyed_server, headers=headers) as http:
            r = http.post("/verify/invoke", json={"input": VERIFY_INPUT})
            assert r.status_code == 200, r.text
            assert r.json()["output"]["supported"] == 1
            assert http.get("/reliable-rag/playground/").status_code == 200
    rag = remote(keyed_server, "/reliable-rag/", headers={"X-API-Key": API_KEY})
    assert rag.invoke({"question": RETURNED})["decision"] == "return"


# -- one report shape everywhere -----------------------------------------------------

COMPARED = ("decision", "level", "score", "passed", "reason", "flags", "filtered_answer")


def _essentials(report: dict) -> dict:
    """What must agree across surfaces: all but the cost (timings) and the names of parts."""
    claims = [
        {k: c[k] for k in ("text", "span", "label", "score", "evidence")} for c in report["claims"]
    ]
    for claim in claims:
        claim["span"] = list(claim["span"])
    return {**{k: report[k] for k in COMPARED}, "claims": claims}


def test_python_http_and_cli_give_one_report_for_one_answer(server, capsys):
    """The same answer through `create_verifier`, `/verify` over HTTP and `reliable-rag verify`."""
    import json

    from langchain_reliable import create_verifier
    from langchain_reliable.cli import main

    given = {**{k: v for k, v in VERIFY_INPUT.items() if k != "context"}}
    given["passages"] = VERIFY_INPUT["context"]
    python = create_verifier().invoke(given)
    with client(server) as http:
        response = http.post("/verify/invoke", json={"input": given})
        assert response.status_code == 200, response.text
        over_http = response.json()["output"]
        former = http.post("/verify/invoke", json={"input": VERIFY_INPUT}).json()["output"]
    args = ["verify", "--answer", given["answer"], "--question", given["question"], "--json"]
    for passage in given["passages"]:
        args += ["--passage", passage]
    main(args)
    cli = json.loads(capsys.readouterr().out)
    assert set(python) == set(over_http) == set(cli) >= {"score", "passed", "reason", "level"}
    assert _essentials(python) == _essentials(over_http) == _essentials(cli)
    assert _essentials(former) == _essentials(over_http)  # `context`, the former name, still read
    assert python["decision"] == "refuse" and python["passed"] is False
    assert python["reason"].startswith("refused: 1 of 2 claims supported")


def test_the_rag_report_has_the_python_shape_over_http(server):
    """`/reliable-rag`'s report holds the fields of `ReliabilityReport.model_dump()`."""
    from langchain_reliable import ReliabilityReport

    with client(server) as http:
        out = http.post("/reliable-rag/invoke", json={"input": RETURNED}).json()["output"]
    report = ReliabilityReport.model_validate(out["report"])
    assert set(out["report"]) == set(report.model_dump())
    assert (out["level"], out["decision"]) == (report.level, report.decision)
    assert out["report"]["passed"] is (out["decision"] == "return")
    assert set(out) == OUTPUT_KEYS
