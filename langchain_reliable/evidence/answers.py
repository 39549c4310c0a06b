"""An answer's passages cut once and its claims read together: `AnswerFacts`, `AnswerCache`.

`AnswerFacts` cuts an answer's passages once (with what their references name, when the
verifier gives a reader of them) and reads its claims in one selector call;
`AnswerCache` keeps the last few answers' facts, so that a verifier's judging step and
the rules after it share the work.

Example:
    ```python
    from langchain_reliable.evidence.answers import AnswerCache
    from langchain_reliable.schemas import Passage

    passages = [Passage(index=0, text="Elvis Presley was born in Tupelo in 1935.")]
    AnswerCache().answer(passages).claims(["Elvis was born in 1936."])[0].anchor  # 0
    ```
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.facts import PassageFacts, Referent
from langchain_reliable.evidence.index import Unit
from langchain_reliable.evidence.select import EvidenceSelector
from langchain_reliable.schemas import Claim, Passage

__all__ = ["AnswerCache", "AnswerFacts"]


class AnswerFacts:
    """The passages of one answer, cut once, and its claims read against them.

    `claims()` reads a list of claims in one selector call and keeps the result per
    list: a verifier's judging step and the rules that follow it share the work.
    """

    def __init__(
        self,
        passages: Sequence[Passage],
        selector: EvidenceSelector,
        readers: Sequence[Any] = (),
        referents: Callable[[str], Sequence[Referent]] | None = None,
    ) -> None:
        self.passages = list(passages)
        self.selector = selector
        self.readers = readers
        self.indexes = selector.indexes(self.passages)
        self.units: list[Unit] = list(selector.units(self.passages, self.indexes))
        read = [referents(p.text) for p in self.passages] if referents else None
        self.ctx = PassageFacts(self.passages, self.units, self.indexes, read)
        self._read: dict[tuple[tuple[str, ...], tuple[bool, ...]], list[ClaimFacts]] = {}

    def claims(self, claims: Sequence[Claim | str]) -> list[ClaimFacts]:
        """The facts of each claim, in order (the selector reads them together, once)."""
        texts = tuple(c.text if isinstance(c, Claim) else c for c in claims)
        sides = tuple(isinstance(c, Claim) and c.side for c in claims)
        read = self._read.get((texts, sides))
        if read is None:
            found = self.selector.select(
                list(texts), self.passages, units=self.units, indexes=self.indexes
            )
            read = [
                ClaimFacts(f, self.ctx, side, self.readers)
                for f, side in zip(found, sides, strict=True)
            ]
            self._read[(texts, sides)] = read
        return read


class AnswerCache:
    """The facts of the last few answers' passages, shared by a verifier and its rules.

    Args:
        selector: The evidence selector that reads claims against passages (default:
            the embedded offline one, made on first use).
        readers: The rules whose `reads` the claims' `read_by_rules` gathers (set by
            the `rules.Rules` that shares this cache).
        referents: Reads a passage's clauses that open with a reference ("it", "the
            latter") and what each names (the verifier gives the claims' own reader).
    """

    _CACHED = 16  # answers whose facts are kept

    def __init__(
        self,
        selector: EvidenceSelector | None = None,
        readers: Sequence[Any] = (),
        referents: Callable[[str], Sequence[Referent]] | None = None,
    ) -> None:
        self.selector = selector
        self.readers = readers
        self.referents = referents
        self._answers: OrderedDict[tuple[Passage, ...], AnswerFacts] = OrderedDict()
        self._lock = threading.Lock()

    def answer(self, passages: Sequence[Passage]) -> AnswerFacts:
        """The facts of an answer's passages (kept for the last few answers)."""
        key = tuple(passages)
        with self._lock:
            facts = self._answers.get(key)
            if facts is not None:
                self._answers.move_to_end(key)
                return facts
        if self.selector is None:
            self.selector = EvidenceSelector()
        facts = AnswerFacts(passages, self.selector, self.readers, self.referents)
        with self._lock:
            self._answers[key] = facts
            while len(self._answers) > self._CACHED:
                self._answers.popitem(last=False)
        return facts
