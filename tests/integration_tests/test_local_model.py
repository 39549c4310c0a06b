"""A real chat model in the LLM paths: SmolLM2-135M-Instruct through `ChatLlamaCpp`.

Every other LLM test scripts its model. Here llama.cpp runs a real (tiny) instruct
model on the CPU as the generator, the judge (`verifier="llm"`), the second stage of
the cascade and the claim extractor (`extractor="llm"`). The model is far too small to
judge well, so nothing here asserts what it says. The tests check the plumbing and
the one guarantee that must hold whatever the model says:

- structured output goes through llama.cpp's grammar-constrained tool call, and
  output that is cut short or times out fails closed (`uncertain`, `verifier_error`);
- the report counts the LLM calls, their tokens and their time;
- nothing unverified is returned: after `return` or `filter`, every word of every
  claim-bearing sentence shown to the user lies in a claim labelled `supported`, and
  a refusal lists only supported claims.

About a minute on 2 cores (every call is short). Needs `pip install -e ".[local-llm]"`.
"""

from __future__ import annotations

import importlib.util
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from langchain_reliable import create_reliable_rag, create_verifier
from langchain_reliable.claims import LLMClaimExtractor, SentenceClaimExtractor
from langchain_reliable.outcomes import CANNOT_ANSWER
from langchain_reliable.verifiers import LLMJudge
from tests.integration_tests._local_model import (
    GGUF_PACKAGE,
    free_models,
    gguf_path,
    local_chat_model,
    with_usage,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama-cpp-python is not installed: pip install -e '.[local-llm]'",
    ),
]

PASSAGES = [
    "The Eiffel Tower is a wrought-iron tower in Paris, France. It was completed in 1889.",
    "The Eiffel Tower is 330 metres tall and was designed by the company of Gustave Eiffel.",
    "Mount Everest, at 8,849 metres, is the highest mountain above sea level.",
]
# SmolLM2 answers it with one sentence copied from a passage and one the offline verifier
# is unsure of (here: filtered by the offline verifier, sent to the judge by the cascade).
QUESTION = "Where is the Eiffel Tower and who designed it?"
DECISIONS = {"return", "filter", "refuse"}
LABELS = {"supported", "unsupported", "contradicted", "uncertain"}

# A known false statement next to a true one.
FALSE_STATEMENT = "The Eiffel Tower is in Rome."
ANSWER_WITH_FALSE_STATEMENT = f"The Eiffel Tower was completed in 1889. {FALSE_STATEMENT}"

_CAVEAT = re.compile(r"\n*Note: \d+ statements? that could not be verified.*\Z", re.DOTALL)
_WORD = re.compile(r"\w+")


@pytest.fixture(autouse=True)
def abandoned_calls_end() -> Iterator[None]:
    """After each test, let model calls abandoned at a timeout finish (they go on)."""
    yield
    for thread in threading.enumerate():
        if thread.name == "llm-call":
            thread.join(timeout=120)


@pytest.fixture(scope="module", autouse=True)
def models_freed() -> Iterator[None]:
    """After the module, free every model its tests loaded (calls left at a timeout have ended)."""
    yield
    free_models()


@pytest.fixture(scope="module")
def llama() -> Any:
    """The local model as `ChatLlamaCpp` gives it, loaded once for the module."""
    if gguf_path() is None:
        pytest.fail(f"llama-cpp-python is installed but {GGUF_PACKAGE} is not: pip install it")
    return local_chat_model()


@pytest.fixture(scope="module")
def model(llama: Any) -> Any:
    """The same model and context, with its token counts where the package reads them."""
    return with_usage(llama)


# -- the guarantee ------------------------------------------------------------------------


def _verified_words(answer: str, claims: list[dict]) -> list[tuple[str, bool]]:
    """The answer's words, each with whether it lies inside a claim labelled supported."""
    spans = [tuple(c["span"]) for c in claims if c["label"] == "supported"]
    return [
        (m.group().casefold(), any(s <= m.start() and m.end() <= e for s, e in spans))
        for m in _WORD.finditer(answer)
    ]


def _is_verified(text: str, words: list[tuple[str, bool]]) -> bool:
    """Whether `text`'s words occur, in order and contiguous, among verified answer words."""
    wanted = [w.casefold() for w in _WORD.findall(text)]
    if not wanted:
        return True
    for start in range(len(words) - len(wanted) + 1):
        window = words[start : start + len(wanted)]
        if all(ok and w == x for (w, ok), x in zip(window, wanted, strict=True)):
            return True
    return False


