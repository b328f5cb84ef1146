"""The scheduler suite's classic scenarios: small adversarial templates, name -> function.

The seed's "what the interviewer tests" and its common mistakes, each a few calls on drawn ids
(``ids`` is a permutation of the suite's alphabet: ``ids[0]``, ``ids[1]``... play the roles).
The machine instantiates them in its ``classic`` rule and, for most runs, in its first step, so
that the first steps of most runs are adversarial:

* a join whose first dependency completes twice; a diamond with a duplicate completion;
* a join whose two dependencies fail (the second twice, then a cancel);
* claims at the concurrency limit (``ready(1)`` then ``ready()`` with slots partly used);
* a late callback from the generation before a resubmit;
* a resubmit of a dependency with a live dependent;
* a resubmit that drops an edge followed by the reverse edge (a cycle check that follows
  stale edges reports a cycle that is not there), then a cycle of three closed through it;
* a cancel of a RUNNING task, the worker's poll (``cancel_requested``) and its confirming
  ``fail``;
* a resubmit that drops a dependency never submitted (start() must then succeed);
* a dependency resubmitted and cancelled while its dependent runs (the blocking stops at the
  RUNNING dependent: its own dependents stay PENDING).

Four more are played only as the search's directed starts (:data:`DIRECTED_ONLY`, late in
its round), not drawn by the rules, so that the draws of every other program stay as they were:

* a READY task cancelled before any worker took it, then a claim (a queue in front of the
  scheduler that took the id earlier must not hand it out: an adapter's mistake);
* a cascading ``retry()`` of a failed task with a dependent cancelled before the failure (only
  the BLOCKED subtree comes back);
* an int id beside the letters (a scheduler that keeps or sends its ids as text must hand back
  the id it was given);
* a cascading ``retry()`` of a failed task with a chain of two BLOCKED behind it (every edge
  into the retried tasks is unlinked and linked again).

A scenario drives the machine through :class:`Play` (submit, start, claim, report, cancel): every
call is recorded and compared like any other (resubmits when an id exists already). Adding a
scenario is one function and one entry in :data:`SCENARIOS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from schedcheck.harness.scheduler.fixtures import ClaimRef

__all__ = ["DIRECTED_ONLY", "SCENARIOS", "Play", "ScenarioMachine", "template"]


class ScenarioMachine(Protocol):
    """What a scenario uses of the machine (``scheduler.suite.SchedulerMachine``)."""

    def _submit(self, tid: Any, deps: Any, fn: Any, *, optional: Any = None,
                words: str = "", thread: str | None = None) -> Any: ...

    def _ready(self, worker: str, limit: Any) -> Any: ...

    def _callback(self, op: str, tid: Any, gen: Any, *, words: str, thread: str | None = None,
                  error: Any = None, late: bool = False) -> Any: ...

    def start(self) -> None: ...

    def report(self, claim: ClaimRef, op: str, error: str | None) -> None: ...

    def retry(self, tid: str, cascade: bool) -> None: ...

    @property
    def support(self) -> Any: ...


class Play:
    """One scenario being played on ``machine``; ``refs`` are the claims it made (they join
    the machine's bundle, so later callbacks on them are late or duplicates)."""

    def __init__(self, machine: ScenarioMachine, kind: str) -> None:
        self.machine = machine
        self.kind = kind
        self.refs: list[ClaimRef] = []

    def sub(self, tid: Any, *deps: Any) -> None:
        self.machine._submit(tid, deps, None,
                             words=f"{self.kind}: submit {tid!r} depending on {list(deps)!r}")

    def start(self) -> None:
        self.machine.start()

    def claim(self, limit: int | None = None) -> None:
        self.refs.extend(self.machine._ready("w1", limit).values)

    def report(self, tid: Any, op: str, times: int = 1) -> None:
        """Report the latest claim of ``tid`` (``times`` > 1: duplicate callbacks)."""
        for ref in reversed(self.refs):
            if ref.task_id == tid:
                for _ in range(times):
                    self.machine.report(ref, op, None)
                return

    def cancel(self, tid: str) -> None:
        self.machine._callback("cancel", tid, None, words=f"{self.kind}: cancel {tid!r}")

    def retry(self, tid: str) -> None:
        """A cascading ``retry()``, where the target has one (otherwise nothing)."""
        if self.machine.support.retry:
            self.machine.retry(tid, True)

    def poll(self, tid: str) -> None:
        """The worker holding the latest claim of ``tid`` asks whether it should stop."""
        for ref in reversed(self.refs):
            if ref.task_id == tid:
                self.machine._callback("cancel_requested", tid, ref.generation,
                                       thread=ref.worker,
                                       words=f"{self.kind}: should {tid!r} stop?")
                return


def join_duplicate_complete(p: Play, ids: list[str]) -> None:
    """Two dependencies completing; a retried callback."""
    a, z, j = ids[:3]
    p.sub(a)
    p.sub(z)
    p.sub(j, a, z)
    p.start()
    p.claim()
    p.report(a, "complete", 2)
    p.report(z, "complete")


def diamond_duplicate_complete(p: Play, ids: list[str]) -> None:
    a, _, j, b, c = ids[:5]
    p.sub(a)
    p.sub(b, a)
    p.sub(c, a)
    p.sub(j, b, c)
    p.start()
    p.claim()
    p.report(a, "complete")
    p.claim()
    p.report(b, "complete", 2)
    p.report(c, "complete")


def join_both_deps_fail(p: Play, ids: list[str]) -> None:
    """Failure propagation, and a second root."""
    a, z, j, b = ids[:4]
    p.sub(a)
    p.sub(z)
    p.sub(j, a, z)
    p.sub(b, j)
    p.start()
    p.claim()
    p.report(a, "fail")
    p.report(z, "fail", 2)
    p.cancel(z)


def claims_at_the_limit(p: Play, ids: list[str]) -> None:
    """Slots partly used, then ``limit=None``."""
    for tid in ids:
        p.sub(tid)
    p.start()
    p.claim(1)
    p.claim()
    p.claim()


def late_callback_after_resubmit(p: Play, ids: list[str]) -> None:
    """An old generation's worker reports."""
    a, _, j = ids[:3]
    p.sub(a)
    p.sub(j, a)
    p.start()
    p.claim()
    p.report(a, "complete")
    p.sub(a)
    p.report(a, "complete")
    p.claim()
    p.report(j, "complete")
    p.report(a, "fail")


def resubmit_live_dependency(p: Play, ids: list[str]) -> None:
    a, z, j = ids[:3]
    p.sub(a)
    p.sub(z)
    p.sub(j, a, z)
    p.start()
    p.claim()
    p.report(a, "complete")
    p.sub(a)
    p.report(z, "complete")
    p.claim()
    p.report(a, "complete", 2)


def cooperative_cancel(p: Play, ids: list[str]) -> None:
    """Cancel of a RUNNING task: a request the worker polls, then confirms by failing."""
    a, _, j = ids[:3]
    p.sub(a)
    p.sub(j, a)
    p.start()
    p.claim()
    p.cancel(a)
    p.poll(a)
    p.report(a, "fail")


def resubmit_drops_unknown_dependency(p: Play, ids: list[str]) -> None:
    """A dependency never submitted, dropped by a resubmit: start() must then succeed."""
    a, z, j = ids[:3]
    p.sub(a, z)
    p.sub(a)
    p.sub(j, a)
    p.start()
    p.claim()


def resubmit_reverse_edge(p: Play, ids: list[str]) -> None:
    """``z`` drops its edge from ``a``, then ``a`` depends on ``z`` (no cycle: the old edge is
    gone); then a third task closes a cycle of three through the new edge, which the started
    scheduler must refuse with the cycle's path in graphlib's order (a cycle of two reads the
    same both ways round: only three or more show a path listed backwards)."""
    a, z, j = ids[:3]
    p.sub(a)
    p.sub(z, a)
    p.start()
    p.sub(z)
    p.sub(a, z)
    p.sub(j, a)
    p.sub(z, j)


def cancel_under_running_dependent(p: Play, ids: list[str]) -> None:
    """A dependency resubmitted while its dependent runs, then cancelled and failed: the
    propagation stops at the RUNNING dependent (it may still succeed), so what depends on it
    stays PENDING; the RUNNING task is never BLOCKED."""
    a, z, j, b = ids[:4]
    p.sub(a)
    p.sub(j, a)
    p.sub(b, j)
    p.sub(z, a)
    p.start()
    p.claim()
    p.report(a, "complete")
    p.claim()
    p.sub(a)
    p.cancel(a)
    p.claim()
    p.report(j, "complete")


def cancel_before_any_claim(p: Play, ids: list[str]) -> None:
    """Two READY tasks, one claimed; the other cancelled before any worker took it; the first
    completes and the workers ask again: the cancelled task must never be handed out."""
    a, z = ids[:2]
    p.sub(a)
    p.sub(z)
    p.start()
    p.claim(1)
    p.cancel(z)
    p.report(a, "complete")
    p.claim()


def retry_beside_a_cancelled_dependent(p: Play, ids: list[str]) -> None:
    """``a`` fails with one dependent BLOCKED and one cancelled before: a cascading retry
    brings back ``a`` and the BLOCKED one, not the cancelled one."""
    a, z, j = ids[:3]
    p.sub(a)
    p.sub(z, a)
    p.sub(j, a)
    p.start()
    p.cancel(j)
    p.claim()
    p.report(a, "fail")
    p.retry(a)
    p.claim()


def retry_a_failed_chain(p: Play, ids: list[str]) -> None:
    """``a`` fails with a chain of two behind it, both BLOCKED: a cascading retry brings the
    three back (each dependent's only dependency is retried with it), and they run again."""
    a, z, j = ids[:3]
    p.sub(a)
    p.sub(z, a)
    p.sub(j, z)
    p.start()
    p.claim()
    p.report(a, "fail")
    p.retry(a)
    p.claim()
    p.report(a, "complete")
    p.claim()


#: The int id of :func:`ids_that_are_not_strings` (the suite's other ids are letters).
INT_ID = 7


def ids_that_are_not_strings(p: Play, ids: list[str]) -> None:
    """A task keyed by an int (a row's key, say) with a string-keyed dependent: a scheduler
    that stores or sends its ids as text must hand back the id it was given -- 7, not '7'."""
    a = ids[0]
    p.sub(INT_ID)
    p.sub(a, INT_ID)
    p.start()
    p.claim()
    p.report(INT_ID, "complete")
    p.claim()
    p.report(a, "complete")


#: name -> template, in the order the machine draws them (a seed's draws map to these names).
SCENARIOS: dict[str, Callable[[Play, list[str]], None]] = {
    "join, duplicate complete": join_duplicate_complete,
    "diamond, duplicate complete": diamond_duplicate_complete,
    "join, both deps fail": join_both_deps_fail,
    "claims at the concurrency limit": claims_at_the_limit,
    "late callback after resubmit": late_callback_after_resubmit,
    "resubmit a dependency with a live dependent": resubmit_live_dependency,
    "resubmit drops a dependency, then the reverse edge": resubmit_reverse_edge,
    "cancel a running task, poll, confirm": cooperative_cancel,
    "resubmit drops a dependency never submitted": resubmit_drops_unknown_dependency,
    "cancel a dependency under a running dependent": cancel_under_running_dependent,
}

#: Scenarios the search plays only as directed starts (never drawn by a rule).
DIRECTED_ONLY: dict[str, Callable[[Play, list[str]], None]] = {
    "cancel a READY task before any claim": cancel_before_any_claim,
    "retry beside a cancelled dependent": retry_beside_a_cancelled_dependent,
    "an id that is not a string": ids_that_are_not_strings,
    "retry a failed chain": retry_a_failed_chain,
}


def template(name: str) -> Callable[[Play, list[str]], None]:
    """The template called ``name``, drawn or directed-only."""
    return SCENARIOS.get(name) or DIRECTED_ONLY[name]
