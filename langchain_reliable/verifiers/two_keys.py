"""The two-key verifier: the evidence grounds a claim and the entailment model entails it.

`verifier="accurate"` (the mpnet model) and `verifier="fast"` (MiniLM). A claim is
`supported` only when the lexical evidence grounds it (the scorer's support at the
grounding bar, and no rule vetoes it) **and** the entailment model reads the evidence as
entailing it (P(entailed) at the entailment bar): the score is the weaker key, each on one
scale by its own bar (`evidence.keys`), so overlap never outvotes "not entailed". The
model reads every claim of an answer in one call, except an exact copy of whole passage
sentences and a claim a rule vetoes. Each reason says what each key read against its bar;
`ClaimVerdict.keys` holds the numbers. The bars are fitted by
`scripts/two_keys_calibrate.py`, each dev file left out. The verifier's `name` is its
tier ("accurate", "fast").

Example:
    ```python
    from langchain_reliable.evidence.entailment import default_entailment_model
    from langchain_reliable.schemas import Claim, Passage
    from langchain_reliable.verifiers.two_keys import TwoKeysVerifier

    verifier = TwoKeysVerifier(entailment=default_entailment_model())
    passages = [Passage(index=0, text="Metformin is contraindicated in severe kidney disease.")]
    claim = "Metformin is safe in severe kidney disease."
    verifier.verify([Claim(text=claim, span=(0, len(claim)))], passages).verdicts[0].label
    ```
"""

from __future__ import annotations

from typing import Any

from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.entailment import Entailment, EntailmentReader, read_claims
from langchain_reliable.evidence.keys import SUPPORTED_AT, Keys, exact_copy
from langchain_reliable.evidence.probe import EmbeddedEntailment
from langchain_reliable.evidence.select import clamp_score
from langchain_reliable.schemas import (
    Claim,
    ClaimVerdict,
    Evidence,
    KeysRead,
    Passage,
    passage_name,
)
from langchain_reliable.verifiers.grounds import quoted_window
from langchain_reliable.verifiers.local import LocalVerifier, _features, _signals
from langchain_reliable.verifiers.scorer import ClaimFeatures

__all__ = ["TwoKeysVerifier"]


class TwoKeysVerifier(LocalVerifier):
    """The local verifier with two keys: every claim that is not a copy is read by the model.

    Args:
        entailment: The entailment model (an `EntailmentReader`; required).
        keys: The two bars; default: the model's calibrated ones (`config.json` "keys").
        supported_at: Where both bars sit on the score's scale (default 0.5).
        **kwargs: As `LocalVerifier` (selector, scorer, rules, ...).
    """

    def __init__(
        self,
        *,
        entailment: EntailmentReader,
        keys: Keys | None = None,
        supported_at: float = SUPPORTED_AT,
        **kwargs: Any,
    ) -> None:
        if not isinstance(entailment, EntailmentReader):
            raise TypeError(
                "entailment must be an EntailmentReader (judge, support, lexical_support, "
                f"threshold, band), got {type(entailment).__name__}"
            )
        super().__init__(entailment=entailment, supported_at=supported_at, **kwargs)
        self.keys: Keys = keys or getattr(entailment, "keys", None) or Keys(0.5, 0.5)
        """The two bars (grounded, entailed)."""
        self.name = str(getattr(entailment, "tier", "fast"))
        """The tier that judges: "accurate" (mpnet) or "fast" (MiniLM)."""

    @property
    def _vetoed_below_bar(self) -> float:
        """The most a claim a rule vetoes scores: the keys' cap, under `supported_at`."""
        return max(0.0, min(self.keys.vetoed, self.supported_at - 0.05))

    def _judge_explained(
        self, claims: list[Claim], passages: list[Passage], question: str = ""
    ) -> list[tuple[ClaimVerdict, ClaimFeatures]]:
        """The judging step: scores and labels before the rules (the template applies them).

        The lexical evidence scores every claim (the first key); the entailment model
        reads, in one batch, every claim that is neither an exact copy of passage text
        nor vetoed by a rule (the second key).
        """
        facts = self.facts.answer(passages).claims(claims)
        features = [_features(f) for f in facts]
        lexical = [clamp_score(float(self.scorer(x))) for x in features]
        texts = [p.text for p in passages]
        copied = [exact_copy(f.text, texts) for f in facts]
        read: list[Entailment | None] = [None] * len(claims)
        asked = [i for i, f in enumerate(facts) if copied[i] is None and self.asks_model(f)]
        if asked:
            assert self.entailment is not None
            asked_texts = [claims[i].text for i in asked]
            got = read_claims(self.entailment, asked_texts, texts, question)
            for i, e in zip(asked, got, strict=True):
                read[i] = e
            if isinstance(self.entailment_probe, EmbeddedEntailment):  # the rules read it too
                self.entailment_probe.remember(asked_texts, texts, got)
        return [
            self._verdict(*row, passages)
            for row in zip(claims, facts, copied, features, lexical, read, strict=True)
        ]

    def asks_model(self, facts: ClaimFacts, alone: float = 0.0) -> bool:
        """Whether the entailment model must read a claim: always, unless a rule vetoes it."""
        return self.entailment is not None and self.rules.first_finding(facts) is None

    def _verdict(
        self,
        claim: Claim,
        facts: ClaimFacts,
        copied: int | None,
        features: ClaimFeatures,
        lexical: float,
        read: Entailment | None,
        passages: list[Passage],
    ) -> tuple[ClaimVerdict, ClaimFeatures]:
        window: Evidence | None = None
        entailed = None if copied is not None else (read.entailed if read else 0.0)
        score = self.keys.score(lexical, entailed, self.supported_at)
        keys = KeysRead(
            grounded=round(lexical, 6),
            entailed=None if entailed is None else round(entailed, 6),
            contradicted=round(read.contradicted, 6) if read else None,
            exact_copy=copied is not None,
            answered=None if read is None or read.answered is None else round(read.answered, 6),
        )
        if read is not None:
            window = quoted_window(passages, read.passage, read.span, read.entailed, claim.text)
        details = _signals(features, facts.surface, facts.ctx.stems)
        details += self._keys_note(lexical, copied, read, passages)
        label, reason, score, against = self._label(claim, facts, read, score, passages)
        if against is not None and read is not None:  # the model reads it contradicted
            window = against
            details += f"; P(contradiction) {read.contradicted:.2f}"
        elif label == "supported" and copied is not None:  # no model needed to read a copy
            reason = f"supported by {facts.where} (word for word)"
        verdict = self._settled(
            claim, facts, label, score, reason, window, keys=keys, details=details
        )
        return verdict, features

    def _keys_note(
        self,
        lexical: float,
        copied: int | None,
        read: Entailment | None,
        passages: list[Passage],
    ) -> str:
        """What the reason says each key read, against its bar."""
        grounded = f"; grounded: lexical support {lexical:.2f} (bar {self.keys.grounded:.2f})"
        if copied is not None:
            p = passages[copied]
            return f"{grounded}; entailed: an exact copy of {passage_name(p.index, p.id)}"
        if read is None:
            return f"{grounded}; entailed: not read (a rule decides the claim)"
        return (
            f"{grounded}; entailed: P(entailed) {read.entailed:.2f} "
            f"(bar {self.keys.entailed:.2f}, {self.name} entailment model)"
        )
