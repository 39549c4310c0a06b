"""A report, readable: the answer with each claim marked by its verdict, then the verdicts.

`render_markdown` and `render_html` show the answer as written, each claim's span
marked: supported claims plain (HTML: `<mark class="supported">`) with the `[n]` of the
passage they rest on, removed claims struck through with their label (HTML:
`<del class="unsupported">`, `contradicted`, `uncertain`). All answer and passage text
is escaped, so an answer holding markup is shown, never run.

Example:
    >>> from langchain_reliable import create_verifier
    >>> answer = "Paris is in France. It has 90 million people."
    >>> report = create_verifier().invoke(
    ...     {"answer": answer, "passages": ["Paris is the capital of France."]})
    >>> print(render_html(report, answer).splitlines()[1])  # doctest: +ELLIPSIS
    <p><mark class="supported" title="supported...">Paris is in France.</mark>...

"""

from __future__ import annotations

import html
import re
import shutil
import textwrap
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from langchain_reliable.citations import cited_sources, source_of
from langchain_reliable.schemas import ClaimVerdict, ReliabilityReport
from langchain_reliable.text import short

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def _as_report(report: ReliabilityReport | Mapping[str, Any]) -> ReliabilityReport:
    return (
        report
        if isinstance(report, ReliabilityReport)
        else ReliabilityReport.model_validate(report)
    )


def _pieces(
    answer: str, report: ReliabilityReport
) -> Iterator[tuple[str, ClaimVerdict | None, list[int]]]:
    """The answer cut into (text, verdict or None, source numbers), in order; overlaps once.

    A supported claim cites the one passage its verdict rests on, by its number.
    """
    cursor = 0
    for verdict in sorted(report.claims, key=lambda v: v.span):
        start, stop = max(verdict.span[0], cursor), min(verdict.span[1], len(answer))
        if stop <= start:
            continue
        if start > cursor:
            yield answer[cursor:start], None, []
        source = source_of(verdict)
        yield answer[start:stop], verdict, [] if source is None else [source.number]
        cursor = stop
    if cursor < len(answer):
        yield answer[cursor:], None, []


def _summary(report: ReliabilityReport) -> str:
    return (
        f"decision: {report.decision or 'none'} · level: {report.level} · "
        f"reliability: {report.reliability_score:.2f} · supported {report.supported}/"
        f"{len(report.claims)}"
    )


def words_of_claims(report: ReliabilityReport | Mapping[str, Any]) -> str:
    """The checked answer as far as its claims hold it, for marking up when it is not at hand.

    Each claim's own words (`ClaimVerdict.said`) stand at its span; text no claim holds
    (glue between claims) is unknown and left as spaces, so the spans still point into
    the result. "" when the claims do not carry their words.

    Example:
        >>> from langchain_reliable.schemas import ClaimVerdict
        >>> verdicts = [ClaimVerdict(text="A is B.", said="A is B.", span=(0, 7),
        ...                          label="supported", score=0.9),
        ...             ClaimVerdict(text="C is D.", said="C is D.", span=(9, 16),
        ...                          label="unsupported", score=0.1)]
        >>> words_of_claims({"claims": verdicts, "reliability_score": 0.5,
        ...                  "hallucination_rate": 0.5, "hallucination_score": 0.9,
        ...                  "level": "LOW"})
        'A is B.  C is D.'

    """
    report = _as_report(report)
    placed = [v for v in report.claims if v.said and len(v.said) == v.span[1] - v.span[0]]
    if not placed:
        return ""
    chars = [" "] * max(v.span[1] for v in placed)
    for verdict in placed:
        chars[verdict.span[0] : verdict.span[1]] = verdict.said
    return "".join(chars)


def md_escape(text: str) -> str:
    """`text` safe in markdown: markup characters backslashed, HTML escaped."""
    return html.escape(_MARKDOWN_SPECIAL.sub(r"\\\1", text), quote=False)


