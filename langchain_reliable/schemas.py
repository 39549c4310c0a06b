"""Data models shared by every part: passages, claims, verdicts and the report."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, get_args

from langchain_core.documents import Document
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
    model_validator,
)

from langchain_reliable.decisions import OUTCOMES, Decision
from langchain_reliable.errors import InputError
from langchain_reliable.text import short

Label = Literal["supported", "unsupported", "contradicted", "uncertain"]
"""A claim's verdict."""
Level = Literal["HIGH", "MEDIUM", "LOW"]
"""How far an answer can be trusted (the report's `level`)."""
Flag = Literal[
    "no_claims",
    "abstention",
    "empty_answer",
    "no_context",
    "verifier_error",
    "truncated_answer",
    "truncated_context",
    "truncated_claims",
    "uncovered_text",
    "coverage_failed",
    "render_mismatch",
    "extractor_error",
    "generator_error",
    "off_topic",
]
"""A condition met while verifying an answer; the report's `notes` say why."""
FLAG_WORDS: dict[str, str] = {
    "no_claims": "no checkable claim in the answer",
    "abstention": "the answer declines to answer",
    "empty_answer": "the answer is empty",
    "no_context": "no passage to check against",
    "verifier_error": "the verifier failed",
    "truncated_answer": "the answer was cut to the length limit",
    "truncated_context": "the passages were cut to the length limit",
    "truncated_claims": "claims past the limit were not checked one by one",
    "uncovered_text": "some of its text is in no supported claim",
    "coverage_failed": "the text to show failed the last coverage check",
    "render_mismatch": "the answer renders otherwise than it reads",
    "extractor_error": "the claim extractor failed",
    "generator_error": "the answer generator failed",
    "off_topic": "no claim addresses the question",
}
"""Each flag in words, as the report's headline says it."""
FailAction = Literal["refuse", "filter", "raise"]
"""What a step gives for an answer that did not pass: the refusal text, the filtered
answer, or `UnverifiedAnswerError`."""

LABELS: tuple[Label, ...] = get_args(Label)
FAIL_ACTIONS: tuple[FailAction, ...] = get_args(FailAction)
HEADLINE = ("score", "passed", "reason")
"""A report's headline, what a person reads first: it opens the report as JSON."""


