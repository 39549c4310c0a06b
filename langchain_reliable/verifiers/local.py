"""The embedded offline verifier: a learned entailment model plus the checks it cannot skip.

For each claim the `EvidenceSelector` finds the passage sentences that bear on
it (BM25 and dense cosine, fused), and, when asked for, the entailment model
(`langchain_reliable.entailment`, a cross-encoder shipped as int8 ONNX) reads the
claim against its best windows of the passages. The verdict then rests on:

1. **entailment**: the model's highest P(entailment) over the claim's windows;
2. **similarity and coverage**: the best cosine between the claim and a passage
   unit, and the share of the claim's content words (lightly stemmed) found in
   the best unit and anywhere in the context;
3. **numbers**: every number, date, amount of money, percentage or measure in
   the claim must occur in the context; one that occurs nowhere makes the claim
   `unsupported`, and one that differs from a value of the same kind in the
   sentence the claim is about ("signed in 1920" against "signed on 28 June
   1919") makes it `contradicted`;
4. **names**: capitalised names and codes in the claim ("League of Nations",
   "COX-2", "eGFR") must occur in the context, else `unsupported`;
5. **negation**: a claim negated where its evidence is not (or the reverse),
   with the two otherwise alike, is `contradicted`;
6. **meaning** (`checks.meaning`): opposite words, a stronger quantifier,
   swapped roles or another name than the sentence the claim is about veto
   `supported` (`meaning_checks=False` turns them off).

Checks 3-6 live in `langchain_reliable.checks`. The lexical signals (2-5 and a
few more, `ClaimFeatures`) give a support probability through a `SupportScorer`
(`verifiers.scorer`; the default `LogisticScorer.learned()` is trained without
gold labels by `scripts/train_verifier.py`). The verdict's score is the
calibrated combination of that and the model's P(entailment) that
`scripts/train_cross_encoder.py` fits (`EntailmentModel.support`), and the
default `supported_at` is the threshold it chose on development data. A failed
check fixes the label and caps the score below `unsupported_below`, whatever the
model says; a claim the model reads as contradicted (P(contradiction) at least
0.6 and above P(entailment)) is `contradicted`. The first evidence quote is the
window the model read. The model is opt-in (`entailment=True`, or
the verifier spec `"local+entailment"`); the default is the lexical verifier alone
(`supported_at` 0.65): with each development file left out of the model's
training, the combination did not beat it on that file.

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

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from langchain_reliable.checks.meaning import meaning_finding
from langchain_reliable.checks.names import extract_names
from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.passage_facts import PassageFacts, passage_label
from langchain_reliable.checks.quantities import (
    Quantity,
    conflicts,
    extract_quantities,
    matches,
)
from langchain_reliable.entailment import Entailment, EntailmentModel, default_entailment_model
from langchain_reliable.evidence import ClaimEvidence, EvidenceSelector, Unit, clamp_score
from langchain_reliable.schemas import Claim, ClaimVerdict, Evidence, Label, Passage
from langchain_reliable.text import STOPWORDS, is_question, stem, tokenize
from langchain_reliable.verifiers.base import (
    BlockingVerifier,
    check_args,
    unsupported_without_passage,
)
from langchain_reliable.verifiers.scorer import ClaimFeatures, LogisticScorer, SupportScorer

__all__ = ["LocalVerifier"]

_RELEVANCE_MARGIN = 0.15  # how much less relevant than the anchor a number's sentence may be
_NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")
_CONTRADICTED_AT = 0.6  # the entailment model's P(contradiction) that makes a claim contradicted


class LocalVerifier(BlockingVerifier):
    """Judges claims offline with the embedded MiniLM model and lexical checks.

    Args:
        embeddings: Encoder with `encode(texts)` (e.g. `LocalEmbeddings`); `None`
            uses the package's shared embedded model.
        supported_at: Scores at or above this are `supported`; default: the
            entailment model's threshold (0.65 without the model).
        unsupported_below: Scores below this are `unsupported` (or `contradicted`
            when a rule found a contradiction); scores in between are `uncertain`.
            Default: `supported_at - 0.3`.
        k: Evidence quotes kept per claim (at most 3 are reported).
        scorer: Maps `ClaimFeatures` to a support probability; defaults to
            `LogisticScorer.learned()` (the shipped learned weights);
            `LogisticScorer()` gives the hand-set weights.
        selector: The evidence selector; built from `embeddings` and `k` if omitted.
        meaning_checks: Run the meaning checks of `checks.meaning` (vetoes only).
        entailment: The entailment model: `True` the shipped one, `False`
            (default) none, the lexical verifier alone. Opt-in: with each
            development file left out of its training, the model did not beat the
            lexical verifier (`benchmarks/CROSS_ENCODER.md`).

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
        entailment: EntailmentModel | bool = False,
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
        super().__init__()

    # -- the work -----------------------------------------------------------

    def explain(
        self, claims: Sequence[Claim], passages: Sequence[Passage]
    ) -> list[tuple[ClaimVerdict, ClaimFeatures | None]]:
        """Judge `claims` and return each verdict with the features it rests on.

        The features are `None` for a claim judged without them (no passage).
        Unlike `verify`, errors propagate. Used to train and inspect the scorer.
        """
        claims, passages = check_args(claims, passages)
        return self._judge_explained(claims, passages)

    def _judge(self, claims: list[Claim], passages: list[Passage]) -> list[ClaimVerdict]:
        return [verdict for verdict, _ in self._judge_explained(claims, passages)]

    def _judge_explained(
        self, claims: list[Claim], passages: list[Passage]
    ) -> list[tuple[ClaimVerdict, ClaimFeatures | None]]:
        if not claims:
            return []
        passages = [p for p in passages if p.text.strip()]
        if not passages:
            return [(unsupported_without_passage(c), None) for c in claims]
        indexes = self.selector.indexes(passages)
        units = self.selector.units(passages, indexes)
        context = PassageFacts(passages, units, indexes)
        found = self.selector.select(claims, passages, units=units, indexes=indexes)
        read: list[Entailment | None] = [None] * len(claims)
        if self.entailment is not None:
            read = list(self.entailment.judge([c.text for c in claims], [p.text for p in passages]))
        return [
            self._verdict(c, f, context, e, passages)
            for c, f, e in zip(claims, found, read, strict=True)
        ]

    def _verdict(
        self,
        claim: Claim,
        found: ClaimEvidence,
        ctx: PassageFacts,
        read: Entailment | None,
        passages: list[Passage],
    ) -> tuple[ClaimVerdict, ClaimFeatures]:
        surface: dict[str, str] = {}
        for token in tokenize(claim.text):
            if token not in STOPWORDS:
                surface.setdefault(stem(token), token)
        stems = list(surface)
        words = [s for s in stems if not s[0].isdigit()]
        cosine = np.nan_to_num(found.cosine, nan=0.0)
        coverage = ctx.unit_shares(stems)
        word_cov = ctx.unit_shares(words)
        relevance = 0.5 * cosine + 0.5 * word_cov
        anchor = max(ctx.sentences, key=lambda i: (relevance[i], -i))
        strong_anchor = word_cov[anchor] >= 0.6 and cosine[anchor] >= 0.45

        missing_numbers, conflict = _check_numbers(
            claim.text, ctx, relevance, anchor, strong_anchor
        )
        missing_names = [n for n in extract_names(claim.text) if not ctx.has_name(n)]
        cue_claim = negation_cue(claim.text)
        cue_anchor = negation_cue(ctx.units[anchor].text, frozenset(stems))
        flip = (cue_claim is None) != (cue_anchor is None)

        features = ClaimFeatures(
            similarity=clamp_score(float(cosine.max())),
            coverage_best=float(coverage.max()),
            coverage_context=_share(stems, ctx.stems),
            missing_numbers=len(missing_numbers),
            missing_names=len(missing_names),
            number_conflict=conflict is not None,
            negation_flip=flip,
            novel_words=sum(s not in ctx.stems for s in stems),
            weighted_coverage=ctx.weighted_share(stems),
            bigram_coverage=ctx.bigram_share(stems),
            anchor_similarity=clamp_score(float(cosine[anchor])),
            claim_words=len(stems),
        )
        score = clamp_score(float(self.scorer(features)))
        where = passage_label(ctx.units[anchor])
        window: Evidence | None = None
        if read is not None and self.entailment is not None:
            score = clamp_score(self.entailment.support(read.entailed, score))
            window = _window(passages, read.passage, read.span, read.entailed)

        # The rules: a failed check fixes the label, whatever the score.
        ruled: Label | None = None
        model_ruled = False  # contradicted by the entailment model, not by a check
        reason = ""
        if is_question(claim.text):
            ruled = "unsupported"
            reason = "a question, not a statement: the passages cannot support it"
        elif conflict is not None:
            claimed, stated = conflict
            ruled = "contradicted"
            reason = f"claim says '{claimed.text}' but {where} says '{stated.text}'"
        elif flip and strong_anchor and cosine[anchor] >= 0.6 and word_cov[anchor] >= 0.7:
            ruled = "contradicted"
            reason = _negation_reason(cue_claim, cue_anchor, where)
        elif missing_numbers or missing_names:
            ruled = "unsupported"
            reason = "; ".join(
                [f"{_number_word(q)} '{q.text}' not found in any passage" for q in missing_numbers]
                + [f"name '{n}' not found in any passage" for n in missing_names]
            )
        elif self.meaning_checks and (finding := meaning_finding(claim.text, ctx)) is not None:
            ruled, reason = finding.label, finding.reason
        elif (
            read is not None
            and score < self.supported_at
            and read.contradicted >= _CONTRADICTED_AT
            and read.contradicted > read.entailed
        ):
            ruled, model_ruled = "contradicted", True
            window = _window(passages, *read.against, read.contradicted)
            reason = (
                f"the entailment model reads passage {window.passage} as stating otherwise "
                f"(P(contradiction) {read.contradicted:.2f})"
            )

        evidence = list(found.evidence)
        if window is not None:
            evidence = [window, *(e for e in evidence if e.quote not in window.quote)]
        if ruled is not None:
            score = min(score, self.unsupported_below / 2.0)
            if ruled == "contradicted" and not model_ruled:
                evidence = self._anchor_first(found, anchor)
            label: Label = ruled
        elif score >= self.supported_at:
            label = "supported"
            reason = f"supported by {where}: {_signals(features, surface, ctx.stems)}"
            if read is not None:
                reason += f"; entailment model P(entailed) {read.entailed:.2f}"
        elif score < self.unsupported_below:
            label = "unsupported"
            reason = f"weak support: {_signals(features, surface, ctx.stems)}"
        else:
            label = "uncertain"
            reason = f"partial support from {where}: {_signals(features, surface, ctx.stems)}"
        if flip and ruled is None:
            reason += "; " + _negation_reason(cue_claim, cue_anchor, where)
        verdict = ClaimVerdict(
            text=claim.text,
            span=claim.span,
            label=label,
            score=round(score, 6),
            evidence=evidence[:3],
            reason=reason,
        )
        return verdict, features

    def _anchor_first(self, found: ClaimEvidence, anchor: int) -> list[Evidence]:
        unit = found.units[anchor]
        rest = [
            e
            for i, e in zip(found.top, found.evidence, strict=True)
            if not unit.overlaps(found.units[i])
        ]
        return [self.selector.as_evidence(unit, float(found.cosine[anchor])), *rest]


