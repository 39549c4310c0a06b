"""The audit record of one decision: question, claims, decision, models, latency, cost."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any


def build_record(
    state: Mapping[str, Any],
    out: Mapping[str, Any],
    config: Any = None,
    *,
    hash_questions: bool = False,
    chat_model: str | None = None,
) -> dict[str, Any]:
    """The record of one decision of the Reliable RAG graph (without the chain fields).

    Args:
        state: the graph's input state (``question``, maybe ``started_at``).
        out: the graph's output (``decision``, ``attempts``, ``report``).
        config: the run's config; may name the chat model and the start time.
        hash_questions: store the question's SHA-256 instead of its text.
        chat_model: the chat model's name when the config gives none.

    Example:
        >>> build_record({"question": "Who?"}, {"decision": "refuse"})["decision"]
        'refuse'

    """
    question = str(state.get("question") or "")
    report = out.get("report") or {}
    if hasattr(report, "model_dump"):
        report = report.model_dump()
    cost = report.get("cost") or {}
    return {
        "time": datetime.now(timezone.utc).isoformat(),
        "question": sha256(question) if hash_questions else question,
        "question_hashed": hash_questions,
        "decision": out.get("decision"),
        "attempts": out.get("attempts"),
        "level": report.get("level"),
        "reliability_score": report.get("reliability_score"),
        "hallucination_rate": report.get("hallucination_rate"),
        "flags": list(report.get("flags") or []),
        "claims": [claim_fields(c) for c in report.get("claims") or []],
        "models": {
            "verifier": report.get("verifier") or None,
            "extractor": report.get("extractor") or None,
            "chat_model": config_model(config) or chat_model,
        },
        "latency_ms": latency_ms(state, config, cost),
        "cost": cost,
    }


def claim_fields(claim: Mapping[str, Any]) -> dict[str, Any]:
    """What the log keeps of a claim: text, label, score, evidence ids and scores."""
    return {
        "text": claim.get("text"),
        "label": claim.get("label"),
        "score": claim.get("score"),
        "evidence": [
            {
                "passage": e.get("passage"),
                "passage_id": e.get("passage_id"),
                "score": e.get("score"),
            }
            for e in claim.get("evidence") or []
        ],
    }


def config_model(config: Any) -> str | None:
    """A chat model name from the run's config (metadata or configurable), if it gives one."""
    if not isinstance(config, Mapping):
        return None
    for section in ("metadata", "configurable"):
        values = config.get(section) or {}
        if not isinstance(values, Mapping):
            continue
        for name in ("chat_model", "ls_model_name", "model_name", "model"):
            value = values.get(name)
            if isinstance(value, str) and value:
                return value
    return None


def latency_ms(state: Mapping[str, Any], config: Any, cost: Mapping[str, Any]) -> float | None:
    """Milliseconds since the run started, if the state or config says when; else verification's."""
    started = state.get("started_at")
    if started is None and isinstance(config, Mapping):
        started = (config.get("metadata") or {}).get("started_at")
    if isinstance(started, (int, float)):
        return round((time.time() - started) * 1000, 1)
    ms = cost.get("milliseconds") if isinstance(cost, Mapping) else None
    return round(float(ms), 1) if isinstance(ms, (int, float)) else None


def model_name(model: Any) -> str | None:
    """A readable name for a chat model object ("provider:name" strings pass through)."""
    if model is None or isinstance(model, str):
        return model
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    llm_type = getattr(model, "_llm_type", None)
    return llm_type if isinstance(llm_type, str) else type(model).__name__


def sha256(text: str) -> str:
    """The hex SHA-256 of a text's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


__all__ = ["build_record", "claim_fields", "config_model", "latency_ms", "model_name", "sha256"]