def headline_first(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the headline keys (those present) first, the rest in their order."""
    return {
        **{key: data[key] for key in HEADLINE if key in data},
        **{key: value for key, value in data.items() if key not in HEADLINE},
    }


def _unit_interval(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"score must be a finite number, got {value!r}")
    return min(1.0, max(0.0, float(value)))


Score = Annotated[float, AfterValidator(_unit_interval)]


class Passage(BaseModel):
    """One retrieved passage, addressed by its position in the context."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=0, description="Position of the passage in the context.")
    text: str = Field(description="The passage text.")
    id: str | None = Field(
        default=None,
        description="The Document's metadata 'id' or 'source', else its id, if known.",
    )

    @classmethod
    def all_from(cls, items: Sequence[str | Document | Passage | dict]) -> list[Passage]:
        """Each of `items` as a passage, numbered in order (`from_any`)."""
        return [cls.from_any(i, item) for i, item in enumerate(items)]

    @classmethod
    def from_any(cls, index: int, item: str | Document | Passage | dict) -> Passage:
        """Build a passage from a string, a `Document`, a `Passage` or a dict."""
        if isinstance(item, Passage):
            return cls(index=index, text=item.text, id=item.id)
        if isinstance(item, Document):
            meta = item.metadata or {}
            pid = meta.get("id") or meta.get("source") or item.id
            return cls(index=index, text=item.page_content, id=None if pid is None else str(pid))
        if isinstance(item, str):
            return cls(index=index, text=item)
        if isinstance(item, dict):
            text = item.get("page_content", item.get("text"))
            if isinstance(text, str):
                pid = item.get("id") or (item.get("metadata") or {}).get("source")
                return cls(index=index, text=text, id=None if pid is None else str(pid))
        raise InputError(
            f"passages[{index}] must be a string, a Document or a dict with 'page_content' "
            f"or 'text'; got {type(item).__name__}"
        )


_READ_AS = re.compile(r"^'[^']*' read as '(?P<antecedent>[^']*)' \((?!the sentence before said)")


class Claim(BaseModel):
    """An atomic factual statement taken from an answer."""

    text: str = Field(description="The claim, self-contained.")
    span: tuple[int, int] = Field(description="Start and end character offsets in the answer.")
    reading: str | None = Field(
        default=None,
        description="How the text was made to stand alone from the span, when it names what "
        "the span leans on (\"'It' read as 'Aspirin' (the subject of the sentence before)\").",
    )
    unresolved: str | None = Field(
        default=None,
        description="Why what the span leans on could not be told: the claim is `uncertain`.",
    )
    side: bool = Field(
        default=False,
        description="What its sentence says on the side, read with the words before it (a "
        "relative clause after a verb): every word it adds must be borne out.",
    )

    @property
    def antecedent(self) -> str | None:
        """The words the claim was read with in place of its pronoun or description, if any.

        Read from `reading` ("'<ref>' read as '<antecedent>' (<why>)", as
        `claims.antecedents` writes it).
        """
        m = _READ_AS.match(self.reading or "")
        return m.group("antecedent") if m else None

    @model_validator(mode="after")
    def _check_span(self) -> Claim:
        start, end = self.span
        if start < 0 or end < start:
            raise ValueError(f"invalid span {self.span} for claim {self.text!r}")
        return self


def passage_name(index: int, passage_id: str | None = None) -> str:
    """How every surface names a passage: "passage 1 (doc-7)", counting from 1.

    Reasons, inline markers `[n]`, sources lists, the CLI and the playground all count
    this way: the first passage of the context is passage 1 (`Evidence.passage` holds
    its index, 0 for the first, as a list does).

    Example:
        >>> passage_name(0, "doc-7")
        'passage 1 (doc-7)'

    """
    return f"passage {index + 1}" + (f" ({passage_id})" if passage_id else "")


class Evidence(BaseModel):
    """A quote from a passage that bears on a claim."""

    passage: int = Field(
        ge=0, description="Index of the passage in the context (0 is the one named passage 1)."
    )
    passage_id: str | None = Field(default=None, description="Id or source of the passage.")
    quote: str = Field(description="Text quoted verbatim from the passage.")
    score: Score = Field(description="How strongly the quote bears on the claim, 0-1.")


class KeysRead(BaseModel):
    """What each of the two keys read for a claim (`evidence.keys`).

    `grounded` is the lexical support (the first key), `entailed` the entailment model's
    P(entailed) (the second; `None` where the claim is an exact copy of passage text and
    was not read), `contradicted` its P(contradiction), `answered` its P(entailed) of the
    claim read as the answer to the question (`None` where no question was given).
    """

    grounded: Score
    entailed: Score | None = None
    contradicted: Score | None = None
    exact_copy: bool = False
    answered: Score | None = None


class ClaimVerdict(BaseModel):
    """The verdict on one claim, with the evidence it rests on."""

    text: str
    span: tuple[int, int]
    label: Label
    score: Score = Field(
        description="The chance the claim is supported, on the claim scale "
        "(`langchain_reliable.scale`): supported 0.90-1.00, uncertain 0.50-0.60, "
        "unsupported 0.10-0.50, contradicted 0.00-0.10."
    )
    evidence: list[Evidence] = Field(
        default_factory=list,
        description="Quotes that bear on the claim; the first is the one the verdict rests on.",
    )
    reason: str = Field(
        default="",
        description="Why, in words a reader checks against the passages: what was checked, "
        "against which passage, and what it says.",
    )
    details: str = Field(
        default="",
        description="The engine's reading behind the reason (lexical similarity, content words "
        "found, the entailment model's P(entailed), the bars): what `--verbose` shows.",
    )
    keys: KeysRead | None = Field(
        default=None,
        description="What the two keys read (the offline verifiers with a model); None otherwise.",
    )
    said: str = Field(
        default="",
        description="The answer's own words at `span`: what every surface shows for the claim. "
        "`text` is the claim as checked, made to stand alone; how it was read is in `reason`.",
    )

    @property
    def shown(self) -> str:
        """What a surface shows for the claim: the answer's own words, else the claim's text."""
        return self.said.strip() or self.text

    @property
    def source(self) -> Evidence | None:
        """The quote the verdict rests on, or `None`.

        The first evidence of a supported or contradicted claim; `None` otherwise (a
        passage near an unsupported claim does not bear it out).
        """
        if self.label in ("supported", "contradicted") and self.evidence:
            return self.evidence[0]
        return None

    @classmethod
    def uncertain(cls, claim: Claim, reason: str) -> ClaimVerdict:
        """A verdict for a claim that could not be judged."""
        return cls(text=claim.text, span=claim.span, label="uncertain", score=0.5, reason=reason)


class Cost(BaseModel):
    """What producing a result cost."""

    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    milliseconds: float = 0.0

    @classmethod
    def of_llm_call(cls, message: Any, milliseconds: float) -> Cost:
        """Cost of one chat-model call, from its message's `usage_metadata` (if any)."""
        usage = getattr(message, "usage_metadata", None) or {}
        return cls(
            llm_calls=1,
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            milliseconds=milliseconds,
        )

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            llm_calls=self.llm_calls + other.llm_calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            milliseconds=self.milliseconds + other.milliseconds,
        )

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