def _check_numbers(
    text: str, ctx: PassageFacts, relevance: np.ndarray, anchor: int, strong_anchor: bool
) -> tuple[list[Quantity], tuple[Quantity, Quantity] | None]:
    """Return the claim's numbers found in no passage, and the first the anchor contradicts.

    A number is fine when the anchor sentence (the one the claim is about)
    states it, or another sentence about as relevant does. Otherwise, when the
    anchor states a different value of the same kind, the claim contradicts it.
    """
    missing: list[Quantity] = []
    conflict: tuple[Quantity, Quantity] | None = None
    in_anchor = ctx.unit_quantities[anchor]
    for q in extract_quantities(text):
        if any(matches(q, x, ctx.years) for x in in_anchor):
            continue
        homes = [
            i
            for i in ctx.sentences
            if any(matches(q, x, ctx.years) for x in ctx.unit_quantities[i])
        ]
        if homes and max(relevance[i] for i in homes) >= relevance[anchor] - _RELEVANCE_MARGIN:
            continue
        clash = next((x for x in in_anchor if conflicts(q, x)), None)
        if clash is None and q.kind == "count":
            clash = _other_count(text, q, ctx.units[anchor], in_anchor)
        if clash is not None and strong_anchor:
            conflict = conflict or (q, clash)
        elif not homes:
            missing.append(q)
    return missing, conflict


