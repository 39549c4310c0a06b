"""scripts/ablate_rules.py: a rule left out finds nothing; an unknown name is refused."""

from __future__ import annotations

import pytest

from langchain_reliable.rules import DEFAULT_RULES
from tests.unit_tests._scripts import load_script


def test_an_unknown_rule_is_named_in_the_error() -> None:
    ablate = load_script("ablate_rules")
    with pytest.raises(SystemExit, match="no default rule named no_such_rule"):
        ablate.leave_out(["reversed_pair", "no_such_rule"])


def test_a_rule_left_out_finds_nothing_and_the_others_still_run() -> None:
    ablate = load_script("ablate_rules")
    rule = next(r for r in DEFAULT_RULES if r.name == "reversed_pair")
    other = next(r for r in DEFAULT_RULES if r.name == "swapped_roles")
    try:
        assert ablate.leave_out(["reversed_pair"]) == ["reversed_pair"]
        assert rule.applies(object()) is None
        assert "applies" not in vars(other)
    finally:
        vars(rule).pop("applies", None)
    assert "applies" not in vars(rule)


def test_every_set_is_read_as_labelled_pairs() -> None:
    ablate = load_script("ablate_rules")
    groups = ablate.pairs("role_swaps")
    items = groups["role_swaps"]
    assert sum(true for _, true in items) == sum(not true for _, true in items) > 0
    assert all(set(i) >= {"answer", "passages"} for i, _ in items)
    assert len(ablate.pairs("round6")) > 5  # one group a family
