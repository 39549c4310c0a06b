"""The learned entailment model: (evidence window, claim) -> entailed, neutral, contradicted.

A cross-encoder reads a window of a passage and a claim together and gives the
probabilities that the window entails the claim, says nothing about it, or states
the opposite. It is all-MiniLM-L6-v2 fine-tuned on NLI pairs and minimal edits of
passages by `scripts/train_entailment.sh` (data and licences:
`models/crossencoder/MODEL_CARD.md`) and shipped as an int8 ONNX graph in
`langchain_reliable/models/crossencoder/`, run with onnxruntime: no torch, no network.

Passages are cut into windows of whole sentences (about `WINDOW_WORDS` words,
neighbours overlapping by about half); a cheap lexical prefilter (`rank_windows`)
picks each claim's best few windows, and only those pairs reach the model. A model
trained on passages (`config.json` "window" "focus") also reads each claim's focus
window (`focus_window`): its best sentences of a passage in their own order, each with
its neighbours, so that support spread over sentences (a date in one, the event in
another) is read together. Given the question an answer responds to, each claim is also
read as the answer to it (`as_answer_to`, the form the model was trained on). The
training and calibration scripts cut and rank windows with these same functions.

The model is loaded on first use, once per process: every `EntailmentModel` of the
same folder and thread count shares one onnxruntime session and one cache of the
pairs it has read, keyed by their content (`shared_reader`). The local verifier
asks it only about the claims its lexical score leaves in the model's uncertain
`band` (`config.json` "cascade", chosen by `scripts/entailment_calibrate.py`).

Example:
    ```python
    from langchain_reliable.evidence.entailment import default_entailment_model

    model = default_entailment_model()
    probs = model.predict([("Paris is the capital of France.", "France's capital is Paris.")])
    probs[0]  # P(entailment), P(neutral), P(contradiction)
    ```
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from langchain_reliable.checks.quantities import as_written_in
from langchain_reliable.evidence._onnx import cpu_session, default_threads, encode_all
from langchain_reliable.evidence.keys import Keys
from langchain_reliable.evidence.windows import (
    FOCUS_WORDS,
    WINDOW_WORDS,
    as_answer_to,
    focus_window,
    passage_windows,
    rank_windows,
    windows_of,
)
from langchain_reliable.text import Span

__all__ = [
    "DEFAULT_ENTAILMENT_DIR",
    "FOCUS_WORDS",
    "WINDOW_WORDS",
    "Entailment",
    "EntailmentModel",
    "EntailmentReader",
    "SharedReader",
    "as_answer_to",
    "default_entailment_model",
    "focus_window",
    "passage_windows",
    "rank_windows",
    "read_claims",
    "shared_reader",
]

DEFAULT_ENTAILMENT_DIR = Path(__file__).resolve().parents[1] / "models" / "crossencoder"
"""Folder of the shipped model: `model.onnx`, `tokenizer.json`, `config.json`."""

PAIRS_CACHED = 32768
"""Pairs whose probabilities a shared reader keeps (least recently used dropped first)."""


@dataclass(frozen=True)
class Entailment:
    """What the model read in a claim's best windows.

    Attributes:
        entailed: The highest P(entailment) over the claim's windows.
        contradicted: The highest P(contradiction) over them.
        passage: Position (in the passages given) of the window that entails it most.
        span: That window's `(start, end)` offsets in its passage.
        against: `(passage, span)` of the window that contradicts it most.
        answered: P(entailment) of the claim read as the answer to the question
            (`as_answer_to`), against its best window; `None` where no question was given.
    """

    entailed: float
    contradicted: float
    passage: int
    span: Span
    against: tuple[int, Span]
    answered: float | None = None


@runtime_checkable
class EntailmentReader(Protocol):
    """What the local verifier needs of an entailment model (the shipped one, or a larger one).

    Attributes:
        threshold: The calibrated `supported_at` of its `support` score.
        band: `(low, high)` on `lexical_support`'s scale: a claim scoring inside it
            (low included, high excluded) is read by the model; outside it the
            lexical evidence decides alone.
    """

    threshold: float
    band: tuple[float, float]

    def judge(
        self, claims: Sequence[str], passages: Sequence[str], question: str = ""
    ) -> list[Entailment]:
        """Read each claim against its best windows of `passages`, all pairs in one batch."""
        ...

    def support(self, entailed: float, lexical: float, contradicted: float = 0.0) -> float:
        """The calibrated P(supported) from the model's reading and the lexical support."""
        ...

    def lexical_support(self, lexical: float) -> float:
        """The calibrated P(supported) from the lexical support alone (no model run)."""
        ...


