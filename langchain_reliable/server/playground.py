"""What the playgrounds show: settings that render, plain-text passages, a readable result.

LangServe's playground draws its forms from JSON schemas and cannot draw a
`null` alternative, so the served schemas have none:

- `settings_config` is the `config` schema of both routes. Each setting is
  optional and may be left empty (the server's policy, or the preset's value,
  applies); its JSON schema names one type, with the preset as a dropdown that
  defaults to the server's preset. Values are checked by the policy floor, not
  here, so an unknown preset still gets the floor's 422 naming it.
- `passages_schema` shows `/verify`'s `passages` as a list of texts; Documents
  (`{"page_content": ...}`) are still accepted.
- `verify_view` and `rag_view` turn a graph's output into a `VerifyResult` or a
  `RAGResult`: the decision, the text the user receives and one line per claim.
  Each route's `stream_log` (the playground's feed) streams that result; the
  graph's steps are still in its log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, create_model

from langchain_reliable.decisions import OUTCOMES
from langchain_reliable.graph.shown import Presentation, gate
from langchain_reliable.policy import PRESETS
from langchain_reliable.report_views import render_html, words_of_claims
from langchain_reliable.schemas import ReliabilityReport, passage_name
from langchain_reliable.server.floor import PolicyFloor
from langchain_reliable.text import short

_LEVELS = ["HIGH", "MEDIUM", "LOW"]
_SOURCE_CHARS = 160


def _setting(kind: type, schema: dict[str, Any], description: str, default: Any = None) -> Any:
    """An optional setting of type `kind` whose JSON schema is `schema`: one type, no `null`."""

    def shown(field: dict[str, Any]) -> None:
        field.pop("default", None)
        if default is not None:
            field["default"] = default

    return (
        Annotated[kind | None, WithJsonSchema(schema)],
        Field(None, description=description, json_schema_extra=shown),
    )


def _no_default(field: dict[str, Any]) -> None:
    field.pop("default", None)


def settings_config(floor: PolicyFloor) -> type[BaseModel]:
    """The `config` schema of the served routes: `configurable` holds the policy settings.

    Example:
        >>> from langchain_reliable.policy import Policy
        >>> config = settings_config(PolicyFloor(Policy.preset("balanced")))
        >>> schema = config.model_json_schema()
        >>> schema["$defs"]["ReliabilitySettings"]["properties"]["policy"]["default"]
        'balanced'
        >>> "null" in str(schema)
        False

    """
    policy = floor.policy
    preset = policy.name if policy.name in PRESETS and not floor.locked else None
    server = "locked on this server" if floor.locked else f"the server's: {policy.name}"
    own = "Leave empty for the preset's value"
    filter_at = "refuse" if policy.filter_at is None else policy.filter_at
    fields = {
        "policy": _setting(
            str,
            {"type": "string", "enum": list(PRESETS)},
            f"Policy preset, strictest first ({server}). Clients may only tighten the "
            "server's policy: a looser setting is refused (403).",
            preset,
        ),
        "high_threshold": _setting(
            float,
            {"type": "number", "minimum": 0, "maximum": 1},
            f"Reliability (0-1) at or above which an answer is HIGH. {own} "
            f"(server: {policy.high_threshold:g}).",
        ),
        "medium_threshold": _setting(
            float,
            {"type": "number", "minimum": 0, "maximum": 1},
            f"Reliability (0-1) at or above which an answer is MEDIUM; below it is LOW. "
            f"{own} (server: {policy.medium_threshold:g}).",
        ),
        "return_at": _setting(
            str,
            {"type": "string", "enum": _LEVELS},
            f"Lowest level at which an answer is returned as is. {own} "
            f"(server: {policy.return_at}).",
        ),
        "filter_at": _setting(
            str,
            {"type": "string", "enum": [*_LEVELS, "refuse"]},
            "Lowest level at which unverified claims are removed once retries are spent; "
            f"below it, or 'refuse', the answer is refused. {own} (server: {filter_at}).",
        ),
        "max_retries": _setting(
            int,
            {"type": "integer", "minimum": 0, "maximum": floor.max_retries},
            "Regenerations under a stricter prompt (/reliable-rag only), at most "
            f"{floor.max_retries}. Leave empty for the server's.",
        ),
    }
    settings = create_model(  # type: ignore[call-overload]
        "ReliabilitySettings",
        __config__=ConfigDict(title="Policy settings (empty: the server's)"),
        __doc__="Per-run policy settings; empty ones keep the server's policy.",
        **fields,
    )
    return create_model(  # type: ignore[call-overload]
        "ReliabilityConfig",
        configurable=(
            settings,
            # An instance, not a factory: LangServe rebuilds the model from `default`.
            # No `default` in the JSON schema: the playground takes each setting's own.
            Field(
                settings(),
                description="Policy settings for this run.",
                json_schema_extra=_no_default,
            ),
        ),
    )


def passages_schema(description: str) -> Any:
    """`Annotated` metadata showing a list of passages as a list of texts."""
    return WithJsonSchema(
        {"type": "array", "items": {"type": "string"}, "description": description}
    )


class ClaimResult(BaseModel):
    """One claim of the answer and its verdict."""

    text: str = Field(description="The claim in the answer's own words.")
    label: str = Field(description="supported, unsupported, contradicted or uncertain.")
    score: float = Field(description="Probability that the claim is supported, 0-1.")
    evidence: str = Field(
        default="", description="The quote that supports or contradicts it; empty otherwise."
    )
    source: str = Field(default="", description="The passage the quote comes from.")


class VerifyResult(BaseModel):
    """What a person reads after a run of `/verify`."""

    decision: str = Field(description="return, filter or refuse.")
    answer: str = Field(description="The text the user receives under that decision.")
    level: str = Field(description="HIGH, MEDIUM or LOW.")
    passed: bool = Field(description="Whether the answer passed as written (decision return).")
    score: float = Field(
        description="The headline score, 0-1: (supported + 0.5 * uncertain) / claims."
    )
    reason: str = Field(description="Why the answer passed or not, in one sentence.")
    claims: list[ClaimResult] = Field(default_factory=list, description="One per claim.")
    flags: list[str] = Field(default_factory=list, description="What needs a second look.")
    html: str = Field(
        default="",
        description="`render_html` of the checked answer: each claim marked by its verdict "
        "(every piece of text escaped), then the verdicts and sources.",
    )


class RAGResult(VerifyResult):
    """What a person reads after a run of `/reliable-rag`."""

    question: str = Field(description="The question asked.")
    attempts: int = Field(description="Generations made (1 + retries used).")
    passages: list[str] = Field(default_factory=list, description="Retrieved passages.")


def _get(data: Any, key: str, default: Any = None) -> Any:
    if isinstance(data, Mapping):
        return data.get(key, default)
    return getattr(data, key, default)


def _claims(report: ReliabilityReport) -> list[ClaimResult]:
    out = []
    for verdict in report.claims:
        source = verdict.source  # the quote the verdict rests on, whole
        out.append(
            ClaimResult(
                text=verdict.shown,
                label=verdict.label,
                score=round(verdict.score, 3),
                evidence=source.quote if source else "",
                source=passage_name(source.passage, source.passage_id) if source else "",
            )
        )
    return out


def verify_view(request: Any, output: Any) -> VerifyResult:
    """`/verify`'s output as a person reads it: the decision applied to the answer."""
    report = ReliabilityReport.model_validate(output)
    decision = report.decision or "refuse"
    answer, question = _get(request, "answer", ""), _get(request, "question", "")
    shown = gate(answer, question, report.model_copy(deep=True), decision, Presentation())
    report.decision = shown.decision
    return VerifyResult(
        decision=shown.decision,
        answer=shown.text,
        level=report.level,
        passed=report.passed,
        score=round(report.score, 3),
        reason=report.reason,
        claims=_claims(report),
        flags=list(report.flags),
        html=render_html(report, answer),
    )


