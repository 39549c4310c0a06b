"""The answer's grammar: the shapes of text that carry no checkable content, in one place.

Markdown shapes (fences, headers, rules, tables, bold lines, list markers), openers
("Based on the passages,"), greetings and connectors, replies ("Yes", "Not
necessarily"), questions (which a yes or a no answers, the last user turn of a written
history), pleasantries, meta lines, empty hedges and abstentions, and the closed
vocabulary glue is made of (`CONTENT_FREE_WORDS`). Claim extraction (`claims/`) reads
them to cut an answer; the coverage invariant (`coverage`) reads them to prove a piece
of shown text content-free (`is_glue`). Nothing here knows about claims or verdicts.

Example:
    >>> is_glue("Based on the passages,"), is_glue("I don't know.")
    (True, True)
    >>> is_glue("Metformin is safe.")
    False

"""

from __future__ import annotations

import re
import unicodedata

from langchain_reliable.reading.lexicon import (
    ADDITIVE_QUANTIFIERS,
    ARTICLES,
    AUXILIARIES,
    BASIC_PREPOSITIONS,
    DEMONSTRATIVES,
    DO_FORMS,
    EVERY_BE_FORM,
    FUTURE_MODALS,
    HAVE_FORMS,
    NEGATED_AUXILIARIES,
    NEGATING_PRONOUNS,
    NEGATORS,
    PLACE_ADVERBS,
    SPEAKER_PRONOUNS,
    SUBORDINATORS,
    alternation,
)
from langchain_reliable.text import WORD, normalise

# --- sentence kinds: what is not a factual claim -------------------------------------

# Whole units that carry no content (matched against the normalised unit).
_PLEASANTRIES = [
    r"(?:sure|certainly|of course|absolutely|okay|ok|yes|no|hi|hello|hey|great|good|thanks|"
    r"thank you|you're welcome|no problem)(?: thing)?",
    r"(?:great|good|excellent|interesting|nice) question",
    r"(?:i )?hope (?:this|that|it) helps?\b.*",
    r"(?:please )?(?:let me know|feel free|don't hesitate|do not hesitate)\b.*",
    r"(?:i'm |i am |i'd be |i would be )?(?:happy|glad) to (?:help|assist|clarify|explain)\b.*",
    r"thanks? (?:you )?for (?:asking|your question)\b.*",
    r"good luck\b.*",
    r"have a (?:great|nice|good) (?:day|one)\b.*",
    r"(?:is there )?anything else\b.*",
]
_META = [
    r"(?:here(?:'s| is| are)|below (?:is|are)|the following (?:is|are))\b.*",
    r"(?:in summary|to summarize|to summarise|in short|in conclusion|to sum up|in brief|"
    r"overall|summary|answer|short answer|key points?|details?|sources?|references?|notes?)",
    r"let me (?:explain|summarize|summarise|break (?:it|this|that) down|walk you through|"
    r"clarify|check|look)\b.*",
    r"(?:i'll|i will|let's|let us) (?:explain|summarize|summarise|break|walk|look|go)\b.*",
    r"(?:this|the above|my) (?:summary|answer|response|overview) (?:covers|captures|"
    r"includes|highlights|provides|gives|focuses|summari[sz]es)\b.*",
]
HEDGES = [  # empty hedges ("It depends."), normalised; the glue vocabulary is built from them
    r"(?:it|that|this) (?:depends|varies)(?: on (?:the )?(?:situation|context|case|"
    r"circumstances|individual|person))?",
    r"(?:it's|it is|that's|that is) (?:hard|difficult|impossible|not easy) to (?:say|tell|know)",
    r"(?:hard|difficult) to (?:say|tell)",
    r"(?:maybe|perhaps|possibly|probably|not necessarily|it's possible|it is possible|"
    r"it's complicated|it is complicated|who knows)",
    r"(?:it's|it is|this is|that is|that's) (?:unclear|uncertain|not clear|not certain)",
    r"(?:i think|i believe|i guess) so",
]
_SOURCES = (
    r"(?:the |these |this )?(?:provided |given |retrieved |available |supplied )?"
    r"(?:passages?|sources?|context|documents?|texts?|excerpts?|information|search results)"
    r"(?: provided| given| above| available)?"
)
# Refusals and abstentions, matched at the start of the normalised unit.
_ABSTENTIONS = [
    r"i (?:do not|don't|did not|didn't) (?:know|have|find|see)\b",
    r"i(?:'m| am) (?:not (?:sure|certain|able)|unsure|unable|sorry|afraid)\b",
    r"i (?:cannot|can't|can not|could not|couldn't|was unable to|am unable to|"
    r"was not able to)\b",
    r"(?:sorry|unfortunately|regrettably),? (?:but )?i\b",
    _SOURCES + r" (?:do|does|did) ?n(?:o|')t\b",
    r"there (?:is|was|are|were) (?:no|not enough|insufficient|limited) (?:information|data|"
    r"details?|evidence|mention)\b",
    r"(?:no|not enough|insufficient) (?:information|data|details?|evidence)\b",
    r"(?:it is|it's) (?:not possible|impossible|unclear|not clear|difficult|hard) to "
    r"(?:say|determine|tell|know|answer)\b",
    r"(?:this|that|the question|your question) (?:cannot|can't|can not) be answered\b",
    r"i (?:have no|lack) (?:information|data|knowledge|access)\b",
    r"as an ai\b",
]
# Abstentions anywhere in the unit: "The dose is not mentioned in the passages."
_ABSTENTIONS_ANYWHERE = [
    r"\bnot (?:mentioned|stated|specified|provided|covered|discussed|addressed|included|given|"
    r"found) in " + _SOURCES + r"\b",
    r"\bcannot be (?:determined|answered|found|inferred) (?:from|based on)\b",
]

