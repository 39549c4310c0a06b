"""The embedded offline verifier: a learned entailment model, lexical evidence, and the rules.

For each claim the `EvidenceSelector` finds the passage sentences that bear on it
(BM25 and dense cosine, fused), and the entailment model (`langchain_reliable.evidence.entailment`,
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

The model runs only where it can change a verdict: each claim's lexical support is first
calibrated alone (`EntailmentModel.lexical_support`); only the claims inside the model's
uncertain `band` and not vetoed by a rule (plus a claim that would pass with a swapped
word, `rules.swaps`) are read, in one batch per answer. Inside the band the score is a
logistic stack of 1 and 2 (`EntailmentModel.support`), kept inside the band. The stack,
the calibration, the band and `supported_at` are fitted on development data by
`scripts/entailment_calibrate.py`. A claim the model reads as contradicted (P(contradiction)
at least 0.6, above P(entailment), score under the bar) is `contradicted`, the window its
quote. `entailment=False` (spec `"lexical"`) is the lexical verifier alone (`supported_at`
0.65). The details say whether the model was read; each score is placed on the claim
scale (`langchain_reliable.scale`) by this verifier's `bars`.

Everything is deterministic and runs offline on the embedded model. Example:

```python
passages = [Passage(index=0, text="The Treaty of Versailles was signed on 28 June 1919.")]
claims = [Claim(text="The treaty was signed in 1920.", span=(0, 30))]
LocalVerifier().verify(claims, passages).verdicts[0].label  # 'contradicted'
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_reliable.claims.sentences import passage_referents
from langchain_reliable.evidence.accurate import default_arbiter
from langchain_reliable.evidence.answers import AnswerCache
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.entailment import Entailment, EntailmentReader, read_claims
from langchain_reliable.evidence.probe import EmbeddedEntailment
from langchain_reliable.evidence.select import EvidenceSelector, clamp_score
from langchain_reliable.rules import (
    MeaningRule,
    ModelRule,
    Rule,
    Rules,
)
from langchain_reliable.rules.lexical import negation_reason
from langchain_reliable.scale import on_scale
from langchain_reliable.schemas import (
    Claim,
    ClaimVerdict,
    Evidence,
    Label,
    Passage,
    passage_name,
)
from langchain_reliable.verifiers.base import BlockingVerifier, as_rules
from langchain_reliable.verifiers.grounds import (
    bears_on,
    how_supported,
    quoted_window,
    unsaid_words,
)
from langchain_reliable.verifiers.scorer import ClaimFeatures, LogisticScorer, SupportScorer

__all__ = ["LocalVerifier"]

_CONTRADICTED_AT = 0.6  # the entailment model's P(contradiction) that makes a claim contradicted
_UNDER_THE_BAR = 0.05  # how far under `supported_at` a vetoed claim's score stays at least


class LocalVerifier(BlockingVerifier):
    """Judges claims offline with the embedded MiniLM model and lexical checks.

    Args:
        embeddings: Encoder with `encode(texts)` (e.g. `LocalEmbeddings`); `None`
            uses the package's shared embedded model.
        supported_at: Scores at or above this are `supported`; default: the
            entailment model's calibrated threshold (0.65 without the model).
        unsupported_below: Scores under `supported_at` are `unsupported` (or
            `contradicted`); from this one up a passage says part of the claim (0.30 and
            up on the claim scale). Default: `supported_at - 0.3`.
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
            `EntailmentModel` of your own (or any `EntailmentReader`), or `False` for
            the lexical verifier alone.
        band: `(low, high)` of the lexically calibrated score inside which the model
            reads a claim; default: the model's calibrated band (`(0, 1)`: every claim).

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
        entailment: EntailmentReader | bool = True,
        band: tuple[float, float] | None = None,
        rules: Rules | Sequence[Rule] | None = None,
    ) -> None:
        if entailment is True:
            entailment = default_arbiter()
        if entailment is not False and not isinstance(entailment, EntailmentReader):
            raise TypeError(
                "entailment must be True, False or an EntailmentReader (judge, support, "
                f"lexical_support, threshold, band), got {type(entailment).__name__}"
            )
        self.entailment: EntailmentReader | None = entailment or None
        if self.entailment is None:
            self.name = "lexical"  # the report names the tier that judged
        low, high = band or (self.entailment.band if self.entailment else (0.0, 1.0))
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {(low, high)!r}")
        self.band = (float(low), float(high))
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
        self.facts = AnswerCache(given.selector or self.selector, referents=passage_referents)
        """The answers' facts: this verifier's scoring and its rules read them once."""
        self.rules = Rules(kept, facts=self.facts)
        self.entailment_probe = EmbeddedEntailment(self.entailment) if self.entailment else None
        super().__init__()

    @property
    def vetoed_score(self) -> float:
        """The highest score a claim keeps when a rule vetoes it (never `supported`).

        The model's fitted cap (`config.json` "cascade" "vetoed": where a veto errs, the
        claim should rank with the claims left open) kept `_UNDER_THE_BAR` under
        `supported_at`, else half of `unsupported_below`; on the claim scale.
        """
        return on_scale("unsupported", self._vetoed_below_bar, self.bars)

    @property
    def bars(self) -> tuple[float, float]:
        """`(unsupported_below, supported_at)`, by which this verifier's own scores are read."""
        return (self.unsupported_below, self.supported_at)

    @property
    def _vetoed_below_bar(self) -> float:
        fitted = getattr(self.entailment, "vetoed", None)
        if fitted is None:
            return self.unsupported_below / 2.0
        return max(0.0, min(float(fitted), self.supported_at - _UNDER_THE_BAR))

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
        return self._judge_asked(claims, passages, "")

    def _judge_asked(
        self, claims: list[Claim], passages: list[Passage], question: str
    ) -> list[ClaimVerdict]:
        return [verdict for verdict, _ in self._judge_explained(claims, passages, question)]

    def _judge_explained(
        self, claims: list[Claim], passages: list[Passage], question: str = ""
    ) -> list[tuple[ClaimVerdict, ClaimFeatures]]:
        """The judging step: scores and labels before the rules (the template applies them).

        The lexical evidence scores every claim; the entailment model reads, in one
        batch, only the claims `asks_model` picks.
        """
        facts = self.facts.answer(passages).claims(claims)
        features = [_features(f) for f in facts]
        lexical = [clamp_score(float(self.scorer(x))) for x in features]
        alone = lexical
        read: list[Entailment | None] = [None] * len(claims)
        if self.entailment is not None:
            alone = [clamp_score(self.entailment.lexical_support(x)) for x in lexical]
            asked = [i for i, f in enumerate(facts) if self.asks_model(f, alone[i])]
            if asked:
                texts = [claims[i].text for i in asked]
                got = read_claims(self.entailment, texts, [p.text for p in passages], question)
                for i, e in zip(asked, got, strict=True):
                    read[i] = e
                if isinstance(self.entailment_probe, EmbeddedEntailment):  # the rules read it too
                    self.entailment_probe.remember(texts, [p.text for p in passages], got)
        return [
            self._verdict(*row, passages)
            for row in zip(claims, facts, features, lexical, alone, read, strict=True)
        ]

    def in_band(self, score: float) -> bool:
        """Whether a lexically calibrated score is one the lexical evidence cannot decide."""
        low, high = self.band
        return low <= score < high

    def asks_model(self, facts: ClaimFacts, alone: float) -> bool:
        """Whether the entailment model must read a claim whose lexical score is `alone`.

        It must inside the band, and where the claim would pass with a swapped word
        (`rules.swaps`); never where a rule vetoes the claim.
        """
        if self.entailment is None:
            return False
        wanted = self.in_band(alone) or (
            alone >= self.supported_at and self._model_rule_asks(facts)
        )
        return wanted and self.rules.first_finding(facts) is None

    def _model_rule_asks(self, facts: ClaimFacts) -> bool:
        """Whether a rule needing the model (a swapped word, `rules.swaps`) asks about a claim."""
        return any(r.asks(facts) is not None for r in self.rules.rules if isinstance(r, ModelRule))

    def _verdict(
        self,
        claim: Claim,
        facts: ClaimFacts,
        features: ClaimFeatures,
        lexical: float,
        alone: float,
        read: Entailment | None,
        passages: list[Passage],
    ) -> tuple[ClaimVerdict, ClaimFeatures]:
        score = alone
        details = _signals(features, facts.surface, facts.ctx.stems) + self._model_note(alone, read)
        window: Evidence | None = None
        if read is not None and self.entailment is not None:
            window = quoted_window(passages, read.passage, read.span, read.entailed, claim.text)
            if self.in_band(alone):  # the model moves a claim only inside the band
                stacked = self.entailment.support(read.entailed, lexical, read.contradicted)
                score = min(max(clamp_score(stacked), self.band[0]), self.band[1])

        label, reason, score, against = self._label(claim, facts, read, score, passages)
        if against is not None and read is not None:  # the model reads it contradicted
            window = against
            details += f"; P(contradiction) {read.contradicted:.2f}"
        elif label == "supported" and read is not None and read.entailed < self.supported_at:
            details += (  # say why it passed
                f" (below the bar {self.supported_at:.2f}; the lexical evidence, score "
                f"{alone:.2f}, outweighs it)"
            )
        return self._settled(claim, facts, label, score, reason, window, details=details), features

    def _label(
        self,
        claim: Claim,
        facts: ClaimFacts,
        read: Entailment | None,
        score: float,
        passages: list[Passage],
    ) -> tuple[Label, str, float, Evidence | None]:
        """The label, its reason and score, and the window stating otherwise when contradicted.

        Contradicted where the model reads the claim so: P(contradiction) at least
        `_CONTRADICTED_AT` and above P(entailment), the score under the bar (then capped at
        `vetoed_score`). Else the bars decide.
        """
        if (
            read is not None
            and score < self.supported_at
            and read.contradicted >= _CONTRADICTED_AT
            and read.contradicted > read.entailed
        ):
            window = quoted_window(passages, *read.against, read.contradicted, claim.text)
            if bears_on(window.quote, facts.stems):
                where = passage_name(window.passage, window.passage_id)
                reason = (
                    f"{where} says otherwise, as the entailment model reads it: {window.quote!r}"
                )
                return "contradicted", reason, min(score, self._vetoed_below_bar), window
        if score >= self.supported_at:
            how = how_supported(facts, read, self.supported_at, model=self.entailment is not None)
            return "supported", f"supported by {facts.where}{how}", score, None
        partly = facts.where if score >= self.unsupported_below else None
        unsaid = unsaid_words(facts.surface, facts.ctx.stems)
        return "unsupported", not_borne_out(unsaid, partly), score, None

    def _settled(
        self,
        claim: Claim,
        facts: ClaimFacts,
        label: Label,
        score: float,
        reason: str,
        window: Evidence | None,
        **extra: Any,
    ) -> ClaimVerdict:
        """The verdict, its score on the claim scale; a supported claim rests on its anchor."""
        evidence = list(facts.found.evidence)
        if label == "supported":  # it rests on the sentence its reason names
            unit = facts.found.units[facts.anchor]
            window = EvidenceSelector.as_evidence(unit, float(facts.cosine[facts.anchor]))
        if window is not None:
            evidence = [window, *(e for e in evidence if e.quote not in window.quote)]
        if facts.negation_flip and label not in ("contradicted", "supported"):
            reason += "; " + negation_reason(facts)
        return ClaimVerdict(
            text=claim.text,
            span=claim.span,
            label=label,
            score=on_scale(label, score, self.bars),
            evidence=evidence[:3],
            reason=reason,
            **extra,
        )

    def _model_note(self, alone: float, read: Entailment | None) -> str:
        """What the reason says of the entailment model: consulted or not, and why."""
        if self.entailment is None:
            return ""
        band = f"the model is asked between {self.band[0]:.2f} and {self.band[1]:.2f}"
        if read is None and self.in_band(alone):
            return f"; entailment model not consulted (lexical score {alone:.2f}: a rule decides)"
        if read is None:
            return f"; entailment model not consulted (lexical score {alone:.2f}; {band})"
        why = f"lexical score {alone:.2f}; {band}" if self.in_band(alone) else "a swapped word"
        return f"; entailment model consulted ({why}): P(entailed) {read.entailed:.2f}"


