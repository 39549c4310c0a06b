"""Function words the claim readers share, as regular-expression alternations.

One home for the auxiliaries, the forms of "be" and the joining words that open a
clause, read by `claims.antecedents` ("Ibuprofen does too", "And it ..."),
`claims.replies` ("Is the dose 5 mg?") and `claims.riders` ("..., and also ...").
Each is an alternation without a group: wrap it as the pattern needs.
"""

from __future__ import annotations

__all__ = ["AUXILIARIES", "BE", "JOINERS", "REPEATING"]

BE = "is|are|was|were"
"""The forms of "be" a statement or a question turns on."""
REPEATING = f"does|do|did|{BE}|can|has|have"
"""The auxiliaries that repeat a verb: "X does too", "so is Y"."""
AUXILIARIES = f"do|does|did|can|could|will|would|should|shall|has|have|had|may|might|must|{BE}"
"""The auxiliaries a yes/no question opens with."""
JOINERS = "and|but|so|also|then|thus|thereby|moreover|furthermore|however|in addition"
"""The words that join a clause to the one before ("and", "however", "in addition")."""
