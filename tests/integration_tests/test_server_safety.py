"""The served app over real HTTP: a policy floor, a checked key, JSON 4xx errors, liveness.

Each test is a regression test for a way the server could be misused: a client
loosening the policy, a blank key serving without one, a bad input answered with
a bare 500 or a dropped connection, one large answer freezing every route.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time

import httpx
import pytest

from tests.integration_tests._servers import (
    FILTERED,
    PYTHON,
    VERIFY,
    child_env,
    client,
    free_port,
    running,
    serving_app,
)
from tests.unit_tests.coverage_cases import PASSAGES, ROUND_TWO
from tests.unit_tests.test_attacks_evidence import (
    FOUND,
    HISTORY,
    LINKED,
    NOTHING_FOUND,
    PAIRS,
    SHAPE_CONTROLS,
)
from tests.unit_tests.test_attacks_evidence import GROUNDED as EVIDENCE_CASES
from tests.unit_tests.test_attacks_evidence import PASSAGES as EVIDENCE_PASSAGES
from tests.unit_tests.test_attacks_round3 import PASSAGE as RIDER_PASSAGE
from tests.unit_tests.test_attacks_round3 import RIDERS
from tests.unit_tests.test_attacks_round4 import ALL as ROUND_FOUR
from tests.unit_tests.test_attacks_round4 import NEEDS_ACCURATE
from tests.unit_tests.test_attacks_round4 import PASSAGES as ROUND_FOUR_PASSAGES
from tests.unit_tests.test_counts_and_amounts import PAIRS as COUNT_PAIRS
from tests.unit_tests.test_counts_and_amounts import PASSAGES as COUNT_PASSAGES
from tests.unit_tests.test_dropped_negation import PAIRS as NEGATION_PAIRS
from tests.unit_tests.test_dropped_negation import PASSAGES as NEGATION_PASSAGES
from tests.unit_tests.test_names_pertained import PAIRS as NAME_PAIRS
from tests.unit_tests.test_names_pertained import PASSAGES as NAME_PASSAGES
from tests.unit_tests.test_verb_forms import PAIRS as FORM_PAIRS
from tests.unit_tests.test_verb_forms import PASSAGES as FORM_PASSAGES

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]


def _rag(config: dict | None = None) -> dict:
    body: dict = {"input": {"question": FILTERED}}
    if config is not None:
        body["config"] = {"configurable": config}
    return body


def _local_port(response: httpx.Response) -> int:
    return response.extensions["network_stream"].get_extra_info("client_addr")[1]


# -- the policy is a floor ------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"high_threshold": 0}, "high_threshold"),
        ({"high_threshold": 0.5, "medium_threshold": 0.1}, "high_threshold"),
        ({"policy": "lenient"}, "return_at"),
        ({"return_at": "MEDIUM"}, "return_at"),
        ({"filter_at": "LOW"}, "filter_at"),
        ({"max_retries": 5}, "max_retries"),
    ],
)
def test_a_client_cannot_loosen_the_policy(server, settings, named):
    with client(server) as http:
        r = http.post("/reliable-rag/invoke", json=_rag(settings))
        assert r.status_code == 403, r.text
        assert named in r.json()["detail"]
        r = http.post(
            "/verify/invoke", json={"input": VERIFY, "config": {"configurable": settings}}
        )
        assert r.status_code == 403, r.text
        r = http.post(
            "/reliable-rag/batch",
            json={
                "inputs": [{"question": FILTERED}] * 2,
                "config": [{}, {"configurable": settings}],
            },
        )
        assert r.status_code == 403, r.text


def test_a_client_may_tighten_the_policy(server):
    with client(server) as http:
        r = http.post("/reliable-rag/invoke", json=_rag({"policy": "strict", "max_retries": 0}))
        assert r.status_code == 200, r.text
        assert r.json()["output"]["decision"] == "refuse"
        r = http.post("/reliable-rag/invoke", json=_rag({"high_threshold": 0.95}))
        assert r.status_code == 200, r.text
        assert http.get("/health").json()["policy_locked"] is False


def test_an_operator_can_lock_the_policy(tmp_path):
    with serving_app(tmp_path, RELIABLE_RAG_LOCK_POLICY="1") as base, client(base) as http:
        assert http.get("/health").json()["policy_locked"] is True
        r = http.post("/reliable-rag/invoke", json=_rag({"policy": "strict"}))
        assert r.status_code == 403, r.text
        assert "locked" in r.json()["detail"] and "policy" in r.json()["detail"]
        r = http.post("/reliable-rag/invoke", json=_rag())
        assert r.status_code == 200, r.text


# -- a blank key is a start-up error ---------------------------------------------------


@pytest.mark.parametrize(
    ("cmd", "code"),
    [
        (["-m", "uvicorn", "langchain_reliable.server:app", "--host", "127.0.0.1"], None),
        (["-m", "langchain_reliable.cli", "serve"], 2),
    ],
    ids=["uvicorn", "cli"],
)
def test_a_blank_api_key_stops_the_server(tmp_path, cmd, code):
    cmd = [PYTHON, *cmd, "--port", str(free_port())]
    env = child_env(RELIABLE_RAG_API_KEY="   ")
    try:
        done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail("the server started with a blank API key")
    assert done.returncode != 0 if code is None else done.returncode == code
    err = done.stderr.decode("utf-8", "replace")
    assert "RELIABLE_RAG_API_KEY is set but blank" in err


# -- every bad input gets a JSON 4xx and the connection stays open ---------------------

DEEP = b'{"input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
BAD_INPUTS = {
    "long question": ("/reliable-rag/invoke", _rag() | {"input": {"question": "x" * 4001}}, 422),
    "blank question": ("/reliable-rag/invoke", {"input": {"question": " \n\t "}}, 422),
    "invalid utf-8": ("/reliable-rag/invoke", b'{"input": {"question": "caf\xe9?"}}', 400),
    "malformed json": ("/verify/invoke", b'{"input": {"answer": ', 400),
    "deep json": ("/verify/invoke", DEEP, 400),
    "lone surrogate": (
        "/verify/invoke",
        b'{"input": {"answer": "a\\ud800", "context": ["b"]}}',
        400,
    ),
    "bad batch item": (
        "/verify/batch",
        {"inputs": [VERIFY, {"answer": "no context"}, VERIFY]},
        422,
    ),
    "bad rag batch item": (
        "/reliable-rag/batch",
        {"inputs": [{"question": FILTERED}, {"question": "x" * 5000}]},
        422,
    ),
    "passage object without text": (
        "/verify/invoke",
        {"input": {**VERIFY, "context": [{"metadata": {}}]}},
        422,
    ),
    "passage text not a string": (
        "/verify/invoke",
        {"input": {**VERIFY, "context": [{"page_content": 5}]}},
        422,
    ),
    "streamed passage without text": (
        "/verify/stream",
        {"input": {**VERIFY, "context": [{"metadata": {}}]}},
        422,
    ),
    "answer not a string": ("/verify/invoke", {"input": {**VERIFY, "answer": 5}}, 422),
    "input a string": ("/verify/invoke", {"input": "just a string"}, 422),
    "input missing": ("/verify/invoke", {}, 422),
    "context a string": ("/verify/invoke", {"input": {**VERIFY, "context": "one"}}, 422),
    "config not an object": ("/verify/invoke", {"input": VERIFY, "config": "x"}, 422),
    "body an array": ("/verify/invoke", [1], 422),
    "too many inputs": ("/verify/batch", {"inputs": [VERIFY] * 65}, 413),
}
NAMED = {
    "long question": "4000",
    "blank question": "blank",
    "invalid utf-8": "UTF-8",
    "malformed json": "JSON",
    "deep json": "deeper",
    "lone surrogate": "Unicode",
    "bad batch item": "inputs[1]",
    "bad rag batch item": "inputs[1]",
    "passage object without text": "page_content",
    "passage text not a string": "string",
    "streamed passage without text": "page_content",
    "answer not a string": "string",
    "input a string": "must be a JSON object with the keys 'answer'",
    "input missing": "input",
    "context a string": "list",
    "config not an object": "dictionary",
    "body an array": "dictionary",
    "too many inputs": "over the limit of 64",
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_a_bad_input_gets_a_json_4xx_on_a_live_connection(server, case):
    path, body, status = BAD_INPUTS[case]
    with client(server) as http:
        port = _local_port(http.post("/verify/invoke", json={"input": VERIFY}))
        if isinstance(body, bytes):
            r = http.post(path, content=body, headers={"content-type": "application/json"})
        else:
            r = http.post(path, json=body)
        assert r.status_code == status, r.text
        assert r.headers["content-type"].startswith("application/json")
        assert NAMED[case] in str(r.json()["detail"])
        if "batch item" in case:
            assert any(e["loc"][:3] == ["body", "inputs", 1] for e in r.json()["detail"])
        good = http.post("/verify/invoke", json={"input": VERIFY})
        assert good.status_code == 200, good.text
        assert _local_port(good) == port  # the same connection served both


def test_a_body_over_the_limit_gets_413(server):
    with client(server) as http:
        big = {"input": {**VERIFY, "answer": "The treaty was signed in 1919. " * 350_000}}
        r = http.post("/verify/invoke", json=big)
        assert r.status_code == 413, r.text[:300]
        assert "limit" in r.json()["detail"]
        assert http.post("/verify/invoke", json={"input": VERIFY}).status_code == 200


# -- CPU-bound work stays off the event loop ---------------------------------------------


def test_health_answers_while_pathological_answers_are_verified(server):
    """`/health` answers, again and again, while two pathological answers are verified.

    No clock is read: `/health` is asked in turn, each time after the last answer,
    and only answers that came back while neither heavy request had its response yet
    are counted. Were the heavy work on the event loop, `/health` would wait for it:
    only an answer or two given before the server had read the heavy requests, and one
    sent with the first heavy response, could slip into the count; a free loop gives
    one for each ask as long as the heavy requests last, many more. Both heavy
    requests must then complete with their report.
    """
    passages = ["The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."]
    heavy_body = {"input": {"answer": "a. " * 7000, "passages": passages}}
    sent, finished, outcomes = threading.Barrier(3), threading.Event(), []

    def heavy() -> None:
        try:
            with client(server) as http:
                http.get("/health")  # connected first: the heavy request goes out at once
                sent.wait()
                outcomes.append(http.post("/verify/invoke", json=heavy_body))
        finally:
            finished.set()

    workers = [threading.Thread(target=heavy) for _ in range(2)]
    while_heavy = 0
    with client(server) as http:
        http.get("/health")
        for worker in workers:
            worker.start()
        sent.wait()
        while not finished.is_set():
            assert http.get("/health").status_code == 200
            if not finished.is_set():
                while_heavy += 1
            time.sleep(0.01)  # a pause between asks, not a measurement
    for worker in workers:
        worker.join(timeout=180)  # only a hung server reaches this
    assert len(outcomes) == 2
    for response in outcomes:
        assert response.status_code == 200, response.text[:300]
        out = response.json()["output"]
        assert out["decision"] == "refuse"
        assert {"truncated_answer", "truncated_claims"} <= set(out["flags"])
        claims = out["claims"]  # the first 64 verified, then each past the limit, uncertain
        assert len(claims) > 64 and {c["label"] for c in claims[64:]} == {"uncertain"}
        counted = sum(
            out[label] for label in ("supported", "unsupported", "contradicted", "uncertain")
        )
        assert counted == len(claims)  # the counts add up to the claims listed
    assert while_heavy >= 5, f"/health answered {while_heavy} times during the heavy requests"


def test_serve_hashes_questions_in_the_audit_log(tmp_path):
    """`serve --audit-dir D --hash-questions`: both routes recorded, no question in clear."""
    pytest.importorskip("langserve")
    port = free_port()
    audit = tmp_path / "audit"
    cmd = [PYTHON, "-m", "langchain_reliable.cli", "serve", "--port", str(port)]
    cmd += ["--audit-dir", str(audit), "--hash-questions", "--log-level", "warning"]
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    with (
        running(cmd, health_url=f"{base}/health", cwd=tmp_path, env=child_env(), log=log),
        client(base) as http,
    ):
        assert http.post("/reliable-rag/invoke", json=_rag()).status_code == 200
        verify = {**VERIFY, "question": FILTERED}
        assert http.post("/verify/invoke", json={"input": verify}).status_code == 200
    text = "".join(p.read_text("utf-8") for p in audit.glob("audit-*.jsonl"))
    records = [json.loads(line) for line in text.splitlines()]
    assert len(records) == 2 and all(r["question_hashed"] for r in records)  # both routes
    assert FILTERED not in text


# -- round two: content dressed as glue, text that renders otherwise -----------------


@pytest.mark.parametrize("case", ROUND_TWO, ids=[c[0] for c in ROUND_TWO])
def test_round_two_over_http(server, case):
    """Each attack is neither returned nor shown filtered; its control is returned."""
    _, attack, attack_q, control, control_q, bad = case
    with client(server) as http:
        _not_shown(http, bad, {"answer": attack, "context": PASSAGES, "question": attack_q})
        _returned(http, {"answer": control, "context": PASSAGES, "question": control_q})


def _verified(http, body: dict) -> dict:
    r = http.post("/verify/invoke", json={"input": body})
    assert r.status_code == 200, r.text
    return r.json()["output"]


def _not_shown(http, bad: str, body: dict) -> None:
    """The attack is neither returned nor shown filtered."""
    out = _verified(http, body)
    shown = body["answer"] if out["decision"] == "return" else out["filtered_answer"] or ""
    assert out["decision"] != "return" and bad not in shown


def _returned(http, body: dict) -> None:
    out = _verified(http, body)
    assert out["decision"] == "return", out["claims"]


@pytest.mark.parametrize("case", RIDERS, ids=[c[0] for c in RIDERS])
def test_riders_over_http(server, case):
    """A false statement riding inside a true sentence is not shown; its control is returned."""
    _, attack, control, bad = case
    with client(server) as http:
        _not_shown(http, bad, {"answer": attack, "passages": [RIDER_PASSAGE]})
        _returned(http, {"answer": control, "passages": [RIDER_PASSAGE]})


# -- round three: the evidence cited, the labels, a history as the question ---------------


@pytest.mark.parametrize("case", EVIDENCE_CASES, ids=[c[0][:30] for c in EVIDENCE_CASES])
def test_the_cited_passage_is_the_one_the_verdict_rests_on_over_http(server, case):
    """The served report cites the passage holding the claim, numbered from 1 in its reason."""
    claim, passage, words = case
    with client(server) as http:
        out = _verified(http, {"answer": claim, "passages": EVIDENCE_PASSAGES})
    (verdict,) = out["claims"]
    assert verdict["label"] == "supported", verdict
    assert verdict["evidence"][0]["passage"] == passage and words in verdict["evidence"][0]["quote"]
    assert f"passage {passage + 1}" in verdict["reason"], verdict["reason"]


@pytest.mark.parametrize(
    ("attack", "control"),
    list(zip(NOTHING_FOUND, FOUND, strict=True)),
    ids=[c[:30] for c in NOTHING_FOUND],
)
def test_a_claim_no_passage_speaks_of_is_unsupported_over_http(server, attack, control):
    with client(server) as http:
        out = _verified(http, {"answer": attack, "passages": EVIDENCE_PASSAGES})
        assert [c["label"] for c in out["claims"]] == ["unsupported"], out["claims"]
        assert out["hallucination_rate"] == 1.0 and out["decision"] != "return"
        _returned(http, {"answer": control, "passages": EVIDENCE_PASSAGES})


@pytest.mark.parametrize(("attack", "control"), PAIRS)
def test_a_reply_to_the_last_turn_of_a_history_over_http(server, attack, control):
    with client(server) as http:
        for (last, reply, _), shown in ((attack, False), (control, True)):
            question = HISTORY.format(last=last)
            body = {"answer": reply, "passages": EVIDENCE_PASSAGES, "question": question}
            if shown:
                _returned(http, body)
            else:
                _not_shown(http, reply.strip("."), body)


@pytest.mark.parametrize("case", SHAPE_CONTROLS)
def test_round_two_leftovers_over_http(server, case):
    """A verbless heading, a bare sign, a reply's phrasing, a link's address: checked or
    not shown; the control of the same shape is returned."""
    _, attack, attack_q, control, control_q, bad = case
    with client(server) as http:
        _not_shown(http, bad, {"answer": attack, "passages": LINKED, "question": attack_q})
        _returned(http, {"answer": control, "passages": LINKED, "question": control_q})


# -- round four: what a claim is, what is shown; counts, names' adjectives, negations, forms

# (attack, control, passages, what the attack must not show), the fast tier's cases
FOURTH = [
    (attack, control, ROUND_FOUR_PASSAGES, bad)
    for kind, name, attack, control, bad in ROUND_FOUR
    if (f"{kind}-{name}", "attack") not in NEEDS_ACCURATE
]
FOURTH += [(attack, control, COUNT_PASSAGES, attack) for control, attack in COUNT_PAIRS]
FOURTH += [(attack, control, NAME_PASSAGES, attack) for control, attack in NAME_PAIRS]
FOURTH += [(attack, control, NEGATION_PASSAGES, attack) for attack, control in NEGATION_PAIRS]
FOURTH += [(attack, control, FORM_PASSAGES, attack) for control, attack in FORM_PAIRS]


@pytest.mark.parametrize("case", FOURTH, ids=[c[0][:40] for c in FOURTH])
def test_round_four_over_http(server, case):
    """The attack is not shown by the served verifier; its control is returned."""
    attack, control, passages, bad = case
    with client(server) as http:
        _not_shown(http, bad.rstrip("."), {"answer": attack, "passages": passages})
        _returned(http, {"answer": control, "passages": passages})
