"""The wheel suite: the model and the bundled wheels pass, broken wheels yield the right clause."""

from __future__ import annotations

import time
from typing import Any, ClassVar

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import rule
from schedcheck.impl import HashedTimingWheel, HierarchicalTimingWheel
from schedcheck.model import TimingWheel

from schedcheck.contract import SchedcheckInternalError
from schedcheck.harness.result import BROKEN, HELD, NOT_EXERCISED, NOT_SUPPORTED, Counterexample
from schedcheck.harness.wheel.fixtures import TargetUnusable
from schedcheck.harness.wheel.suite import check_wheel_scaling, run_wheel_suite
from schedcheck.targets import adapt
from tests.counts import quarter_and_whole
from tests.harness.wheel_targets import (
    DoubleCancelWheel,
    ErrorChangesStateWheel,
    ForgetfulWheel,
    LagOffByOneWheel,
    NoBackpressureWheel,
    PendingCountsCancelledWheel,
    RaisingCancelWheel,
    ScanningWheel,
    SearchingCancelWheel,
    SeedWheel,
    SilentCallbackErrorsWheel,
    SyncCallbackWheel,
)


def _program(cx: Counterexample) -> str:
    return "\n".join([cx.setup, *(s.code for s in cx.steps)])


def replay(factory: Any, cx: Counterexample) -> list[bool]:
    """Run the counterexample as the replay script would; the value of each step's check."""
    names: dict[str, Any] = {"factory": factory, "error_name": adapt.error_name}
    for line in [*cx.snapshot["preamble"], cx.setup]:
        exec(line, names)
    checks = []
    for step in cx.steps:
        try:
            exec(step.code, names)
        except Exception as exc:
            names["_raised"] = exc
        else:
            names["_raised"] = None
        if step.check is not None:
            checks.append(bool(eval(step.check, names)))
    return checks


@pytest.mark.parametrize("wheel", [TimingWheel, HashedTimingWheel, HierarchicalTimingWheel])
@quarter_and_whole("the whole count of the suite on a bundled wheel: 25-30 s each")
def test_correct_wheels_pass_and_every_clause_is_exercised(wheel: Any, examples: int) -> None:
    result = run_wheel_suite(wheel, target_name=wheel.__name__, seed=1, examples=examples)
    assert result.counterexample is None, result.counterexample and result.counterexample.message
    verdicts = {cid: s.verdict for cid, s in result.stats.items()}
    for cid in ("W1", "W2", "W3", "W4", "W5", "W6", "W-INV-EARLY", "W-INV-ONCE",
                "W-INV-LATE", "W-INV-PENDING", "W-T1", "W-T2", "W-T3", "W-T4"):
        assert verdicts[cid] == HELD, (cid, verdicts[cid])
    assert result.unsupported == []


def test_ci_profile_runs_at_least_200_examples_per_machine() -> None:
    started = time.perf_counter()
    result = run_wheel_suite(HashedTimingWheel, profile="ci", seed=7)
    seconds = time.perf_counter() - started
    print(f"ci profile: {result.examples} examples, {result.steps} steps in {seconds:.1f} s "
          f"({result.examples / seconds:.0f} examples/s)")
    assert result.ok
    assert result.examples >= 200


def test_one_seed_gives_one_trace() -> None:
    first = run_wheel_suite(ForgetfulWheel, seed=11, shrink=False)
    second = run_wheel_suite(ForgetfulWheel, seed=11, shrink=False)
    assert first.counterexample is not None and second.counterexample is not None
    assert _program(first.counterexample) == _program(second.counterexample)
    passing = [run_wheel_suite(TimingWheel, seed=5, examples=20) for _ in range(2)]
    assert passing[0].steps == passing[1].steps


#: The seed's plan keeps a cancelled handle in its bucket until the cursor comes round (W-MEM
#: breaks: tests/harness/test_added_oracles.py); set aside where another rule is looked at.
SEED_MEMORY = frozenset({"W-MEM"})


def test_a_wheel_that_forgets_rounds_fires_early_and_the_program_replays() -> None:
    result = run_wheel_suite(ForgetfulWheel, seed=0, set_aside=SEED_MEMORY)
    cx = result.counterexample
    assert cx is not None
    assert cx.clause == "W-INV-EARLY"
    assert result.stats["W-INV-EARLY"].verdict == BROKEN
    assert "before its deadline" in cx.message
    diverged = cx.divergence
    assert diverged is not None and diverged.code.startswith("fired_")
    snap = cx.snapshot
    assert {"tick", "tick_size", "wheel_size", "timers", "timeline", "preamble"} <= set(snap)
    assert all({"name", "deadline", "due_tick", "bucket", "rounds", "state"} <= set(t)
               for t in snap["timers"])
    assert len(cx.steps) <= 12, "the shrunk program should be short:\n" + _program(cx)
    checks = replay(ForgetfulWheel, cx)
    # in replay, the checks up to the divergence hold and the diverging one fails
    assert checks[-1] is False and all(checks[:-1])


