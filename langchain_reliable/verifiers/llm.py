"""LLM judge: a chat model judges all claims of an answer in one structured call.

The prompt lives in `prompts/judge.md`: the part before the `<!-- input -->` line is
the system message (rules, label definitions, few-shot examples), the part after it
is the user message, a `string.Template` filled with the question, the passages
(wrapped as tagged data) and the numbered claims.

The model's output is not trusted as is: every claim must get exactly one verdict,
and the quote given for a `supported` or `contradicted` verdict must occur in a
passage (outside text that addresses the fact-checker), be a real clause and carry
the claim's checkable content (`verifiers.grounding`). Whatever cannot be checked
becomes `uncertain`, never an exception. Whatever the judge says, the rules layer
(`langchain_reliable.rules`) runs after it, as after every verifier: a claim whose
number, date, unit or name no passage holds, or whose meaning a passage states
otherwise, is never `supported`; a word swapped into a passage's sentence needs the
embedded entailment model (or the `entailment` given) to vouch for it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from string import Template
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from langchain_reliable._llm import Reply, StructuredCall, describe, normalise_with_offsets
from langchain_reliable.evidence.probe import EntailmentProbe
from langchain_reliable.prompts import escape, load_chat_prompt, unescape, wrap_passages
from langchain_reliable.reading.quantities import extract_quantities
from langchain_reliable.rules import Rule, Rules
from langchain_reliable.schemas import (
    Claim,
    ClaimVerdict,
    Cost,
    Evidence,
    Label,
    Passage,
    passage_name,
)
from langchain_reliable.verifiers.base import JudgingVerifier, VerificationResult, as_rules
from langchain_reliable.verifiers.grounding import (
    clause_problem,
    content_problem,
    instruction_spans,
)


class JudgeVerdict(BaseModel):
    """The judge's verdict on one claim (evidence first, then the label)."""

    claim_id: int = Field(description="The id of the claim judged, as numbered in the prompt.")
    passage: int | None = Field(
        default=None,
        description="Index of the passage quoted; null for an unsupported claim.",
    )
    quote: str = Field(
        default="",
        description="Span copied verbatim from that passage; empty for an unsupported claim.",
    )
    reason: str = Field(default="", description="One short sentence explaining the label.")
    label: Literal["supported", "unsupported", "contradicted"] = Field(
        description="supported: a passage states it; contradicted: a passage states the "
        "opposite; unsupported: the passages are silent or back only part of it."
    )


class JudgeOutput(BaseModel):
    """Verdicts on every claim, one per claim id."""

    verdicts: list[JudgeVerdict] = Field(description="Exactly one verdict per claim id.")


