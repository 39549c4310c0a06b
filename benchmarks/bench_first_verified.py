"""Time to the first verified sentence: sentence-by-sentence streaming against the whole answer.

The Reliable RAG graph (offline verifier, balanced policy) answers with a scripted
chat model that streams a six-sentence supported answer word by word at
`--rate` words a second (20 by default, a hosted model's pace). Each run records
the time from the call to the first `verified_chunk` in the `custom` stream, and
to the end, with `stream_verified="sentence"` and with `"answer"` (the whole-answer
behaviour), alternating, after one warm-up run of each. The final answers of the
two modes must be byte-identical (checked on every run), and so must the text the
stream delivers.

    python benchmarks/bench_first_verified.py [--runs 5] [--rate 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

from langchain_reliable import create_reliable_rag
from langchain_reliable.answerers import PromptAnswerer

PASSAGES = [
    "Metformin is a first-line medication for the treatment of type 2 diabetes. "
    "It reduces hepatic glucose production and improves insulin sensitivity.",
    "The maximum daily dose of metformin is 2550 mg, taken in divided doses with meals. "
    "Common side effects include diarrhoea, nausea and abdominal pain.",
    "Metformin is contraindicated in severe kidney impairment. "
    "Lactic acidosis is a rare but serious complication.",
]
QUESTION = "What should a patient know about metformin?"
ANSWER = (
    "Metformin is a first-line medication for the treatment of type 2 diabetes. "
    "It reduces hepatic glucose production and improves insulin sensitivity. "
    "The maximum daily dose of metformin is 2550 mg, taken in divided doses with meals. "
    "Common side effects include diarrhoea, nausea and abdominal pain. "
    "Metformin is contraindicated in severe kidney impairment. "
    "Lactic acidosis is a rare but serious complication."
)


class ScriptedAnswer(PromptAnswerer):
    """Always answers `ANSWER`, streamed at its `tokens_per_second`."""

    def reply(self, prompt: str, question: str) -> tuple[str, dict[str, Any]]:
        return ANSWER, {}

    @property
    def _llm_type(self) -> str:
        return "scripted-answer"


def one_run(mode: str, rate: float) -> dict[str, Any]:
    """Seconds to the first verified chunk and to the end; the final answer and streamed text."""
    rag = create_reliable_rag(
        ScriptedAnswer(tokens_per_second=rate), PASSAGES, stream_verified=mode
    )
    started = time.perf_counter()
    first = None
    shown = ""
    out: dict[str, Any] = {}
    for kind, item in rag.stream({"question": QUESTION}, stream_mode=["custom", "values"]):
        if kind == "custom" and "verified_reset" in item:
            shown = ""
        elif kind == "custom" and "verified_chunk" in item:
            first = first if first is not None else time.perf_counter() - started
            shown += item["verified_chunk"]
        elif kind == "values":
            out = item
    return {
        "first": first,
        "total": time.perf_counter() - started,
        "answer": out.get("answer"),
        "decision": out.get("decision"),
        "shown": shown,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rate", type=float, default=20.0, help="words per second")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    modes = ("answer", "sentence")
    for mode in modes:  # warm-up: the embedded models load once
        one_run(mode, 1000.0)
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    for _ in range(args.runs):
        for mode in modes:
            runs[mode].append(one_run(mode, args.rate))
    answers = {r["answer"] for m in modes for r in runs[m]}
    if len(answers) != 1 or any(r["shown"] != r["answer"] for m in modes for r in runs[m]):
        sys.exit("the final answers (or the streamed text) differ between modes or runs")
    words = len(ANSWER.split())
    median = {
        m: {k: statistics.median(r[k] for r in runs[m]) for k in ("first", "total")} for m in modes
    }
    ratio = median["answer"]["first"] / median["sentence"]["first"]
    print(
        f"{words} words in 6 sentences at {args.rate:g} words/s; medians of {args.runs} runs; "
        f"decision {runs['sentence'][0]['decision']}; load average {os.getloadavg()[0]:.2f}"
    )
    print("| stream_verified | first verified text (s) | whole run (s) |")
    print("| --- | ---: | ---: |")
    for mode, label in (("answer", "answer (whole answer first)"), ("sentence", "sentence")):
        print(f"| {label} | {median[mode]['first']:.2f} | {median[mode]['total']:.2f} |")
    print(f"first verified text {ratio:.1f}x sooner; final answers byte-identical: yes")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"median": median, "ratio": ratio, "runs": args.runs, "rate": args.rate},
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
