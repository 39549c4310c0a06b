"""LLM judge: a chat model judges all claims of an answer in one structured call.

The prompt lives in `prompts/judge.md`: the part before the `<!-- input -->` line is
the system message (rules, label definitions, few-shot examples), the part after it
is the user message, a `string.Template` filled with the question, the passages
(wrapped as tagged data) and the numbered claims.

The model's output is not trusted as is: every claim must get exactly one verdict,
and the quote given for a `supported` or `contradicted` verdict must occur in the
passages. Whatever cannot be checked becomes `uncertain`, never an exception.
"""

from __future__ import annotations

import asyncio
import json
import time
import unicodedata
from collections.abc import Sequence
from string import Template
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from langchain_reliable.prompts import load_chat_prompt, wrap_passages
from langchain_reliable.retrieval import check_structured_model
from langchain_reliable.schemas import Claim, ClaimVerdict, Cost, Evidence, Label, Passage
from langchain_reliable.verifiers.base import ClaimVerifier, VerificationResult


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


class LLMJudge(ClaimVerifier):
    """Judges all claims of an answer with a chat model, in one structured call.

    Args:
        model: A chat model that supports `with_structured_output` (tool calling).
        timeout: Seconds to wait for the model; `None` waits forever.
        max_quote_chars: Longest quote kept as evidence (longer quotes are cut).

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
    ) -> None:
        check_structured_model(model, timeout)
        if max_quote_chars < 1:
            raise ValueError(f"max_quote_chars must be at least 1, got {max_quote_chars!r}")
        self.model = model
        self.timeout = timeout
        self.max_quote_chars = max_quote_chars
        self._structured = model.with_structured_output(JudgeOutput, include_raw=True)
        self._system, self._user = load_chat_prompt("judge")

    def build_messages(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> list[SystemMessage | HumanMessage]:
        """Build the messages sent to the model for these claims and passages."""
        claim_lines = "\n".join(
            f'<claim id="{i}">{_escape(c.text, "claim")}</claim>'
            for i, c in enumerate(claims, start=1)
        )
        system = Template(self._system).substitute(max_quote_chars=self.max_quote_chars)
        user = Template(self._user).substitute(
            question=_escape(question, "question") or "(not given)",
            passages=wrap_passages(passages),
            claims=claim_lines,
            n_claims=len(claims),
        )
        return [SystemMessage(content=system), HumanMessage(content=user)]

    async def averify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        """Judge `claims` against `passages` in one model call."""
        claims = list(claims)
        passages = list(passages)
        if not claims:
            return VerificationResult(verdicts=[])
        if not passages:
            reason = "no passages to check the claim against"
            return VerificationResult(
                verdicts=[self._verdict(c, "unsupported", reason) for c in claims]
            )

        messages = self.build_messages(claims, passages, question)
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(
                self._structured.ainvoke(messages, config={"run_name": "llm_judge"}),
                timeout=self.timeout,
            )
        except asyncio.TimeoutError:
            cost = Cost(llm_calls=1, milliseconds=_ms_since(started))
            return self._all_uncertain(claims, f"judge timed out after {self.timeout} s", cost)
        except Exception as exc:
            cost = Cost(llm_calls=1, milliseconds=_ms_since(started))
            return self._all_uncertain(claims, f"judge call failed: {_describe(exc)}", cost)
        cost = Cost.of_llm_call(_raw(result), _ms_since(started))

        errors: list[str] = []
        items = self._verdicts_from(result, errors)
        if items is None:
            return self._all_uncertain(claims, errors[-1], cost, errors[:-1])

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
        """Turn one model verdict into a `ClaimVerdict`, checking its quote.

        Returns the verdict and, when the model's verdict could not be trusted, why.
        """
        reason = item.reason.strip()
        quote = _strip_quote(item.quote)
        if not quote:
            if item.label == "unsupported":
                return self._verdict(claim, "unsupported", reason), None
            problem = f"the judge gave no quote for its '{item.label}' verdict"
            return self._verdict(claim, "uncertain", problem), problem

        found = _locate(quote, item.passage, passages)
        if found is None:
            if item.label == "unsupported":
                return self._verdict(claim, "unsupported", reason), None
            problem = f"the quote for the '{item.label}' verdict was not found in any passage"
            if item.passage is not None:
                problem += f" (it named passage {item.passage})"
            return self._verdict(claim, "uncertain", f"{problem}: {quote[:120]!r}"), problem

        passage, text = found
        if item.passage is None:
            reason = f"{reason} [quote found in passage {passage.index}]".strip()
        elif passage.index != item.passage:
            reason = (
                f"{reason} [quote found in passage {passage.index}, not {item.passage}]".strip()
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

    def _verdicts_from(self, result: Any, errors: list[str]) -> list[JudgeVerdict] | None:
        """Return the verdicts in `result`, or `None` with the cause added to `errors`."""
        if isinstance(result, JudgeOutput):
            return list(result.verdicts)
        if not isinstance(result, dict):
            errors.append(f"judge returned an unexpected {type(result).__name__}")
            return None
        parsed = result.get("parsed")
        if isinstance(parsed, JudgeOutput):
            return list(parsed.verdicts)
        # Malformed output: keep the verdicts that are valid on their own.
        args = parsed if isinstance(parsed, dict) else _raw_arguments(result.get("raw"))
        raw_items = args.get("verdicts") if isinstance(args, dict) else None
        if not isinstance(raw_items, list):
            cause = result.get("parsing_error")
            if cause is not None:
                errors.append(f"judge output could not be parsed: {_describe(cause)}")
            else:
                errors.append("judge returned no verdicts")
            return None
        items = []
        for raw_item in raw_items:
            try:
                items.append(JudgeVerdict.model_validate(raw_item))
            except ValidationError as exc:
                errors.append(f"judge returned a malformed verdict, ignored: {_describe(exc)}")
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

    def _all_uncertain(
        self, claims: list[Claim], reason: str, cost: Cost, errors: list[str] | None = None
    ) -> VerificationResult:
        return VerificationResult(
            verdicts=[self._verdict(c, "uncertain", reason) for c in claims],
            cost=cost,
            errors=[*(errors or []), reason],
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
    out: list[str] = []
    where: list[int] = []
    for i, char in enumerate(text):
        if char.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                where.append(i)
            continue
        for piece in unicodedata.normalize("NFKC", char.translate(_QUOTE_CHARS)).casefold():
            out.append(piece)
            where.append(i)
    if out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), where


def _find(quote: str, text: str) -> str | None:
    """Return the span of `text` matching `quote` once both are normalised, as written."""
    needle, _ = _normalise(quote)
    if not needle:
        return None
    hay, where = _normalise(text)
    start = hay.find(needle)
    if start < 0:
        return None
    return text[where[start] : where[start + len(needle) - 1] + 1]


def _locate(quote: str, named: int | None, passages: list[Passage]) -> tuple[Passage, str] | None:
    """Find `quote` in the named passage first, then in the others, in order."""
    ordered = sorted(passages, key=lambda p: p.index != named)
    for passage in ordered:
        text = _find(quote, passage.text)
        if text is not None:
            return passage, text
    return None


def _strip_quote(quote: str) -> str:
    """Drop the quote marks, ellipses and blanks models put around quotes."""
    quote = quote.strip(_STRIP)
    while quote.endswith("...") or quote.startswith("..."):
        quote = quote.removesuffix("...").removeprefix("...").strip(_STRIP)
    return quote if any(ch.isalnum() for ch in quote) else ""


# --- helpers ----------------------------------------------------------------------


def _escape(text: str, tag: str) -> str:
    return text.replace(f"</{tag}>", f"&lt;/{tag}&gt;")


def _raw_arguments(raw: Any) -> Any:
    """Return the first tool call's arguments in a raw message, or its content as JSON."""
    if not isinstance(raw, AIMessage):
        return None
    if raw.tool_calls:
        return raw.tool_calls[0].get("args")
    if isinstance(raw.content, str) and raw.content.strip():
        try:
            return json.loads(raw.content)
        except ValueError:
            return None
    return None


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _describe(exc: BaseException, limit: int = 300) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _raw(result: Any) -> Any:
    """The raw message of a `with_structured_output(..., include_raw=True)` result."""
    return result.get("raw") if isinstance(result, dict) else None