def render_markdown(report: ReliabilityReport | Mapping[str, Any], answer: str) -> str:
    """The answer with removed claims struck through (`~~…~~ *(label)*`), then the verdicts.

    Args:
        report: a `ReliabilityReport` or its dict (a graph's output).
        answer: the text the report is about (its claims' spans point into it).

    Example:
        >>> from langchain_reliable import create_verifier
        >>> answer = "Paris is in France."
        >>> report = create_verifier().invoke(
        ...     {"answer": answer, "passages": ["Paris is the capital of France."]})
        >>> print(render_markdown(report, answer).splitlines()[2])
        Paris is in France. [1]

    """
    report = _as_report(report)
    body = []
    for text, verdict, cited in _pieces(answer, report):
        if verdict is None or verdict.label == "supported":
            marks = "".join(f"[{n}]" for n in cited)
            body.append(md_escape(text) + (f" {marks}" if marks else ""))
        else:
            stripped = text.strip()
            lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
            body.append(f"{lead}~~{md_escape(stripped)}~~ *({verdict.label})*{trail}")
    lines = [f"**{_summary(report)}**", "", "".join(body), "", "| # | label | score | claim |"]
    lines.append("| --- | --- | --- | --- |")
    for i, v in enumerate(report.claims, 1):
        lines.append(f"| {i} | {v.label} | {v.score:.2f} | {md_escape(v.shown)} |")
    sources = cited_sources(report.claims)
    if sources:
        lines += ["", "Sources:"]
        lines += [f"- \\[{s.number}\\] {md_escape(s.label)}: {md_escape(s.quote)}" for s in sources]
    return "\n".join(lines)


def render_html(report: ReliabilityReport | Mapping[str, Any], answer: str) -> str:
    """An HTML fragment: the answer with claims marked, then a table of verdicts.

    Supported spans are `<mark class="supported">` followed by `<sup>[n]</sup>`; the
    others `<del class="unsupported|contradicted|uncertain">`, with the reason as the
    title. Every piece of text is HTML-escaped.

    Args:
        report: a `ReliabilityReport` or its dict (a graph's output).
        answer: the text the report is about.

    """
    report = _as_report(report)
    body = []
    for text, verdict, cited in _pieces(answer, report):
        escaped = html.escape(text)
        if verdict is None:
            body.append(escaped)
            continue
        title = html.escape(f"{verdict.label} ({verdict.score:.2f}) {verdict.reason}".strip())
        if verdict.label == "supported":
            sups = "".join(f"<sup>[{n}]</sup>" for n in cited)
            body.append(f'<mark class="supported" title="{title}">{escaped}</mark>{sups}')
        else:
            body.append(f'<del class="{verdict.label}" title="{title}">{escaped}</del>')
    rows = "".join(
        f'<tr class="{v.label}"><td>{i}</td><td>{v.label}</td><td>{v.score:.2f}</td>'
        f"<td>{html.escape(v.shown)}</td><td>{html.escape(v.reason)}</td></tr>"
        for i, v in enumerate(report.claims, 1)
    )
    sources = "".join(
        f'<li value="{s.number}">{html.escape(s.label)}: <q>{html.escape(s.quote)}</q></li>'
        for s in cited_sources(report.claims)
    )
    parts = [
        f'<div class="reliability-report"><p class="summary">{html.escape(_summary(report))}</p>',
        f"<p>{''.join(body)}</p>",
        "<table><thead><tr><th>#</th><th>label</th><th>score</th><th>claim</th>"
        f"<th>reason</th></tr></thead><tbody>{rows}</tbody></table>",
    ]
    if sources:
        parts.append(f'<ol class="sources">{sources}</ol>')
    parts.append("</div>")
    return "\n".join(parts)


__all__ = [
    "cited_evidence",
    "claim_words",
    "md_escape",
    "passage_ref",
    "print_report",
    "render_html",
    "render_markdown",
    "short",
    "words_of_claims",
    "wrapped",
]


def wrapped(text: str, width: int, indent: int) -> str:
    """`text` whole, wrapped to `width` columns, every line indented by `indent`."""
    pad = " " * indent
    lines = textwrap.wrap(" ".join(str(text).split()), max(20, width - indent))
    return "\n".join(pad + line for line in lines)


def passage_ref(evidence: dict[str, Any]) -> str:
    """How a passage is named in tables: ``[n] id``, numbered as reasons and markers are."""
    ref = f"[{evidence['passage'] + 1}]"
    return f"{ref} {evidence['passage_id']}" if evidence.get("passage_id") else ref


