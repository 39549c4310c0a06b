"""LLM claim extraction: a chat model splits the answer into atomic claims in one call.

The prompt lives in `prompts/extract_claims.md`: the part before the `<!-- input -->`
line is the system message (rules and few-shot examples in a fenced json block), the
part after it is the user message, a `string.Template` filled with the question and
the answer (wrapped in tags, as data).

The model's output is not trusted as is: every claim is mapped back to a real span
of the answer; a claim that says checkable things its span does not (or whose span
says things no claim carries) is rejected (`claims.mapping`); answer text that no
kept claim covers goes through the deterministic sentence extractor, whose claims
are added; and a call that fails gives the deterministic sentence claims instead.
The model can drop or reword a claim, but it cannot keep a sentence from being checked.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import partial
from string import Template

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from langchain_reliable._llm import StructuredCall, describe, normalise_with_offsets
from langchain_reliable.claims.base import ClaimExtractor, ExtractionResult
from langchain_reliable.claims.mapping import mismatch, overlapping, uncarried, uncovered
from langchain_reliable.claims.sentences import SentenceClaimExtractor, Span
from langchain_reliable.prompts import escape, load_chat_prompt, unescape
from langchain_reliable.schemas import Claim, Cost
from langchain_reliable.text import BARE_WORD, content_stems

WEAK_MATCH = 0.5  # below this similarity a located span is reported in `errors`


class ExtractedClaim(BaseModel):
    """One atomic claim and the excerpt of the answer it comes from."""

    claim: str = Field(
        description="One atomic factual statement, self-contained: pronouns and vague "
        "references replaced by what they refer to."
    )
    source: str = Field(
        description="The excerpt of the answer the claim comes from, copied verbatim."
    )


class ExtractedClaims(BaseModel):
    """Every factual claim of the answer, in answer order."""

    claims: list[ExtractedClaim] = Field(
        description="The claims in the order they appear; empty if the answer makes none."
    )


class ExtractionExample(BaseModel):
    """A few-shot example of the prompt: an answer and the claims to return for it."""

    answer: str
    claims: list[ExtractedClaim]


def load_examples() -> list[ExtractionExample]:
    """Return the few-shot examples in `prompts/extract_claims.md` (its json block)."""
    system, _ = load_chat_prompt("extract_claims")
    block = re.search(r"```json\n(.*?)\n```", system, re.DOTALL)
    if block is None:
        raise ValueError("the extract_claims prompt has no ```json block of examples")
    return [ExtractionExample.model_validate(item) for item in json.loads(block.group(1))]


class LLMClaimExtractor(ClaimExtractor):
    """Extracts atomic, self-contained claims with a chat model, in one structured call.

    Each claim's `text` is the model's claim (pronouns resolved); its `span` is where
    the model's `source` excerpt lies in the answer: found exactly, else ignoring case,
    whitespace, quote styles and markdown emphasis, else the answer's most similar
    sentence or clause. A span is always a real part of the answer, never invented.

    If the call fails — an exception, a timeout, output that does not parse, or no
    claims where the sentence splitter finds some — the claims of
    `SentenceClaimExtractor` are returned instead and the reason is put in `errors`,
    so verification proceeds on deterministic claims.

    Args:
        model: A chat model that supports `with_structured_output` (tool calling).
        timeout: Seconds to wait for the model; `None` waits forever.
        fallback: The extractor used when the call fails, and to locate sources.

    Example:
        ```python
        from langchain_openai import ChatOpenAI

        extractor = LLMClaimExtractor(ChatOpenAI(model="gpt-4o-mini", temperature=0))
        result = extractor.extract("Metformin is cheap, and it rarely causes hypoglycaemia.")
        [c.text for c in result.claims]
        # ["Metformin is cheap.", "Metformin rarely causes hypoglycaemia."]
        ```

    """

    name = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        *,
        timeout: float | None = 60,
        fallback: SentenceClaimExtractor | None = None,
    ) -> None:
        self._call = StructuredCall(
            model,
            ExtractedClaims,
            timeout=timeout,
            task="claim extraction",
            run_name="extract_claims",
            describe=partial(describe, limit=200, first_line=True),
        )
        self.model = model
        self.timeout = timeout
        self.fallback = fallback or SentenceClaimExtractor()
        self._system, self._user = load_chat_prompt("extract_claims")

    def build_messages(self, answer: str, question: str = "") -> list[SystemMessage | HumanMessage]:
        """Build the messages sent to the model for this answer."""
        user = Template(self._user).substitute(
            question=escape(question, "question") or "(not given)",
            answer=escape(answer, "answer"),
        )
        return [SystemMessage(content=self._system), HumanMessage(content=user)]

    async def aextract(self, answer: str, question: str = "") -> ExtractionResult:
        """Extract the claims of `answer` in one model call."""
        if not answer.strip():
            return ExtractionResult(claims=[])
        reply = await self._call.ainvoke(self.build_messages(answer, question))
        cost, parsed = reply.cost, reply.parsed
        if parsed is None:
            return self._fall_back(answer, reply.failure, cost)

        items = [i for i in parsed.claims if i.claim.strip() or i.source.strip()]
        if not items:
            found = self.fallback.claims(answer)
            if found:
                reason = (
                    f"claim extraction returned no claims where the sentence splitter "
                    f"found {len(found)}"
                )
                return self._fall_back(answer, reason, cost, found)
            return ExtractionResult(claims=[], cost=cost)

        errors: list[str] = []
        claims = self._locate_all(answer, items, errors)
        claims = self._hold_to_spans(answer, question, claims, errors)
        claims = self._cover_the_rest(answer, claims, errors)
        return ExtractionResult(claims=with_span_claims(answer, claims), cost=cost, errors=errors)

    def _hold_to_spans(
        self, answer: str, question: str, claims: list[Claim], errors: list[str]
    ) -> list[Claim]:
        """Drop the claims that do not say what their span says (`claims.mapping`)."""
        kept = []
        for claim in claims:
            start, end = claim.span
            problem = mismatch(claim.text, answer[start:end], prior=f"{question}\n{answer[:start]}")
            if problem is None:
                kept.append(claim)
            else:
                errors.append(f"claim {claim.text[:80]!r} rejected: {problem}")
        changed = True
        while changed:  # rejecting one claim can leave another's span uncarried
            changed = False
            for claim in list(kept):
                siblings = [c.text for c in overlapping(kept, claim.span)]
                problem = uncarried(answer[slice(*claim.span)], siblings)
                if problem is not None:
                    kept.remove(claim)
                    errors.append(f"claim {claim.text[:80]!r} rejected: {problem}")
                    changed = True
        return kept

    def _cover_the_rest(self, answer: str, claims: list[Claim], errors: list[str]) -> list[Claim]:
        """Add the fallback's claims for the answer text no kept claim covers."""
        gaps = uncovered(answer, [c.span for c in claims])
        if not gaps:
            return claims
        whole = self.fallback.claims(answer)
        added: list[Claim] = []
        for start, end in gaps:
            found = [c for c in overlapping(whole, (start, end)) if c not in added]
            if not found:
                found = [
                    Claim(text=c.text, span=(c.span[0] + start, c.span[1] + start))
                    for c in self.fallback.claims(answer[start:end])
                ]
            added.extend(found)
        if added:
            errors.append(
                f"{len(added)} claim(s) added by the {self.fallback.name} extractor for "
                "answer text the model's claims did not cover"
            )
        return sorted([*claims, *added], key=lambda c: c.span)

    def _locate_all(
        self, answer: str, items: list[ExtractedClaim], errors: list[str]
    ) -> list[Claim]:
        """Map each extracted claim to its span; claims come back in answer order."""
        candidates: list[Span] | None = None
        claims: list[Claim] = []
        cursor = 0
        for n, item in enumerate(items, start=1):
            source = unescape(item.source).strip() or item.claim.strip()
            text = item.claim.strip() or source
            span = locate(answer, source, cursor)
            if span is None:
                if candidates is None:
                    candidates = self.fallback.candidate_spans(answer) or [_whole(answer)]
                span, ratio = closest(answer, [source, text], candidates)
                if ratio < WEAK_MATCH:
                    errors.append(
                        f"claim {n}: source not found in the answer; mapped to the most "
                        f"similar sentence (similarity {ratio:.2f})"
                    )
            cursor = span[0]
            claims.append(Claim(text=text, span=span))
        return sorted(claims, key=lambda c: c.span[0])

    def _fall_back(
        self, answer: str, reason: str, cost: Cost, claims: list[Claim] | None = None
    ) -> ExtractionResult:
        claims = self.fallback.claims(answer) if claims is None else claims
        return ExtractionResult(
            claims=claims,
            cost=cost,
            errors=[f"{reason}; used the {self.fallback.name} extractor's claims"],
        )