def _window(passages: list[Passage], at: int, span: tuple[int, int], score: float) -> Evidence:
    """The window the entailment model read, quoted verbatim from its passage."""
    passage = passages[at]
    return Evidence(
        passage=passage.index,
        passage_id=passage.id,
        quote=passage.text[span[0] : span[1]],
        score=round(clamp_score(score), 6),
    )


def _counted(text: str, end: int) -> str | None:
    """The word a count ending at `end` counts: the next one ("20 million visitors" -> visitor)."""
    m = _NEXT_WORD.match(text, end)
    return stem(m.group(1).lower()) if m else None


def _other_count(
    text: str, q: Quantity, anchor: Unit, in_anchor: list[Quantity]
) -> Quantity | None:
    """A different count of the same thing in the anchor sentence, if any.

    `in_anchor` are the anchor's quantities, with offsets in its passage.
    """
    noun = _counted(text, q.end)
    if noun is None or noun in STOPWORDS:
        return None
    for x in in_anchor:
        if (
            x.kind == "count"
            and x.value != q.value
            and _counted(anchor.text, x.end - anchor.start) == noun
        ):
            return x
    return None


def _share(stems: Sequence[str], pool: frozenset[str]) -> float:
    if not stems:
        return 1.0
    return sum(s in pool for s in stems) / len(stems)


def _number_word(q: Quantity) -> str:
    return {"date": "date", "decade": "date", "money": "amount"}.get(q.kind, "number")


def _negation_reason(cue_claim: str | None, cue_anchor: str | None, where: str) -> str:
    if cue_claim is not None:
        return f"negation mismatch: the claim says '{cue_claim}' but {where} does not"
    return f"negation mismatch: {where} says '{cue_anchor}' but the claim does not"


def _signals(features: ClaimFeatures, surface: Mapping[str, str], pool: frozenset[str]) -> str:
    missing = [word for s, word in surface.items() if s not in pool]
    found = len(surface) - len(missing)
    text = f"similarity {features.similarity:.2f}, {found}/{len(surface)} content words found"
    if missing:
        text += " (missing: " + ", ".join(repr(w) for w in missing[:5]) + ")"
    return text
