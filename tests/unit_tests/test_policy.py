import pytest

from langchain_reliable.config import collect_settings, resolve_policy
from langchain_reliable.policy import PRESETS, Policy
from langchain_reliable.report import build_report
from langchain_reliable.schemas import ClaimVerdict


def verdicts(*labels):
    score = {"supported": 0.9, "unsupported": 0.1, "contradicted": 0.05, "uncertain": 0.5}
    return [
        ClaimVerdict(text=f"c{i}", span=(i, i + 1), label=label, score=score[label])
        for i, label in enumerate(labels)
    ]


def report(*labels, policy=None, flags=()):
    return build_report(verdicts(*labels), policy or Policy(), flags=flags)


def test_levels_follow_thresholds():
    p = Policy()
    assert [p.decide_level(x) for x in (0.85, 0.84, 0.65, 0.64)] == [
        "HIGH",
        "MEDIUM",
        "MEDIUM",
        "LOW",
    ]


def test_balanced_routes():
    p = PRESETS["balanced"]
    assert p.route(report("supported", "supported")) == "return"
    medium = report("supported", "supported", "supported", "unsupported")  # 0.75
    assert medium.level == "MEDIUM"
    assert p.route(medium, retries_left=1) == "retry"
    assert p.route(medium) == "filter"
    low = report("supported", "unsupported", "unsupported")
    assert p.route(low, retries_left=1) == "retry"
    assert p.route(low) == "refuse"


def test_contradiction_blocks_return_even_when_high():
    p = PRESETS["balanced"]
    r = report(*["supported"] * 9, "contradicted")
    assert r.level == "HIGH"
    assert p.route(r) == "filter"


def test_strict_refuses_any_unsupported_claim():
    p = PRESETS["strict"]
    r = report(*["supported"] * 19, "unsupported", policy=p)
    assert r.level == "HIGH"
    assert p.route(r, retries_left=1) == "retry"
    assert p.route(r) == "refuse"


def test_lenient_returns_medium_and_filters_low():
    p = PRESETS["lenient"]
    assert p.route(report("supported", "supported", "supported", "unsupported")) == "return"
    assert p.route(report("supported", "unsupported", "unsupported")) == "filter"
    assert p.route(report("unsupported", "unsupported")) == "refuse"


def test_fail_closed_on_verifier_error_and_empty_input():
    p = PRESETS["lenient"]
    assert p.route(report("supported", flags=["verifier_error"])) == "filter"
    assert p.route(report("uncertain", "uncertain", flags=["verifier_error"])) == "refuse"
    assert p.route(report(flags=["empty_answer"]), retries_left=1) == "retry"
    assert p.route(report(flags=["empty_answer"])) == "refuse"
    assert p.route(report("supported", flags=["no_context"]), retries_left=1) == "refuse"
    assert p.route(report(flags=["no_claims"])) == "return"


def test_empty_answer_report_is_low():
    r = report(flags=["empty_answer"])
    assert r.reliability_score == 0.0 and r.level == "LOW"


def test_bad_policies_are_rejected_clearly():
    with pytest.raises(ValueError, match="medium_threshold"):
        Policy(high_threshold=0.5, medium_threshold=0.7)
    with pytest.raises(ValueError, match="unknown policy preset 'paranoid'"):
        Policy.preset("paranoid")
    with pytest.raises(ValueError, match="unknown policy preset"):
        resolve_policy(Policy(), {"policy": "paranoid"})
    with pytest.raises(ValueError, match="invalid policy settings"):
        resolve_policy(Policy(), {"high_threshold": 2})


def test_settings_merge_context_then_configurable():
    from langchain_reliable.config import ReliabilityContext

    ctx = ReliabilityContext(policy="strict", high_threshold=0.95)
    merged = collect_settings(ctx, {"high_threshold": 0.99, "thread_id": "x"})
    assert merged == {"policy": "strict", "high_threshold": 0.99}
    p = resolve_policy(PRESETS["balanced"], merged)
    assert p.high_threshold == 0.99 and p.filter_at is None
    assert resolve_policy(PRESETS["balanced"], {"filter_at": "none"}).filter_at is None


def test_refuse_is_a_name_for_never_filtering():
    """The playground offers 'refuse' beside its empty choice (the server's value)."""
    assert resolve_policy(PRESETS["balanced"], {"filter_at": "refuse"}).filter_at is None