def read_claims(
    reader: EntailmentReader, claims: Sequence[str], passages: Sequence[str], question: str = ""
) -> list[Entailment]:
    """`reader.judge`, told the question where one was asked and its `judge` takes one."""
    if question.strip() and "question" in inspect.signature(reader.judge).parameters:
        return list(reader.judge(claims, passages, question))
    return list(reader.judge(claims, passages))


class EntailmentModel:
    """The cross-encoder, run with onnxruntime on CPU.

    Args:
        model_dir: Folder with `model.onnx`, `tokenizer.json` and `config.json`;
            defaults to the shipped model.
        intra_op_num_threads: onnxruntime threads (default: 2 where 2 cores exist).
        calibration: A `config.json` to read instead of the folder's own (a model built
            once, calibrated later).

    Attributes:
        config: The model's `config.json`: window settings, calibration, threshold.
        band: Where the local verifier asks the model (`EntailmentReader.band`); a
            folder whose `config.json` has no "cascade" entry is asked about every claim.
        vetoed: The highest score a claim a rule vetoes keeps (`config.json` "cascade"
            "vetoed", fitted with the band), or `None` for the verifier's own default.
        keys: The bars of the two keys (`config.json` "keys", `evidence.keys.Keys`).
        tier: The verifier tier this model judges for (`config.json` "tier").
    """

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        intra_op_num_threads: int | None = None,
        calibration: str | Path | None = None,
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else DEFAULT_ENTAILMENT_DIR
        for name in ("model.onnx", "tokenizer.json", "config.json"):
            if not (self.model_dir / name).is_file():
                raise FileNotFoundError(
                    f"entailment model file {self.model_dir / name} is missing; "
                    "scripts/train_entailment.sh and scripts/entailment_calibrate.py write it"
                )
        config = Path(calibration) if calibration is not None else self.model_dir / "config.json"
        self.config: dict[str, Any] = json.loads(config.read_text())
        self.threads = intra_op_num_threads
        self.max_length = int(self.config["max_length"])
        self.top_k = int(self.config["window"]["top_k"])
        stack = self.config["stack"]
        self._weights = tuple(
            float(stack.get(k, 0.0)) for k in ("entailment", "lexical", "contradiction", "bias")
        )
        self.threshold = float(self.config["threshold"])
        cascade = self.config.get("cascade") or {}
        low, high = cascade.get("band", (0.0, 1.0))
        self.band = (float(low), float(high))
        vetoed = cascade.get("vetoed")
        self.vetoed = float(vetoed) if vetoed is not None else None
        lexical = cascade.get("lexical") or {"lexical": 1.0, "bias": 0.0}
        self._lexical_weights = (float(lexical["lexical"]), float(lexical["bias"]))
        keys = self.config.get("keys") or {"grounded": 0.5, "entailed": 0.5}
        self.keys = Keys(
            float(keys["grounded"]), float(keys["entailed"]), float(keys.get("vetoed", 0.3))
        )
        self.tier = str(self.config.get("tier", "fast"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_dir={str(self.model_dir)!r})"

    @property
    def reader(self) -> SharedReader:
        """The process-wide session and pair cache of this folder (loads nothing)."""
        return shared_reader(self.model_dir, self.max_length, self.threads or default_threads())

    def predict(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Probabilities `[n, 3]` (entailment, neutral, contradiction) per (premise, claim).

        Pairs already read come from the shared cache; the others are tokenized
        together and run one row per model run, unpadded: the exported graph is exact
        only on unpadded rows, onnxruntime's one-row path rounds differently from its
        batched one, and a batch of rows of one length costs as much per row as one row
        alone (measured on 2 cores), so a pair's probabilities never depend on the
        other pairs.
        """
        return self.reader.predict(pairs)

    def clear_cache(self) -> None:
        """Forget the pairs read so far (by every model sharing this folder's session)."""
        self.reader.clear_cache()

    @property
    def reads_focus(self) -> bool:
        """Whether each claim is also read against its focus window (`config.json`)."""
        return bool(self.config["window"].get("focus", False))

    def judge(
        self, claims: Sequence[str], passages: Sequence[str], question: str = ""
    ) -> list[Entailment]:
        """Read each claim against its `top_k` best windows of `passages` (one model call).

        A model that reads passages (`reads_focus`) also reads the claim's focus window
        of the passage that holds most of its content (`focus_window`), unless one of
        the plain windows it reads already holds that window. Given `question`, each
        claim is also read as its answer (`as_answer_to`) against its best plain window,
        in the same call (`Entailment.answered`).

        A claim with no window (all passages blank) gets zero probabilities. An amount
        the window states in other units ("2500 ml" where it says "2.5 litres") is read
        as the window writes it (`checks.quantities.as_written_in`): the model reads meaning,
        not unit conversions.
        """
        spans = [(i, a, b) for i, text in enumerate(passages) for a, b in windows_of(text)]
        texts = [passages[i][a:b] for i, a, b in spans]
        pairs: list[tuple[str, str]] = []
        owners: list[tuple[int, tuple[int, Span]]] = []
        asked: dict[int, int] = {}  # claim -> row of its reading as the answer to `question`

        def read(c: int, where: tuple[int, Span], premise: str, claim: str) -> None:
            pairs.append((premise, as_written_in(claim, premise)))  # amounts as it writes them
            owners.append((c, where))

        for c, claim in enumerate(claims):
            ranked = rank_windows(claim, texts, self.top_k)
            for w in ranked:
                read(c, (spans[w][0], spans[w][1:]), texts[w], claim)
            if self.reads_focus and ranked:
                focus = self._focus(claim, passages, [spans[w] for w in ranked])
                if focus is not None:
                    i, runs = focus
                    premise = " ".join(passages[i][a:b] for a, b in runs)
                    read(c, (i, (runs[0][0], runs[-1][1])), premise, claim)
            if question.strip() and ranked:
                asked[c] = len(pairs)
                w = ranked[0]
                pairs.append((texts[w], as_written_in(as_answer_to(question, claim), texts[w])))
        probs = self.predict(pairs)
        pro: dict[int, tuple[float, tuple[int, Span]]] = {}
        con: dict[int, tuple[float, tuple[int, Span]]] = {}
        answers = set(asked.values())
        plain = [row for row in range(len(pairs)) if row not in answers]
        for (c, where), (p_in, _, p_out) in zip(owners, probs[plain], strict=True):
            if c not in pro or p_in > pro[c][0]:
                pro[c] = (float(p_in), where)
            if c not in con or p_out > con[c][0]:
                con[c] = (float(p_out), where)
        out = []
        for c in range(len(claims)):
            if c not in pro:
                out.append(Entailment(0.0, 0.0, 0, (0, 0), (0, (0, 0))))
                continue
            (entailed, (i, span)), (contradicted, against) = pro[c], con[c]
            answered = float(probs[asked[c]][0]) if c in asked else None
            out.append(Entailment(entailed, contradicted, i, span, against, answered))
        return out

    def _focus(
        self, claim: str, passages: Sequence[str], read: list[tuple[int, int, int]]
    ) -> tuple[int, list[Span]] | None:
        """The claim's focus window `(passage, runs)`, unless a window it reads holds it."""
        best: tuple[float, int, list[Span]] | None = None
        for i, text in enumerate(passages):
            share, runs = focus_window(claim, text)
            if runs and (best is None or share > best[0]):
                best = (share, i, runs)
        if best is None:
            return None
        _, i, runs = best
        if any(p == i and a <= runs[0][0] and runs[-1][1] <= b for p, a, b in read):
            return None
        return i, runs

    def support(self, entailed: float, lexical: float, contradicted: float = 0.0) -> float:
        """The calibrated probability that a claim is supported.

        A logistic model over the log-odds of the model's P(entailment), of the
        lexical scorer's support (`verifiers.scorer`) and of the model's
        P(contradiction), fitted on development data by
        `scripts/entailment_calibrate.py` (`config.json` "stack").
        """
        a, b, c, bias = self._weights
        z = a * _log_odds(entailed) + b * _log_odds(lexical) + c * _log_odds(contradicted) + bias
        return 1.0 / (1.0 + math.exp(-z))

    def lexical_support(self, lexical: float) -> float:
        """The calibrated probability that a claim is supported, without the model.

        A logistic model over the log-odds of the lexical support alone, fitted
        with the stack (`config.json` "cascade" "lexical"); the identity where the
        folder has none.
        """
        weight, bias = self._lexical_weights
        return 1.0 / (1.0 + math.exp(-(weight * _log_odds(lexical) + bias)))


class SharedReader:
    """One onnxruntime session for a model folder, loaded on first use, and a pair cache.

    The probabilities of the pairs read so far are kept, keyed by their content.
    """

    def __init__(self, model_dir: Path, max_length: int, threads: int) -> None:
        self.model_dir, self.max_length, self.threads = model_dir, max_length, threads
        self.pairs_run = 0  # pairs the model has run (not answered from the cache)
        self._load_lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: frozenset[str] = frozenset()  # what the graph takes (MPNet: no token types)
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()

    @property
    def loaded(self) -> bool:
        """Whether the session exists (a pair has been read in this process)."""
        return self._session is not None

    def _load(self) -> None:
        with self._load_lock:
            if self._session is not None:
                return
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tokenizer.enable_truncation(self.max_length, strategy="longest_first")
            tokenizer.no_padding()
            session = cpu_session(self.model_dir / "model.onnx", self.threads)
            self._inputs = frozenset(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def clear_cache(self) -> None:
        """Forget the pairs read so far."""
        with self._cache_lock:
            self._cache.clear()

    def predict(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Probabilities `[n, 3]` per (premise, claim); see `EntailmentModel.predict`."""
        out = np.zeros((len(pairs), 3), dtype=np.float64)
        keys = [_pair_key(p, c) for p, c in pairs]
        todo: dict[bytes, list[int]] = {}
        with self._cache_lock:
            for row, key in enumerate(keys):
                cached = self._cache.get(key)
                if cached is None:
                    todo.setdefault(key, []).append(row)
                else:
                    self._cache.move_to_end(key)
                    out[row] = cached
        if not todo:
            return out
        self._load()
        first = [rows[0] for rows in todo.values()]
        probs = self._run([pairs[r] for r in first])
        with self._cache_lock:
            self.pairs_run += len(first)
            for (key, rows), row_probs in zip(todo.items(), probs, strict=True):
                out[rows] = row_probs
                self._cache[key] = row_probs.copy()
            while len(self._cache) > PAIRS_CACHED:
                self._cache.popitem(last=False)
        return out

    def _run(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        out = np.zeros((len(pairs), 3), dtype=np.float64)
        for row, encoding in enumerate(encode_all(self._tokenizer, pairs, self.threads)):
            ids = np.array([encoding.ids], dtype=np.int64)
            types = np.array([encoding.type_ids], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": types}
            feeds = {k: v for k, v in feeds.items() if k in self._inputs}
            logits = self._session.run(["logits"], feeds)[0][0].astype(np.float64)
            probs = np.exp(logits - logits.max())
            out[row] = probs / probs.sum()
        return out


def _pair_key(premise: str, claim: str) -> bytes:
    data = f"{len(premise)}:{premise}{claim}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16).digest()


_readers: dict[tuple[Path, int, int], SharedReader] = {}
_readers_lock = threading.Lock()


def shared_reader(model_dir: Path, max_length: int, threads: int) -> SharedReader:
    """The process-wide reader of `model_dir` (created on first call; loads on first pair)."""
    key = (Path(model_dir).resolve(), max_length, threads)
    with _readers_lock:
        reader = _readers.get(key)
        if reader is None:
            reader = _readers[key] = SharedReader(key[0], max_length, threads)
        return reader


def _log_odds(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


@lru_cache(maxsize=1)
def default_entailment_model() -> EntailmentModel:
    """The shared shipped model (loaded on first use)."""
    return EntailmentModel()
