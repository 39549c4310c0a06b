"""Windows of a passage a claim is read against: plain windows, and the claim's focus window.

Passages are cut into windows of whole sentences (about `WINDOW_WORDS` words, neighbours
overlapping by about half); `rank_windows` picks a claim's best few by the rare words they
share with it. A claim's focus window (`focus_window`) is its best sentences of a passage
in their own order, each with its neighbours, so that support spread over sentences is
read together. `as_answer_to` is the form a claim is read in as the answer to a question.
The entailment models (`evidence.entailment`) and their training and calibration scripts
cut and rank windows with these same functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from langchain_reliable.text import Span, content_stems, split_passage_sentences

__all__ = [
    "FOCUS_WORDS",
    "WINDOW_WORDS",
    "as_answer_to",
    "focus_window",
    "passage_windows",
    "rank_windows",
    "windows_of",
]

WINDOW_WORDS = 100
"""Words a window holds at most (a longer sentence is a window of its own)."""

FOCUS_WORDS = 160
"""Words a focus window holds at most (the claim's best sentences and their neighbours)."""


@lru_cache(maxsize=4096)
def windows_of(text: str) -> tuple[Span, ...]:
    """`passage_windows` of `text`, kept per text."""
    return tuple(passage_windows(text))


@lru_cache(maxsize=16384)
def _stems_of(window: str) -> frozenset[str]:
    return frozenset(content_stems(window))


@lru_cache(maxsize=4096)
def _sentences_of(text: str) -> tuple[tuple[Span, frozenset[str], int], ...]:
    """Each sentence of `text`: its span, its content stems and its number of words."""
    return tuple(
        ((a, b), _stems_of(text[a:b]), len(text[a:b].split()))
        for a, b in split_passage_sentences(text)
    )


def as_answer_to(question: str, claim: str) -> str:
    """`claim` read as the answer to `question`: "What was asked? What was answered.".

    The form the accurate model is trained on (HaluEval QA, `scripts/entailment_data.py`),
    so that a true statement about the men's race is not read as an answer about the
    women's.

    Example:
        >>> as_answer_to("Who won the women's race?", "Kiptum won in 2:00:35")
        "Who won the women's race? Kiptum won in 2:00:35."
    """
    answer = claim.strip()
    if answer and answer[-1] not in ".!?":
        answer += "."
    return f"{question.strip().rstrip('?').strip()}? {answer}"


def focus_window(claim: str, text: str, words: int = FOCUS_WORDS) -> tuple[float, list[Span]]:
    """The claim's best sentences of `text`, each with its neighbours, in passage order.

    Sentences are taken greedily by the claim's content stems they add (each weighted by
    its rarity among the passage's sentences), each with the sentence before and after it
    where the whole stays within `words` words, until no sentence adds a stem. Returns the
    share of the claim's stem weight the window holds and its runs of adjacent sentences
    as `(start, end)` offsets (empty when no sentence shares a content stem).

    Example:
        >>> text = ("The bridge opened in 1932. Crowds came. Tolls ended in 1950. "
        ...         "Rail traffic grew. Fares rose. It was built by Dorman Long.")
        >>> share, runs = focus_window("Dorman Long built a bridge that opened in 1932.", text)
        >>> [text[a:b] for a, b in runs]
        ['The bridge opened in 1932. Crowds came.', 'Fares rose. It was built by Dorman Long.']
    """
    sentences = _sentences_of(text)
    wanted = set(content_stems(claim))
    n = len(sentences)
    weight = {
        t: math.log(1 + n / df)
        for t in sorted(wanted)
        if (df := sum(t in stems for _, stems, _ in sentences))
    }
    total = sum(weight.values())
    if not total:
        return 0.0, []
    chosen: set[int] = set()
    covered: set[str] = set()
    while True:
        gains = [
            (sum(w for t, w in weight.items() if t in stems and t not in covered), -i)
            for i, (_, stems, _) in enumerate(sentences)
            if i not in chosen
        ]
        gain, best = max(gains, default=(0.0, 0))
        if gain <= 0:
            break
        best = -best
        with_neighbours = chosen | {j for j in (best - 1, best, best + 1) if 0 <= j < n}
        if chosen and sum(sentences[j][2] for j in with_neighbours) > words:
            with_neighbours = chosen | {best}
            if sum(sentences[j][2] for j in with_neighbours) > words:
                break
        chosen = with_neighbours
        covered |= sentences[best][1] & weight.keys()
    runs: list[Span] = []
    for i in sorted(chosen):
        (a, b) = sentences[i][0]
        if runs and i - 1 in chosen:
            runs[-1] = (runs[-1][0], b)
        else:
            runs.append((a, b))
    return sum(weight[t] for t in covered) / total, runs


def passage_windows(text: str, words: int = WINDOW_WORDS) -> list[Span]:
    """Cut `text` into windows of whole sentences, as `(start, end)` offsets.

    A window takes sentences while it holds at most `words` words; the next one
    starts about half a window later, so each sentence is read with its
    neighbours. A passage of `words` words or fewer is one window.
    """
    sentences = split_passage_sentences(text)
    if not sentences:
        return []
    sizes = [len(text[a:b].split()) for a, b in sentences]
    if sum(sizes) <= words:
        return [(sentences[0][0], sentences[-1][1])]
    out: list[Span] = []
    start = 0
    while True:
        end, total = start, 0
        while end < len(sentences) and (end == start or total + sizes[end] <= words):
            total += sizes[end]
            end += 1
        out.append((sentences[start][0], sentences[end - 1][1]))
        if end == len(sentences):
            return out
        step, moved = start, 0
        while step < end - 1 and moved < total / 2:
            moved += sizes[step]
            step += 1
        start = max(step, start + 1)


def rank_windows(claim: str, windows: Sequence[str], k: int) -> list[int]:
    """Indices of the `k` windows sharing the most content with `claim`, best first.

    Shared content stems are weighted by rarity among the windows (idf), so a
    window that holds the claim's rare words wins over one with its common ones.
    Windows sharing no content stem with the claim come only when no window
    shares one (then the first `k`, in passage order).
    """
    sets = [_stems_of(w) for w in windows]
    n = len(windows)
    weight = {
        t: math.log(1 + n / df)
        for t in sorted(set(content_stems(claim)))  # sorted: sums in the same order every run
        if (df := sum(t in s for s in sets))
    }
    scores = [sum(w for t, w in weight.items() if t in s) for s in sets]
    ranked = sorted((i for i in range(n) if scores[i] > 0), key=lambda i: (-scores[i], i))
    return ranked[:k] or list(range(min(k, n)))
