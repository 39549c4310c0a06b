"""A claim that says one part of the passages with a word of a parallel part in it.

"The family plan allows 3 devices" against "The standard plan costs $12 a month and allows
3 devices; the family plan costs $20 and allows 6 devices": every word is the passage's,
but what the claim says is the standard plan's (`checks.parallels`). Unsupported: the
passages say nothing of the family plan's three devices.

Example:
    ```python
    from langchain_reliable import create_verifier

    passage = "The older formulation did not require refrigeration; the new one must be "
    passage += "kept cold."
    answer = "The new formulation does not require refrigeration."
    create_verifier().invoke({"answer": answer, "passages": [passage]})["decision"]  # refuse
    ```
"""

from __future__ import annotations

from langchain_reliable.checks.ellipsis import elision_of
from langchain_reliable.checks.parallels import borrowed_word
from langchain_reliable.evidence.facts import PassageFacts
from langchain_reliable.rules.base import Finding
from langchain_reliable.rules.meaning import MeaningRule

__all__ = ["BorrowedWord"]


class BorrowedWord(MeaningRule):
    """A part's statement claimed with the word a parallel part says in its place."""

    name = "borrowed_word"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming the two parts; else `None`.

        Not where an elided clause ("The premium account does.") says the claim: that
        clause borrows its predicate as the claim does (`ElidedPredicate` reads it).
        """
        if elision_of(text, [p.text for p in facts.passages]) is not None:
            return None
        units = [facts.units[i] for i in facts.sentences]
        found = borrowed_word(text, tuple(u.text for u in units))
        if found is None:
            return None
        word, theirs, other, home = found
        where = next((u.passage_name for u in units if home in u.text), "the passage")
        return self.finding(
            "unsupported",
            f"{where} says '{home.rstrip('.')}' of '{theirs}', not '{word}': '{word}' is "
            f"another part's ('{other.rstrip('.')}')",
        )