def assert_nothing_unverified(out: dict, answer: str) -> None:
    """Whatever the model said, what reaches the user was verified.

    `answer` is the generated text the report's spans refer to. The text shown is
    split into claims by the package's own sentence splitter (which leaves out
    greetings, questions and other non-claims); every word of each of them must lie
    in a claim of `answer` labelled `supported`.
    """
    decision, shown, report = out["decision"], out["answer"], out["report"]
    assert decision in DECISIONS
    claims = report["claims"]
    assert all(c["label"] in LABELS for c in claims)
    if decision == "refuse":
        supported = {
            c["text"].strip().rstrip(".").casefold() for c in claims if c["label"] == "supported"
        }
        listed = re.findall(r"^- (.+)$", shown, re.MULTILINE)
        assert listed or shown == CANNOT_ANSWER, shown
        for line in listed:
            assert line.strip().rstrip(".").casefold() in supported, (line, claims)
        return
    assert "no_context" not in report["flags"]
    if decision == "return":
        assert shown == answer
    else:
        shown = _CAVEAT.sub("", shown)
    words = _verified_words(answer, claims)
    for claim in SentenceClaimExtractor().claims(shown):
        assert _is_verified(claim.text, words), (
            f"{decision!r} shows text no supported claim covers: {claim.text!r}",
            claims,
        )


def summary(out: dict) -> str:
    """One line on a run, printed for `pytest -s`."""
    report = out["report"]
    labels = [c["label"] for c in report["claims"]]
    return (
        f"\n  answer={out.get('answer', '')!r}\n  decision={out['decision']} "
        f"attempts={out.get('attempts')} labels={labels} flags={report['flags']}\n  "
        f"notes={report['notes']}\n  cost={report['cost']}"
    )


# -- the full graph ------------------------------------------------------------------------


def run(model: Any, **options: Any) -> tuple[dict, str]:
    """Run the full graph, streaming node updates so the final attempt's draft is seen."""
    rag = create_reliable_rag(model, PASSAGES, k=3, **options)
    generated = ""
    out: dict = {}
    for chunk in rag.stream({"question": QUESTION}, stream_mode="updates"):
        for node, values in chunk.items():
            if node == "generate":
                generated = values["draft"]
            elif node in ("return", "filter", "refuse"):
                out = values
    print(f"\n  generated={generated!r}", summary(out))
    return out, generated


def test_full_graph_with_llm_judge_and_llm_extractor(model: Any) -> None:
    out, generated = run(model, verifier="llm", extractor="llm", max_retries=0)
    report = out["report"]
    assert report["verifier"] == "llm"
    assert report["extractor"] == "llm"
    assert out["attempts"] == 1
    cost = report["cost"]
    # The extractor and the judge each called the model once (the judge not at all
    # when the extractor found no claim).
    assert cost["llm_calls"] >= 1
    assert cost["input_tokens"] > 0
    assert cost["output_tokens"] > 0
    assert cost["milliseconds"] > 0
    assert_nothing_unverified(out, generated)


def test_full_graph_with_cascade(model: Any) -> None:
    """The offline verifier first, the judge for its unsure claims; one retry allowed."""
    out, generated = run(model, verifier="cascade", max_retries=1)
    report = out["report"]
    assert 1 <= out["attempts"] <= 2
    assert report["cost"]["llm_calls"] in (0, 1)  # the judge, only if a claim was unsure
    assert report["verifier"].startswith("cascade(")
    assert report["extractor"] == "sentences"
    assert_nothing_unverified(out, generated)


# -- the judge on a known false statement -----------------------------------------------------


def test_judge_never_returns_a_known_false_statement(model: Any) -> None:
    verify = create_verifier("llm", model=model)
    report = verify.invoke(
        {"answer": ANSWER_WITH_FALSE_STATEMENT, "context": PASSAGES, "question": QUESTION}
    )
    print(summary({"decision": report["decision"], "report": report}))
    assert report["cost"]["llm_calls"] == 1
    assert report["cost"]["input_tokens"] > 0
    false_claims = [c for c in report["claims"] if "Rome" in c["text"]]
    assert false_claims, report["claims"]
    assert report["decision"] != "return", report
    assert all(c["label"] != "supported" for c in false_claims), report["claims"]


# -- failures fail closed ----------------------------------------------------------------------


