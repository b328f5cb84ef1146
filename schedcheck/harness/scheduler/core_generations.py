"""The core level's generations: resubmits after start, stale and late reports, retries.

A mixin of ``scheduler.core.SchedulerCoreMachine`` (its rules join the machine's), enabled
for a target with generations (``SchedulerCapabilities.generations``). What any correct
design with generations holds, checked on the target's own answers:

* a resubmit of a task that succeeded (and that no waiting task depends on: whether waiting
  dependents wait for the new run is the contract's rule 7) starts a new run, claimed under a
  generation never handed out before (``('a', 1)`` handed out twice is S-CLAIM-ONCE, as any
  second claim of one run);
* a report quoting an older generation -- a worker of the run before the resubmit, late --
  changes nothing: the new run is neither ended nor its dependents released (a dependent
  claimed after a stale completion is S4's breach, "a callback that must change nothing");
* ``retry(id)`` of a failed task, when the target has it, is such a resubmit.

Replies to stale reports are not compared (any answer will do), but they must return.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from schedcheck.harness.program import atomic
from schedcheck.harness.scheduler.fixtures import noop

__all__ = ["GenerationRules"]


class GenerationRules:
    """Resubmit, retry and stale-report rules (``self`` is a core machine)."""

    def _can_resubmit(self: Any) -> bool:
        return bool(self.caps.generations and self._live() and "S7" not in self.refused
                    and self.target is not None)

    def _ended(self: Any, states: tuple[str, ...]) -> list[Any]:
        """The tasks in ``states`` that no waiting task depends on: whether a new run of a
        dependency sends its waiting dependents back to wait is the contract's rule 7, a
        design choice this level does not hold a design to."""
        waiting = {d for t, ds in self.deps.items() if self.state.get(t) == "waiting"
                   for d in ds}
        return sorted(t for t, s in self.state.items() if s in states and t not in waiting)

    @atomic
    def _resubmit(self: Any, tid: Any, how: str = "submit") -> None:
        """A new run of ``tid`` (it succeeded, or failed for ``retry``)."""
        if not self._can_resubmit() or self.state.get(tid) not in ("succeeded", "dead"):
            return
        if how == "retry" and (tid not in self._retryable() or not callable(
                getattr(self.target, "retry", None))):
            return
        if how == "submit" and tid not in self._ended(("succeeded",)):
            return  # (a replay with steps removed: the rule's precondition may not hold)
        old = self._claimed_generation(tid)
        if how == "retry":
            _, got = self._call(f"retry the failed {tid!r}", "retry", tid)
        else:
            _, got = self._call(f"resubmit {tid!r} (it succeeded)", "submit", tid,
                                   self.deps[tid], noop)
        if not got.ok:  # a design without resubmits after start: not this level's business
            type(self).refused.add("S7")
            return
        if old is not None:
            self.old_generations.setdefault(tid, set()).add(old)
        self.state[tid] = "waiting"
        self.killed.pop(tid, None)
        self.again.discard(tid)

    @precondition(lambda self: self._can_resubmit() and bool(self._ended(("succeeded",))))
    @rule(i=st.integers(0, 50))
    def resubmit(self, i: int) -> None:
        done = self._ended(("succeeded",))
        self._resubmit(done[i % len(done)])

    def _retryable(self: Any) -> list[Any]:
        """Failed tasks nothing depends on (whether a retry revives blocked dependents is a
        design choice: ``retry(cascade=...)``)."""
        needed = {d for ds in self.deps.values() for d in ds}
        return sorted(t for t, k in self.killed.items() if k == "S5" and t not in needed)

    @precondition(lambda self: self._can_resubmit() and bool(self._retryable()))
    @rule(i=st.integers(0, 50))
    def retry(self, i: int) -> None:
        failed = self._retryable()
        self._resubmit(failed[i % len(failed)], "retry")

    @precondition(lambda self: bool(self.old_generations))
    @rule(i=st.integers(0, 50), op=st.sampled_from(("complete", "complete", "fail")))
    def stale_report(self: Any, i: int, op: str) -> None:
        """A worker of a run before a resubmit reports, late."""
        olds = sorted((t, g) for t, gs in self.old_generations.items() for g in gs)
        tid, gen = olds[i % len(olds)]
        # a target without fail() (or that refuses it) gets its late workers' complete()
        failing = op == "fail" and self._fails()
        self._callback("fail" if failing else "complete", tid, gen)

    @atomic
    def _stale(self: Any, op: str, tid: Any, gen: int) -> None:
        step, got = self._call(f"{op} {tid!r} generation {gen}, a run before its resubmit "
                               "(a late worker)", op, tid, gen)
        self.exercise("S4")
        if op == "complete":
            self.stale_sent.add(tid)
        self._returned("S4", step, got, f"a stale {op}() of an older generation")
