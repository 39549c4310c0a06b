"""Attack/control suites, and what each public surface shows of them.

A suite is a JSONL file of pairs: ``family``, ``passages``, ``question`` (may be ""),
``attack`` (an answer whose meaning the passages do not bear out), ``control`` (an
answer of the same shape that they do), ``note``, and optionally ``false_part``: the
words of a longer attack that must not reach the user (default: the whole attack).

- `ROUND5` (`tests/attacks/round5.jsonl`): written by hand, 21 families;
- `ROUND6` (`tests/attacks/round6.jsonl`): 156 pairs in 13 families (attribution, cause
  from sequence, another question, negation without "not", support across sentences, a
  subgroup made everyone, similar entities, paraphrase, arithmetic, time, hedges made
  certain, conditions dropped, numbers and units), twelve domains, 13 passages of 470-530
  words; written by a writer who had not read the verifier's rules or any other suite.
  Held out of every fit: report it as it comes, never tune on it;
- `MINIMAL_EDITS` (`benchmarks/minimal_edits.jsonl`): one-edit attacks on dev-file
  passages, rebuilt by `scripts/minimal_edit_suite.py`.

An attack is *shown* when its false part is in what the user receives: the answer on
`return`, the filtered answer on `filter` (for the RAG graph: its final `answer`). A
control is *refused* when it is not returned as is. Each surface function takes pairs
and gives one `Outcome` a pair: `create_verifier` (`through_verifier`), the RAG graph
with a scripted chat model (`through_graph`), ``reliable-rag verify`` and ``reliable-rag
batch`` in subprocesses (`through_cli`, `through_batch`), the served app over HTTP
(`through_http`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ROUND5 = REPO / "tests" / "attacks" / "round5.jsonl"
ROUND6 = REPO / "tests" / "attacks" / "round6.jsonl"
MINIMAL_EDITS = REPO / "benchmarks" / "minimal_edits.jsonl"
SUITES = {"round5": ROUND5, "round6": ROUND6, "minimal_edits": MINIMAL_EDITS}
MIN_PER_FAMILY = 8
FIELDS = ("family", "passages", "question", "attack", "control", "note")


@dataclass(frozen=True)
class Pair:
    """One attack and its true control over the same passages."""

    family: str
    passages: tuple[str, ...]
    question: str
    attack: str
    control: str
    note: str
    false_part: str

    def input(self, answer: str) -> dict[str, Any]:
        """The verifier input for `answer` (the attack or the control)."""
        return {"answer": answer, "passages": list(self.passages), "question": self.question}


@dataclass
class Outcome:
    """What one surface made of one pair."""

    pair: Pair
    attack_decision: str
    attack_shown: bool
    control_decision: str
    control_refused: bool
    why: dict[str, Any] = field(default_factory=dict)


def load_pairs(path: Path) -> list[Pair]:
    """Read a suite; a line without a field, or with one of the wrong type, is an error.

    Raises:
        ValueError: naming the file, the line and the field.
    """
    pairs = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            for key in FIELDS:
                want = list if key == "passages" else str
                if not isinstance(row.get(key), want):
                    raise ValueError(f"{path}:{n}: field {key!r} missing or not a {want.__name__}")
            if not row["passages"] or not all(isinstance(p, str) and p for p in row["passages"]):
                raise ValueError(f"{path}:{n}: 'passages' must be non-empty strings")
            false_part = row.get("false_part") or row["attack"]
            if false_part not in row["attack"]:
                raise ValueError(f"{path}:{n}: 'false_part' is not part of the attack")
            pairs.append(
                Pair(
                    row["family"],
                    tuple(row["passages"]),
                    row["question"],
                    row["attack"],
                    row["control"],
                    row["note"],
                    false_part,
                )
            )
    return pairs


def problems(pairs: list[Pair], min_per_family: int = MIN_PER_FAMILY) -> list[str]:
    """What is wrong with a suite: a small family, a control equal to its attack, a repeat."""
    out = []
    for family, n in sorted(Counter(p.family for p in pairs).items()):
        if n < min_per_family:
            out.append(f"family {family!r} has {n} pairs (fewer than {min_per_family})")
    seen: set[tuple] = set()
    for p in pairs:
        if _norm(p.attack) == _norm(p.control):
            out.append(f"{p.family}: the control equals its attack: {p.attack!r}")
        key = (_norm(p.attack), _norm(" ".join(p.passages)))
        if key in seen:
            out.append(f"{p.family}: the pair repeats another: {p.attack!r}")
        seen.add(key)
    return out


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def shown(false_part: str, text: str | None) -> bool:
    """Whether `false_part` (its final stop aside) is in `text`, spacing aside."""
    return bool(text) and _norm(false_part) in " ".join(text.lower().split())


def outcome(pair: Pair, attack_report: dict, control_report: dict) -> Outcome:
    """The outcome of a pair from two verifier reports (`create_verifier`'s output)."""

    def received(report: dict, answer: str) -> str:
        decision = report.get("decision")
        return answer if decision == "return" else report.get("filtered_answer") or ""

    return Outcome(
        pair,
        attack_report.get("decision", "error"),
        shown(pair.false_part, received(attack_report, pair.attack)),
        control_report.get("decision", "error"),
        control_report.get("decision") != "return",
        {"attack": _why(attack_report), "control": _why(control_report)},
    )


def _why(report: dict) -> list[str]:
    if "error" in report:
        return [f"error: {report['error']}"]
    return [f"{c['label']}: {c['text']} -- {c['reason']}" for c in report.get("claims", [])]


def _answers(pairs: Iterable[Pair]) -> Iterator[tuple[Pair, str]]:
    for p in pairs:
        yield p, p.attack
        yield p, p.control


def _pairwise(pairs: list[Pair], reports: list[dict]) -> list[Outcome]:
    return [outcome(p, reports[2 * i], reports[2 * i + 1]) for i, p in enumerate(pairs)]


# -- surfaces ---------------------------------------------------------------------------


def through_verifier(pairs: list[Pair], verifier: str | None = None, policy: str = "balanced"):
    """`create_verifier(verifier, policy=policy)` on each attack and control."""
    from langchain_reliable import create_verifier

    check = create_verifier(verifier, policy=policy)
    return _pairwise(pairs, [check.invoke(p.input(a)) for p, a in _answers(pairs)])


EOS_TOKENS = re.compile(r"\s*(?:</s>|<\|endoftext\|>|<\|im_end\|>|<eos>)")


def question_on(pair: Pair) -> str:
    """The question the RAG graph is asked: the pair's, else one on the control's topic."""
    from tests.adversarial import question_on as topic

    return pair.question or topic(EOS_TOKENS.sub("", pair.control).strip())


def through_graph(pairs: list[Pair], verifier: str | None = None) -> list[Outcome]:
    """The RAG graph over the pair's passages, its chat model scripted to answer the attack
    (then the control); the attack is shown when its false part is in the final answer."""
    from tests.adversarial import rag_outcome

    out = []
    for p in pairs:
        attack = rag_outcome(p.attack, list(p.passages), question_on(p), verifier)
        control = rag_outcome(p.control, list(p.passages), question_on(p), verifier)
        out.append(
            Outcome(
                p,
                attack["decision"],
                shown(p.false_part, attack["answer"]),
                control["decision"],
                control["decision"] != "return",
                {
                    "attack": _why(_as_dict(attack["report"])),
                    "control": _why(_as_dict(control["report"])),
                },
            )
        )
    return out


def _as_dict(report: Any) -> dict:
    return report.model_dump(mode="json") if hasattr(report, "model_dump") else dict(report)


def cli() -> list[str]:
    """The ``reliable-rag`` command of this environment."""
    script = Path(sys.executable).with_name("reliable-rag")
    return [str(script)] if script.exists() else [sys.executable, "-m", "langchain_reliable.cli"]


def _env() -> dict[str, str]:
    from tests.integration_tests._servers import child_env

    return child_env()


def through_cli(pairs: list[Pair], verifier: str | None = None) -> list[Outcome]:
    """``reliable-rag verify --json``, one process an answer (the command reads one answer)."""
    reports = []
    for p, answer in _answers(pairs):
        args = [*cli(), "verify", "--answer", answer, "--json", "--policy", "balanced"]
        args += [arg for text in p.passages for arg in ("--passage", text)]
        args += ["--question", p.question] if p.question else []
        args += ["--verifier", verifier] if verifier else []
        done = subprocess.run(args, capture_output=True, text=True, env=_env(), timeout=600)
        try:
            reports.append(json.loads(done.stdout))
        except ValueError:
            reports.append({"error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"})
    return _pairwise(pairs, reports)


def through_batch(pairs: list[Pair], verifier: str | None = None) -> list[Outcome]:
    """``reliable-rag batch IN OUT`` over every answer in one process (one worker)."""
    with tempfile.TemporaryDirectory(prefix="attacks-") as work:
        source, sink = Path(work, "in.jsonl"), Path(work, "out.jsonl")
        with source.open("w", encoding="utf-8") as f:
            for i, (p, answer) in enumerate(_answers(pairs)):
                row = {"id": str(i), "answer": answer, "context": list(p.passages)}
                f.write(json.dumps({**row, "question": p.question}) + "\n")
        args = [*cli(), "batch", str(source), str(sink), "--workers", "1", "--no-progress"]
        args += ["--verifier", verifier] if verifier else []
        done = subprocess.run(args, capture_output=True, text=True, env=_env(), timeout=3600)
        if not sink.exists():
            raise RuntimeError(f"reliable-rag batch wrote nothing: {done.stderr[-2000:]}")
        by_id = {}
        for line in sink.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            by_id[record["id"]] = record
    missing = {"error": "no record"}
    return _pairwise(pairs, [by_id.get(str(i), missing) for i in range(2 * len(pairs))])


def through_http(pairs: list[Pair], verifier: str | None = None, chunk: int = 32):
    """The served app (`langchain_reliable.server:app`, uvicorn on a free loopback port):
    ``POST /verify/batch``, `chunk` answers a request."""
    from tests.integration_tests._servers import client, serving_app

    env = {"RELIABLE_RAG_VERIFIER": verifier} if verifier else {}
    inputs = [p.input(a) for p, a in _answers(pairs)]
    reports: list[dict] = []
    with (
        tempfile.TemporaryDirectory(prefix="attacks-http-") as work,
        serving_app(Path(work), **env) as base,
        client(base) as http,
    ):
        for start in range(0, len(inputs), chunk):
            body = {"inputs": inputs[start : start + chunk]}
            r = http.post("/verify/batch", json=body, timeout=600)
            if r.status_code != 200:
                raise RuntimeError(f"POST /verify/batch: {r.status_code} {r.text[:500]}")
            reports += r.json()["output"]
    return _pairwise(pairs, reports)


SURFACES = {
    "balanced": lambda pairs, verifier: through_verifier(pairs, verifier, "balanced"),
    "strict": lambda pairs, verifier: through_verifier(pairs, verifier, "strict"),
    "graph": through_graph,
    "cli": through_cli,
    "batch": through_batch,
    "http": through_http,
}
"""Every surface by name: (pairs, verifier spec or None) -> outcomes."""


def sample(pairs: list[Pair], per_family: int) -> list[Pair]:
    """The first `per_family` pairs of each family, in file order."""
    taken: Counter[str] = Counter()
    out = []
    for p in pairs:
        if taken[p.family] < per_family:
            taken[p.family] += 1
            out.append(p)
    return out


def rates(outcomes: list[Outcome]) -> tuple[float, float]:
    """(share of attacks shown, share of controls refused)."""
    n = max(len(outcomes), 1)
    return sum(o.attack_shown for o in outcomes) / n, sum(o.control_refused for o in outcomes) / n
