"""Policies turn a scored report into a route: return, retry, filter or refuse."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from langchain_reliable.decisions import (
    NOT_COVERED,
    NOT_RETURNED,
    REFUSED_AT_ONCE,
    RETRIED_NOT_FILTERED,
    Route,
)
from langchain_reliable.schemas import Label, Level, ReliabilityReport

_RANK: dict[Level, int] = {"LOW": 0, "MEDIUM": 1, "HIGH": 2}


class Policy(BaseModel):
    """Thresholds and rules that decide what happens to an answer.

    Example:
        >>> Policy.preset("strict").decide_level(0.9)
        'HIGH'

    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(default="custom", description="Preset name, or 'custom'.")
    high_threshold: float = Field(
        default=0.85, ge=0, le=1, description="Reliability at or above this is HIGH."
    )
    medium_threshold: float = Field(
        default=0.65, ge=0, le=1, description="Reliability at or above this is MEDIUM."
    )
    return_at: Level = Field(
        default="HIGH", description="Lowest level at which an answer is returned as is."
    )
    filter_at: Level | None = Field(
        default="MEDIUM",
        description="Lowest level at which, once retries are spent, unverified claims are "
        "stripped; below it (or when None) the answer is refused.",
    )
    return_without_claims: bool = Field(
        default=True,
        description="Return an answer that makes no checkable claim (all of it greetings, "
        "markup or hedges); when False only an explicit abstention is returned.",
    )
    blocking_labels: frozenset[Label] = Field(
        default=frozenset({"contradicted"}),
        description="Any claim with one of these labels keeps an answer from being returned as is.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Policy:
        if self.medium_threshold > self.high_threshold:
            raise ValueError(
                f"medium_threshold ({self.medium_threshold}) must not exceed "
                f"high_threshold ({self.high_threshold})"
            )
        return self

    @classmethod
    def preset(cls, name: PresetName) -> Policy:
        """Return a named preset: `strict`, `balanced` or `lenient`."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ValueError(
                f"unknown policy preset {name!r}; choose one of {sorted(PRESETS)}"
            ) from None

    @property
    def pass_threshold(self) -> float:
        """The score an answer needs to pass (`passed`): the threshold of `return_at`.

        `passed` is the decision `return`: the score reaches this threshold (0.85 under
        `balanced`, 0.9 `strict`, 0.65 `lenient`), and no claim, flag or uncovered text
        holds the answer back (see `route`).

        Example:
            >>> Policy.preset("lenient").pass_threshold
            0.65

        """
        return {
            "HIGH": self.high_threshold,
            "MEDIUM": self.medium_threshold,
            "LOW": 0.0,
        }[self.return_at]

    def decide_level(self, reliability: float) -> Level:
        """Map a reliability score to HIGH, MEDIUM or LOW."""
        if reliability >= self.high_threshold:
            return "HIGH"
        if reliability >= self.medium_threshold:
            return "MEDIUM"
        return "LOW"

    def route(self, report: ReliabilityReport, retries_left: int = 0) -> Route:
        """Decide what to do with a scored answer. Pure: depends on its arguments alone.

        An answer is returned only when it reaches `return_at`, no claim carries a
        blocking label, the verifier did not fail and every part of it is covered
        (no `uncovered_text` flag: see `langchain_reliable.coverage`) and renders as it
        reads (no `render_mismatch` flag: `langchain_reliable.render_hazards`). An answer with
        no claim is returned only when it is covered and the policy returns such
        answers (`return_without_claims`) or it is an explicit abstention. Otherwise
        it is retried while retries are left, then filtered or refused — never
        returned unverified.
        """
        flags = set(report.flags)
        if REFUSED_AT_ONCE & flags:
            return "refuse"
        if RETRIED_NOT_FILTERED & flags:
            return "retry" if retries_left > 0 else "refuse"
        covered = not NOT_COVERED & flags
        allowed = self.return_without_claims or "abstention" in flags
        if "no_claims" in flags and covered and allowed:
            return "return"
        acceptable = (
            not NOT_RETURNED & flags
            and _RANK[report.level] >= _RANK[self.return_at]
            and not any(c.label in self.blocking_labels for c in report.claims)
        )
        if acceptable:
            return "return"
        if retries_left > 0:
            return "retry"
        if (
            self.filter_at is not None
            and report.supported > 0
            and _RANK[report.level] >= _RANK[self.filter_at]
        ):
            return "filter"
        return "refuse"


def as_policy(policy: Policy | str | None) -> Policy:
    """A `Policy` from a policy, a preset name, or None (the `balanced` preset).

    Raises:
        ValueError: an unknown preset name.
        TypeError: neither a `Policy`, a string nor None.

    """
    if policy is None:
        return Policy.preset("balanced")
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, str):
        return Policy.preset(policy)  # type: ignore[arg-type]
    raise TypeError(f"policy must be a Policy or a preset name, got {type(policy).__name__}")


PresetName = Literal["strict", "balanced", "lenient"]

PRESETS: dict[str, Policy] = {
    # Medicine, law: any claim that is not supported sends the answer back, then refuses.
    "strict": Policy(
        name="strict",
        high_threshold=0.9,
        medium_threshold=0.7,
        return_at="HIGH",
        filter_at=None,
        return_without_claims=False,
        blocking_labels=frozenset({"unsupported", "contradicted", "uncertain"}),
    ),
    # Default: retry, then filter on MEDIUM, refuse on LOW.
    "balanced": Policy(name="balanced"),
    # Low stakes: as balanced, but LOW answers are filtered too when anything is verified.
    "lenient": Policy(name="lenient", return_at="MEDIUM", filter_at="LOW"),
}
