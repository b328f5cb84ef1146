"""L8: a failure reported with ``retry=True`` is retried after an exponential backoff with
jitter while the task has attempts left (its own ``max_attempts`` or the store's), then it is
FAILED with the last error; a completion's result is kept and shown by ``info()``."""

from __future__ import annotations

from schedcheck.impl.durable import DurableScheduler
from schedcheck.model.leases import LeasedScheduler, retry_delay

from schedcheck.harness.leases.suite import ManualClock


def test_a_retried_task_waits_its_backoff_then_fails_for_good_out_of_attempts() -> None:
    clock = ManualClock(100.0)
    s = DurableScheduler("sqlite://", 2, 30.0, clock=clock, retry_backoff=2.0)
    s.submit("a", max_attempts=3)
    s.submit("b", ["a"])
    s.start()
    waits = []
    for attempt in (1, 2):
        (c,) = s.ready()
        reply = s.fail("a", c.generation, f"boom {attempt}", token=c.token, retry=True)
        assert (reply.outcome.name, reply.state.name) == ("APPLIED", "READY")
        info = s.info("a")
        assert info.error == f"boom {attempt}" and info.attempts == attempt
        assert info.not_before == clock.now + retry_delay(2.0, attempt, c.token)
        waits.append(info.not_before - clock.now)
        assert s.ready() == []  # not before its time
        clock.now = info.not_before
    assert 1.0 <= waits[0] <= 2.0 and 2.0 <= waits[1] <= 4.0  # 2 s, then 4 s, half jitter
    (c,) = s.ready()
    reply = s.fail("a", c.generation, "boom 3", token=c.token, retry=True)
    assert (reply.outcome.name, reply.state.name) == ("APPLIED", "FAILED")
    assert s.info("a").error == "boom 3" and s.info("b").state.name == "BLOCKED"
    s.check_invariants()


def test_a_stale_retry_changes_nothing_and_a_result_is_kept() -> None:
    clock = ManualClock()
    for s in (DurableScheduler("sqlite://", 1, 5.0, clock=clock), LeasedScheduler(1, 5.0)):
        s.submit("a")
        s.start()
        (c,) = s.ready()
        assert s.fail("a", c.generation, "x", token=c.token + 1, retry=True).outcome.name == \
            "STALE"
        assert s.complete("a", c.generation, token=c.token, result={"rows": 3}).outcome.name \
            == "APPLIED"
        assert s.info("a").result == {"rows": 3}  # type: ignore[union-attr]


def test_after_close_a_failure_is_not_retried() -> None:
    """Rule 8: nothing is claimed after close(), so a retry would leave a READY task behind
    (the lease suite found this with a longer run)."""
    for s in (DurableScheduler("sqlite://", 1, 5.0, clock=ManualClock()),
              LeasedScheduler(1, 5.0)):
        s.submit("a")
        s.start()
        (c,) = s.ready()
        s.close()
        reply = s.fail("a", c.generation, "boom", token=c.token, retry=True)
        assert (reply.outcome.name, reply.state.name) == ("APPLIED", "FAILED")
        s.check_invariants()
