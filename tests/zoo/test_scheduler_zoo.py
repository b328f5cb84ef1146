"""Every catalogued scheduler mistake is killed: a sequential mutant by the differential suite,
a cost mutant by the scaling clause (S-COST). Race mutants belong to the concurrent rounds
(tests/concurrency). One test per mutant, so the kill matrix reads off the test names.

The suite runs inside each test with the ``ci`` profile's budget (a meta-test, allowed by the
rules), unshrunk (``run_suite(..., shrink=False)``): Hypothesis stops at the first
counterexample and reports it as found, so a kill costs a fraction of a second; a survivor
costs the whole budget and fails. Shrinking is not what is tested here (the harness tests do
that): the first failing run already names the broken clause.
"""

from __future__ import annotations

import pytest

from schedcheck.harness.clauses import SCHEDULER_CLAUSES
from schedcheck.harness.result import BROKEN
from schedcheck.harness.scheduler.suite import check_scheduler_scaling
from schedcheck.pipeline import run_suite
from schedcheck.profiles import PROFILES
from schedcheck.systems import get
from schedcheck.zoo.catalogue import Mutant, all_mutants

#: examples per sequential kill: the ci profile's budget. Every catalogued mistake is killed on
#: each of seeds 0..9 within it, most in under 20 examples; three seeds run here.
KILL_EXAMPLES = int(PROFILES["ci"]["max_examples"])
KILL_SEEDS = (0, 1, 2)
#: tasks in the scaling check's small run (the large one has 8x); 1000 keeps a quadratic
#: mutant's large run short (it gives up once the ratio is surely over the threshold)
COST_N = 1000

_CLAUSE_IDS = {c.id for c in SCHEDULER_CLAUSES}


def _scheduler_mutants(kind: str) -> list[Mutant]:
    return [m for m in all_mutants() if m.system == "scheduler" and m.kind == kind]


def test_the_catalogue_holds_sequential_and_cost_mistakes_of_the_scheduler() -> None:
    assert len(_scheduler_mutants("sequential")) >= 5
    assert _scheduler_mutants("cost")
    for m in _scheduler_mutants("sequential") + _scheduler_mutants("cost"):
        assert m.expected_clause in _CLAUSE_IDS, (m.name, m.expected_clause)


@pytest.mark.parametrize("seed", KILL_SEEDS)
@pytest.mark.parametrize("mutant", _scheduler_mutants("sequential"), ids=lambda m: m.name)
def test_the_suite_kills_the_sequential_mutant(mutant: Mutant, seed: int) -> None:
    result = run_suite("scheduler", mutant.factory, target_name=mutant.name, shrink=False,
                           examples=KILL_EXAMPLES, seed=seed, profile="ci")
    cx = result.counterexample
    assert cx is not None, (
        f"{mutant.name} survived {result.examples} examples on seed {seed}: {mutant.mistake}")
    assert cx.divergence is not None
    assert result.stats[cx.clause].verdict == BROKEN
    assert mutant.expects(cx.clause), (
        f"{mutant.name} was caught by {cx.clause}, the catalogue expects "
        f"{mutant.expected_clause}: {cx.message}")


@pytest.mark.bench
@pytest.mark.parametrize("n", [
    get("scheduler").zoo_cost_n, pytest.param(COST_N, marks=pytest.mark.nightly)])
@pytest.mark.parametrize("mutant", _scheduler_mutants("cost"), ids=lambda m: m.name)
def test_the_scaling_clause_kills_the_cost_mutant(mutant: Mutant, n: int) -> None:
    """At the zoo's size (what `schedcheck zoo` and `verify` run) and, nightly, at 1000."""
    result = check_scheduler_scaling(mutant.factory, n=n)
    assert result.verdict == BROKEN, f"{mutant.name}: {result.text}"
    assert mutant.expected_clause == "S-COST"
