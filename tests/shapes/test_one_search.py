"""One search in every mode: ``search.run_phases(..., examples=N)`` (seed-only mode) plays
the same phases as a time budget, so the same seed finds the same counterexample either
way."""

from __future__ import annotations

from schedcheck.impl import Scheduler

from schedcheck import profiles
from schedcheck.harness import search
from schedcheck.harness.result import RunResult
from schedcheck.harness.scheduler.suite import make_scheduler_machine, run_scheduler_suite
from tests.shapes import hidden

ROUND = sum(c.examples for c in search.plan("scheduler"))


def _found(result: RunResult) -> str:
    return next(n for n in result.notes if n.startswith("search: found")).split(", after")[0]


def test_the_same_seed_finds_the_same_counterexample_by_budget_and_by_examples() -> None:
    with profiles.seed_only_draws():
        # a budget far beyond what the search needs: it stops at the counterexample
        timed = run_scheduler_suite(hidden.MissesCycleBehindDependent, seed=0, budget=600.0,
                                    profile="ci")
        counted = RunResult.fresh("scheduler", "MissesCycleBehindDependent")
        machine = make_scheduler_machine(hidden.MissesCycleBehindDependent, result=counted)
        search.run_phases(machine, counted, examples=2 * ROUND, seed=0, profile="ci")
    assert timed.counterexample is not None and counted.counterexample is not None
    # found by the shapes phase: only the phased search reaches it in either mode
    assert "shapes phase" in _found(counted), counted.notes
    assert _found(timed) == _found(counted)
    assert timed.counterexample.clause == counted.counterexample.clause
    assert [s.code for s in timed.counterexample.steps] == \
        [s.code for s in counted.counterexample.steps]


def test_run_phases_counts_examples_across_the_phases() -> None:
    result = RunResult.fresh("scheduler", "impl")
    machine = make_scheduler_machine(Scheduler, result=result)
    with profiles.seed_only_draws():
        search.run_phases(machine, result, examples=70, seed=3, profile="ci")
    assert result.counterexample is None, result.notes
    assert result.examples >= 70
    note = result.notes[-1]
    assert "directed" in note and "swarm" in note, note  # not one plain run
