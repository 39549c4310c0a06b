"""The server's policy floor and API key resolution, without a server."""

from __future__ import annotations

import pytest

from langchain_reliable.errors import ConfigurationError
from langchain_reliable.policy import Policy

floor_module = pytest.importorskip("langchain_reliable.server.floor")
auth = pytest.importorskip("langchain_reliable.server.auth")
PolicyFloor, PolicyRejected = floor_module.PolicyFloor, floor_module.PolicyRejected


@pytest.mark.parametrize(
    "settings",
    [
        {"policy": "balanced"},
        {"policy": "lenient"},
        {"high_threshold": 0.85},
        {"medium_threshold": 0.1, "high_threshold": 0.2},
        {"return_at": "MEDIUM"},
        {"filter_at": "LOW"},
        {"filter_at": "MEDIUM"},
        {"max_retries": 2},
    ],
)
def test_looser_than_strict_is_rejected(settings):
    with pytest.raises(PolicyRejected):
        PolicyFloor(Policy.preset("strict"), max_retries=1).check(settings)


@pytest.mark.parametrize(
    "settings",
    [
        None,
        {},
        {"policy": "strict"},
        {"policy": "strict", "high_threshold": 0.99, "filter_at": "none"},
        {"max_retries": 0},
        {"thread_id": "x"},
    ],
)
def test_stricter_or_equal_is_accepted(settings):
    PolicyFloor(Policy.preset("strict"), max_retries=1).check(settings)


def test_balanced_floor_accepts_strict_and_rejects_lenient():
    floor = PolicyFloor(Policy.preset("balanced"))
    floor.check({"policy": "strict"})
    with pytest.raises(PolicyRejected, match="return_at MEDIUM"):
        floor.check({"policy": "lenient"})


def test_invalid_settings_are_configuration_errors():
    floor = PolicyFloor(Policy.preset("balanced"))
    for settings in ({"policy": "nope"}, {"max_retries": -1}, {"medium_threshold": 0.99}):
        with pytest.raises(ConfigurationError):
            floor.check(settings)


def test_a_locked_policy_refuses_any_setting():
    floor = PolicyFloor(Policy.preset("balanced"), locked=True)
    floor.check({})
    with pytest.raises(PolicyRejected, match="locked"):
        floor.check({"policy": "strict"})


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_a_blank_key_is_refused(blank):
    with pytest.raises(ConfigurationError, match="blank"):
        auth.resolve_api_key(None, {auth.ENV_API_KEY: blank})
    with pytest.raises(ConfigurationError, match="blank"):
        auth.resolve_api_key(blank, {})


def test_the_floor_compares_every_policy_field():
    """A new `Policy` field must be compared by the floor, or this fails."""
    assert set(Policy.model_fields) - {"name"} == floor_module.COMPARED


def test_returning_answers_without_claims_is_looser():
    """A client's preset cannot turn on what the server's policy refuses ("Yes." alone)."""
    server = Policy.preset("balanced").model_copy(update={"return_without_claims": False})
    with pytest.raises(PolicyRejected, match="return_without_claims"):
        PolicyFloor(server).check({"policy": "balanced"})
    PolicyFloor(Policy.preset("balanced")).check({"policy": "balanced"})
