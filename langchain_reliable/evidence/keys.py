"""Two keys: a claim is supported only when the evidence grounds it and the model entails it.

The first key is the lexical and dense evidence: the verifier's lexical support (the
`verifiers.scorer` probability) must reach the grounding bar, and no rule may veto the
claim. The second is the entailment model's reading: its best P(entailed) over the
claim's windows must reach the entailment bar. Neither key outvotes the other: the score
is the weaker of the two, each put on one scale by its own bar (`put_at_bar`), so a claim
passes `supported_at` only when both keys do. The one claim the model need not read is
an exact copy of passage text (`exact_copy`): case, whitespace, quotes and punctuation
aside, every word the passage's, in its order, none added or dropped, and whole
sentences of it (a span cut from inside a sentence can drop what frames it: "It is false
that …", "… only in mice").

The bars are fitted on the dev files by `scripts/two_keys_calibrate.py` (`config.json`
"keys" of each model).

Example:
    ```python
    from langchain_reliable.evidence.keys import Keys, exact_copy

    keys = Keys(grounded=0.3, entailed=0.5)
    keys.score(grounded=0.9, entailed=0.2)  # 0.2: below the entailment bar, not supported
    exact_copy("the Treaty was signed in 1919", ["The treaty was signed in 1919."])  # 0
    exact_copy("drug X reduces mortality", ["It is false that drug X reduces mortality."])  # None
    ```
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_reliable.text import BARE_WORD, split_passage_sentences

__all__ = ["SUPPORTED_AT", "Keys", "exact_copy", "put_at_bar"]

SUPPORTED_AT = 0.5
"""Where both keys' bars sit on the verdict's scale (the default `supported_at`)."""

_CITATION = re.compile(r"\[\d+(?:\s*[,-]\s*\d+)*\]")


def put_at_bar(value: float, bar: float, at: float = SUPPORTED_AT) -> float:
    """`value` put on the verdict's scale: piecewise linear, `bar` mapped to `at`, 0 and 1 kept."""
    value = min(max(float(value), 0.0), 1.0)
    if bar <= 0.0:
        return at + (1.0 - at) * value
    if bar >= 1.0:
        return at * value
    if value < bar:
        return at * value / bar
    return at + (1.0 - at) * (value - bar) / (1.0 - bar)


@dataclass(frozen=True)
class Keys:
    """The two bars: lexical support that grounds a claim, P(entailed) that entails it.

    `vetoed` is the most a claim a rule vetoes scores, on the verdict's scale.
    """

    grounded: float
    entailed: float
    vetoed: float = 0.3

    def __post_init__(self) -> None:
        for name in ("grounded", "entailed", "vetoed"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"the {name} bar must be within 0-1, got {value!r}")

    def score(self, grounded: float, entailed: float | None, at: float = SUPPORTED_AT) -> float:
        """The weaker key on the verdict's scale (`entailed` None: an exact copy, read as 1)."""
        model = 1.0 if entailed is None else put_at_bar(entailed, self.entailed, at)
        return min(put_at_bar(grounded, self.grounded, at), model)


def _words(text: str) -> list[str]:
    """The words of `text`, case and compatibility forms folded, punctuation dropped."""
    return BARE_WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def exact_copy(claim: str, passages: Sequence[str]) -> int | None:
    """The index of the passage whose whole sentences `claim` copies word for word, else `None`.

    Case, whitespace, quotes, punctuation and citation marks ("[1]") are not words; a
    word changed, added or dropped is, and so is a copy that starts or ends inside a
    sentence. A claim of fewer than three words is never a copy.
    """
    words = _words(_CITATION.sub(" ", claim))
    if len(words) < 3:
        return None
    for i, passage in enumerate(passages):
        if " ".join(words) not in " ".join(_words(passage)):
            continue  # most passages end here
        sentences = [_words(passage[a:b]) for a, b in split_passage_sentences(passage)]
        for start in range(len(sentences)):
            run: list[str] = []
            for sentence in sentences[start:]:
                run += sentence
                if len(run) >= len(words):
                    break
            if run == words:
                return i
    return None