# --- locating sources -------------------------------------------------------------

_CHAR_MAP = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_IGNORED = frozenset("*_`")
_EDGE = " \t\r\n\"'`*_.…"


def _normalise(text: str) -> tuple[str, list[int]]:
    """Lower-case, unify quotes and dashes, drop emphasis marks, collapse whitespace.

    Returns the normalised text and, for each of its characters, the index in `text`
    of the character it came from.
    """
    return normalise_with_offsets(text, table=_CHAR_MAP, fold=_lower, ignored=_IGNORED)


def _lower(char: str) -> str:
    lower = char.lower()
    return lower if len(lower) == 1 else char


def locate(answer: str, source: str, cursor: int = 0) -> Span | None:
    """Span of `source` in `answer`: exact, then ignoring case and whitespace, or `None`.

    Occurrences at or after `cursor` are preferred, so repeated text maps in order.
    """
    source = source.strip()
    if not source:
        return None
    for start in (answer.find(source, cursor), answer.find(source)):
        if start >= 0:
            return start, start + len(source)
    hay, where = _normalise(answer)
    needle, _ = _normalise(source.strip(_EDGE) or source)
    if not needle:
        return None
    norm_cursor = next((k for k, i in enumerate(where) if i >= cursor), len(where))
    for start in (hay.find(needle, norm_cursor), hay.find(needle)):
        if start >= 0:
            return where[start], where[start + len(needle) - 1] + 1
    return None


