"""Which output of an NLI classifier means entailment, and which contradiction.

`resolve_labels` reads the roles from a model's `config.json` (`id2label`,
`label2id`, `num_labels`) into `NLILabels`; `NLIVerifier` uses them to read the
model's probabilities.

Example:
    >>> found = resolve_labels({0: "entailment", 1: "neutral", 2: "contradiction"})
    >>> found.entailment, found.contradiction, found.num_labels
    (0, 2, 3)
    >>> resolve_labels({0: "LABEL_0", 1: "LABEL_1"}).how
    'two generic labels: [not supported, supported]'

"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["NLILabels", "resolve_labels"]

_ENTAILMENT = frozenset(
    """
    entailment entailed entails entail entailing supported supports support consistent
    faithful grounded factual attributable true yes
    """.split()  # noqa: SIM905
)
_CONTRADICTION = frozenset(
    """
    contradiction contradicted contradicts contradict contradictory refuted refutes refute
    refutation
    """.split()  # noqa: SIM905
)
_NEUTRAL = frozenset(
    """
    neutral not_entailment non_entailment not_entailed not_supported unsupported
    not_enough_info nei unverifiable unknown irrelevant inconsistent unfaithful
    hallucinated hallucination not_factual false no
    """.split()  # noqa: SIM905
)
_GENERIC = re.compile(r"(?:label_?)?\d+")


@dataclass(frozen=True)
class NLILabels:
    """Where entailment and contradiction sit among a classifier's outputs.

    Attributes:
        entailment: Index of the entailment ("supported") output.
        contradiction: Index of the contradiction output; `None` when the model
            has none (two-label and single-logit models).
        num_labels: Number of outputs. With 1, the single logit is read as the
            log-odds of entailment (sigmoid); otherwise outputs are softmaxed.
        names: Display name of each output, by index.
        how: How the roles were found ("names", "label2id", "given", or the fallback used).

    """

    entailment: int
    contradiction: int | None
    num_labels: int
    names: tuple[str, ...]
    how: str = "names"


def _role(name: str) -> str | None:
    key = re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")
    if key in _ENTAILMENT:
        return "entailment"
    if key in _CONTRADICTION:
        return "contradiction"
    if key in _NEUTRAL:
        return "neutral"
    return "generic" if _GENERIC.fullmatch(key) else None


def _by_names(names: Sequence[str]) -> tuple[int | None, int | None]:
    roles = [_role(n) for n in names]
    entail = [i for i, r in enumerate(roles) if r == "entailment"]
    contra = [i for i, r in enumerate(roles) if r == "contradiction"]
    if len(entail) > 1 or len(contra) > 1:
        raise ValueError(f"ambiguous NLI labels {list(names)}: pass labels={{...}} explicitly")
    return (entail[0] if entail else None), (contra[0] if contra else None)


def resolve_labels(
    id2label: Mapping[Any, str] | None,
    label2id: Mapping[str, Any] | None = None,
    num_labels: int | None = None,
    *,
    given: Mapping[str, int] | None = None,
) -> NLILabels:
    """Find the entailment and contradiction outputs of a classifier from its config.

    Names are matched case-insensitively, ignoring punctuation: entailment is
    any of `entailment`, `supported`, `consistent`, `faithful`, `grounded`,
    `true`, `yes` (and close forms); contradiction any of `contradiction`,
    `contradicted`, `refuted` (and close forms); `neutral`, `not_entailment`,
    `unsupported`, `hallucinated`, `false`, `no`... and any other name count as
    "not supported". When `id2label` names nothing recognisable, the names of
    `label2id` are tried. When every name is generic (`LABEL_0`, `0`, ...):

    - 1 output: a single logit, the log-odds of entailment;
    - 2 outputs: `[not supported, supported]`;
    - 3 outputs: the order of the MNLI data set, `[entailment, neutral,
      contradiction]`. Some checkpoints use another order (`roberta-large-mnli`
      is `[contradiction, neutral, entailment]`) but those name their labels;
      for one that does not, pass `given`.

    Args:
        id2label: The config's `id2label` (keys may be ints or digit strings).
        label2id: The config's `label2id`, tried when `id2label` names nothing.
        num_labels: Number of outputs; defaults to the size of `id2label`.
        given: Explicit roles, e.g. `{"entailment": 2, "contradiction": 0}`;
            they win over the names.

    Returns:
        The roles of the outputs.

    Raises:
        ValueError: the roles cannot be told apart, or `given` is out of range.

    """
    table = {int(k): str(v) for k, v in (id2label or {}).items()}
    n = int(num_labels if num_labels is not None else (len(table) or 2))
    if n < 1:
        raise ValueError(f"a classifier needs at least one output, got num_labels={n}")
    names = tuple(table.get(i, f"LABEL_{i}") for i in range(n))

    if given:
        unknown = set(given) - {"entailment", "contradiction", "neutral"}
        if unknown or "entailment" not in given:
            raise ValueError(
                "labels must map 'entailment' (and optionally 'contradiction', 'neutral') "
                f"to output indices, got {dict(given)}"
            )
        for role, index in given.items():
            if not 0 <= int(index) < n:
                raise ValueError(f"labels[{role!r}]={index} is outside 0..{n - 1}")
        contra = given.get("contradiction")
        return NLILabels(
            int(given["entailment"]), None if contra is None else int(contra), n, names, "given"
        )
    if n == 1:
        return NLILabels(0, None, 1, names, "single logit")

    entail, contra = _by_names(names)
    how = "names"
    if entail is None and label2id:
        by_id = {int(v): str(k) for k, v in label2id.items() if str(v).lstrip("-").isdigit()}
        if set(by_id) == set(range(n)):
            entail, contra = _by_names([by_id[i] for i in range(n)])
            how = "label2id"
            if entail is not None:
                names = tuple(by_id[i] for i in range(n))
    if entail is not None:
        return NLILabels(entail, contra, n, names, how)

    if all(_role(name) == "generic" for name in names):
        if n == 2:
            return NLILabels(1, None, 2, names, "two generic labels: [not supported, supported]")
        if n == 3:
            return NLILabels(0, 2, 3, names, "three generic labels: MNLI order")
    raise ValueError(
        f"cannot tell which output of {list(names)} means entailment: pass labels="
        "{'entailment': i, 'contradiction': j} to NLIVerifier"
    )
