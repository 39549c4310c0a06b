"""Hallucination detectors scored side by side by the evaluation harness.

A detector maps items — a text (a claim or a whole answer) with the passages
it should rest on — to hallucination probabilities in [0, 1], and predicts
"hallucinated" when a score is at or above its fixed ``threshold``. A score
of ``None`` means the detector abstains on that item (the runner skips and
counts it).

Example:
    >>> from langchain_reliable.eval.detectors import LexicalBaseline
    >>> LexicalBaseline().score([("Paris is in France.", ["Paris is the capital of France."])])
    [0.0]

"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol, runtime_checkable

import numpy as np

from langchain_reliable._aio import run_sync
from langchain_reliable.scale import BANDS
from langchain_reliable.schemas import Claim, Passage

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from langchain_reliable.claims.base import ClaimExtractor
    from langchain_reliable.eval.datasets import EvalRecord
    from langchain_reliable.verifiers.base import ClaimVerifier

__all__ = [
    "BaseDetector",
    "Detector",
    "Item",
    "LexicalBaseline",
    "PeerDetector",
    "SeedCosineBaseline",
    "VerifierDetector",
    "peer_names",
]

EvalLevel = Literal["response", "claim"]


class Item(NamedTuple):
    """One thing to judge: a claim or an answer, its passages and, optionally, its record."""

    text: str
    passages: Sequence[str]
    question: str = ""
    record: EvalRecord | None = None


ItemLike = Item | tuple[str, Sequence[str]] | tuple[str, Sequence[str], str]


def as_item(item: ItemLike) -> Item:
    """Accept ``(text, passages)``, ``(text, passages, question)`` or an `Item`."""
    if isinstance(item, Item):
        return item
    if isinstance(item, tuple) and len(item) in (2, 3) and isinstance(item[0], str):
        return Item(*item)
    raise TypeError(f"expected (text, passages) or an Item, got {type(item).__name__}")


@runtime_checkable
class Detector(Protocol):
    """Scores items with a hallucination probability (``None`` = abstain)."""

    name: str
    threshold: float

    async def ascore(self, items: Sequence[ItemLike]) -> list[float | None]:
        """Score ``items`` in order."""
        ...


class BaseDetector:
    """Shared helpers: a synchronous `score` and a fixed `threshold`."""

    name: str = "detector"
    threshold: float = 0.5

    async def ascore(self, items: Sequence[ItemLike]) -> list[float | None]:
        """Score ``items`` in order."""
        raise NotImplementedError

    def score(self, items: Sequence[ItemLike]) -> list[float | None]:
        """Run `ascore` synchronously."""
        return run_sync(self.ascore(items))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, threshold={self.threshold})"


@dataclass(eq=False, repr=False)
class VerifierDetector(BaseDetector):
    """Runs a `ClaimVerifier`: the detector of this package.

    At ``level="claim"`` each item's text is verified as one claim; the score
    is ``1 - verdict.score``. At ``level="response"`` the extractor splits the
    text into claims; the score is the highest ``1 - verdict.score`` over them
    (0 when there is no claim). Items run concurrently, at most
    ``concurrency`` at a time.

    Counts accumulate in ``stats``: ``items``, ``claims``, ``no_claims``,
    ``uncertain`` (claims labelled uncertain) and ``errors`` (items whose
    verifier or extractor reported an error); ``error_messages`` counts each
    error message (cut to 200 characters).

    Args:
        verifier: The claim verifier.
        extractor: The claim extractor; required at response level.
        level: ``"response"`` or ``"claim"``.
        concurrency: Items verified at the same time.
        threshold: Hallucinated when score >= threshold; by default the verifier's own
            decision: a claim under the ``supported`` band of the claim scale
            (`langchain_reliable.scale`), just above ``1 - 0.9``.
        name: Display name; defaults to the verifier's name.

    """

    verifier: ClaimVerifier
    extractor: ClaimExtractor | None = None
    level: EvalLevel = "response"
    _: KW_ONLY
    concurrency: int = 8
    threshold: float = math.nextafter(1.0 - BANDS["supported"][0], 1.0)
    name: str = ""
    stats: Counter[str] = field(default_factory=Counter, init=False)
    error_messages: Counter[str] = field(default_factory=Counter, init=False)

    def __post_init__(self) -> None:
        if self.level not in ("response", "claim"):
            raise ValueError(f"level must be 'response' or 'claim', got {self.level!r}")
        if self.level == "response" and self.extractor is None:
            raise ValueError("a claim extractor is needed at response level")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {self.concurrency}")
        self.name = self.name or getattr(self.verifier, "name", type(self.verifier).__name__)

    async def ascore(self, items: Sequence[ItemLike]) -> list[float | None]:
        """Verify each item; see the class docstring for the score."""
        gate = asyncio.Semaphore(self.concurrency)

        async def one(item: Item) -> float:
            async with gate:
                return await self._score_one(item)

        return list(await asyncio.gather(*(one(as_item(i)) for i in items)))

    async def _score_one(self, item: Item) -> float:
        self.stats["items"] += 1
        passages = Passage.all_from(item.passages)
        errors: list[str] = []
        if self.level == "claim":
            claims = [Claim(text=item.text, span=(0, len(item.text)))]
        else:
            assert self.extractor is not None
            extracted = await self.extractor.aextract(item.text, item.question)
            claims = list(extracted.claims)
            errors.extend(extracted.errors)
        if not claims:
            self.stats["no_claims"] += 1
            self._count_errors(errors)
            return 0.0
        result = await self.verifier.averify(claims, passages, item.question)
        if len(result.verdicts) != len(claims):
            raise ValueError(
                f"verifier {self.name!r} returned {len(result.verdicts)} verdicts "
                f"for {len(claims)} claims"
            )
        errors.extend(result.errors)
        self.stats["claims"] += len(claims)
        self.stats["uncertain"] += sum(v.label == "uncertain" for v in result.verdicts)
        self._count_errors(errors)
        return max(1.0 - v.score for v in result.verdicts)

    def _count_errors(self, errors: list[str]) -> None:
        if errors:
            self.stats["errors"] += 1
            self.error_messages.update(e[:200] for e in errors)


_STOPWORD_TEXT = """
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can cannot could couldn d did didn do does doesn doing don
    down during each few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how i if in into is isn it its itself just ll m me more most mustn
    my myself no nor not now o of off on once only or other our ours ourselves out over own re
    s same shan she should shouldn so some such t than that the their theirs them themselves
    then there these they this those through to too under until up ve very was wasn we were
    weren what when where which while who whom why will with won would wouldn y you your yours
    yourself yourselves also may might must shall would us one
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_TOKEN = re.compile(r"[a-z0-9]+")