def _source(document: Any) -> str:
    text = short(str(_get(document, "page_content", "")), _SOURCE_CHARS)
    name = _get(document, "id") or _get(_get(document, "metadata", {}) or {}, "source")
    return f"{name}: {text}" if name else text


def rag_view(request: Any, output: Any) -> RAGResult:
    """`/reliable-rag`'s output as a person reads it.

    Its `html` marks every claim of the checked answer by its verdict, whatever the
    decision: the answer itself when it was returned as written, else the claims' own
    words at their places (a filtered or refused answer shows what was removed, and why).
    """
    report = ReliabilityReport.model_validate(_get(output, "report"))
    answer = str(_get(output, "answer", ""))
    outcome = OUTCOMES.get(_get(output, "decision"))  # type: ignore[call-overload]
    as_written = outcome is not None and outcome.answer_as_written and not _get(output, "sources")
    return RAGResult(
        question=str(_get(output, "question", "")),
        decision=str(_get(output, "decision", "")),
        answer=answer,
        level=str(_get(output, "level", report.level)),
        passed=report.passed,
        score=round(report.score, 3),
        reason=report.reason,
        attempts=int(_get(output, "attempts", 1)),
        claims=_claims(report),
        flags=list(report.flags),
        passages=[_source(d) for d in _get(output, "passages", None) or []],
        html=render_html(report, answer if as_written else words_of_claims(report)),
    )


