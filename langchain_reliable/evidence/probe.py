"""The entailment model as the rules and the verifiers read it: one batched call, reads remembered.

A rule that needs the model (`rules.ModelRule`) asks `EntailmentProbe.entailment` for
every asking claim of an answer at once; `EmbeddedEntailment` answers over the embedded
entailment model, and what the verifier's own judging step already read is answered as
read, so a rule sees the very numbers the verdict rests on. The model itself loads only
when first read: importing this module loads no model tier.

Example:
    ```python
    from langchain_reliable.evidence.probe import EmbeddedEntailment

    probe = EmbeddedEntailment()  # the default verifier's entailment model, on first use
    probe.entailment(["Paris is in France."], ["Paris is the capital of France."])
    ```
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["EmbeddedEntailment", "EntailmentProbe"]


@runtime_checkable
class EntailmentProbe(Protocol):
    """A verifier's entailment model, as a rule reads it (one batched call per answer)."""

    def entailment(self, claims: Sequence[str], passages: Sequence[str]) -> list[float]:
        """P(entailed) of each claim by `passages` (its best window or sentence)."""
        ...


class _Judges(Protocol):
    def judge(self, claims: Sequence[str], passages: Sequence[str]) -> Sequence[Any]: ...


class EmbeddedEntailment:
    """An `EntailmentProbe` over the embedded model (`entailment.EntailmentModel`).

    P(entailed) is the model's best over the claim's windows of the passages. The
    default model is the default verifier's (`accurate.default_arbiter`: the shipped small
    model, or the accurate one where it is the arbiter), loaded on first use. What the
    verifier's own judging step read (`remember`) is answered as read, so a rule sees the very
    numbers the verdict rests on.
    """

    _KEPT = 4096  # reads remembered, the oldest forgotten first

    def __init__(self, model: _Judges | None = None) -> None:
        self._model = model
        self._read: OrderedDict[tuple[str, tuple[str, ...]], float] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model(self) -> _Judges:
        """The model read (the default verifier's, loaded on first use)."""
        if self._model is not None:
            return self._model
        from langchain_reliable.evidence.accurate import default_arbiter

        return default_arbiter()

    def remember(
        self, claims: Sequence[str], passages: Sequence[str], reads: Sequence[Any]
    ) -> None:
        """Keep what the judging step read (`Entailment`s) for these claims and passages."""
        key = tuple(passages)
        with self._lock:
            for claim, read in zip(claims, reads, strict=True):
                self._read[(claim, key)] = float(read.entailed)
                self._read.move_to_end((claim, key))
            while len(self._read) > self._KEPT:
                self._read.popitem(last=False)

    def entailment(self, claims: Sequence[str], passages: Sequence[str]) -> list[float]:
        """P(entailed) of each claim by `passages`: as read before, else in one model call."""
        key = tuple(passages)
        with self._lock:
            known = {c: self._read[(c, key)] for c in claims if (c, key) in self._read}
        unread = [c for c in claims if c not in known]
        if unread:
            reads = self.model.judge(unread, passages)
            known |= {c: float(r.entailed) for c, r in zip(unread, reads, strict=True)}
        return [known[c] for c in claims]