@pytest.mark.parametrize(("wheel", "clause"), [
    (NoBackpressureWheel, "W5"),
    (PendingCountsCancelledWheel, "W-INV-PENDING"),
    (LagOffByOneWheel, "W1"),
    (SilentCallbackErrorsWheel, "W3"),
    (ErrorChangesStateWheel, "W6"),
], ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_each_clause_breaks_for_a_wheel_with_that_one_mistake(wheel: Any, clause: str) -> None:
    # a quality check like the zoo's: the ci budget, unshrunk (see tests/zoo/test_wheel_zoo.py)
    result = run_wheel_suite(wheel, seed=0, shrink=False, profile="ci")
    assert result.counterexample is not None, f"{wheel.__name__} survived"
    assert result.counterexample.clause == clause, result.counterexample.message


def test_a_cancel_that_succeeds_twice_breaks_rule_4() -> None:
    # the ci profile's budget: under the dev profile this seed's run found the double cancel in
    # one process and not in another (Hypothesis's draws parted after the seventh example)
    result = run_wheel_suite(DoubleCancelWheel, seed=2, shrink=False, profile="ci")
    cx = result.counterexample
    assert cx is not None and cx.clause == "W4"
    assert cx.divergence is not None and cx.divergence.code.startswith("target.cancel(")
    assert cx.divergence.expected == "False" and cx.divergence.actual == "True"
    assert "not shrunk" in " ".join(result.notes)


def test_a_wheel_that_runs_callbacks_on_the_advancing_thread_breaks_rule_3() -> None:
    result = run_wheel_suite(SyncCallbackWheel, seed=4, shrink=False)
    cx = result.counterexample
    assert cx is not None and cx.clause == "W3"
    assert "advance" in cx.message and "callback" in cx.message


def test_the_seed_formula_is_rejected_in_exact_mode() -> None:
    result = run_wheel_suite(SeedWheel, seed=6, shrink=False, set_aside=SEED_MEMORY)
    cx = result.counterexample
    assert cx is not None
    # late due ticks show as a missing timer (W2) or, inside one multi-tick advance, as
    # another firing order (W3)
    assert cx.clause in {"W2", "W3"}
    assert "the contract fires" in cx.message


def test_tolerance_mode_accepts_the_late_seed_formula_and_names_the_late_timers() -> None:
    result = run_wheel_suite(SeedWheel, seed=6, tolerance=True)
    assert result.counterexample is None, result.counterexample and result.counterexample.message
    late = [n for n in result.notes if "contract due tick" in n]
    assert late, result.notes
    assert "target = factory(" in late[0] and "fired at tick" in "".join(late)
    # exact due ticks were not compared, so W2 is not claimed to hold
    assert result.stats["W2"].verdict == NOT_EXERCISED
    assert result.stats["W-INV-LATE"].verdict == HELD


def test_tolerance_mode_still_rejects_early_firing() -> None:
    result = run_wheel_suite(ForgetfulWheel, seed=3, tolerance=True, shrink=False)
    assert result.counterexample is not None
    assert result.counterexample.clause == "W-INV-EARLY"


def test_optional_parts_a_target_lacks_are_not_supported_never_held() -> None:
    result = run_wheel_suite(SeedWheel, seed=6, tolerance=True, examples=10)
    assert set(result.unsupported) == {"start", "max_catchup_ticks", "max_pending", "executor",
                                       "callback_errors"}
    assert result.stats["W5"].verdict == NOT_SUPPORTED
    assert result.stats["W-T4"].verdict == NOT_SUPPORTED


def test_a_target_that_cannot_be_built_is_unusable() -> None:
    def broken(tick: int, wheel_size: int, **options: Any) -> Any:
        raise RuntimeError("no wheel today")

    with pytest.raises(TargetUnusable, match=r"cannot be built as factory\(1, 1\).*no wheel"):
        run_wheel_suite(broken)


def test_a_target_without_pending_is_unusable() -> None:
    class NoPending(SeedWheel):
        pending = None  # type: ignore[assignment]

    with pytest.raises(TargetUnusable, match=r"have no pending\(\); a wheel needs schedule\(\)"):
        run_wheel_suite(NoPending)


@pytest.mark.parametrize("wheel", [HashedTimingWheel, HierarchicalTimingWheel, TimingWheel])
def test_scaling_holds_for_the_bundled_wheels_every_time(wheel: Any) -> None:
    for _ in range(3):
        scaling = check_wheel_scaling(wheel, n=5_000)
        print(scaling.text)
        assert scaling.verdict == HELD, scaling.text


def test_scaling_flags_a_cancel_that_searches_for_its_timer() -> None:
    scaling = check_wheel_scaling(SearchingCancelWheel, n=2_000)
    assert scaling.verdict == BROKEN, scaling.text
    assert scaling.ratio > 5, scaling.text
    assert "per cancel" in scaling.text and "cost per tick" in scaling.text


def test_scaling_of_a_wheel_whose_cancel_raises_judges_its_ticks_and_says_so() -> None:
    scaling = check_wheel_scaling(RaisingCancelWheel, n=2_000)
    assert ("cancel not measured: NotImplementedError: cancel is not written yet"
            in scaling.text)
    # its ticks away from the parked bucket cost O(1); its stall is walked tick by tick (the
    # seed's plan), and that alone breaks the clause
    assert "with 16000 -- ratio 1.00" in scaling.text, scaling.text
    assert scaling.verdict == BROKEN and scaling.ratio > 5, scaling.text


def test_scaling_flags_a_wheel_that_walks_every_timer_on_each_tick_every_time() -> None:
    # once: the verdict comes from counted steps, so a second run would count the same
    scaling = check_wheel_scaling(ScanningWheel, n=400)
    assert scaling.verdict == BROKEN, scaling.text
    assert scaling.ratio > 5, scaling.text


#: examples of the runs that only show a correct wheel passing with an addition (a mixin's
#: rules, tolerance mode): the rules run in every example, so a few dozen show it
MIXIN_EXAMPLES = 50


class PendingPeek:
    """A mixin like the concurrency engineer's: a rule that uses the machine's attributes."""

    peeks: ClassVar[list[tuple[int, int]]] = []

    @rule()
    def peek_at_both_wheels(self) -> None:
        machine: Any = self
        if machine.target is None:
            return
        assert set(machine.t_handles) == set(machine.m_handles)
        PendingPeek.peeks.append((machine.target.pending(), machine.model.pending()))
        machine.exercise("W-INV-PENDING")


def test_extra_bases_add_rules_that_see_model_target_and_handles() -> None:
    PendingPeek.peeks.clear()
    result = run_wheel_suite(HashedTimingWheel, seed=8, extra_bases=(PendingPeek,),
                             examples=MIXIN_EXAMPLES)
    assert result.ok
    assert PendingPeek.peeks and all(t == m for t, m in PendingPeek.peeks)


def test_a_model_that_disagrees_with_the_ledger_is_a_harness_bug_not_a_counterexample() -> None:
    with pytest.raises(SchedcheckInternalError, match="reference model and the harness ledger"):
        run_wheel_suite(HashedTimingWheel, model_factory=PendingCountsCancelledWheel, seed=0,
                        shrink=False)


def test_tolerance_mode_accepts_an_exact_wheel_and_notes_no_off_tick_firing() -> None:
    result = run_wheel_suite(HierarchicalTimingWheel, seed=9, tolerance=True,
                             examples=MIXIN_EXAMPLES)
    assert result.ok, result.counterexample and result.counterexample.message
    assert not [n for n in result.notes if "contract due tick" in n]
    assert result.stats["W-INV-EARLY"].verdict == HELD


class SideChannel:
    """A mixin that calls both wheels directly (as a concurrent round would) and reports the
    calls with note_schedule / note_cancel / note_advance."""

    used: ClassVar[list[str]] = []

    @rule(delay=st.integers(0, 40), cancel=st.booleans())
    def call_both_wheels_directly(self, delay: int, cancel: bool) -> None:
        machine: Any = self
        if machine.target is None or machine.ledger.max_pending is not None:
            return
        now = machine.ledger.now
        name, t_cb, m_cb = machine.new_callback(False)
        t_handle = machine.target.schedule(now + delay, t_cb)
        m_handle = machine.model.schedule(now + delay, m_cb)
        rec = machine.note_schedule(now + delay, name, False, t_handle, m_handle)
        if cancel:
            stopped = machine.target.cancel(t_handle)
            assert stopped == machine.model.cancel(m_handle)
            machine.note_cancel(rec.name, stopped)
        later = now + machine.ledger.tick
        machine.model.advance(later)
        machine.note_advance(later, machine.target.advance(later))
        SideChannel.used.append(rec.name)


def test_mixins_can_report_their_own_calls_and_stay_in_step_with_the_ledger() -> None:
    SideChannel.used.clear()
    result = run_wheel_suite(HashedTimingWheel, seed=12, extra_bases=(SideChannel,))
    assert result.ok, result.counterexample and result.counterexample.message
    assert SideChannel.used
