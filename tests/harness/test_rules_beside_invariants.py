"""A breach that breaks an invariant and a contract rule at once is reported under each in
turn (keep going), and a seed's point is broken wherever a rule it rests on is: none of them is
ever "held" beside a counterexample that shows it broken."""

from __future__ import annotations

from schedcheck.harness import minimize
from schedcheck.harness.clauses import SEED_RULES
from schedcheck.harness.program import Op, TimerName
from schedcheck.harness.result import BROKEN, HELD, RunResult
from schedcheck.systems import get
from tests.concurrency.test_serial_failures import CancelledStillFire


class CancelFiresAnyway(CancelledStillFire):
    """pending() right; cancel() says True and the timer fires all the same."""

    def pending(self) -> int:
        return sum(1 for bucket in self.buckets for t in bucket if not t.cancelled)


PROGRAM = [Op("_build", (1, 1, {}), {}),
           Op("_schedule", (0, False), {"after": False, "words": "a timer at 0"},
              made=("h_0",)),
           Op("cancel_timer", (TimerName("h_0"),), {}),
           Op("_advance", (0,), {"words": "advance to 0"})]


def test_a_cancelled_timer_that_fires_breaks_the_invariant_then_the_cancel_rule() -> None:
    machine = get("wheel").make_machine(CancelFiresAnyway)
    first, _ = minimize._in_test_context(lambda: minimize.replay(machine, PROGRAM))
    assert first is not None and first.clause == "W-INV-ONCE", first and first.message
    machine.set_aside = frozenset({"W-INV-ONCE"})  # keep going
    again, _ = minimize._in_test_context(lambda: minimize.replay(machine, PROGRAM))
    assert again is not None and again.clause == "W4", again and again.message
    assert again.divergence is not None and again.divergence.words == "advance to 0"


def test_a_seed_point_is_broken_where_its_rule_is() -> None:
    result = RunResult.fresh("wheel", "w")
    for cid in ("W4", "W-T3", "W2", "W-T1"):
        result.exercise(cid, 5)
    result.break_("W4")
    result.follow_seed_rules()
    assert result.stats["W-T3"].verdict == BROKEN
    assert "W4" in result.stats["W-T3"].reason
    assert result.stats["W-T1"].verdict == HELD  # its rule W2 held
    every = {r for rules in SEED_RULES.values() for r in rules} | set(SEED_RULES)
    assert every <= {c.clause.id for c in RunResult.fresh("wheel", "w").stats.values()} | {
        c.clause.id for c in RunResult.fresh("scheduler", "s").stats.values()}