def content_words(text: str) -> list[str]:
    """Lowercase alphanumeric tokens of ``text`` without English stopwords."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOPWORDS]


class LexicalBaseline(BaseDetector):
    """Share of the text's content words that appear nowhere in the passages.

    Tokens are lowercase alphanumeric runs; English stopwords are removed.
    A text without content words scores 0. Threshold fixed at 0.5.
    """

    name = "lexical"
    threshold = 0.5

    async def ascore(self, items: Sequence[ItemLike]) -> list[float | None]:
        """Score each item by its share of content words absent from its passages."""
        scores: list[float | None] = []
        for raw in items:
            item = as_item(raw)
            words = content_words(item.text)
            if not words:
                scores.append(0.0)
                continue
            known = set(content_words(" ".join(item.passages)))
            scores.append(sum(w not in known for w in words) / len(words))
        return scores


_SENTENCE_END = re.compile(r"(?<=[.!?][\"')\]])\s+|(?<=[.!?])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """Split ``text`` after ``.``, ``!`` or ``?`` followed by space, and on line breaks."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def cosine_to_score(cosine: float, cut: float = 0.5) -> float:
    """Map a support cosine to a hallucination score; ``cut`` maps to 0.5.

    Piecewise linear and decreasing: cosine 1 -> 0, ``cut`` -> 0.5, -1 -> 1,
    so ranks (and the AUROC) are those of the raw cosine.
    """
    c = min(1.0, max(-1.0, cosine))
    if c >= cut:
        return 0.5 * (1.0 - c) / (1.0 - cut)
    return 0.5 + 0.5 * (cut - c) / (cut + 1.0)


