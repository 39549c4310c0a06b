"""One table of decisions: what each shows, whether it passes, which flags stop a return or a retry.

The policy routes with it (`policy.Policy.route`), the RAG graph derives its route map
from it (`ROUTE_MAP`, from the `Route` type), the gate builds the shown text by it
(`graph.shown.gate`, also called by the guard and the server), `with_answer_only` applies
its `on_fail` by it, and the report, the
server and the CLI read whether a decision passes and its word from `OUTCOMES`.

Example:
    >>> OUTCOMES["filter"].passes, OUTCOMES["filter"].word, OUTCOMES["filter"].refused
    (False, 'filtered', False)
    >>> ROUTE_MAP["retry"]
    'retry'

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Decision = Literal["return", "filter", "refuse"]
"""What is done with an answer: shown as is, shown filtered, or refused."""
Route = Literal["return", "retry", "filter", "refuse"]
"""Where the graph goes after verifying: a decision, or one more attempt."""

DECISIONS: tuple[Decision, ...] = get_args(Decision)
ROUTES: tuple[Route, ...] = get_args(Route)
ROUTE_MAP: dict[str, str] = {route: route for route in ROUTES}
"""The RAG graph's path map after `verify`: each route to the node of its name."""


@dataclass(frozen=True)
class Outcome:
    """What one decision gives the user; the gate builds the shown text from it.

    Attributes:
        passes: Whether the answer passed as written (the report's `passed`).
        word: The report's word for it ("passed", "filtered", "refused").
        answer_as_written: The shown text is the answer itself (before citations);
            otherwise it is rebuilt from the supported spans and glue, then a caveat.
        refused: The shown text is the refusal, listing the verified spans (a step's
            `on_fail` applies); neither the answer nor its filtered form is shown.
    """

    passes: bool
    word: str
    answer_as_written: bool = False
    refused: bool = False


OUTCOMES: dict[Decision, Outcome] = {
    "return": Outcome(True, "passed", answer_as_written=True),
    "filter": Outcome(False, "filtered"),
    "refuse": Outcome(False, "refused", refused=True),
}

REFUSED_AT_ONCE = frozenset({"no_context"})
"""Flags that refuse without a retry: there is nothing to ground an answer in."""
RETRIED_NOT_FILTERED = frozenset(
    {"render_mismatch", "extractor_error", "generator_error", "off_topic"}
)
"""Flags a retry may mend but filtering cannot: retried while retries are left, then refused
(what was checked is not what would be shown, a part failed, or the answer is off topic)."""
NOT_COVERED = frozenset({"empty_answer", "uncovered_text"})
"""Flags under which an answer with no claim is not returned."""
NOT_RETURNED = frozenset({"empty_answer", "verifier_error", "uncovered_text", "no_claims"})
"""Flags that keep an answer with claims from being returned (it may be retried, filtered or
refused)."""

__all__ = [
    "DECISIONS",
    "NOT_COVERED",
    "NOT_RETURNED",
    "OUTCOMES",
    "REFUSED_AT_ONCE",
    "RETRIED_NOT_FILTERED",
    "ROUTES",
    "ROUTE_MAP",
    "Decision",
    "Outcome",
    "Route",
]