def test_judge_output_cut_short_fails_closed(model: Any) -> None:
    """Eight tokens cannot hold the judge's JSON: nothing parses, no claim passes.

    Every claim is uncertain, but for those the rules layer finds unsupported (a number
    no passage gives).
    """
    verify = create_verifier(LLMJudge(model.model_copy(update={"max_tokens": 8})))
    report = verify.invoke({"answer": ANSWER_WITH_FALSE_STATEMENT, "context": PASSAGES})
    print(summary({"decision": report["decision"], "report": report}))
    assert report["claims"]
    assert "uncertain" in {c["label"] for c in report["claims"]}
    assert {c["label"] for c in report["claims"]} <= {"uncertain", "unsupported"}
    assert "verifier_error" in report["flags"]
    assert report["decision"] != "return"
    assert report["cost"]["llm_calls"] == 1


# -- regressions this integration found --------------------------------------------------------


def test_tokens_counted_for_a_plain_chat_llama_cpp(llama: Any) -> None:
    verify = create_verifier("llm", model=llama)
    report = verify.invoke({"answer": "The Eiffel Tower is in Paris.", "context": PASSAGES})
    assert report["cost"]["llm_calls"] == 1
    assert report["cost"]["input_tokens"] > 0


def test_tiny_timeouts_fail_closed() -> None:
    """A judge and an extractor that never answer in time: sentence claims, all uncertain.

    Each part gets a llama.cpp context of its own: a call abandoned at the timeout
    goes on in a worker thread, and a context must not serve two calls at once.
    """
    verify = create_verifier(
        LLMJudge(local_chat_model(max_tokens=1), timeout=0.001),
        LLMClaimExtractor(local_chat_model(max_tokens=1), timeout=0.001),
    )
    report = verify.invoke({"answer": ANSWER_WITH_FALSE_STATEMENT, "context": PASSAGES})
    print(summary({"decision": report["decision"], "report": report}))
    assert len(report["claims"]) == 2  # the sentence extractor's claims
    # the judge gave nothing; the rules layer still vetoes the false statement's number
    assert {c["label"] for c in report["claims"]} <= {"uncertain", "unsupported"}
    assert "uncertain" in {c["label"] for c in report["claims"]}
    assert "verifier_error" in report["flags"]
    notes = " ".join(report["notes"])
    assert "claim extraction timed out" in notes
    assert "judge timed out" in notes
    assert report["decision"] != "return"
    assert report["cost"]["llm_calls"] == 2


def test_a_sync_invoke_comes_back_at_the_timeout() -> None:
    """The judge's timeout should bound the wait of `invoke`, not only of `ainvoke`.

    `ChatLlamaCpp` has no async path: LangChain runs it in the event loop's default
    executor, and a timeout abandons that thread, which goes on to the end of its call.
    """
    slow = local_chat_model(max_tokens=1)  # reading the prompt alone takes far over 0.05 s
    ended: list[float] = []
    create = slow.client.create_chat_completion

    def timed(*args: Any, **kwargs: Any) -> Any:
        try:
            return create(*args, **kwargs)
        finally:
            ended.append(time.perf_counter())

    slow.client.create_chat_completion = timed
    verify = create_verifier(LLMJudge(slow, timeout=0.05))
    report = verify.invoke({"answer": ANSWER_WITH_FALSE_STATEMENT, "context": PASSAGES})
    returned = time.perf_counter()
    assert "judge timed out after 0.05 s" in " ".join(report["notes"])
    assert not ended or returned < ended[0], (
        f"invoke came back {returned - ended[0]:.1f} s after the abandoned model call ended"
    )


# -- the guard after a real `prompt | llm` chain ------------------------------------------------


def test_guard_after_prompt_and_the_real_model(model: Any) -> None:
    """`prompt | llm | guard`: whatever the model says, only verified text comes out."""
    from langchain_core.prompts import ChatPromptTemplate

    from langchain_reliable import UnverifiedAnswerError, create_guard

    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer in one or two sentences."), ("human", "{question}")]
    )
    refused = prompt | model | create_guard(PASSAGES, on_fail="refuse")
    text = refused.invoke({"question": QUESTION})
    assert isinstance(text, str) and text
    raising = prompt | model | create_guard(PASSAGES, on_fail="raise")
    try:
        shown = raising.invoke({"question": QUESTION})
    except UnverifiedAnswerError as error:  # the model's answer did not pass as written
        assert error.report.decision != "return"
    else:  # it passed: every sentence shown is a supported claim of that answer
        check = create_verifier().invoke({"answer": shown, "context": PASSAGES})
        assert check["decision"] == "return", check