class LLMJudge(JudgingVerifier):
    """Judges all claims of an answer with a chat model, in one structured call.

    Args:
        model: A chat model that supports `with_structured_output` (tool calling).
        timeout: Seconds to wait for the model; `None` waits forever.
        max_quote_chars: Longest quote kept as evidence (longer quotes are cut).
        rules: The rules run after judging (`Rules` or a list of `Rule`s); default
            `rules.DEFAULT_RULES`.
        entailment: The entailment model the rules read (`evidence.probe.EntailmentProbe`);
            default: the embedded one.

    Example:
        ```python
        from langchain_openai import ChatOpenAI
        from langchain_reliable.schemas import Claim, Passage

        judge = LLMJudge(ChatOpenAI(model="gpt-4o-mini", temperature=0))
        result = judge.verify(
            [Claim(text="Paris is in France.", span=(0, 19))],
            [Passage(index=0, text="Paris is the capital of France.")],
        )
        result.verdicts[0].label  # "supported"
        ```

    """

    name = "llm"

    SUPPORTED_SCORE = 0.9
    CONTRADICTED_SCORE = 0.05
    UNSUPPORTED_SCORE = 0.1
    UNCERTAIN_SCORE = 0.5

    def __init__(
        self,
        model: BaseChatModel,
        *,
        timeout: float | None = 60,
        max_quote_chars: int = 300,
        rules: Rules | Sequence[Rule] | None = None,
        entailment: EntailmentProbe | None = None,
    ) -> None:
        self.rules = as_rules(rules)
        if entailment is not None:
            self.entailment_probe = entailment
        self._call = StructuredCall(
            model,
            JudgeOutput,
            timeout=timeout,
            task="judge",
            run_name="llm_judge",
            missing="verdicts",
        )
        if max_quote_chars < 1:
            raise ValueError(f"max_quote_chars must be at least 1, got {max_quote_chars!r}")
        self.model = model
        self.timeout = timeout
        self.max_quote_chars = max_quote_chars
        self._system, self._user = load_chat_prompt("judge")

    def build_messages(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> list[SystemMessage | HumanMessage]:
        """Build the messages sent to the model for these claims and passages."""
        claim_lines = "\n".join(
            f'<claim id="{i}">{escape(c.text, "claim")}</claim>'
            for i, c in enumerate(claims, start=1)
        )
        system = Template(self._system).substitute(max_quote_chars=self.max_quote_chars)
        user = Template(self._user).substitute(
            question=escape(question, "question") or "(not given)",
            passages=wrap_passages(passages),
            claims=claim_lines,
            n_claims=len(claims),
        )
        return [SystemMessage(content=system), HumanMessage(content=user)]

    async def ajudge(
        self, claims: list[Claim], passages: list[Passage], question: str
    ) -> VerificationResult:
        """Judge `claims` against `passages` in one model call."""
        reply = await self._call.ainvoke(self.build_messages(claims, passages, question))
        cost = reply.cost
        errors: list[str] = []
        items = self._verdicts_from(reply, errors)
        if items is None:
            return self._all_uncertain(claims, reply.failure, cost)

        by_id: dict[int, JudgeVerdict] = {}
        conflicting: set[int] = set()
        for item in items:
            if not 1 <= item.claim_id <= len(claims):
                errors.append(f"judge gave a verdict for unknown claim id {item.claim_id}; ignored")
            elif item.claim_id in by_id:
                if item.label != by_id[item.claim_id].label:
                    conflicting.add(item.claim_id)
                errors.append(f"judge gave more than one verdict for claim {item.claim_id}")
            else:
                by_id[item.claim_id] = item

        verdicts = []
        for i, claim in enumerate(claims, start=1):
            item = by_id.get(i)
            if item is None:
                reason = "the judge gave no verdict for this claim"
            elif i in conflicting:
                reason = "the judge gave conflicting verdicts for this claim"
            else:
                verdict, problem = self._check(claim, item, passages)
                if problem:
                    errors.append(f"claim {i}: {problem}")
                verdicts.append(verdict)
                continue
            errors.append(f"claim {i}: {reason}")
            verdicts.append(self._verdict(claim, "uncertain", reason))
        return VerificationResult(verdicts=verdicts, cost=cost, errors=errors)

    def _check(
        self, claim: Claim, item: JudgeVerdict, passages: list[Passage]
    ) -> tuple[ClaimVerdict, str | None]:
        """Turn one model verdict into a `ClaimVerdict`, checking its word.

        Returns the verdict and, when the model's verdict could not be trusted, why.
        """
        reason = item.reason.strip()
        if item.label == "unsupported":
            return self._verdict(claim, "unsupported", reason), None
        quote = _strip_quote(unescape(item.quote))
        if not quote:
            problem = f"the judge gave no quote for its '{item.label}' verdict"
            return self._verdict(claim, "uncertain", problem), problem

        found = _locate(quote, item.passage, passages)
        if found is None or found[1] is None:
            where = "was not found in any passage"
            if found is not None:
                where = "comes only from text that addresses the fact-checker"
            problem = f"the quote for the '{item.label}' verdict {where}"
            if item.passage is not None:
                problem += f" (it named {passage_name(item.passage)})"
            return self._verdict(claim, "uncertain", f"{problem}: {quote[:120]!r}"), problem

        passage, text = found
        problem = clause_problem(text) or content_problem(
            claim.text, text, item.label, _years(passage.text)
        )
        if problem is not None:
            problem = f"'{item.label}' verdict refused: {problem}"
            return self._verdict(claim, "uncertain", f"{problem}: {text[:120]!r}"), problem
        if item.passage is None:
            reason = f"{reason} [quote found in {passage_name(passage.index)}]".strip()
        elif passage.index != item.passage:
            reason = (
                f"{reason} [quote found in {passage_name(passage.index)}, "
                f"not {passage_name(item.passage)}]".strip()
            )
        verdict = self._verdict(claim, item.label, reason)
        verdict.evidence.append(
            Evidence(
                passage=passage.index,
                passage_id=passage.id,
                quote=text[: self.max_quote_chars],
                score=verdict.score,
            )
        )
        return verdict, None

    def _verdicts_from(self, reply: Reply, errors: list[str]) -> list[JudgeVerdict] | None:
        """Return the verdicts in `reply`, or `None` when it has none.

        From malformed output, the verdicts valid on their own are kept; why the
        others were dropped is added to `errors`.
        """
        if reply.parsed is not None:
            return list(reply.parsed.verdicts)
        args = reply.arguments
        raw_items = args.get("verdicts") if isinstance(args, dict) else None
        if not isinstance(raw_items, list):
            return None
        items = []
        for raw_item in raw_items:
            try:
                items.append(JudgeVerdict.model_validate(raw_item))
            except ValidationError as exc:
                errors.append(f"judge returned a malformed verdict, ignored: {describe(exc)}")
        return items

    def _verdict(self, claim: Claim, label: Label, reason: str) -> ClaimVerdict:
        return ClaimVerdict(
            text=claim.text, span=claim.span, label=label, score=self._score(label), reason=reason
        )

    def _score(self, label: Label) -> float:
        return {
            "supported": self.SUPPORTED_SCORE,
            "contradicted": self.CONTRADICTED_SCORE,
            "unsupported": self.UNSUPPORTED_SCORE,
            "uncertain": self.UNCERTAIN_SCORE,
        }[label]

    def _all_uncertain(self, claims: list[Claim], reason: str, cost: Cost) -> VerificationResult:
        return VerificationResult(
            verdicts=[self._verdict(c, "uncertain", reason) for c in claims],
            cost=cost,
            errors=[reason],
        )


# --- quote matching ---------------------------------------------------------------

_QUOTE_CHARS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "`": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
    }
)
_STRIP = " \t\r\n\"'\u2018\u2019\u201c\u201d\u00ab\u00bb\u2026`"


