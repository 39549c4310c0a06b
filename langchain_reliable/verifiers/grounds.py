"""What a local verdict rests on, in words: the sentence that bears on a claim, and how.

The model's read is quoted by the sentence of its window that shares most with the
claim (`quoted_window`); a contradiction the model reads must come from a sentence that
bears on the claim (`bears_on`); a supported claim says where it rests on less than one
sentence saying it (`how_supported`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.entailment import Entailment
from langchain_reliable.evidence.select import clamp_score
from langchain_reliable.schemas import Evidence, Passage
from langchain_reliable.text import content_stems, split_passage_sentences

__all__ = ["BEARS_ON", "bears_on", "how_supported", "quoted_window", "unsaid_words"]

BEARS_ON = 0.25
"""Share of a claim's content words a sentence must hold to contradict it."""


def bears_on(quote: str, stems: Sequence[str]) -> bool:
    """Whether `quote` holds at least a quarter of a claim's content stems `stems`.

    A sentence the model reads as contradicting a claim it shares no subject with says
    nothing of the claim: the claim is unsupported, not contradicted.

    Example:
        >>> claim = content_stems("Linfield stayed sixth, narrowly avoiding relegation.")
        >>> bears_on("The Rovers' win looked assured when Hart beat Linfield.", claim)
        False
        >>> bears_on("Linfield remain in sixth.", claim)
        True
    """
    said = set(content_stems(quote))
    return len(said & set(stems)) >= BEARS_ON * len(stems)


def unsaid_words(surface: Mapping[str, str], pool: frozenset[str]) -> list[str]:
    """The claim's content words (as written, by stem in `surface`) whose stem `pool` lacks."""
    return [word for s, word in surface.items() if s not in pool]


def how_supported(
    facts: ClaimFacts, read: Entailment | None, bar: float, *, model: bool = True
) -> str:
    """What a supported claim rests on, in words, after "supported by passage N".

    Whether the entailment model read it (where it did not, or does not find it said, the
    claim's words carried it), and where its words spread over sentences or are in no
    passage. `model`: whether the verifier reads an entailment model at all.
    """
    ctx, anchor = facts.ctx, facts.anchor
    elsewhere = [
        word
        for stem, word in facts.surface.items()
        if (held := ctx.sentences_with(stem)) and anchor not in held
    ]
    notes = []
    if elsewhere:
        words = ", ".join(f"'{w}'" for w in elsewhere[:3])
        notes.append(
            f"no one sentence says it all: {words} "
            f"{'comes' if len(elsewhere) == 1 else 'come'} from another sentence than the rest"
        )
    vouched = read is not None and read.entailed >= bar
    nowhere = [] if vouched else unsaid_words(facts.surface, ctx.stems)
    if nowhere:
        words = ", ".join(f"'{w}'" for w in nowhere[:3])
        notes.append(f"{words} {'is' if len(nowhere) == 1 else 'are'} in no passage")
    if read is None:
        asked = "the entailment model was not asked" if model else "this tier reads no model"
        how = f" on its words: {asked}"
    elif not vouched:
        how = " on its words: the entailment model does not read it as said"
    else:
        how = ", as the entailment model reads it"
    return how + (f", though {'; '.join(notes)}" if notes else "")


def quoted_window(
    passages: list[Passage], at: int, span: tuple[int, int], score: float, claim: str
) -> Evidence:
    """The sentence of the read window sharing the most content with `claim`, verbatim.

    The first such sentence on a tie, quoted from its passage.
    """
    passage = passages[at]
    window = passage.text[span[0] : span[1]]
    wanted = set(content_stems(claim))
    start, end = max(
        split_passage_sentences(window) or [(0, len(window))],
        key=lambda s: (len(wanted & set(content_stems(window[s[0] : s[1]]))), -s[0]),
    )
    return Evidence(
        passage=passage.index,
        passage_id=passage.id,
        quote=window[start:end],
        score=round(clamp_score(score), 6),
    )
