"""The server's policy is a floor: a client's `configurable` may tighten it, never loosen it.

A setting is *looser* when it lets more text reach the user: a lower
`high_threshold` or `medium_threshold`, a lower `return_at` or `filter_at`
(`filter_at: refuse` (or `none`): refuse instead of filter, the strictest),
`return_without_claims` where the server refuses such answers, a preset whose
blocking labels are fewer (``strict`` > ``balanced`` > ``lenient``), or more
regenerations (`max_retries` above the server's: each retry is another chance
for an answer to pass, and costs the server a generation). Each is compared on
the policy the run would use, so a preset and single thresholds combine.

Example:
    >>> floor = PolicyFloor(Policy.preset("balanced"), max_retries=1)
    >>> floor.check({"policy": "strict"})
    >>> try:
    ...     floor.check({"high_threshold": 0.5})
    ... except PolicyRejected as exc:
    ...     print(exc)
    high_threshold 0.5 is below the server's 0.85 (clients may only tighten the policy)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_reliable.config import SETTING_NAMES, collect_settings, resolve_policy
from langchain_reliable.errors import ConfigurationError
from langchain_reliable.policy import Policy

_RANK = {"LOW": 0, "MEDIUM": 1, "HIGH": 2, None: 3}  # filter_at None: refuse, the strictest
COMPARED = frozenset(
    {
        "high_threshold",
        "medium_threshold",
        "return_at",
        "filter_at",
        "return_without_claims",
        "blocking_labels",
    }
)
"""The `Policy` fields the floor compares: every field but its `name` (a test holds it)."""


def _show(level: str | None) -> str:
    return "refuse" if level is None else level


class PolicyRejected(Exception):
    """A client's settings would loosen the server's policy, or settings are locked (403)."""


@dataclass(frozen=True)
class PolicyFloor:
    """The least strict policy a client may run under.

    Attributes:
        policy: the policy the served graphs are built with.
        max_retries: the most regenerations a client may ask for.
        locked: when True, any policy setting in `configurable` is refused.
    """

    policy: Policy
    max_retries: int = 1
    locked: bool = False

    def check(self, configurable: Mapping[str, Any] | None) -> None:
        """Accept `configurable` when it is valid and no looser than the floor.

        Raises:
            ConfigurationError: a setting is invalid (unknown preset, thresholds
                out of order, a negative `max_retries`...).
            PolicyRejected: a setting loosens the floor, or the policy is locked.

        """
        settings = collect_settings(None, dict(configurable or {}))
        if self.locked and settings:
            names = ", ".join(n for n in SETTING_NAMES if n in settings)
            raise PolicyRejected(f"the policy is locked on this server; remove: {names}")
        problems = self._lowered(settings)  # before resolving: a threshold of 0 is looser
        if not problems:
            problems = self._looser(resolve_policy(self.policy, settings), settings)
        if problems:
            raise PolicyRejected("; ".join(problems) + " (clients may only tighten the policy)")

    def _lowered(self, settings: dict[str, Any]) -> list[str]:
        problems = []
        for name in ("high_threshold", "medium_threshold"):
            value, least = settings.get(name), getattr(self.policy, name)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < least:
                problems.append(f"{name} {value:g} is below the server's {least:g}")
        if "max_retries" in settings:
            retries = settings["max_retries"]
            if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
                raise ConfigurationError(
                    f"max_retries must be a non-negative integer, got {retries!r}"
                )
            if retries > self.max_retries:
                problems.append(f"max_retries {retries} is above the server's {self.max_retries}")
        return problems

    def _looser(self, run: Policy, settings: dict[str, Any]) -> list[str]:
        floor, problems = self.policy, []
        for name in ("high_threshold", "medium_threshold"):
            value, least = getattr(run, name), getattr(floor, name)
            if value < least:
                problems.append(f"{name} {value:g} is below the server's {least:g}")
        for name in ("return_at", "filter_at"):
            value, least = getattr(run, name), getattr(floor, name)
            if _RANK[value] < _RANK[least]:
                problems.append(f"{name} {_show(value)} is below the server's {_show(least)}")
        if run.return_without_claims and not floor.return_without_claims:
            problems.append(
                "return_without_claims true would return answers the server refuses "
                "(an answer with no checkable claim)"
            )
        missing = sorted(floor.blocking_labels - run.blocking_labels)
        if missing:
            problems.append(f"claims labelled {missing} would no longer block an answer")
        if problems and "policy" in settings:
            problems[0] = f"policy {settings['policy']!r}: {problems[0]}"
        return problems