def result_runnable(graph: Runnable, view: Callable[[Any, Any], BaseModel], name: str) -> Runnable:
    """A runnable that runs `graph` and returns `view(input, output)` as a dict."""

    async def run(request: Any, config: RunnableConfig) -> dict[str, Any]:
        return view(request, await graph.ainvoke(request, config)).model_dump()

    return RunnableLambda(run, name=name)


_VERIFY_EXAMPLES = [
    {
        "label": "A claim the passages do not hold",
        "input": {
            "answer": "The Treaty of Versailles was signed on 28 June 1919. "
            "Germany had to pay $442 billion in reparations.",
            "passages": [
                "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
                "It came into force on 10 January 1920.",
            ],
            "question": "When was the Treaty of Versailles signed?",
        },
    },
    {
        "label": "A contradicted dose",
        "input": {
            "answer": "The maximum daily dose of metformin is 5000 mg.",
            "passages": ["The maximum daily dose of metformin is 2550 mg, taken in divided doses."],
            "question": "What is the maximum daily dose of metformin?",
        },
    },
    {
        "label": "Every claim supported",
        "input": {
            "answer": "Metformin is a first-line medication for type 2 diabetes.",
            "passages": ["Metformin is a first-line medication for type 2 diabetes."],
            "question": "What is metformin used for?",
        },
    },
]
OFF_SCRIPT_EXAMPLE = "What is the capital of France?"
"""A question the offline demo has no answer for: the playground shows it refused."""


def playground_examples(kind: str, mode: str) -> list[dict[str, Any]]:
    """Example inputs a playground offers: verify's three, or the demo's own questions.

    The RAG playground offers the demo's recorded questions and one without a
    recorded answer in demo mode, and none otherwise (the knowledge is the server's).
    """
    if kind == "verify":
        return _VERIFY_EXAMPLES
    if mode != "demo":
        return []
    from langchain_reliable.demo import load_demo

    asked = [q["question"] for q in load_demo()["questions"]]
    examples = [{"label": q, "input": {"question": q}} for q in asked]
    label = f"Not recorded: {OFF_SCRIPT_EXAMPLE}"
    return [*examples, {"label": label, "input": {"question": OFF_SCRIPT_EXAMPLE}}]
