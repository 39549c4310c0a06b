"""One lexicon: the closed word classes the checks read, each defined once, in named subsets.

A check that needs "a pronoun that may stand for the subject" takes `SUBJECT_PRONOUNS`
here (or a pattern of it, `alternation`) rather than writing its own list. Open classes
(verbs, nouns, their forms) come from the parse (`reading.parse`), not from lists; the
word lexicons shipped in `data/` (WordNet's opposites, verb forms) from `word_pairs`.

Example:
    >>> alternation(SUBJECT_PRONOUNS)
    'they|she|he|it'
    >>> "its" in POSSESSIVE_PRONOUNS
    True
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = [
    "ADDITIVE_QUANTIFIERS",
    "ARTICLES",
    "ASPECT_ADVERBS",
    "AUXILIARIES",
    "BASIC_PREPOSITIONS",
    "BE_FORMS",
    "COMMON_PREPOSITIONS",
    "COMPANY_ABBREVIATIONS",
    "CONNECTIVE_ADVERBS",
    "CONTRASTIVES",
    "COORDINATORS",
    "DEMONSTRATIVES",
    "DIRECTIONS",
    "DO_FORMS",
    "EVERY_BE_FORM",
    "EXCLUSIVE_FAMILIES",
    "FOCUS_ADVERBS",
    "FREQUENCY_ADVERBS",
    "FUTURE_MODALS",
    "HAVE_FORMS",
    "HEDGING_ADVERBS",
    "HONORIFICS",
    "JOINERS",
    "MAGNITUDES",
    "MODALS",
    "NEAR_DEMONSTRATIVES",
    "NEGATED_AUXILIARIES",
    "NEGATING_ADVERBS",
    "NEGATING_PRONOUNS",
    "NEGATORS",
    "OBJECT_PRONOUNS",
    "OBLIGATION_MODALS",
    "OPPOSITES",
    "OPPOSITE_ROLES",
    "OPPOSITE_SENSES",
    "OTHER_PRONOUN_FORMS",
    "PARTIAL_QUANTIFIERS",
    "PERSONAL_PRONOUNS",
    "PLACE_ADVERBS",
    "POSSESSIVE_PRONOUNS",
    "POSSIBILITY_MODALS",
    "PREPOSITIONS",
    "PRO_FORMS",
    "QUANTIFIERS",
    "RELATIVE_PRONOUNS",
    "ROLE_PREPOSITIONS",
    "SEQUENCE_ADVERBS",
    "SPEAKER_POSSESSIVES",
    "SPEAKER_PRONOUNS",
    "SUBJECT_PRONOUNS",
    "SUBORDINATORS",
    "SYMMETRIC_RELATIONS",
    "THIRD_PERSON_PRONOUNS",
    "WEEKDAYS",
    "WH_WORDS",
    "alternation",
    "word_pairs",
]

SUBJECT_PRONOUNS = frozenset({"it", "he", "she", "they"})
"""Third-person subject pronouns: what leans on a subject said before."""

SPEAKER_PRONOUNS = frozenset({"i", "we", "you"})
"""First- and second-person pronouns: the speaker and the one spoken to."""

OBJECT_PRONOUNS = frozenset({"them", "him"})
"""Third-person object forms that differ from the subject forms ("it" is both; "her" is a
possessive too)."""

POSSESSIVE_PRONOUNS = frozenset({"its", "his", "her", "their"})
"""Third-person possessives ("its rival", "their dose")."""

THIRD_PERSON_PRONOUNS = SUBJECT_PRONOUNS | OBJECT_PRONOUNS | POSSESSIVE_PRONOUNS
"""Every third-person form ("it", "him", "their"): a word standing for what was named before."""

SPEAKER_POSSESSIVES = frozenset({"my", "our", "your"})
"""First- and second-person possessives."""

OTHER_PRONOUN_FORMS = frozenset({"me", "us", "mine", "ours", "yours", "hers", "theirs"})
"""The personal pronouns' remaining forms (objects of the speaker, standalone possessives)."""

PERSONAL_PRONOUNS = (
    SUBJECT_PRONOUNS
    | SPEAKER_PRONOUNS
    | OBJECT_PRONOUNS
    | POSSESSIVE_PRONOUNS
    | SPEAKER_POSSESSIVES
    | OTHER_PRONOUN_FORMS
)
"""Every form of every personal pronoun."""

ARTICLES = frozenset({"a", "an", "the"})
"""The articles."""