_PLEASANTRY_RE = re.compile("|".join(f"(?:{p})" for p in _PLEASANTRIES))
_META_RE = re.compile("|".join(f"(?:{p})" for p in _META))
_HEDGE_RE = re.compile("|".join(f"(?:{p})" for p in HEDGES))
_ABSTENTION_RE = re.compile("|".join(f"(?:{p})" for p in _ABSTENTIONS))
_ABSTENTION_ANYWHERE_RE = re.compile("|".join(f"(?:{p})" for p in _ABSTENTIONS_ANYWHERE))


def is_question(text: str) -> bool:
    """Tell whether `text` is a question ("Is it safe?")."""
    return text.rstrip(" \t\n*_\"')]`’”").endswith("?")


def is_pleasantry(text: str) -> bool:
    """Tell whether `text` is a pleasantry ("Sure!", "Great question", "I hope this helps")."""
    return _PLEASANTRY_RE.fullmatch(normalise(text)) is not None


def is_meta(text: str) -> bool:
    """Tell whether `text` is about the answer itself ("Here is a summary of the passage")."""
    return _META_RE.fullmatch(normalise(text)) is not None


def is_hedge(text: str) -> bool:
    """Tell whether `text` is a hedge with no content ("It depends.", "Hard to say.")."""
    return _HEDGE_RE.fullmatch(normalise(text)) is not None


def is_abstention(text: str) -> bool:
    """Tell if `text` is a refusal or abstention ("I don't know", "The passages don't say")."""
    norm = normalise(text)
    return bool(_ABSTENTION_RE.match(norm) or _ABSTENTION_ANYWHERE_RE.search(norm))


def is_lead_in(text: str) -> bool:
    """Tell whether `text` introduces what follows ("Common side effects include:")."""
    return text.rstrip(" \t\n*_").endswith(":")