class SeedCosineBaseline(BaseDetector):
    """The seed design's method ("LLM Reliability Engine"): embedding similarity.

    Each claim — the text itself at claim level, its sentences at response
    level — is supported when its highest cosine similarity with a passage
    reaches ``cut`` (0.5). The response is hallucinated when any claim is
    unsupported. The score maps the lowest per-claim maximum cosine through
    `cosine_to_score`, so threshold 0.5 is exactly cosine ``cut``. Passage
    embeddings are cached by content.

    Args:
        embeddings: A LangChain `Embeddings` (the seed used all-MiniLM-L6-v2).
        level: ``"response"`` (split into sentences) or ``"claim"``.
        cut: Cosine below which a claim is unsupported.

    """

    threshold = 0.5

    def __init__(self, embeddings: Embeddings, level: EvalLevel = "response", cut: float = 0.5):
        if level not in ("response", "claim"):
            raise ValueError(f"level must be 'response' or 'claim', got {level!r}")
        self.embeddings = embeddings
        self.level = level
        self.cut = cut
        self.name = "seed-cosine"
        self._cache: dict[str, np.ndarray] = {}

    async def ascore(self, items: Sequence[ItemLike]) -> list[float | None]:
        """Embed claims and passages (one call each per batch) and score every item."""
        parsed = [as_item(i) for i in items]
        claims = [
            [item.text.strip()] if self.level == "claim" else split_sentences(item.text)
            for item in parsed
        ]
        claims = [[c for c in cs if c] for cs in claims]
        wanted = (p for item in parsed for p in item.passages if p not in self._cache)
        new = list(dict.fromkeys(wanted))
        if new:
            vectors = await self.embeddings.aembed_documents(new)
            self._cache.update(zip(new, _unit_rows(vectors), strict=True))
        flat = [c for cs in claims for c in cs]
        claim_vectors = _unit_rows(await self.embeddings.aembed_documents(flat)) if flat else None
        scores: list[float | None] = []
        start = 0
        for item, cs in zip(parsed, claims, strict=True):
            if not cs:
                scores.append(0.0)
                continue
            if not item.passages:
                scores.append(1.0)
                start += len(cs)
                continue
            assert claim_vectors is not None
            vecs = claim_vectors[start : start + len(cs)]
            start += len(cs)
            passages = np.stack([self._cache[p] for p in item.passages])
            support = float((vecs @ passages.T).max(axis=1).min())
            scores.append(cosine_to_score(support, self.cut))
        return scores


def _unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    """Rows scaled to unit length (zero rows left as they are)."""
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0.0, 1.0, norms)


class PeerDetector(BaseDetector):
    """A published detector's prediction stored in FaithBench records.

    Reads ``record.meta["peer_hallucinated"][peer]`` as a 0/1 score; items
    without a record or without that prediction are skipped (``None``).
    ``stats["skipped"]`` counts them.

    Args:
        peer: Key in ``peer_hallucinated`` (e.g. ``"gpt-4-turbo"``).

    """

    threshold = 0.5

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.name = f"peer:{peer}"
        self.stats: Counter[str] = Counter()

    async def ascore(self, items: Sequence[ItemLike]) -> list[float | None]:
        """Look each item's record up; ``None`` where the prediction is missing."""
        scores: list[float | None] = []
        for raw in items:
            record = as_item(raw).record
            value = None if record is None else record.peer_hallucinated.get(self.peer)
            if isinstance(value, bool):
                scores.append(float(value))
            else:
                self.stats["skipped"] += 1
                scores.append(None)
        return scores


def peer_names(records: Sequence[EvalRecord]) -> list[str]:
    """Names of the published detectors found in ``records``, in first-seen order."""
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record.peer_hallucinated))
    return list(names)
