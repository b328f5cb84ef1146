"""Two mistakes of one wheel clause whose wrong replies look alike: both lose a timer in
``advance`` (W2), one because a deadline already past is put in a later bucket, the other
because a stall skips the ticks in between. The kind of mistake says where the timer was lost
(in a catch-up of several ticks) and why it was due (its deadline past or ahead when it was
scheduled), so keep-going grading shows both."""

from __future__ import annotations

from schedcheck import profiles, systems
from schedcheck.harness.result import Step, kind_of
from schedcheck.levels import grade
from schedcheck.zoo.wheel_mutants import MissedTicksIgnoredWheel, NegativeModuloWheel

PAST = "advance: expected a value, got a value (not fired: its deadline had passed when it " \
       "was scheduled)"
CATCH_UP = "advance: expected a value, got a value (not fired in a catch-up of several ticks)"


class TwoLostTimerMistakes(MissedTicksIgnoredWheel, NegativeModuloWheel):
    """Both mutants' mistakes (they change different methods)."""


def test_a_step_detail_refines_the_kind() -> None:
    step = Step(0, "fired_1 = target.advance(now=8)", "a tick passes", expected="['h_0']",
                actual="[]", detail="not fired: its deadline had passed when it was scheduled")
    assert kind_of(step) == PAST
    step.detail = ""
    assert kind_of(step) == "advance: expected a value, got a value"


def test_a_lost_past_timer_and_a_skipped_stall_are_two_kinds_of_w2() -> None:
    with profiles.seed_only_draws():
        result = grade(systems.get("wheel"), TwoLostTimerMistakes, level="contract",
                       examples=60, seed=0, profile="ci", every_kind=True)
    kinds = {cx.kind for cx in result.counterexamples if cx.clause == "W2"}
    assert {PAST, CATCH_UP} <= kinds, kinds
