"""Every catalogued wheel mistake is caught: by the differential suite, or (kind "cost") by W-COST.

One test per mutant. The broken clause must be the one the catalogue expects; a mismatch is a
failure to look at (either the suite's attribution or the catalogue's expectation is wrong),
never something to paper over here. Like ``schedcheck zoo``, the suite runs without shrinking
(a kill costs well under a second; shrinking costs tens), so the clause is the one the first
failing run breaks; tests/harness/test_wheel_suite.py checks shrinking on its own wheels.
"""

from __future__ import annotations

import pytest

from schedcheck.harness.result import BROKEN
from schedcheck.harness.wheel.suite import check_wheel_scaling, run_wheel_suite
from schedcheck.zoo.catalogue import Mutant, all_mutants

WHEEL_MUTANTS = sorted(
    (m for m in all_mutants() if m.system == "wheel" and m.kind != "race"),
    key=lambda m: m.name,
)


def test_the_catalogue_holds_wheel_mutants_of_both_kinds() -> None:
    kinds = {m.kind for m in WHEEL_MUTANTS}
    assert {"sequential", "cost"} <= kinds, kinds


#: the timers of the cost mutants' small wheel: the verdict comes from counted steps, so a
#: scan of every timer reads ~8 at any size (the zoo of scripts/main measures at 500 too)
COST_N = 500


@pytest.mark.parametrize("mutant", WHEEL_MUTANTS, ids=lambda m: m.name)
def test_mutant_is_killed_by_its_expected_clause(mutant: Mutant) -> None:
    if mutant.kind == "cost":
        scaling = check_wheel_scaling(mutant.factory, n=COST_N)
        assert scaling.verdict == BROKEN, scaling.text
        assert mutant.expected_clause == "W-COST"
        return
    # the zoo is a quality check ("the suite finds this mistake"): it pins the ci profile's
    # budget (200 examples) so that a kill does not depend on the profile a developer chose;
    # unshrunk, a kill costs well under a second
    result = run_wheel_suite(mutant.factory, target_name=mutant.name, seed=0, shrink=False,
                             profile="ci")
    cx = result.counterexample
    assert cx is not None, f"{mutant.name} survived {result.examples} examples"
    assert result.stats[cx.clause].broken
    assert mutant.expects(cx.clause), (
        f"{mutant.name}: the suite broke {cx.clause}, the catalogue expects "
        f"{mutant.expected_clause}: {cx.message}"
    )
    assert cx.divergence is not None
