"""Each racy mutant is found by the CI profile, reduced (or shrunk) small, and replayed 10 of
10 times; the correct implementations survive the same hunt."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import settings

from schedcheck import impl
from schedcheck.concurrency.hunt import hunt, run_case
from schedcheck.profiles import suite_settings
from schedcheck.zoo import catalogue
from schedcheck.zoo import race_mutants as rm
from tests.counts import quarter_and_whole

# The claim under test is "found by the default CI profile", so these hunts use it.
CI = suite_settings(profile="ci")
# Correct targets: a quarter of the pinned profile's rounds in every run, the whole count
# nightly (tests/counts.py); `schedcheck check --threads` and the zoo run them at the whole count.

WHEEL_MUTANTS = [rm.CancelNoRecheckWheel, rm.SplitMaxPendingWheel]
SCHEDULER_MUTANTS = [rm.ClaimCheckThenWriteScheduler, rm.UnlockedDecrementScheduler,
                     rm.CloseSnapshotThenCancelScheduler]


RACY = [("scheduler", f) for f in SCHEDULER_MUTANTS] + [("wheel", f) for f in WHEEL_MUTANTS]


@pytest.mark.parametrize("shrink", [
    False, pytest.param(True, marks=pytest.mark.nightly)], ids=["reduced", "shrunk"])
@pytest.mark.parametrize(("system", "factory"), RACY, ids=lambda v: getattr(v, "__name__", v))
def test_racy_mutant_is_found_shrunk_and_replayed_ten_of_ten(system: str, factory: Any,
                                                            shrink: bool) -> None:
    """Reduced on the recorded schedule (the zoo's way, seconds) by default; shrunk by
    Hypothesis and the re-exploring greedy pass (``check --threads``, a minute each on 2
    cores) nightly."""
    found = hunt(system, factory, settings=CI, seed=4, shrink=shrink)
    reduced = found.reduction
    assert shrink or (reduced is not None and reduced.after <= reduced.before)
    assert found.found, f"{factory.__name__} survived {found.examples} concurrent rounds"
    assert found.case is not None and found.outcome is not None
    assert len(found.case.threads) <= 2
    assert found.case.operations <= 3
    assert found.outcome.run.preemptions <= 2
    assert found.replays == 10 and not found.nondeterministic
    # The printed program is the replay: run it from its text.
    namespace: dict[str, Any] = {"factory": factory}
    with pytest.raises(AssertionError, match=r"not linearizable|matches none"):
        exec(found.program(), namespace)
    assert run_case(factory, found.case).verdict == found.outcome.verdict


@quarter_and_whole("the profile's whole count of concurrent rounds on the bundled scheduler: "
                   "a minute")
def test_the_correct_scheduler_passes_the_concurrent_rounds(examples: int) -> None:
    result = hunt("scheduler", impl.Scheduler,
                  settings=settings(suite_settings(), max_examples=examples), seed=4)
    assert not result.found, result.outcome and result.outcome.message
    assert result.examples >= examples


@quarter_and_whole("the profile's whole count of concurrent rounds on a bundled wheel: "
                   "20-45 s each")
@pytest.mark.parametrize(
    "factory", [impl.HashedTimingWheel, impl.HierarchicalTimingWheel], ids=lambda c: c.__name__
)
def test_correct_wheels_pass_the_concurrent_rounds(factory: Any, examples: int) -> None:
    result = hunt("wheel", factory, settings=settings(suite_settings(), max_examples=examples),
                  seed=4)
    assert not result.found, result.outcome and result.outcome.message
    assert result.examples >= examples


def test_race_mutants_are_catalogued_as_races_with_lin_clauses() -> None:
    races = {m.name: m for m in catalogue.all_mutants() if m.kind == "race"}
    assert set(races) == {
        "race-claim-check-then-write",
        "race-complete-decrement-unlocked",
        "race-close-snapshot-then-cancel",
        "race-wheel-cancel-no-recheck",
        "race-wheel-max-pending-split",
    }
    for mutant in races.values():
        assert mutant.expected_clause in ("S-LIN", "W-LIN")
