"""Claims that lean on an earlier sentence, made to stand alone before they are checked.

"Aspirin is a pain reliever. It is contraindicated in ..." : checked alone, "It is
contraindicated in ..." is borne out by whatever passage says so of anything. Each
claim that opens with a pronoun ("It", "Its", "They", "Their"), a description of the
thing ("The drug", "This medication"), "The latter" or "The former", "Both", or that
says "X does too" is read with its antecedent in the answer, deterministically:

- a pronoun or a description is the last subject before it that names a thing
  ("Metformin", not "The maximum daily dose"), else the subject of the sentence
  before (a heading without a verb is its own subject), across paragraph breaks;
- "The latter" / "The former" is the second / first of the two things of that
  sentence, counted as a reader does: its subject "A and B", the subjects of its two
  clauses, or two words joined by "and" / "or"; of three things, neither;
- "They", "Their" and "Both" of a subject "A and B" are one claim for A and one for B;
- "X does too" (also "is too", "as well", "So does X") says the sentence before of X.

The claim's text names the antecedent ("Aspirin is contraindicated in ..."), its span
stays the answer's own, and `Claim.reading` says how it was read. Where the
antecedent is not clear (a singular "It" after "A and B", "The latter" with no pair),
the claim keeps its text and `Claim.unresolved` says why: it is
`uncertain`, never supported.

Example:
    >>> from langchain_reliable.schemas import Claim
    >>> answer = "Aspirin is a pain reliever. It thins the blood."
    >>> claims = [Claim(text=answer[:27], span=(0, 27)), Claim(text=answer[28:], span=(28, 47))]
    >>> [[c.text for c in read] for read in resolve(claims, lambda w: w in {"is", "thins"})]
    [['Aspirin is a pain reliever.'], ['Aspirin thins the blood.']]

"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from langchain_reliable.claims.riders import sentence_subject
from langchain_reliable.evidence.facts import Referent
from langchain_reliable.reading.clauses import JOINED_CLAUSE
from langchain_reliable.reading.lexicon import (
    BE_FORMS,
    DEMONSTRATIVES,
    DO_FORMS,
    JOINERS,
    OBJECT_PRONOUNS,
    PLACE_ADVERBS,
    POSSESSIVE_PRONOUNS,
    SPEAKER_PRONOUNS,
    SUBJECT_PRONOUNS,
    alternation,
)
from langchain_reliable.reading.subjects import PRONOUN, names_a_thing
from langchain_reliable.schemas import Claim
from langchain_reliable.text import PREPOSITIONS, split_passage_sentences

__all__ = ["referents", "resolve"]

_JOINER = rf"(?:(?:{alternation(JOINERS)}),?\s+)?"
_REPEATING = alternation(DO_FORMS, BE_FORMS, {"can", "has", "have"})
"""The auxiliaries that repeat a verb: "X does too", "so is Y"."""
_SINGULAR = re.compile(
    rf"^{_JOINER}(?P<ref>it|its|he|she|his|the (?:drug|medication|medicine|compound|agent|"
    r"treatment|tablet|pill)|this (?:drug|medication|medicine|compound|agent|treatment|"
    r"tablet|pill)|the latter|the former)\b(?!['’]s)\s*",
    re.IGNORECASE,
)
_PLURAL = re.compile(
    rf"^{_JOINER}(?P<ref>they|their|both(?: (?:drugs|medications|medicines|of them))?|"
    r"these (?:drugs|medications|medicines)|the two(?: (?:drugs|medications|medicines))?)"
    r"\b\s*",
    re.IGNORECASE,
)
_TOO = re.compile(
    rf"^(?P<subject>[^,;:]{{1,60}}?)\s+(?:{_REPEATING})\s+(?:too|as well|also)\W*$", re.IGNORECASE
)
_SO_DOES = re.compile(
    rf"^(?:and\s+)?so\s+(?:{_REPEATING})\s+(?P<subject>[^,;:]{{1,60}}?)\W*$", re.IGNORECASE
)
_PAIR = re.compile(
    r"(?P<a>\b[^\W\d][\w-]*)(?P<more>(?:\s*,\s*[\w-]+)*),?\s+(?:and|or)\s+(?P<b>[^\W\d][\w-]*)\b",
    re.IGNORECASE,
)
# a passage's own "The drug" is its wording, not a reference to read; its pronouns are
_POINTER = re.compile(r"(?:it|its|he|she|his|the former|the latter)$", re.IGNORECASE)
_PAIR_REF = re.compile(rf"^{_JOINER}the (?:former|latter)\b", re.IGNORECASE)
# a clause whose verb is left out after a name: "A won the first match and B the second"
_GAPPED = re.compile(
    r",?\s+and\s+(?P<b>[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3})\s+(?![A-Z])(?!(?:and|or)\b)\w"
)
_COORDINATED = re.compile(r"^(?P<a>.+?),?\s+and\s+(?P<b>.+)$", re.IGNORECASE)
# a subject holding one of these is no antecedent ("There", "Actually it")
_NOT_A_NAME = (
    SUBJECT_PRONOUNS
    | SPEAKER_PRONOUNS
    | POSSESSIVE_PRONOUNS
    | OBJECT_PRONOUNS
    | DEMONSTRATIVES
    | PLACE_ADVERBS
    | frozenset("actually also so then now well yes no".split())  # noqa: SIM905
)
# a sentence opening with a preposition ("At low doses it helps ...") has no subject up front
_OPENING_PHRASE = re.compile(rf"^(?:{'|'.join(sorted(PREPOSITIONS))})\b", re.IGNORECASE)
_SINCE = re.compile(r"^(?:[\w-]+\s+){1,3}(?:later|earlier|ago|afterwards?|on)\s*,\s+", re.I)
# "he" and "she" name a person: a name of capitalised words ("Queen Matilda", "Dr Osei"),
# not an opening phrase ("At 75", "Originally")
_PERSON = re.compile(
    r"^(?!(?:At|As|In|On|By|For|With|After|Before)\b)[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|de|van|von|da|del|bin|al))*$"
)
_BARE = re.compile(r"^\w[\w'’ -]{0,59}$")  # words only: a name or a noun phrase


def resolve(claims: Sequence[Claim], verbish: Callable[[str], bool]) -> list[list[Claim]]:
    """`claims` (an answer's sentences and clauses, in order) each made to stand alone.

    Args:
        claims: The claims of one answer in answer order; none of them riders.
        verbish: Tells whether a word reads as a verb (the extractor's heuristic).

    Returns:
        For each claim, the claims it is read as: itself, itself rewritten to name
        what it leans on, or one claim per thing ("Both" of "A and B"), each with
        `reading` or `unresolved` set.
    """
    out: list[list[Claim]] = []
    seen = _Seen()
    for claim in claims:
        resolved = _resolve(claim, seen, verbish)
        out.append(resolved)
        seen.add(resolved[0] if len(resolved) == 1 else claim, verbish)
    return out


class _Seen:
    """What the sentences before said: the last one, its subject, the last subject named."""

    def __init__(self) -> None:
        self.before: Claim | None = None
        self.subject: str | None = None  # the subject of the sentence before
        self.named: str | None = None  # the last subject that is a name, not a description

    def add(self, claim: Claim, verbish: Callable[[str], bool]) -> None:
        self.before, self.subject = claim, _subject(claim.text, verbish)
        if self.subject and names_a_thing(self.subject):
            self.named = self.subject


def _resolve(claim: Claim, seen: _Seen, verbish: Callable[[str], bool]) -> list[Claim]:
    text, before = claim.text, seen.before
    too = _TOO.match(text) or _SO_DOES.match(text)
    if too and not PRONOUN.match(too.group("subject")):
        if before is None or not (said := _predicate(before.text, verbish)):
            return [_unresolved(claim, f"'{text.strip()}' says what? no sentence before it")]
        subject = too.group("subject").strip()
        return [
            claim.model_copy(
                update={
                    "text": f"{subject} {said}",
                    "reading": f"'{text.strip()}' read as '{subject} {said}' (the sentence "
                    "before said of another)",
                }
            )
        ]
    found = _reference(text, seen, verbish)
    if found is None:
        return [claim]
    if isinstance(found, str):
        return [_unresolved(claim, found)]
    ref, rest, targets, why = found
    return [_named(claim, ref, rest, target, why) for target in targets]


def _reference(
    text: str, seen: _Seen, verbish: Callable[[str], bool]
) -> tuple[str, str, list[str], str] | str | None:
    """(the reference, the rest, what it names, why) of a sentence opening with one.

    A string says why the reference is not clear; `None`: no reference to read, or
    nothing before it to lean on.
    """
    singular, plural = _SINGULAR.match(text), _PLURAL.match(text)
    found = singular or plural
    if found is None:
        return None
    ref = found.group("ref")
    rest = text[found.end() :]
    if not rest.strip() or seen.before is None:
        return None  # nothing before it to lean on: checked as it is written
    lowered = ref.lower()
    if lowered in ("the latter", "the former"):
        pair = _two_things(seen.before.text, verbish)
        if isinstance(pair, str):
            return f"'{ref}' {pair}"
        target = pair[1 if lowered == "the latter" else 0]
        return ref, rest, [target], "of the two things in the sentence before"
    last = seen.subject if seen.subject and not PRONOUN.match(seen.subject) else None
    pair = _COORDINATED.match(last or "")
    if singular and pair:
        return f"'{ref}' may refer to '{pair['a']}' or '{pair['b']}'"
    if plural and pair:
        parts = [part.strip() for part in (pair["a"], pair["b"])]
        return ref, rest, parts, "one of the subject of the sentence before"
    person = lowered in ("he", "she", "his")
    if seen.named and (not person or (seen.named == last and _person(last, seen.before.text))):
        why = "the subject of the sentence before" if seen.named == last else "the last named"
        return ref, rest, [seen.named], why
    if last and not person:
        return ref, rest, [last], "the subject of the sentence before"
    return None  # no subject before it names a thing (a person): checked as it is written


def _person(name: str, sentence: str) -> bool:
    """Whether `name`, the subject of `sentence`, reads as a person's name.

    Capitalised words, not an opening phrase, and followed by a verb, not by a plural
    noun the verb test took for one ("Notable items include ...": no one is "Notable").
    "He" and "she" lean only on the sentence just before, as a reader's do.
    """
    after = sentence.split(name, 1)[1].split()[:1] if name in sentence else []
    plural = bool(after) and after[0].endswith("s") and not after[0].endswith(("ss", "us"))
    return bool(_PERSON.match(name)) and not plural


def _two_things(sentence: str, verbish: Callable[[str], bool]) -> tuple[str, str] | str:
    """The two things "the former" and "the latter" pick from, or why there are not two.

    A reader counts: the two of a subject "A and B", else the subjects of two clauses
    ("A bought X, and B bought Y"), else the two words joined by "and" / "or"; three
    things or more ("A, B and C") have no former and latter.
    """
    subject = _subject(sentence, verbish)
    pair = _COORDINATED.match(subject or "")
    if pair and "," not in pair["a"]:
        return pair["a"].strip(), pair["b"].strip()
    if pair:
        return "has three things or more to pick from in the sentence before, not two"
    gapped = _GAPPED.search(sentence)
    if subject and gapped and subject.split()[-1][:1].isupper() and gapped["b"] != subject:
        return subject, gapped["b"]  # "A returned 9 percent and B 4 percent"
    clauses = JOINED_CLAUSE.split(sentence.strip())
    if len(clauses) == 2 and subject and clauses[0].startswith(subject):
        second = _subject(clauses[1], verbish)
        if second:
            return subject, second
    found = _PAIR.search(sentence)
    if found is None:
        return "has no two things to pick from in the sentence before"
    if found["more"]:
        return "has three things or more to pick from in the sentence before, not two"
    return found["a"], found["b"]


def _named(claim: Claim, ref: str, rest: str, antecedent: str, why: str) -> Claim:
    """`claim` with `ref` replaced by `antecedent` (possessive kept)."""
    possessive = ref.lower() in ("its", "their", "his")
    name = f"{antecedent}'s" if possessive else antecedent
    name = name[:1].upper() + name[1:]
    return claim.model_copy(
        update={
            "text": f"{name} {rest}".strip(),
            "reading": f"'{ref}' read as '{antecedent}' ({why})",
        }
    )


def _unresolved(claim: Claim, why: str) -> Claim:
    return claim.model_copy(update={"unresolved": why})


def _subject(sentence: str, verbish: Callable[[str], bool]) -> str | None:
    """The subject of `sentence` (`riders.sentence_subject`); a verbless heading is its own.

    A sentence that opens with a prepositional phrase has none we can read up front.
    """
    if _OPENING_PHRASE.match(sentence.strip()):
        return None
    sentence = _SINCE.sub("", sentence.strip(), count=1)  # "Three years later, Brennan ..."
    subject = sentence_subject(sentence, verbish)
    if subject is not None:
        words = subject.split()
        while len(words) > 1 and words[-1].islower() and words[-1].endswith("ly"):
            words.pop()  # an adverb before the verb ("Aspirin irreversibly inhibits")
        subject = " ".join(words)
        words = {w.lower() for w in subject.split()}
        return subject if _BARE.match(subject) and not words & _NOT_A_NAME else None
    words = sentence.strip().rstrip(".!?:").split()
    text = " ".join(words)
    if words and len(words) <= 4 and _BARE.match(text) and not any(map(verbish, words[1:])):
        return text
    return None


def _predicate(sentence: str, verbish: Callable[[str], bool]) -> str | None:
    """What `sentence` says of its subject ("inhibits COX-1."), or `None`."""
    subject = _subject(sentence, verbish)
    if subject is None:
        return None
    rest = sentence.strip()[len(subject) :].strip()
    return rest or None


def referents(text: str, verbish: Callable[[str], bool]) -> list[Referent]:
    """The clauses of passage `text` that open with a reference, each with what it names.

    Read as a claim's reference is: "it", "its", "he", "she", "his" name the subject of
    the clause before in the same sentence ("Apixaban does not, and it has ..."), else of
    the sentence before; "the former" and "the latter" pick from the sentence before. A
    description ("The drug ...") is the passage's own wording, not a reference; one read
    two ways, or not at all, is left out.
    """
    out: list[Referent] = []
    previous: str | None = None
    for a, b in split_passage_sentences(text):
        before = previous
        start = a
        for piece_end in [m.start() for m in JOINED_CLAUSE.finditer(text, a, b)] + [b]:
            piece = text[start:piece_end]
            lead = len(piece) - len(piece.lstrip())
            leans = previous if _PAIR_REF.match(piece.lstrip()) else before
            if leans is not None:
                seen = _Seen()
                seen.add(Claim(text=leans, span=(0, len(leans))), verbish)
                found = _reference(piece.strip(), seen, verbish)
                if isinstance(found, tuple) and len(found[2]) == 1 and _POINTER.match(found[0]):
                    ref, rest, (target,), _ = found
                    out.append(Referent(start + lead, piece_end, ref, rest.strip(), target))
            before = piece
            clause = JOINED_CLAUSE.match(text, piece_end)
            start = clause.end() if clause else piece_end
        previous = text[a:b]
    return out
