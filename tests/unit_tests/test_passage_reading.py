"""Reading a claim as a passage-trained model was trained: focus windows and the question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.evidence.entailment import (
    DEFAULT_ENTAILMENT_DIR,
    FOCUS_WORDS,
    EntailmentModel,
    as_answer_to,
    focus_window,
    passage_windows,
    read_claims,
)
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.two_keys import TwoKeysVerifier

FILLER = " ".join(
    f"The council also discussed item {i} of the agenda, which concerned roads." for i in range(12)
)
PASSAGE = (
    "The Harbour Bridge was designed by the firm of Ralph Freeman. "
    f"{FILLER} "
    "The bridge opened to traffic in March 1932 after eight years of work."
)
CLAIM = "The bridge designed by Ralph Freeman opened in 1932."


def model_in(tmp_path: Path, *, focus: bool) -> EntailmentModel:
    """The shipped small model from a folder of its own, reading focus windows or not."""
    tmp_path.mkdir(exist_ok=True)
    for name in ("model.onnx", "tokenizer.json"):
        (tmp_path / name).symlink_to(DEFAULT_ENTAILMENT_DIR / name)
    config = json.loads((DEFAULT_ENTAILMENT_DIR / "config.json").read_text())
    config["window"]["focus"] = focus
    (tmp_path / "config.json").write_text(json.dumps(config))
    return EntailmentModel(tmp_path)


def test_support_spread_over_far_sentences_is_one_focus_window() -> None:
    share, runs = focus_window(CLAIM, PASSAGE)
    assert share == 1.0
    texts = [PASSAGE[a:b] for a, b in runs]
    assert texts[0].startswith("The Harbour Bridge was designed") and "1932" in texts[-1]
    assert sum(len(t.split()) for t in texts) <= FOCUS_WORDS
    # no plain window holds both sentences: only the focus window reads them together
    both = [(a, b) for a, b in passage_windows(PASSAGE) if "Freeman" in PASSAGE[a:b]]
    assert all("1932" not in PASSAGE[a:b] for a, b in both)


def test_a_claim_sharing_no_word_has_no_focus_window() -> None:
    assert focus_window("Penguins cannot fly.", PASSAGE) == (0.0, [])


def test_runs_are_in_passage_order_and_within_the_budget() -> None:
    text = " ".join(f"Fact {i} concerns the harbour and item {i}." for i in range(60))
    share, runs = focus_window("Item 3 and item 40 concern the harbour.", text, words=30)
    starts = [a for a, _ in runs]
    assert starts == sorted(starts) and 0 < share <= 1.0
    assert sum(len(text[a:b].split()) for a, b in runs) <= 30


def test_the_answer_form_is_the_question_then_the_claim() -> None:
    assert as_answer_to("Who won?  ", "Kiptum won") == "Who won? Kiptum won."
    assert as_answer_to("Who won", "Kiptum won!") == "Who won? Kiptum won!"


def test_a_passage_model_reads_the_focus_window_too(tmp_path: Path) -> None:
    plain = model_in(tmp_path / "plain", focus=False)
    focused = model_in(tmp_path / "focus", focus=True)
    [before] = plain.judge([CLAIM], [PASSAGE])
    runs_before = plain.reader.pairs_run
    [after] = focused.judge([CLAIM], [PASSAGE])
    assert focused.reader.pairs_run == runs_before + 1  # one more pair: the focus window
    assert after.entailed >= before.entailed  # the best over more windows
    # a short passage is one window, which holds the focus window: nothing more is read
    focused.judge(["Paris is the capital of France."], ["Paris is the capital of France."])
    assert focused.reader.pairs_run == runs_before + 2


def test_the_question_is_read_in_the_same_call(tmp_path: Path) -> None:
    model = model_in(tmp_path, focus=True)
    passage = "In the men's race Kiptum won in 2:00:35. In the women's race Hassan won in 2:13:44."
    [alone] = model.judge(["Kiptum won in 2:00:35."], [passage])
    assert alone.answered is None
    [asked] = model.judge(["Kiptum won in 2:00:35."], [passage], "Who won the men's race?")
    assert asked.answered is not None and 0.0 <= asked.answered <= 1.0
    assert asked.entailed == alone.entailed  # the plain reading is unchanged by the question


def test_a_reader_without_a_question_parameter_still_reads() -> None:
    class OldReader:
        def judge(self, claims, passages):
            return [f"read {c}" for c in claims]

    assert read_claims(OldReader(), ["a"], ["p"], "What?") == ["read a"]


@pytest.mark.parametrize("tier", ["fast"])
def test_the_question_reaches_the_model_on_the_public_path(tier: str) -> None:
    passage = "Lisinopril is contraindicated during pregnancy. It treats high blood pressure."
    report = create_verifier(verifier=tier).invoke(
        {
            "answer": "Lisinopril treats high blood pressure.",
            "passages": [passage],
            "question": "What does lisinopril treat?",
        }
    )
    [claim] = report["claims"]
    assert claim["keys"]["answered"] is not None


def test_without_a_question_nothing_is_read_as_an_answer(tmp_path: Path) -> None:
    verifier = TwoKeysVerifier(entailment=model_in(tmp_path, focus=False))
    text = "Lisinopril treats high blood pressure."
    [v] = verifier.verify(
        [Claim(text=text, span=(0, len(text)))],
        [Passage(index=0, text="Lisinopril is used to treat high blood pressure.")],
    ).verdicts
    assert v.keys is not None and v.keys.answered is None