def cited_evidence(claim: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """What a claim's evidence is called, and the evidence worth showing.

    A supported claim shows the quote its verdict rests on; a contradicted one, the
    quote that contradicts it (`ClaimVerdict.source`: one source per claim). The
    passages nearest an unsupported or uncertain claim do not bear it out, so none is
    shown as evidence (its reason says why).

    Example:
        >>> cited_evidence({"label": "unsupported", "evidence": [{"passage": 0}]})
        ('evidence', [])

    """
    evidence = list(claim.get("evidence") or [])[:1]
    if claim.get("label") == "supported":
        return "evidence", evidence
    if claim.get("label") == "contradicted":
        return "contradicted by", evidence
    return "evidence", []


def claim_words(claim: Mapping[str, Any]) -> str:
    """A claim as a surface shows it: the answer's own words (`said`), else its text.

    Example:
        >>> claim_words({"text": "Metformin lowers glucose.", "said": "It lowers glucose."})
        'It lowers glucose.'

    """
    return str(claim.get("said") or "").strip() or str(claim.get("text", ""))


def report_fields(report: ReliabilityReport | Mapping[str, Any]) -> dict[str, Any]:
    """A report as plain data (`model_dump()`), whether given as the model or its fields."""
    return report.model_dump() if isinstance(report, ReliabilityReport) else dict(report)


def print_report(
    report: ReliabilityReport | Mapping[str, Any],
    out: TextIO,
    *,
    decision: str | None = None,
    verbose: bool = False,
    tier: str = "",
    question: str = "",
) -> None:
    """Print a report's claims as a table: label, score, claim, then reason and evidence.

    With `tier` (the verifier in words), a first line names what checked the claims;
    with `question`, the next says the claims were read as replies to it; with
    `verbose`, each claim's `details` (the engine's reading) under its reason.
    """
    report = report_fields(report)
    claims = report.get("claims") or []
    width = max(60, min(160, shutil.get_terminal_size((100, 24)).columns))
    if tier:
        print(wrapped(f"verifier: {tier}", width, 0), file=out)
    if question.strip():
        print(wrapped(f"read as replies to: {question.strip()}", width, 0), file=out)
    print(f"{'#':>3}  {'LABEL':<13}{'SCORE':>5}  CLAIM", file=out)
    for number, claim in enumerate(claims, 1):
        columns = f"{number:>3}  {claim['label']:<13}{claim['score']:>5.2f}  "
        print(columns + wrapped(claim_words(claim), width, 25)[25:], file=out)  # whole
        if claim.get("reason"):  # the why first, whole
            print(wrapped(f"reason: {claim['reason']}", width, 25), file=out)
        if verbose and claim.get("details"):
            print(wrapped(f"details: {claim['details']}", width, 25), file=out)
        kind, shown = cited_evidence(claim)
        for evidence in shown:
            where = passage_ref(evidence)
            quoted = f'{kind} {where} (match {evidence["score"]:.2f}): "{evidence["quote"]}"'
            print(wrapped(quoted, width, 25), file=out)
    if not claims:
        print("     (no claims)", file=out)
    for note in report.get("notes") or []:
        print(f"note: {note}", file=out)
    if report.get("filtered_answer"):  # what a reader is shown in place of the answer
        print(wrapped(f"shown instead: {report['filtered_answer']}", width, 0), file=out)
    print("-" * min(width, 78), file=out)
    print(
        f"reliability {report['reliability_score']:.2f} · hallucination rate "
        f"{report['hallucination_rate']:.2f} · level {report['level']} · "
        f"decision: {decision or report.get('decision')}",
        file=out,
    )
    legend = (  # what the numbers are, for a reader who has not read the docs
        "(SCORE: how likely a claim is supported, 0.90 and up when it is; match: how strongly "
        "the quote bears on the claim (for a quote that says otherwise, how surely it does); "
        "reliability: the share of claims supported, uncertain ones counted half; hallucination "
        "rate: the share not supported)"
    )
    print(wrapped(legend, min(width, 78), 0), file=out)
