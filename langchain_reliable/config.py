"""Settings: input limits and the per-run context that tunes the policy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from langchain_reliable.errors import ConfigurationError
from langchain_reliable.policy import PRESETS, Policy


class Limits(BaseModel):
    """Bounds on what one verification handles; beyond them input is cut and the cut recorded.

    Defaults:
        question: 4,000 characters (longer raises `ValueError`).
        answer: 20,000 characters (truncated, flag `truncated_answer`).
        passages: 50 passages of 20,000 characters each (extra passages dropped,
            long ones cut; flag `truncated_context`).
        claims: 64 claims per answer (the rest are not verified and count as
            `uncertain`; flag `truncated_claims`).
        generation: 120 seconds for the chat model's answer in the RAG graph (past
            it the attempt's answer is empty, so it is refused: it fails closed).
    """

    model_config = ConfigDict(frozen=True)

    max_question_chars: int = Field(default=4_000, gt=0)
    max_answer_chars: int = Field(default=20_000, gt=0)
    max_passages: int = Field(default=50, gt=0)
    max_passage_chars: int = Field(default=20_000, gt=0)
    max_claims: int = Field(default=64, gt=0)
    generate_timeout: float | None = Field(default=120.0, gt=0)


@dataclass(kw_only=True)
class ReliabilityContext:
    """Per-run settings. Each is optional; unset ones keep the graph's own policy.

    They may also be passed as `config["configurable"]`, the only path callers
    have through LCEL chains and LangServe.
    """

    policy: Annotated[
        str | None, Field(description="Policy preset: 'strict', 'balanced' or 'lenient'.")
    ] = None
    high_threshold: Annotated[
        float | None, Field(description="Reliability at or above which an answer is HIGH.")
    ] = None
    medium_threshold: Annotated[
        float | None,
        Field(description="Reliability at or above which an answer is MEDIUM; below it is LOW."),
    ] = None
    return_at: Annotated[
        str | None, Field(description="Lowest level returned as is: 'HIGH', 'MEDIUM' or 'LOW'.")
    ] = None
    filter_at: Annotated[
        str | None,
        Field(
            description="Lowest level filtered once retries are spent: "
            "'HIGH', 'MEDIUM', 'LOW', or 'refuse' (also 'none': never filter, refuse)."
        ),
    ] = None
    max_retries: Annotated[
        int | None, Field(description="Regenerations allowed under the stricter prompt.")
    ] = None
    refusal_text: Annotated[
        str | None,
        Field(description="Refusal shown instead of the English default; verified claims follow."),
    ] = None
    caveat_text: Annotated[
        str | None,
        Field(description="Note after a filtered answer; '{removed}' is the count, '' for none."),
    ] = None
    citations: Annotated[
        bool | None,
        Field(description="Mark each verified sentence with [n] and list the sources."),
    ] = None


SETTING_NAMES = tuple(f.name for f in fields(ReliabilityContext))


def collect_settings(context: Any, configurable: dict[str, Any] | None) -> dict[str, Any]:
    """Merge settings from the runtime context and `configurable`; `configurable` wins."""
    merged: dict[str, Any] = {}
    for source in (context, configurable or {}):
        if source is None:
            continue
        for name in SETTING_NAMES:
            value = source.get(name) if isinstance(source, dict) else getattr(source, name, None)
            if value is not None:
                merged[name] = value
    return merged


def resolve_policy(base: Policy, settings: dict[str, Any]) -> Policy:
    """Apply run settings to `base`: a preset first, then single thresholds.

    Raises:
        ValueError: a setting names an unknown preset or level, or thresholds are out of order.

    """
    policy = base
    if "policy" in settings:
        name = settings["policy"]
        if name not in PRESETS:
            raise ConfigurationError(
                f"unknown policy preset {name!r}; choose one of {sorted(PRESETS)}"
            )
        policy = PRESETS[name]
    updates = {
        k: settings[k] for k in ("high_threshold", "medium_threshold", "return_at") if k in settings
    }
    if "filter_at" in settings:
        value = settings["filter_at"]
        updates["filter_at"] = None if str(value).lower() in ("none", "refuse") else value
    if not updates:
        return policy
    try:
        return Policy.model_validate({**policy.model_dump(), **updates, "name": "custom"})
    except Exception as exc:
        raise ConfigurationError(f"invalid policy settings {updates}: {exc}") from None


@dataclass(frozen=True)
class RunSettings:
    """The settings one run works under: its policy and the raw values it was given."""

    policy: Policy
    values: dict[str, Any]

    def max_retries(self, default: int) -> int:
        """Regenerations allowed in this run: the `max_retries` setting, else `default`."""
        return int(self.values.get("max_retries", default))

    def get(self, name: str, default: Any = None) -> Any:
        """The run's value of setting `name`, else `default` (the graph's own)."""
        return self.values.get(name, default)


def run_settings(config: Mapping[str, Any] | None, policy: Policy) -> RunSettings:
    """Read a run's settings: the LangGraph runtime context, then `config["configurable"]`.

    The one place graph nodes read settings from. A graph inside an LCEL chain or
    behind LangServe sees only `configurable`; `langgraph dev` and
    `invoke(..., context=...)` fill the runtime context; `configurable` wins.

    Args:
        config: the node's `RunnableConfig`.
        policy: the graph's own policy, which the settings adjust.

    Raises:
        ValueError: a setting names an unknown preset or level, or thresholds are out of order.

    """
    from langgraph.runtime import get_runtime  # LangGraph loads only when a graph runs

    try:
        context = get_runtime().context
    except RuntimeError:  # called outside a graph run
        context = None
    values = collect_settings(context, (config or {}).get("configurable"))
    return RunSettings(resolve_policy(policy, values), values)