PARTIAL_QUANTIFIERS = frozenset({"few", "most", "some", "many", "several"})
"""Quantifiers that say part of a group, not all of it ("some", "most")."""

ADDITIVE_QUANTIFIERS = frozenset({"any", "more", "other"})
"""Quantifiers that ask for or add to what was said ("any more", "no other")."""

QUANTIFIERS = PARTIAL_QUANTIFIERS | ADDITIVE_QUANTIFIERS | {"all", "both", "each"}
"""Determiners of quantity that say how much of a kind, not which thing ("some", "each")."""

PLACE_ADVERBS = frozenset({"here", "there"})
"""The adverbs of place that point ("here", "there": also "there is")."""

PRO_FORMS = frozenset({"one", "ones", "same"})
"""Words that stand in for a noun said before ("the new one", "the same")."""

WH_WORDS = frozenset({"who", "whom", "whose", "which", "what", "when", "where", "why", "how"})
"""The question words (also the relative ones)."""

NEAR_DEMONSTRATIVES = frozenset({"this", "these"})
"""Demonstratives that point at what was just said."""

DEMONSTRATIVES = NEAR_DEMONSTRATIVES | {"that", "those"}
"""Every demonstrative."""

RELATIVE_PRONOUNS = frozenset({"which"})
"""Relative pronouns that stand for a thing said in the clause before."""


BE_FORMS = frozenset({"is", "are", "was", "were"})
"""The finite forms of "be" a statement or a question turns on."""

EVERY_BE_FORM = BE_FORMS | {"am", "be", "been", "being"}
"""Every form of "be"."""

DO_FORMS = frozenset({"do", "does", "did"})
"""The forms of "do" (its auxiliary: "does not", "did he")."""

HAVE_FORMS = frozenset({"has", "have", "had"})
"""The forms of "have"."""

POSSIBILITY_MODALS = frozenset({"can", "could", "may", "might"})
"""The modals of what can be: a claim in them says less than one without."""

OBLIGATION_MODALS = frozenset({"must", "shall", "should"})
"""The modals of what has to be."""

FUTURE_MODALS = frozenset({"will", "would"})
"""The modals of what is to come."""

MODALS = POSSIBILITY_MODALS | OBLIGATION_MODALS | FUTURE_MODALS
"""The modal auxiliaries."""

AUXILIARIES = BE_FORMS | DO_FORMS | HAVE_FORMS | MODALS
"""Every finite auxiliary: what a yes/no question opens with, what an elided clause keeps."""

NEGATED_AUXILIARIES = frozenset(
    {"isn't", "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't", "hasn't", "haven't"}
    | {"hadn't", "won't", "wouldn't", "can't", "couldn't", "shouldn't", "mustn't"}
)
"""The auxiliaries contracted with "not"."""

ROLE_PREPOSITIONS = frozenset({"by", "from", "of", "to"})
"""The prepositions that mark who did what to whom ("acquired by", "capital of")."""

BASIC_PREPOSITIONS = ROLE_PREPOSITIONS | {"at", "for", "in", "on", "with"}
"""The most frequent prepositions."""

COMMON_PREPOSITIONS = BASIC_PREPOSITIONS | frozenset(
    """about above after around before below between during into off onto over per since
    through under until upon via within without""".split()  # noqa: SIM905
)
"""The prepositions frequent enough to count as function words."""

PREPOSITIONS = COMMON_PREPOSITIONS | frozenset(
    """across against along amid among behind beneath beside besides beyond despite except
    inside like near outside past throughout till toward towards underneath unlike""".split()  # noqa: SIM905
)
"""Words that open a prepositional phrase ("Across the years", "Work on the canal")."""

COORDINATORS = frozenset({"and", "or", "but"})
"""The coordinating conjunctions that join two clauses or two names."""

CONTRASTIVES = frozenset({"while", "whereas"})
"""The conjunctions that set one clause against another."""

CONNECTIVE_ADVERBS = frozenset(
    {"also", "then", "thus", "thereby", "moreover", "furthermore", "however"}
)
"""The adverbs that tie a clause to the one before."""

JOINERS = (COORDINATORS - {"or"}) | CONNECTIVE_ADVERBS | {"so", "in addition"}
"""The words that join a clause to the one before ("and", "however", "in addition")."""

FREQUENCY_ADVERBS = frozenset({"usually", "often", "once", "ever"})
"""Adverbs of how often, frequent enough to be function words."""

ASPECT_ADVERBS = frozenset({"still", "yet", "again", "further"})
"""Adverbs of whether a state goes on or comes again."""

