"""The coverage invariant: a user is shown only verified text and content-free glue.

Every character of the text a user receives with `return` or `filter` lies inside the
span of a claim labelled `supported`, or inside a segment proved content-free
(`is_glue`): whitespace, punctuation and markup (bullets, fences, rules, pipes), or
words of a closed vocabulary (`CONTENT_FREE_WORDS`) in one of a few shapes: a
greeting or sign-off, an opener ("Based on the passages,"), a connector ("and",
"however"), an empty hedge ("It depends."), an abstention that names no fact ("I don't
know."). Anything else is content: headings, bold lines, table cells, lead-ins not
verified with their items, questions, "The passages do not say why X", a digit, an
emoji. When a question was asked, a reply ("Yes", "No", "Not necessarily") is content
and is checked with the question.

`uncovered` lists what breaks the invariant in an answer shown as written;
`check_coverage` does the same for any text shown instead (a filtered answer). The
graphs call them before they return; a model can never widen what they accept.

Example:
    >>> from langchain_reliable.schemas import ClaimVerdict
    >>> answer = "Sure! Paris is in France. It has 90 million people."
    >>> ok = ClaimVerdict(text="Paris is in France.", span=(6, 25), label="supported", score=1)
    >>> [g.text for g in uncovered(answer, [ok])]
    ['It has 90 million people.']

"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from langchain_reliable.schemas import ClaimVerdict
from langchain_reliable.text import HEDGES, WORD, Span, is_abstention, is_hedge, normalise, trim

# --- markdown lines (shared with the sentence extractor) ------------------------------

FENCE = re.compile(r"^[ \t]*(?:```|~~~)")
HEADER = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
RULE = re.compile(r"^[ \t]*(?:[-*_=][ \t]*){3,}$")
TABLE_RULE = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$")
TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
# A line that is only bold text with no sentence end ("**Dosage**").
BOLD_LINE = re.compile(r"^[ \t]*(?:\*\*|__)[^*_\n.!?:]{1,80}(?:\*\*|__)[ \t]*$")
MARKER = re.compile(
    r"^[ \t]*(?:"
    r"(?:>[ \t]*)+(?:(?:[-*+•]|\d{1,3}[.)])[ \t]+)?"  # block quote, maybe with a bullet
    r"|(?:[-*+•‣◦▪]|\d{1,3}[.)]|[a-z]\))[ \t]+"  # bullet or numbered item
    r")(?:\[[ xX]\][ \t]+)?"  # task-list box
)
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)[\w+#.-]*[ \t]*$")

# --- openers: removed from the front of a claim, glue on their own ---------------------

_OPENER_PATTERNS = (
    r"(?:sure|certainly|of course|absolutely|yes|no|okay|ok|well|great question|"
    r"good question)\s*[,!.]\s+(?=\S)",
    r"(?:here(?:'s|’s| is| are)|below (?:is|are))\b[^:\n]{0,80}:\s+(?=\S)",
    r"(?:in summary|to summarize|to summarise|in short|in conclusion|to sum up|in brief|"
    r"overall|summary|answer|short answer|tl;?dr)\s*[,:]\s+(?=\S)",
    r"(?:based on|according to|from|per) (?:the |these |this )?(?:provided |given |"
    r"retrieved |available |above )?(?:passages?|sources?|context|documents?|information|"
    r"texts?|excerpts?|search results|results)(?: provided| given| above)?\s*[,:]\s+(?=\S)",
    r"(?:the |this )?(?:passages?|sources?|context|documents?|texts?|articles?|reports?|"
    r"excerpts?|story) (?:says?|states?|indicates?|shows?|mentions?|explains?|notes?|"
    r"reports?|suggests?)(?: that\s+|\s*:\s+)(?=\S)",
    r"(?:the |this )?(?:passages?|documents?|texts?|articles?|reports?|excerpts?|story) "
    r"(?:discusses|describes|covers|details|outlines|highlights|focuses on|is about|"
    r"talks about|reports on|provides (?:information|details|an overview) (?:on|about|of))"
    r"\s+(?=\S)",
    # Hedges in front of a statement: the statement is checked without them.
    r"(?:i['’]m|i am) not (?:entirely |completely |100% )?(?:sure|certain|positive)"
    r"(?: about this| if this is (?:right|correct))?\s*[,;]?\s*(?:but|though)\s+(?=\S)",
    r"(?:i (?:don['’]t|do not) know for (?:sure|certain)|i (?:could|may|might) be wrong|"
    r"not (?:sure|certain))\s*[,;]?\s*(?:but|though)\s+(?=\S)",
    r"(?:i (?:think|believe|guess|suppose|recall)(?: that)?|i['’]m (?:fairly|pretty|quite) "
    r"(?:sure|certain)(?: that)?|probably|perhaps|maybe|possibly|apparently|"
    r"it (?:seems|appears)(?: that)?|if i (?:recall|remember)(?: correctly| rightly)?|"
    r"as far as i (?:know|can tell)|to (?:my|the best of my) knowledge|afaik)\s*,?\s+(?=\S)",
)
OPENERS = [re.compile(p, re.IGNORECASE) for p in _OPENER_PATTERNS]

# --- glue ------------------------------------------------------------------------------

_GREETING = re.compile(
    r"(?:hi|hello|hey)(?: there)?|(?:good)?bye(?: for now)?|take care|cheers|"
    r"(?:best |kind |warm )?regards|"
    r"(?:thanks|thank you)(?: (?:so|very) much)?(?: for (?:asking|your question|reaching out))?|"
    r"you're welcome|no problem|(?:great|good|excellent|interesting|nice) question|"
    r"sure(?: thing)?|certainly|of course|absolutely|okay|ok|well|great|"
    r"(?:i'm |i am |i'd be |i would be )?(?:happy|glad) to help|"
    r"(?:i )?hope (?:this|that|it) helps?|good luck|have a (?:great|nice|good) (?:day|one)|"
    r"(?:please )?(?:let me know|feel free to ask|don't hesitate to ask)"
    r"(?: if you have (?:any )?(?:other |more |further )?questions?)?|"
    r"(?:is there )?anything else(?: i can help (?:you )?with)?|"
    r"(?:would you like|do you want|shall i|should i)(?: me)? to (?:know|hear|learn|see|"
    r"explain|elaborate|go)\b[^.!?]{0,60}|"
    r"(?:in summary|to summarize|to summarise|in short|in conclusion|to sum up|in brief|"
    r"overall|summary|overview|answer|short answer|(?:(?:key|main) )?(?:points?|facts?|takeaways?)|"
    r"details?|sources?|references?|notes?)"
)
_CONNECTOR = re.compile(
    r"(?:and|but|while|whereas|yet|although|though|however|moreover|furthermore|also|"
    r"instead|meanwhile|nevertheless|in addition|in contrast|by contrast|for example|"
    r"for instance)"
)
_AFFIRMATION = re.compile(
    r"(?:yes|yeah|yep|yup|no|nope|correct|incorrect|right|wrong|true|false|indeed|exactly|"
    r"absolutely|certainly|definitely|of course|sure|not at all|not really|"
    r"that['’]s (?:right|correct|true|wrong|incorrect|false)|not necessarily|"
    r"✅|✔️?|☑️?|👍|❌|👎|✖️?|✗|✓)(?![-\w'’])",
    re.IGNORECASE,
)
REPLY = _AFFIRMATION
"""A yes or a no at the start of a reply ("Yes", "No", "Correct", "Not at all")."""
_PARTS = re.compile(r"\b(?:but|however|though|although|yet|so|and|because)\b|[;:]")
# A request phrased as a question ("Can you tell me more?"): "Sure" accepts it.
_REQUEST = re.compile(
    r"(?:(?:so|and|ok|okay|well|then)\W+)*(?:can|could|would|will) you (?:please )?(?:tell|give|"
    r"explain|show|describe|list|share|help|summari[sz]e|provide|elaborate|talk)\b(?!.*\b(?:whether|if)\b)"
)
# A question about the assistant's own taste or experience ("Do you like jazz?", "Have
# you tried it?"): its yes or no states no fact a passage could hold. A closed list of
# verbs, and no clause after them ("Do you know that X?" is not one).
_PERSONAL = re.compile(
    r"(?:(?!(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|"
    r"might|must)\b)[^?]*,\s*)?(?:(?:so|and|ok|okay|well|then|also)\W+)*"
    r"(?:do|did|have|would|will|are) you "
    r"(?:ever |also |still |really |even )?(?:like|love|enjoy|prefer|watch|read|play|listen|"
    r"follow|try|tried|hear|heard|visit|visited|use|used|own|eat|cook|travel|been|go|went|"
    r"have a favou?rite|a fan)\b(?!.*\b(?:that|whether|if|how|why|what|when|where|who)\b)"
)
_WHETHER = re.compile(r"\b(?:whether|if)\b|, (?:right|correct|true)$")
# A question a yes or a no cannot answer: it asks what, who, when, how much ...
_WH_QUESTION = re.compile(
    r"(?:(?:so|and|but|ok|okay|well|then)\W+)*(?:what|which|who|whom|whose|when|where|why|"
    r"how)\b(?!\s+about\b)"
)
_MARKUP_EDGES = re.compile(r"^[\s#>*_~`|\-+•:,;.!?]+|[\s#>*_~`|]+$")
_PIECE_BREAK = re.compile(r"(?<=[.!?])\s+|\s*\|\s*")


def is_yes_no_question(question: str) -> bool:
    """Tell whether a yes or a no could answer `question`, whatever its phrasing.

    Any question but a wh-question, a request, or a question about the assistant's
    own taste or experience ("Do you like jazz?") counts ("Is it safe?", "So, is it
    safe?", "Tell me whether it is safe", "It is safe, right?"), read in its last
    sentence, so a reply to it is checked with it.
    """
    last = last_question(question)
    norm = normalise(last)
    asks = last.rstrip(" \t\n*_\"')").endswith("?") or _WHETHER.search(norm) is not None
    return asks and not any(p.match(norm) for p in (_WH_QUESTION, _REQUEST, _PERSONAL))


# A turn of a chat history written out ("User: ...", "Assistant: ..."): who speaks, at a line start.
_TURN = re.compile(
    r"^[ \t>*_]*(user|human|me|q|question|patient|customer|client|assistant|ai|bot|chatbot|"
    r"model|a|answer|system|gpt|claude)[ \t*_]*:[ \t*_]*",
    re.IGNORECASE | re.MULTILINE,
)
_ASKERS = frozenset(["user", "human", "me", "q", "question", "patient", "customer", "client"])


def last_user_turn(question: str) -> str:
    """What an answer answers: the last user turn of a chat history, else `question`.

    A question written as a history ("User: ... Assistant: ... User: ...") is answered
    in its last user turn; earlier turns, the assistant's above all, are not what the
    answer replies to (and never passages).

    Example:
        >>> last_user_turn("User: Is it safe?\nAssistant: Yes.\nUser: Is 5 g the dose?")
        'Is 5 g the dose?'

    """
    turns = list(_TURN.finditer(question))
    asked = [
        (m, turns[i + 1].start() if i + 1 < len(turns) else len(question))
        for i, m in enumerate(turns)
        if m.group(1).lower() in _ASKERS
    ]
    if not asked:
        return question
    last, end = asked[-1]
    return question[last.end() : end].strip() or question


def last_question(question: str) -> str:
    """The sentence a reply answers: in the last user turn (`last_user_turn`), its last
    question ("Is it safe? Answer briefly." -> "Is it safe?"), else its last sentence."""
    turn = last_user_turn(question)
    parts = [p for p in re.split(r"(?<=[.!?])\s+", turn.strip()) if WORD.search(p)]
    asks = [p for p in parts if p.rstrip(" \t\n*_\"')").endswith("?")]
    return (asks or parts or [turn])[-1]


def is_affirmation(text: str) -> bool:
    """Tell whether `text` opens with a yes or a no ("Yes.", "No, it is not.")."""
    return _AFFIRMATION.match(normalise(text)) is not None


def is_opener(text: str) -> bool:
    """Tell whether `text` is only an opener ("Sure,", "Based on the passages,")."""
    probe = f"{text.strip()} x"
    for pattern in OPENERS:
        m = pattern.match(probe)
        if m and m.end() == len(probe) - 1:
            return True
    return False


def is_glue(text: str, *, yes_no_question: bool = False) -> bool:
    """Tell whether `text` is provably content-free (see the module docstring).

    Text is content unless proved otherwise: it is glue only when it holds no digit
    and no symbol but markup (an emoji, "✓" and "×" are content), every word is in
    the closed vocabulary `CONTENT_FREE_WORDS`, and the whole has one of the glue
    shapes (greeting or sign-off, connector, opener, empty hedge, abstention).

    Args:
        text: A piece of an answer: a line, a sentence or what lies between two claims.
        yes_no_question: A question was asked, so a reply ("Yes", "No", "Not
            necessarily", "Sure") says something and is not glue.

    """
    if any(_is_sign(c) for c in text):
        return False
    body = _MARKUP_EDGES.sub("", text)
    if not WORD.search(body):
        return True
    norm = normalise(body)
    if yes_no_question and (_AFFIRMATION.match(norm) or _REPLY_HEDGE.match(norm)):
        return False
    if not all(w in CONTENT_FREE_WORDS for w in WORD.findall(norm)):
        return False
    if _GREETING.fullmatch(norm) or _CONNECTOR.fullmatch(norm):
        return True
    if is_hedge(body) or is_opener(body):
        return True
    # An abstention, each of whose parts abstains: "I'm sorry, but I couldn't find it."
    parts = [p.strip(" ,") for p in _PARTS.split(norm)]
    return all(not p or _abstains(p) for p in parts) and any(is_abstention(p) for p in parts)


# Signs that markdown or HTML uses as markup; any other symbol or digit is content.
_MARKUP_SIGNS = frozenset("#*_~`|>-+•‣◦▪<=^")
_REPLY_HEDGE = re.compile(r"(?:maybe|perhaps|possibly|probably|i (?:think|believe|guess) so)\b")


def _is_sign(char: str) -> bool:
    """A digit, emoji or symbol that is not markup (it may carry content)."""
    return unicodedata.category(char)[0] in "NS" and char not in _MARKUP_SIGNS


def _abstains(part: str) -> bool:
    """A part of an abstention that asserts nothing about the world.

    It is a greeting or made of abstaining words only ("I'm sorry", "the passages do
    not say"). "The passages do not say why metformin is banned" names a fact, so it
    is content: it is checked, or not shown.
    """
    return bool(_GREETING.fullmatch(part)) or all(
        w in _ABSTAINING_WORDS for w in WORD.findall(part)
    )


# The words an explicit abstention is made of; any other word makes it a statement.
_ABSTAINING_WORDS = frozenset(
    """i i'm im i'd i've me my we you your am is are was were be been do does did don't
    doesn't didn't not no nor cannot can't can could couldn't would wouldn't will won't
    unable able sure certain unsure sorry afraid unfortunately regrettably but however
    though and so because know find found see say tell determine confirm verify answer
    answered provide give have has had lack any enough sufficient insufficient limited
    information info data details detail evidence mention mentioned specific specifics answers
    knowledge access it this that these those there the a an of to in on at for from by
    about regarding with on based according question questions topic passages passage
    sources source context documents document text provided given available retrieved
    above here recorded record offline demo its own replays calls chat model models
    reliable relevant clear unclear possible impossible difficult hard as ai help
    please sorry further more other such""".split()  # noqa: SIM905
)

CONTENT_FREE_WORDS = (
    _ABSTAINING_WORDS
    | frozenset(
        w
        for pattern in (*_OPENER_PATTERNS, _GREETING.pattern, _CONNECTOR.pattern, *HEDGES)
        for w in re.findall(r"[a-z][a-z'’]+", pattern.replace("(?:", " ").replace("\\s", " "))
    )
    | frozenset(  # words of lead-ins the patterns above do not spell out
        """concise quick core pieces covering following important takeaway reference
        here's what""".split()  # noqa: SIM905
    )
)
"""The closed vocabulary glue is made of: a piece with any other word is content."""


# --- the invariant -----------------------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    """A part of the shown text that breaks the invariant.

    Attributes:
        text: The offending text.
        reason: Why it is not covered.
        span: Its offsets in the answer, when the answer is shown as written.
    """

    text: str
    reason: str
    span: Span | None = None


_NONE, _SUPPORTED, _CLAIMED = 0, 1, 2


def _marks(answer: str, verdicts: Sequence[ClaimVerdict]) -> bytearray:
    """Mark each character: in a supported span, in another claim's span, or in none.

    A character in both a supported and a not-supported span counts as not supported.
    """
    marks = bytearray(len(answer))
    for rank in (_SUPPORTED, _CLAIMED):
        for v in verdicts:
            if (v.label == "supported") == (rank == _SUPPORTED):
                start, end = max(0, v.span[0]), min(len(answer), v.span[1])
                if end > start:
                    marks[start:end] = bytes([rank]) * (end - start)
    return marks


def _runs(marks: bytearray, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """Maximal runs `(mark, start, end)` of equal marks within `[start, end)`."""
    i = start
    while i < end:
        j = i
        while j < end and marks[j] == marks[i]:
            j += 1
        yield marks[i], i, j
        i = j


def _lines(answer: str) -> Iterator[tuple[int, int]]:
    offset = 0
    for raw in answer.splitlines(keepends=True):
        yield offset, offset + len(raw.rstrip("\r\n"))
        offset += len(raw)


def _analyse(
    answer: str, verdicts: Sequence[ClaimVerdict], question: str
) -> tuple[list[Gap], list[str]]:
    """The gaps of `answer` shown as written, and the word-bearing glue pieces found."""
    yes_no = is_yes_no_question(question)
    marks = _marks(answer, verdicts)
    supported = [normalise(v.text) for v in verdicts if v.label == "supported"]
    lines = list(_lines(answer))
    gaps: list[Gap] = []
    glue: list[str] = []
    for line_start, line_end in lines:
        line = answer[line_start:line_end]
        if _FENCE_LINE.match(line) or RULE.match(line) or TABLE_RULE.match(line):
            continue
        marker = MARKER.match(line)
        body_start = line_start + (marker.end() if marker else 0)
        for mark, start, end in _runs(marks, body_start, line_end):
            text = answer[start:end]
            if mark == _SUPPORTED or not WORD.search(text):
                continue
            if mark == _CLAIMED:
                gaps.append(Gap(text.strip(), "in a claim not verified", trim(answer, start, end)))
                continue
            for a, b in _pieces(answer, start, end):
                piece = answer[a:b]
                if is_glue(piece, yes_no_question=yes_no) or _leads_in(piece, supported):
                    glue.append(piece)
                else:
                    gaps.append(Gap(piece, "not covered by any supported claim", (a, b)))
    return gaps, glue


def _pieces(answer: str, start: int, end: int) -> list[Span]:
    """Cut an unclaimed run into sentences and table cells, trimmed."""
    cuts = [start]
    for m in _PIECE_BREAK.finditer(answer, start, end):
        cuts += [m.start(), m.end()]
    cuts.append(end)
    spans = [trim(answer, a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=True)]
    return [s for s in spans if WORD.search(answer, s[0], s[1])]


def _leads_in(piece: str, supported: list[str]) -> bool:
    """A lead-in: content-free ("Key facts:"), or the verified head of a supported claim."""
    if not piece.rstrip(" *_").endswith(":"):
        return False
    if is_glue(piece.rstrip(" *_:")):  # "Key facts:", "Here is what the passages say:"
        return True
    head = normalise(_MARKUP_EDGES.sub("", piece))
    return bool(head) and any(text.startswith(head) for text in supported)


def overlaps_any(span: Span, others: Sequence[Span]) -> bool:
    """Tell whether `span` shares a character with any of `others`."""
    return any(a < span[1] and span[0] < b for a, b in others)


def uncovered(answer: str, verdicts: Sequence[ClaimVerdict], question: str = "") -> list[Gap]:
    """What breaks the invariant when `answer` is shown as written.

    Args:
        answer: The whole answer, as the user would receive it (not cut to a limit).
        verdicts: The report's claims; only `supported` spans cover text.
        question: The question answered, so a bare "Yes." is read against it.

    Returns:
        The gaps, in answer order; empty when the answer may be shown.

    """
    return _analyse(answer, verdicts, question)[0]


def check_coverage(
    shown: str, answer: str, verdicts: Sequence[ClaimVerdict], question: str = ""
) -> list[Gap]:
    """What breaks the invariant when `shown` is what the user receives for `answer`.

    `shown` passes when it is made of whole supported spans of `answer` and glue
    pieces of `answer` (case aside), joined by whitespace and punctuation only. A
    supported span that overlaps a claim not supported holds that claim's text, so it
    is not allowed (as in `uncovered`, such a character counts as not supported).

    Args:
        shown: The text the user receives (the answer, or a filtered answer).
        answer: The answer the claims were taken from.
        verdicts: The report's claims.
        question: The question answered.

    Returns:
        The gaps; empty when `shown` may be shown.

    """
    if shown == answer:
        return uncovered(answer, verdicts, question)
    glue = _analyse(answer, verdicts, question)[1]
    blocked = [v.span for v in verdicts if v.label != "supported"]
    allowed = [
        answer[max(0, v.span[0]) : v.span[1]]
        for v in verdicts
        if v.label == "supported" and not overlaps_any(v.span, blocked)
    ]
    rest = shown.lower()
    pieces = {p.strip().lower() for p in [*allowed, *glue] if WORD.search(p)}
    for piece in sorted(pieces, key=len, reverse=True):
        rest = rest.replace(piece, "\x00")
    leftover = [w.group() for w in WORD.finditer(rest)]
    if not leftover:
        return []
    return [Gap(" ".join(leftover), "not part of a supported claim or glue of the answer")]


__all__ = [
    "OPENERS",
    "REPLY",
    "Gap",
    "check_coverage",
    "is_affirmation",
    "is_glue",
    "is_opener",
    "is_yes_no_question",
    "last_question",
    "last_user_turn",
    "overlaps_any",
    "uncovered",
]