class ReliabilityReport(BaseModel):
    """Verdicts on every claim of an answer, the scores and the decision."""

    claims: list[ClaimVerdict] = Field(default_factory=list)
    supported: int = 0
    unsupported: int = 0
    contradicted: int = 0
    uncertain: int = 0
    reliability_score: float = Field(description="(supported + 0.5*uncertain) / claims.")
    hallucination_rate: float = Field(
        description="The share of claims not supported: (unsupported + contradicted + "
        "uncertain) / claims."
    )
    hallucination_score: float = Field(
        description="0-1, higher = more likely the answer holds a hallucination."
    )
    level: Level
    decision: Decision | None = Field(default=None, description="What the policy decided.")
    filtered_answer: str | None = Field(
        default=None,
        description="With decision 'filter': the text to show instead of the answer (its "
        "supported claims and content-free glue, then the caveat); None otherwise.",
    )
    flags: list[Flag] = Field(
        default_factory=list,
        description="Conditions met: no_claims, abstention, empty_answer, no_context, "
        "verifier_error, truncated_answer, truncated_context, truncated_claims, "
        "uncovered_text (text not inside a supported claim nor content-free), "
        "coverage_failed (the shown text failed the final coverage check: refused).",
    )
    notes: list[str] = Field(default_factory=list, description="Why each flag was raised.")
    verifier: str = ""
    extractor: str = ""
    cost: Cost = Field(default_factory=Cost)

    @computed_field(description="The headline score, 0-1: `reliability_score`.")  # type: ignore[prop-decorator]
    @property
    def score(self) -> float:
        """The headline score (RAGAS/DeepEval style): `reliability_score`."""
        return self.reliability_score

    @computed_field(description="Whether the answer passed as written: decision 'return'.")  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """Pass/fail: the answer is shown as written (`decision == "return"`)."""
        return self.decision is not None and OUTCOMES[self.decision].passes

    @computed_field(description="Why the answer passed or not, in one sentence.")  # type: ignore[prop-decorator]
    @property
    def reason(self) -> str:
        """Why the answer passed or not: the counts, the first failing claim and why, the flags.

        With no claim checked, the notes say why (nothing retrieved, no answer).
        """
        total = self.supported + self.unsupported + self.contradicted + self.uncertain
        parts = [f"{self.supported} of {total} claims supported"] if total else ["no claims"]
        failing = [
            (n, label)
            for n, label in (
                (self.contradicted, "contradicted"),
                (self.unsupported, "unsupported"),
                (self.uncertain, "uncertain"),
            )
            if n
        ]
        parts += [f"{n} {label}" for n, label in failing]
        first = next((c for c in self.claims if c.label != "supported"), None)
        if first is not None:
            why = f"{first.label}: {short(first.reason, 120)}" if first.reason else first.label
            parts.append(f"first not supported: {short(first.shown, 80)!r} ({why})")
        if self.flags:
            parts += [FLAG_WORDS.get(flag, flag.replace("_", " ")) for flag in self.flags]
        if not total and self.notes:  # nothing was checked: the notes say why
            parts += [note.rstrip(".") for note in self.notes]
        head = OUTCOMES[self.decision].word if self.decision else "not decided"
        return f"{head}: " + "; ".join(parts) + "."

    @model_serializer(mode="wrap")
    def _headline_first(self, handler: SerializerFunctionWrapHandler):
        """Dumped, the report opens with its headline: `score`, `passed`, `reason`.

        No return annotation: the serialization schema stays the model's own.
        """
        data = handler(self)
        return headline_first(data) if isinstance(data, dict) else data

    def verified_claims(self) -> list[ClaimVerdict]:
        """Claims labelled `supported`."""
        return [c for c in self.claims if c.label == "supported"]

    def __getitem__(self, key: str) -> Any:
        """`report["claims"]`, as when the graph's report was a dict (deprecated)."""
        _dict_access()
        return self.model_dump()[key]

    def get(self, key: str, default: Any = None) -> Any:
        """`report.get("flags")`, as when the graph's report was a dict (deprecated)."""
        _dict_access()
        return self.model_dump().get(key, default)


def _dict_access() -> None:
    warnings.warn(
        "the graph's report is a ReliabilityReport: read its attributes (report.claims) "
        "or report.model_dump(); reading it as a dict will be removed",
        DeprecationWarning,
        stacklevel=3,
    )


OnFail = FailAction | Callable[[str, ReliabilityReport], str]
"""An action of `FailAction`, or a callable `(text, report) -> str` giving the text to show."""