FOCUS_ADVERBS = frozenset({"just", "only", "even", "too", "very", "such"})
"""Adverbs that narrow or stress the word they stand by."""

SEQUENCE_ADVERBS = frozenset({"first", "later", "finally", "eventually", "already", "soon"})
"""Adverbs that place an event in a sequence."""

HEDGING_ADVERBS = frozenset(
    {"often", "usually", "generally", "typically", "frequently", "sometimes", "occasionally"}
    | {"rarely", "seldom", "mostly", "commonly", "partly", "partially"}
)
"""Adverbs that say a statement holds in part or at times, not always."""

SUBORDINATORS = frozenset({"if", "as", "because", "although", "though"})
"""Conjunctions that open a subordinate clause of condition, reason or concession."""

SYMMETRIC_RELATIONS = frozenset(
    """marry married met meet play played face faced draw drew tie tied merge merged border
    borders bordered partner partnered collaborate collaborated share shared versus vs and or
    with between both equal same similar together each other""".split()  # noqa: SIM905
)
"""Words of relations that hold both ways: swapping their two sides changes nothing."""

HONORIFICS = frozenset({"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st"})
"""Abbreviated titles and suffixes of a person's name ("Dr", "Jr"), written without the dot."""

COMPANY_ABBREVIATIONS = frozenset({"inc", "ltd", "co", "corp"})
"""Abbreviated last words of a company's name."""

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The days of the week, in order."""

MAGNITUDES = ("thousand", "million", "billion", "trillion")
"""The words of scale after a number, smallest first."""


OPPOSITE_SENSES: tuple[tuple[str, str, bool], ...] = (
    (
        "increase increases increased increasing rise rises rising rose risen raise "
        "raises raised raising boost boosts boosted grow grows grew grown growing",
        "decrease decreases decreased decreasing fall falls fell fallen falling drop "
        "drops dropped dropping reduce reduces reduced reducing decline declines "
        "declined declining lower lowers lowered lowering shrink shrinks shrank",
        False,
    ),
    ("higher highest", "lower lowest", True),
    ("upper", "lower", False),
    ("high", "low", False),
    ("more", "less fewer", True),
    ("most", "least fewest", False),
    ("greater greatest larger largest bigger biggest", "smaller smallest lesser", True),
    ("longer longest", "shorter shortest", True),
    ("older oldest", "younger youngest newer newest", True),
    ("earlier earliest", "later latest", True),
    ("faster fastest", "slower slowest", True),
    ("heavier heaviest", "lighter lightest", True),
    ("stronger strongest strong", "weaker weakest weak", True),
    ("before", "after", True),
    ("above", "below beneath", True),
    ("precede precedes preceded", "follow follows followed", True),
    ("maximum max", "minimum min", False),
    ("first", "last final", False),
    ("majority", "minority", False),
    ("north northern", "south southern", False),
    ("east eastern", "west western", False),
    ("inside internal inner", "outside external outer", False),
    ("import imports imported", "export exports exported", False),
    (
        "allow allows allowed allowing permit permits permitted permitting legal lawful",
        "forbid forbids forbade forbidden prohibit prohibits prohibited ban bans banned "
        "illegal unlawful",
        False,
    ),
    ("mandatory compulsory required", "optional voluntary", False),
    ("safe", "unsafe dangerous", False),
    ("effective", "ineffective", False),
    ("valid", "invalid", False),
    ("compatible", "incompatible", False),
    ("supported", "unsupported deprecated", False),
    ("possible", "impossible", False),
    ("likely", "unlikely", False),
    ("common commonly frequent", "rare rarely uncommon infrequent", False),
    ("positive", "negative", False),
    ("benign", "malignant", False),
    ("acute", "chronic", False),
    ("guilty convicted", "innocent acquitted", False),
    (
        "approve approves approved approving accept accepts accepted grant grants "
        "granted uphold upholds upheld",
        "reject rejects rejected rejecting deny denies denied refuse refuses refused "
        "overturn overturns overturned",
        False,
    ),
    (
        "win wins won winning beat beats defeated victory",
        "lose loses lost losing defeat",
        True,
    ),
    ("open opens opened opening", "close closes closed closing shut shuts", False),
    ("gain gains gained profit profits", "loss losses lost", False),
    ("surplus", "deficit", False),
    (
        "acquire acquires acquired acquiring buy buys bought buying purchase purchased",
        "sell sells sold selling",
        True,
    ),
    ("best better", "worst worse", True),
    ("enforceable", "unenforceable", False),
    (
        "keep keeps kept preserve preserves preserved retain retains retained",
        "erase erases erased delete deletes deleted wipe wipes wiped",
        False,
    ),
    ("enable enables enabled", "disable disables disabled", False),
    ("encrypt encrypts encrypted", "decrypt decrypts decrypted unencrypted", False),
    ("include includes included including", "exclude excludes excluded excluding", False),
    ("add adds added", "remove removes removed delete deletes deleted", False),
    ("start starts started", "stop stops stopped", False),
    ("online", "offline", False),
    ("succeed succeeds succeeded success successful", "fail fails failed failure", False),
    (
        "activate activates activated stimulate stimulates stimulated",
        "inhibit inhibits inhibited block blocks blocked suppress suppresses suppressed",
        False,
    ),
    ("dilate dilates dilated", "constrict constricts constricted", False),
    ("born", "died", False),
    ("recommended indicated", "contraindicated discouraged", False),
    ("home", "away", False),
)
"""Pairs of word groups that cannot both describe one thing, with their inflections
("increases" / "decreases"): `(one group, the other, converse)`. A converse pair says one
relation from either end ("A is older than B" is "B is younger than A")."""

OPPOSITE_ROLES = (
    ("plaintiff", "defendant"),
    ("claimant", "defendant"),
    ("appellant", "respondent"),
    ("landlord", "tenant"),
    ("lessor", "lessee"),
    ("employer", "employee"),
    ("lender", "borrower"),
    ("creditor", "debtor"),
    ("buyer", "seller"),
    ("winner", "loser"),
    ("prosecutor", "defendant"),
)
"""Roles that come in pairs: whoever holds one of a pair does not hold the other."""

EXCLUSIVE_FAMILIES = (
    ("hourly", "daily", "weekly fortnightly", "monthly", "yearly annually annual"),
    ("minute minutes", "hour hours", "day days", "week weeks", "month months", "year years"),
    MAGNITUDES,
    (
        "microgram micrograms mcg",
        "mg milligram milligrams",
        "g gram grams",
        "kg kilogram kilograms",
    ),
    ("kb kilobyte kilobytes", "mb megabyte megabytes", "gb gigabyte gigabytes", "tb terabyte"),
)
"""Families of words two of which cannot describe the same dose, rate or amount
(frequencies, time units, scales, units of measure): "once daily" is not "weekly"."""

OPPOSITES = (
    *OPPOSITE_SENSES,
    *((a, b, False) for a, b in OPPOSITE_ROLES),
    *(
        (a, b, False)
        for family in EXCLUSIVE_FAMILIES
        for i, a in enumerate(family)
        for b in family[i + 1 :]
    ),
)
"""Every pair of opposites `(one group, the other, converse)`: senses, roles, and two members
of one exclusive family."""

DIRECTIONS = (
    "up increase increases increased increasing rise rises rising rose risen grow grows grew "
    "grown growing gain gains gained climb climbs climbed jump jumps jumped surge surges "
    "surged higher",
    "down decrease decreases decreased decreasing fall falls fell fallen falling drop drops "
    "dropped dropping decline declines declined declining reduce reduced shrink shrank "
    "shrunk slip slipped slide slid plunge plunged dip dipped lower loss",
)
"""The two directions a figure moves in, up then down, as said with it ("up 8%", "fell
3%", "a 5% drop")."""


NEGATING_ADVERBS = frozenset({"not", "never"})
"""The adverbs that negate the verb they stand by."""

NEGATING_PRONOUNS = frozenset({"none", "nobody", "nothing"})
"""Pronouns that say nothing or no one is."""

NEGATORS = NEGATING_ADVERBS | NEGATING_PRONOUNS | {"no", "neither", "nor", "cannot"}
"""Every word that negates by itself (contractions in "n't" are read as they come)."""


def alternation(*classes: frozenset[str] | set[str]) -> str:
    """The words of `classes` as a regular-expression alternation, longest first."""
    words = set().union(*classes)
    return "|".join(sorted(words, key=lambda w: (-len(w), w), reverse=False))


@cache
def word_pairs(name: str) -> dict[str, tuple[str, ...]]:
    """`data/<name>`, one tab-separated pair a line, as first word -> its second words.

    The files are built by `scripts/build_lexicons.py`.
    """
    text = resources.files("langchain_reliable").joinpath(f"data/{name}").read_text("utf-8")
    out: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        first, second = line.split("\t")
        out[first] = (*out.get(first, ()), second)
    return out
