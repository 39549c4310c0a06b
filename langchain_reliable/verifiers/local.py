"""The embedded offline verifier: a learned entailment model, lexical evidence, and the rules.

For each claim the `EvidenceSelector` finds the passage sentences that bear on it
(BM25 and dense cosine, fused), and the entailment model (`langchain_reliable.entailment`,
a cross-encoder shipped as int8 ONNX, trained on NLI pairs and minimal edits of passages)
reads the claim against its best windows of the passages. The verdict rests on:

1. **entailment**: the model's highest P(entailment) over the claim's windows, and its
   highest P(contradiction);
2. **lexical evidence**: the best cosine between the claim and a passage unit, and the
   share of the claim's content words found in the best unit and anywhere in the
   context, turned into a support probability by a `SupportScorer` (`verifiers.scorer`;
   `LogisticScorer.learned()` by default, trained without gold labels by
   `scripts/train_verifier.py`);
3. **the rules** (`langchain_reliable.rules`, run after this judging step as after every
   verifier's): a question, a number, date or bound the sentence states otherwise, a
   flipped negation, a number or name no passage holds, a changed meaning
   (`rules.meaning`), an unstated qualifier or a swapped word the model does not vouch
   for vetoes `supported` with a readable reason.

The score is a logistic stack of the log-odds of 1 (both probabilities) and 2, fitted
on development data by `scripts/entailment_calibrate.py` (`EntailmentModel.support`);
the default `supported_at` is the threshold chosen there. A claim the model reads as
contradicted (P(contradiction) at least 0.6 and above P(entailment), score under the
threshold) is `contradicted`, with the window as quote. `entailment=False` (the verifier
spec `"lexical"`) is the lexical verifier alone (`supported_at` 0.65).

Everything is deterministic and runs offline on the embedded model. Example:

```python
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.local import LocalVerifier

verifier = LocalVerifier()
passages = [Passage(index=0, text="The Treaty of Versailles was signed on 28 June 1919.")]
claims = [Claim(text="The treaty was signed in 1920.", span=(0, 30))]
verifier.verify(claims, passages).verdicts[0].label  # 'contradicted'
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_reliable.entailment import Entailment, EntailmentModel, default_entailment_model
from langchain_reliable.evidence import EvidenceSelector, clamp_score
from langchain_reliable.rules import ClaimFacts, EmbeddedEntailment, MeaningRule, Rule, Rules
from langchain_reliable.schemas import Claim, ClaimVerdict, Evidence, Label, Passage
from langchain_reliable.verifiers.base import BlockingVerifier, as_rules
from langchain_reliable.verifiers.scorer import ClaimFeatures, LogisticScorer, SupportScorer

__all__ = ["LocalVerifier"]

_CONTRADICTED_AT = 0.6  # the entailment model's P(contradiction) that makes a claim contradicted


class LocalVerifier(BlockingVerifier):
    """Judges claims offline with the embedded MiniLM model and lexical checks.

    Args:
        embeddings: Encoder with `encode(texts)` (e.g. `LocalEmbeddings`); `None`
            uses the package's shared embedded model.
        supported_at: Scores at or above this are `supported`; default: the
            entailment model's calibrated threshold (0.65 without the model).
        unsupported_below: Scores below this are `unsupported` (or `contradicted`
            when a rule found a contradiction); scores in between are `uncertain`.
            Default: `supported_at - 0.3`.
        k: Evidence quotes kept per claim (at most 3 are reported).
        scorer: Maps `ClaimFeatures` to a support probability; defaults to
            `LogisticScorer.learned()` (the shipped learned weights);
            `LogisticScorer()` gives the hand-set weights.
        selector: The evidence selector; built from `embeddings` and `k` if omitted.
        meaning_checks: Keep the meaning rules (`rules.MeaningRule`) in the rules this
            verifier runs after judging.
        rules: The rules run after judging (`Rules` or a list of `Rule`s); default
            `rules.DEFAULT_RULES`.
        entailment: The entailment model: `True` (default) the shipped one, an
            `EntailmentModel` of your own, or `False` for the lexical verifier alone.

    Example:
        ```python
        verifier = LocalVerifier()
        result = await verifier.averify(claims, passages)
        [(v.label, v.reason) for v in result.verdicts]
        ```

    """

    name = "local"
    concurrent = True  # the caches are thread-safe and onnxruntime sessions run in parallel

    def __init__(
        self,
        embeddings: Any | None = None,
        *,
        supported_at: float | None = None,
        unsupported_below: float | None = None,
        k: int = 3,
        scorer: SupportScorer | None = None,
        selector: EvidenceSelector | None = None,
        meaning_checks: bool = True,
        entailment: EntailmentModel | bool = True,
        rules: Rules | Sequence[Rule] | None = None,
    ) -> None:
        if entailment is True:
            entailment = default_entailment_model()
        self.entailment: EntailmentModel | None = entailment or None
        if supported_at is None:
            supported_at = self.entailment.threshold if self.entailment else 0.65
        if unsupported_below is None:
            unsupported_below = max(0.0, supported_at - 0.3)
        if not 0.0 <= unsupported_below <= supported_at <= 1.0:
            raise ValueError(
                "need 0 <= unsupported_below <= supported_at <= 1, got "
                f"{unsupported_below!r} and {supported_at!r}"
            )
        self.supported_at = float(supported_at)
        self.unsupported_below = float(unsupported_below)
        self.scorer: SupportScorer = scorer or LogisticScorer.learned()
        self.selector = selector or EvidenceSelector(embeddings, k=min(max(k, 1), 3))
        self.meaning_checks = meaning_checks
        given = as_rules(rules, self.selector) or Rules(selector=self.selector)
        kept = [r for r in given.rules if meaning_checks or not isinstance(r, MeaningRule)]
        self.rules = Rules(kept, given.selector or self.selector)
        self.entailment_probe = EmbeddedEntailment(self.entailment) if self.entailment else None
        super().__init__()

    @property
    def vetoed_score(self) -> float:
        """The highest score a claim keeps when a rule vetoes it."""
        return self.unsupported_below / 2.0

    # -- the work -----------------------------------------------------------

    def explain(
        self, claims: Sequence[Claim], passages: Sequence[Passage]
    ) -> list[tuple[ClaimVerdict, ClaimFeatures | None]]:
        """Judge `claims` and return each verdict with the features it rests on.

        The features are `None` for a claim judged without them (no passage).
        The verdicts have passed the rules, as `verify`'s do; unlike `verify`,
        errors propagate. Used to train and inspect the scorer.
        """
        claims, passages, early = self._open(claims, passages)
        if early is not None:
            return [(v, None) for v in early.verdicts]
        explained = self._judge_explained(claims, passages)
        verdicts = self.rules.review(
            [v for v, _ in explained],
            claims,
            passages,
            capped_score=self.vetoed_score,
            model=self.entailment_probe,
        )
        return [(v, f) for v, (_, f) in zip(verdicts, explained, strict=True)]

    def _judge(self, claims: list[Claim], passages: list[Passage]) -> list[ClaimVerdict]:
        return [verdict for verdict, _ in self._judge_explained(claims, passages)]

    def _judge_explained(
        self, claims: list[Claim], passages: list[Passage]
    ) -> list[tuple[ClaimVerdict, ClaimFeatures]]:
        """The judging step: scores and labels before the rules (the template applies them)."""
        facts = self.rules.answer(passages).claims(claims)
        read: list[Entailment | None] = [None] * len(claims)
        if self.entailment is not None:
            read = list(self.entailment.judge([c.text for c in claims], [p.text for p in passages]))
        return [
            self._verdict(c, f, e, passages) for c, f, e in zip(claims, facts, read, strict=True)
        ]

    def _verdict(
        self,
        claim: Claim,
        facts: ClaimFacts,
        read: Entailment | None,
        passages: list[Passage],
    ) -> tuple[ClaimVerdict, ClaimFeatures]:
        ctx, anchor, cosine = facts.ctx, facts.anchor, facts.cosine
        missing_numbers, conflict = facts.numbers
        features = ClaimFeatures(
            similarity=clamp_score(float(cosine.max())),
            coverage_best=float(facts.coverage.max()),
            coverage_context=_share(facts.stems, ctx.stems),
            missing_numbers=len(missing_numbers),
            missing_names=len(facts.missing_names),
            number_conflict=conflict is not None,
            negation_flip=facts.negation_flip,
            novel_words=sum(s not in ctx.stems for s in facts.stems),
            weighted_coverage=ctx.weighted_share(facts.stems),
            bigram_coverage=ctx.bigram_share(facts.stems),
            anchor_similarity=clamp_score(float(cosine[anchor])),
            claim_words=len(facts.stems),
        )
        score = clamp_score(float(self.scorer(features)))
        where, signals = facts.where, _signals(features, facts.surface, ctx.stems)
        window: Evidence | None = None
        if read is not None and self.entailment is not None:
            score = clamp_score(self.entailment.support(read.entailed, score, read.contradicted))
            window = _window(passages, read.passage, read.span, read.entailed)

        evidence = list(facts.found.evidence)
        if (
            read is not None
            and score < self.supported_at
            and read.contradicted >= _CONTRADICTED_AT
            and read.contradicted > read.entailed
        ):
            label: Label = "contradicted"
            window = _window(passages, *read.against, read.contradicted)
            reason = (
                f"the entailment model reads passage {window.passage} as stating otherwise "
                f"(P(contradiction) {read.contradicted:.2f})"
            )
            score = min(score, self.vetoed_score)
        elif score >= self.supported_at:
            label = "supported"
            reason = f"supported by {where}: {signals}"
            if read is not None:
                reason += f"; entailment model P(entailed) {read.entailed:.2f}"
        elif score < self.unsupported_below:
            label, reason = "unsupported", f"weak support: {signals}"
        else:
            label, reason = "uncertain", f"partial support from {where}: {signals}"
        if window is not None:
            evidence = [window, *(e for e in evidence if e.quote not in window.quote)]
        if facts.negation_flip and label != "contradicted":
            reason += "; " + facts.negation_reason()
        verdict = ClaimVerdict(
            text=claim.text,
            span=claim.span,
            label=label,
            score=round(score, 6),
            evidence=evidence[:3],
            reason=reason,
        )
        return verdict, features


def _window(passages: list[Passage], at: int, span: tuple[int, int], score: float) -> Evidence:
    """The window the entailment model read, quoted verbatim from its passage."""
    passage = passages[at]
    return Evidence(
        passage=passage.index,
        passage_id=passage.id,
        quote=passage.text[span[0] : span[1]],
        score=round(clamp_score(score), 6),
    )


def _share(stems: Sequence[str], pool: frozenset[str]) -> float:
    if not stems:
        return 1.0
    return sum(s in pool for s in stems) / len(stems)


def _signals(features: ClaimFeatures, surface: Mapping[str, str], pool: frozenset[str]) -> str:
    missing = [word for s, word in surface.items() if s not in pool]
    found = len(surface) - len(missing)
    text = f"similarity {features.similarity:.2f}, {found}/{len(surface)} content words found"
    if missing:
        text += " (missing: " + ", ".join(repr(w) for w in missing[:5]) + ")"
    return text