def _normalise(text: str) -> tuple[str, list[int]]:
    """Casefold, unify quote marks and dashes, collapse whitespace.

    Returns the normalised text and, for each of its characters, the index of the
    character of `text` it came from.
    """
    return normalise_with_offsets(text, table=_QUOTE_CHARS, fold=_fold)


def _fold(char: str) -> str:
    return unicodedata.normalize("NFKC", char).casefold()


def _spans(quote: str, text: str) -> list[tuple[int, int]]:
    """Every span of `text` matching `quote` once both are normalised."""
    needle, _ = _normalise(quote)
    if not needle:
        return []
    hay, where = _normalise(text)
    found = []
    start = hay.find(needle)
    while start >= 0:
        found.append((where[start], where[start + len(needle) - 1] + 1))
        start = hay.find(needle, start + 1)
    return found


def _find(quote: str, text: str) -> str | None:
    """Return the span of `text` matching `quote` once both are normalised, as written."""
    spans = _spans(quote, text)
    return text[spans[0][0] : spans[0][1]] if spans else None


def _locate(
    quote: str, named: int | None, passages: list[Passage]
) -> tuple[Passage, str | None] | None:
    """Find `quote` in the named passage first, then in the others, in order.

    Occurrences inside text that addresses the fact-checker do not count: when the
    quote occurs only there, the passage comes back with `None` for the text.
    """
    tainted = None
    for passage in sorted(passages, key=lambda p: p.index != named):
        spans = _spans(quote, passage.text)
        if not spans:
            continue
        bad = instruction_spans(passage.text)
        for start, end in spans:
            if not any(start < e and s < end for s, e in bad):
                return passage, passage.text[start:end]
        tainted = tainted or (passage, None)
    return tainted


def _years(text: str) -> frozenset[int]:
    return frozenset(
        q.value[0]
        for q in extract_quantities(text, spelled=True)
        if q.kind == "date" and q.value[0] is not None
    )


def _strip_quote(quote: str) -> str:
    """Drop the quote marks, ellipses and blanks models put around quotes."""
    quote = quote.strip(_STRIP)
    while quote.endswith("...") or quote.startswith("..."):
        quote = quote.removesuffix("...").removeprefix("...").strip(_STRIP)
    return quote if any(ch.isalnum() for ch in quote) else ""