# --- markdown shapes ---------------------------------------------------------------------

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
FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)[\w+#.-]*[ \t]*$")

# --- openers: removed from the front of a claim, glue on their own ---------------------

_OPENER_PATTERNS = (
    r"(?:sure|certainly|of course|absolutely|yes|no|okay|ok|well|great question|"
    r"good question)\s*[,!.]\s+(?=\S)",
    r"(?:here(?:'s|’s| is| are)|below (?:is|are))\b[^:\n]{0,80}:\s+(?=\S)",
    r"(?:in summary|to summarize|to summarise|in short|in conclusion|to sum up|in brief|"
    r"overall|summary|answer|short answer|tl;?dr)\s*[,:]\s+(?=\S)",
    r"(?:based on|according to|from|per) (?:the |these |this )?(?:provided |given |"
    r"retrieved |available |above )?(?:passages?|sources?|context|documents?|information|"
    r"texts?|excerpts?|search results|results|records?|manual|articles?|reports?|guide|"
    r"guidelines|label|notes|files?|policy|contract|lease|agreement|transcript|filings?|"
    r"website|page|brochure)(?: provided| given| above)?\s*[,:]\s+(?=\S)",
    r"(?:the |this )?(?:passages?|sources?|context|documents?|texts?|articles?|reports?|"
    r"excerpts?|story) (?:clearly |also |explicitly )?(?:says?|states?|indicates?|shows?|"
    r"mentions?|explains?|notes?|reports?|suggests?)(?: that\s+|\s*:\s+)(?=\S)",
    r"(?:the |this )?(?:passages?|context|documents?|texts?|excerpts?) (?:clearly |also )?"
    r"(?:says?|states?|mentions?|notes?)\s+(?!that\b)(?=\S)",  # "The passage says X"
    r"as (?:(?:stated|mentioned|noted|described|explained|indicated|shown|reported) (?:in|by) "
    r"(?:the |this )?(?:passages?|sources?|context|documents?|texts?|excerpts?)|(?:the |this )?"
    r"(?:passages?|sources?|context|documents?|texts?|excerpts?) (?:says?|states?|notes?|"
    r"mentions?|explains?|indicates?|shows?|reports?))\s*,\s+(?=\S)",  # "As stated in the text,"
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
    rf"(?:(?!(?:{alternation(AUXILIARIES - {'shall'})})\b)[^?]*,\s*)?"
    r"(?:(?:so|and|ok|okay|well|then|also)\W+)*"
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
MARKUP_EDGES = re.compile(r"^[\s#>*_~`|\-+•:,;.!?]+|[\s#>*_~`|]+$")


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
    r"""What an answer answers: the last user turn of a chat history, else `question`.

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


# What may follow the question a reply answers: a note on how to answer, or thanks.
_ANSWER_NOTE = re.compile(
    r"(?:please |kindly |just )?(?:answer|reply|respond|be (?:brief|short|concise)|keep it|"
    r"(?:a )?(?:yes or no|short answer)|thanks|thank you|cheers|ty)\b",
    re.IGNORECASE,
)


def last_question(question: str) -> str:
    """The sentence a reply answers: the last sentence of the last user turn.

    In the last user turn (`last_user_turn`), its last sentence, passing over notes on
    how to answer ("Is it safe? Answer briefly." -> "Is it safe?").
    """
    turn = last_user_turn(question)
    parts = [p for p in re.split(r"(?<=[.!?])\s+", turn.strip()) if WORD.search(p)]
    while len(parts) > 1 and _ANSWER_NOTE.match(parts[-1].strip(" \t*_\"'")):
        parts.pop()
    return (parts or [turn])[-1]


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
    body = MARKUP_EDGES.sub("", text)
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


# An abstention's words; any other makes it a statement ("None." answers: no "none").
_ABSTAINING_WORDS = (
    SPEAKER_PRONOUNS | ARTICLES | DEMONSTRATIVES | EVERY_BE_FORM | DO_FORMS | HAVE_FORMS
    | FUTURE_MODALS | BASIC_PREPOSITIONS | NEGATED_AUXILIARIES | SUBORDINATORS | PLACE_ADVERBS
    | (NEGATORS - NEGATING_PRONOUNS - {"never", "neither"}) | ADDITIVE_QUANTIFIERS
    | frozenset(
        """i'm im i'd i've me my your it its can could unable able sure certain unsure sorry afraid
        unfortunately regrettably but however and so know find found see say tell determine confirm
        verify answer answered provide give enough sufficient insufficient limited information info
        data details detail evidence mention mentioned specific specifics answers knowledge access
        about regarding based according question questions topic passages passage sources source
        context documents document text provided given available retrieved above recorded record
        offline demo own replays calls chat model models reliable relevant clear unclear possible
        impossible difficult hard ai help please further such""".split()  # noqa: SIM905
    )
)  # fmt: skip

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


__all__ = [
    "BOLD_LINE",
    "CONTENT_FREE_WORDS",
    "FENCE",
    "FENCE_LINE",
    "HEADER",
    "HEDGES",
    "MARKER",
    "MARKUP_EDGES",
    "OPENERS",
    "REPLY",
    "RULE",
    "TABLE_ROW",
    "TABLE_RULE",
    "is_abstention",
    "is_glue",
    "is_hedge",
    "is_lead_in",
    "is_meta",
    "is_opener",
    "is_pleasantry",
    "is_question",
    "is_yes_no_question",
    "last_question",
    "last_user_turn",
]