def closest(answer: str, texts: list[str], candidates: list[Span]) -> tuple[Span, float]:
    """Return the span of `answer` most similar to any of `texts`, and the similarity.

    Similarity is difflib's ratio over lower-cased words (0-1); ties go to the higher
    ratio over characters, then to the earlier span.
    """
    targets = [(_normalise(t)[0], BARE_WORD.findall(_normalise(t)[0])) for t in texts if t.strip()]
    best, best_key = candidates[0], (-1.0, -1.0)
    for span in candidates:
        norm, _ = _normalise(answer[span[0] : span[1]])
        words = BARE_WORD.findall(norm)
        key = (
            max(
                (
                    difflib.SequenceMatcher(None, t_words, words, autojunk=False).ratio(),
                    difflib.SequenceMatcher(None, t_norm, norm, autojunk=False).ratio(),
                )
                for t_norm, t_words in targets
            )
            if targets
            else (0.0, 0.0)
        )
        if key > best_key:
            best, best_key = span, key
    return best, max(best_key[0], 0.0)


# --- helpers ----------------------------------------------------------------------


def with_span_claims(answer: str, claims: list[Claim]) -> list[Claim]:
    """`claims`, plus the text of each span its claims do not bear out.

    The model's claim is checked, but its span is what the user sees, and the two may
    differ in ways the mapping checks do not catch (another word, an antonym, a
    qualifier). A span is borne out when every content word of it is in its claims
    and the rules layer, reading the span against its claims as the passage, finds
    nothing; otherwise the span's own text becomes a claim, checked against the real
    passages, so the span is shown only when what it says is supported (`coverage`:
    a character in any unsupported claim's span is not covered).
    """
    from langchain_reliable.rules import default_rules
    from langchain_reliable.schemas import Passage

    rules = default_rules()
    added = []
    for span in dict.fromkeys(c.span for c in claims):
        text = " ".join(answer[span[0] : span[1]].split())
        own = " ".join(c.text for c in claims if c.span == span)
        if not text or " ".join(own.split()).lower() == text.lower():
            continue
        missing = set(content_stems(text)) - set(content_stems(own))
        carried = [Passage(index=0, text=own)]
        if missing or rules.findings([Claim(text=text, span=(0, len(text)))], carried)[0]:
            added.append(Claim(text=text, span=span))
    return sorted([*claims, *added], key=lambda c: c.span)


def _whole(answer: str) -> Span:
    start = len(answer) - len(answer.lstrip())
    return start, len(answer.rstrip())