def _features(facts: ClaimFacts) -> ClaimFeatures:
    """The lexical evidence of a claim, as the scorer reads it."""
    ctx, anchor, cosine = facts.ctx, facts.anchor, facts.cosine
    missing_numbers, conflict = facts.numbers
    return ClaimFeatures(
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


def _share(stems: Sequence[str], pool: frozenset[str]) -> float:
    if not stems:
        return 1.0
    return sum(s in pool for s in stems) / len(stems)


def _signals(features: ClaimFeatures, surface: Mapping[str, str], pool: frozenset[str]) -> str:
    missing = unsaid_words(surface, pool)
    found = len(surface) - len(missing)
    text = f"similarity {features.similarity:.2f}, {found}/{len(surface)} content words found"
    if missing:
        text += " (missing: " + ", ".join(repr(w) for w in missing[:5]) + ")"
    return text


def not_borne_out(unsaid: Sequence[str], where: str | None = None) -> str:
    """Why a claim is not supported, in words: what no passage says, or that `where` says less.

    Example:
        >>> not_borne_out(["safe"], "passage 1")
        "passage 1 says part of it, but no passage says 'safe'"
        >>> not_borne_out([])
        'no passage says it in so many words'
    """
    words = ", ".join(repr(w) for w in unsaid[:5])
    if where:
        if words:
            return f"{where} says part of it, but no passage says {words}"
        return f"{where} says something like it, not clearly enough to pass"
    return f"no passage says {words}" if words else "no passage says it in so many words"
