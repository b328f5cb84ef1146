"""Scheduler rules that go straight to states random programs seldom reach.

**A dependency killed under a RUNNING dependent.** A task claimed while its dependency had
SUCCEEDED keeps running when that dependency is resubmitted; if the new generation is then
cancelled, the blocking stops at the RUNNING task (specs/scheduler.md section 3: only
PENDING/READY tasks reachable through dependents become BLOCKED), so the RUNNING task is never
BLOCKED and what depends on it stays PENDING -- it may still succeed. A random program needs
nine calls in the right order to get there; :meth:`DeepRules.kill_under_running` makes the last
two of them (after giving the task a dependent) on whatever RUNNING task has a SUCCEEDED
dependency.

**Batch paths.** A scheduler may offer, beside the contract's one-at-a-time calls, batch
forms of them (the bundled one does, for drivers that claim and complete thousands of tasks at
once). A public method nobody calls is a method nobody checks, so each batch form the target
has is a rule of its own, compared with the model doing the same calls one by one
(specs/scheduler.md, "Batch paths"):

* ``ready_pairs(limit)`` -- exactly ``ready(limit)``, each claim as a plain
  ``(task_id, generation)`` pair (rule 3, clause S3);
* ``complete_many(claims)`` -- ``complete(task_id, generation)`` for each claim in order,
  the replies in the same order; an error (as ``complete`` raises it) leaves the claims
  before it applied and the rest untouched (rule 4, clause S4).

Which batch forms a target has is probed once per factory (``scheduler.fixtures.probe_support``:
:data:`~schedcheck.harness.scheduler.fixtures.BATCH_METHODS` by attribute); a target without them
is not asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from schedcheck import contract
from schedcheck.harness.clauses import S3, S4, S_T5
from schedcheck.harness.outcomes import Observed, call_code
from schedcheck.harness.program import atomic
from schedcheck.harness.result import Step
from schedcheck.harness.scheduler.checks import SchedulerChecks
from schedcheck.harness.scheduler.fixtures import IDS, WORKERS
from schedcheck.targets import adapt

__all__ = ["DeepRules"]


def _pairs(claims: Any) -> list[tuple[Any, int]]:
    """A ``ready_pairs()`` reply as ``(task_id, generation)`` pairs (Claims or tuples)."""
    return adapt.norm_claims(claims)


def _replies(replies: Any) -> list[Any]:
    return [adapt.norm_reply(r) for r in replies]


class DeepRules(SchedulerChecks):
    """The rules above (mixed into ``scheduler.suite.SchedulerMachine``)."""

    if TYPE_CHECKING:  # made by scheduler_suite.SchedulerMachine
        def _submit(self, tid: Any, deps: Any, fn: Any, *, optional: Any = None,
                    words: str = "", thread: str | None = None) -> Observed: ...

        def _callback(self, op: str, tid: Any, gen: Any, *, words: str,
                      thread: str | None = None, error: Any = None,
                      late: bool = False) -> Observed: ...

    def _running_on_succeeded(self) -> list[tuple[Any, Any]]:
        """(RUNNING task, one of its SUCCEEDED dependencies), in a stable order."""
        out = []
        for tid in self.m.task_ids():
            if isinstance(tid, str) and self.m.info(tid).state is contract.TaskState.RUNNING:
                out += [(tid, d) for d in self.m.deps_of(tid)
                        if self.m.info(d).state is contract.TaskState.SUCCEEDED]
        return sorted(out)

    @precondition(lambda self: self._started() and bool(self._running_on_succeeded()))
    @rule(i=st.integers(0, 20), child=st.sampled_from(IDS))
    def kill_under_running(self, i: int, child: str) -> None:
        """Give a RUNNING task a dependent (``child``, unless that is one of the two or
        running), resubmit a SUCCEEDED dependency of the task and cancel the new generation:
        the RUNNING task and what depends on it must not be BLOCKED."""
        pairs = self._running_on_succeeded()
        tid, dep = pairs[i % len(pairs)]
        if child not in (tid, dep) and (child not in self.m.task_ids() or self.m.info(
                child).state is not contract.TaskState.RUNNING):
            self._submit(child, (tid,), None,
                         words=f"submit {child!r} depending on the running {tid!r}")
        if not self._submit(dep, tuple(self.m.deps_of(dep)), None,
                            words=f"resubmit {dep!r}, a dependency of the running {tid!r}").ok:
            return
        self._callback("cancel", dep, None,
                       words=f"cancel {dep!r} while its dependent {tid!r} runs")

    @precondition(lambda self: "ready_pairs" in self.support.batch and self._started())
    @rule(worker=st.sampled_from(WORKERS), limit=st.one_of(st.none(), st.integers(1, 3)))
    def ready_pairs(self, worker: str, limit: int | None) -> None:
        self._ready_pairs(worker, limit)

    @atomic
    def _ready_pairs(self, worker: str, limit: int | None) -> None:
        kwargs: dict[str, Any] = {} if limit is None else {"limit": limit}
        name = self.trace.fresh_name("pairs")
        words = (f"worker {worker[1:]} claims, as plain pairs, "
                 + ("every READY task it may" if limit is None else f"up to {limit} tasks"))
        step = self._step(call_code("ready_pairs", assign=name, **kwargs), words, S3, worker)
        running_before = sum(1 for t in self.m.task_ids()
                             if self.m.info(t).state is contract.TaskState.RUNNING)

        def checks(step: Step, exp: Observed, act: Observed) -> None:
            self.exercise(S_T5)
            if act.ok:
                self._check_claims(step, act.value, running_before)

        exp = self.compare_call(S3, step, self.m.ready, self.target.ready_pairs,
                                kwargs=kwargs, name=name, norm=_pairs, norm_name="norm_claims",
                                checks=checks)
        if exp.ok:
            for tid, gen in exp.value:
                self.claim(tid, gen)
                self._holders[worker].add((tid, gen))

    @precondition(lambda self: "complete_many" in self.support.batch and self._started())
    @rule(picks=st.lists(st.integers(0, 20), max_size=4),
          extra=st.sampled_from((None, None, "again", "stale", "unknown", "future")))
    def complete_many(self, picks: list[int], extra: str | None) -> None:
        """Complete a batch of the RUNNING claims (a repeat in the batch is a duplicate);
        sometimes with an old generation, a generation never handed out (one past a RUNNING
        task's: STALE, though the task runs) or an unknown id at the end (that one raises,
        after the claims before it applied)."""
        running = sorted((t, self.m.info(t).generation) for t in self.m.task_ids()
                         if isinstance(t, str)
                         and self.m.info(t).state is contract.TaskState.RUNNING)
        batch: list[tuple[Any, int]] = [running[i % len(running)] for i in picks] if running \
            else []
        if extra == "again" and batch:
            batch.append(batch[0])
        elif extra == "stale":
            known = [t for t in self.m.task_ids() if isinstance(t, str)]
            if known:
                batch.append((known[0], 0))
        elif extra == "unknown":
            batch.append(("x", 1))
        elif extra == "future" and running:
            tid, gen = running[picks[0] % len(running)] if picks else running[0]
            batch.append((tid, gen + 1))
        self._complete_many(batch)

    @atomic
    def _complete_many(self, batch: list[tuple[Any, int]]) -> None:
        name = self.trace.fresh_name("replies")
        words = f"complete the batch {batch!r} at once"
        step = self._step(call_code("complete_many", list(batch), assign=name), words, S4)

        def one_by_one(claims: list[tuple[Any, int]]) -> list[Any]:
            return [self.m.complete(tid, gen) for tid, gen in claims]

        exp = self.compare_call(S4, step, one_by_one, self.target.complete_many, list(batch),
                                name=None, norm=_replies)
        if exp.ok:
            step.check = (f"_raised is None and [norm_reply(r) for r in {name}] == "
                          f"{exp.value!r}")
        for key in batch:
            self.reported.add(key)
            for held in self._holders.values():
                held.discard(key)

