"""The scheduler's known mistakes, each put back into a copy of the production scheduler.

Every class subclasses ``schedcheck.impl.Scheduler`` and overrides one method (or one helper),
so the mistake is the diff and nothing else. Entries whose source is ``SEED`` are the seed's
"common mistakes" (seed 000), the rest are extras. Each ``mistake`` text says which observable
behaviour differs from the contract; tests/impl/test_scheduler_mutants_differ.py shows each
one on a tiny hand-written scenario, and the differential suite must kill each one
(tests/zoo/test_scheduler_zoo.py).

A buggy implementation does not carry a self-check that would give it away, so every mutant
sets ``check_invariants = None`` (the suite then treats it as "not supported") and must be
caught by what it *does*.
"""

from __future__ import annotations

from typing import Any

from schedcheck.contract import Cause, Claim, CycleError, Outcome, Reply, TaskState, require_int
from schedcheck.harness.clauses import (
    S1,
    S4,
    S5,
    S6,
    S7,
    S8,
    S9,
    S_CLAIM_ONCE,
    S_COST,
    S_INV,
    S_ORACLE_CYCLE,
    S_TERMINAL,
)
from schedcheck.impl.scheduler._support import BLK, CAN, FAIL, OK, RUN, P, packed, slots
from schedcheck.impl.scheduler.indegree import Scheduler
from schedcheck.zoo.mutant import mutant

__all__ = [
    "BlockedCauseOverwrittenScheduler",
    "BlocksThroughRunningScheduler",
    "BooleanCycleScheduler",
    "BrokenCompleteManyScheduler",
    "CancelRunningTwiceScheduler",
    "CloseDropsPendingScheduler",
    "DoubleReleaseScheduler",
    "FailureAsSuccessScheduler",
    "ForcedCancelScheduler",
    "LimitSkipsMaxConcurrencyScheduler",
    "NoGenerationCheckScheduler",
    "OneShotSortScheduler",
    "PendingOnDeadDependencyScheduler",
    "ReadyOverFreeSlotsScheduler",
    "RescanAllScheduler",
    "RetryReusesFailedScheduler",
    "ReversedCycleScheduler",
    "StaleEdgesScheduler",
]

SEED = "seed 000: common mistakes"
EXTRA = "extra (not in the interview texts)"


class _Mutant(Scheduler):
    check_invariants = None  # type: ignore[assignment]


@mutant(name="sched-rescan-all-on-complete", system="scheduler", clause=S_COST, kind="cost",
        source=SEED,
        mistake="after each completion every task is rescanned for readiness instead of "
                "following the reverse edges: replies and states stay right, a run costs "
                "O(V*(V+E))")
class RescanAllScheduler(_Mutant):
    """complete() rescans every task for readiness instead of following reverse edges."""

    def complete(self, task_id: Any, generation: int) -> Reply:
        require_int(generation, "generation")
        with self._lock:
            s = self._get(task_id)
            if generation != self._gen[s] or self._st[s] != RUN:
                return self._complete_other(task_id, generation, s)
            st = self._st
            st[s] = OK
            self._running -= 1
            for r in self._order:  # MUTANT: O(V + E) per completion
                if st[r] == P:
                    self._wait[r] = sum(1 for d in self._deps[r] if st[d] != OK) + sum(
                        1 for d in self._opt.get(r, ()) if st[d] < OK)
                    if not self._wait[r]:
                        self._t[r] = self._clock()
                        self._push(r)
            return Reply(Outcome.APPLIED, TaskState.SUCCEEDED)


@mutant(name="sched-no-generation-check", system="scheduler", clause=S4, also=(S5, S9),
        source=SEED,
        mistake="complete()/fail() ignore the generation they name: a late callback from an old "
                "worker is APPLIED to the current generation (SUCCEEDED/FAILED) instead of "
                "STALE")
class NoGenerationCheckScheduler(_Mutant):
    """complete()/fail() act on the current generation whatever generation they name."""

    def _current(self, task_id: Any, generation: int) -> int:
        with self._lock:
            s = self._slot.get(task_id)
            return self._gen[s] if s is not None and self._gen[s] else generation

    def complete(self, task_id: Any, generation: int) -> Reply:
        # MUTANT: the caller's generation is dropped
        return super().complete(task_id, self._current(task_id, generation))

    def fail(self, task_id: Any, generation: int, error: Any = None) -> Reply:
        return super().fail(task_id, self._current(task_id, generation), error)


@mutant(name="sched-failure-as-success", system="scheduler", clause=S_INV, source=SEED,
        mistake="fail() marks the task FAILED but releases its dependents: they become READY "
                "and run without their prerequisite instead of BLOCKED")
class FailureAsSuccessScheduler(_Mutant):
    """fail() records FAILED but releases the dependents as if the task had succeeded."""

    def fail(self, task_id: Any, generation: int, error: Any = None) -> Reply:
        with self._lock:
            s = self._slot.get(task_id)
            plain = (s is not None and self._gen[s] > 0 and generation == self._gen[s]
                     and self._st[s] == RUN and s not in self._req)
        if not plain:
            return super().fail(task_id, generation, error)
        super().complete(task_id, generation)  # MUTANT: dependents released ...
        with self._lock:
            assert s is not None
            self._st[s] = FAIL  # ... and the task itself says FAILED
            if error is not None:
                self._error[s] = error
            return Reply(Outcome.APPLIED, TaskState.FAILED)


@mutant(name="sched-boolean-cycle", system="scheduler", clause=S_ORACLE_CYCLE, source=SEED,
        mistake="CycleError says only that a cycle exists: .cycle is [] instead of a path [a, "
                "..., a]")
class BooleanCycleScheduler(_Mutant):
    """start() and submit() report that there is a cycle, not which one."""

    def start(self) -> None:
        try:
            super().start()
        except CycleError:
            raise CycleError([], "the graph has a cycle") from None  # MUTANT: no path

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, *,
               optional: Any = ()) -> int:
        try:
            return super().submit(task_id, deps, fn, optional=optional)
        except CycleError:
            raise CycleError([], "the graph has a cycle") from None


@mutant(name="sched-double-release", system="scheduler", clause=S4, source=SEED,
        mistake="a duplicate complete() answers DUPLICATE but decrements the dependents' counts "
                "again: a dependent with two dependencies becomes READY after one of them")
class DoubleReleaseScheduler(_Mutant):
    """A duplicate complete() answers DUPLICATE but releases the dependents again."""

    def complete(self, task_id: Any, generation: int) -> Reply:
        reply = super().complete(task_id, generation)
        if reply.outcome is Outcome.DUPLICATE:
            with self._lock:
                wait = self._wait
                for d in slots(self._out[self._slot[task_id]]):  # MUTANT: no "already applied"
                    if self._st[d] == P:
                        wait[d] -= 1
                        if wait[d] <= 0:
                            wait[d] = 0
                            self._t[d] = self._clock()
                            self._push(d)
        return reply


@mutant(name="sched-stale-edges-on-resubmit", system="scheduler", clause=S_ORACLE_CYCLE,
        also=(S7,), source=SEED,
        mistake="a resubmit leaves the old version's reverse edges: the old dependency still "
                "releases (or blocks) the new version, which becomes READY before its new "
                "dependencies; the incremental cycle check follows the stale edges and reports "
                "a cycle that is not in the graph")
class StaleEdgesScheduler(_Mutant):
    """A resubmit registers the new edges but leaves the old reverse edges in place."""

    def _detach(self, task_id: Any, *, unlinked: bool = False) -> int:
        s = self._slot.get(task_id)
        kept = list(self._deps[s]) if s is not None else []
        if s is not None:
            self._deps[s] = ()  # MUTANT: the unlink loop finds nothing to unlink
        out = super()._detach(task_id, unlinked=unlinked)
        for d in kept:
            have = slots(self._out[d]).tolist()
            if out not in have:  # old dep still releases (or blocks) the new version
                self._out[d] = packed([*have, out])
        return out


@mutant(name="sched-ready-over-free-slots", system="scheduler", clause=S_CLAIM_ONCE, source=EXTRA,
        mistake="ready() returns up to max_concurrency claims ignoring the RUNNING ones: more "
                "than max_concurrency tasks run at once")
class ReadyOverFreeSlotsScheduler(_Mutant):
    """ready() hands out up to max_concurrency claims, forgetting the ones already RUNNING."""

    def ready(self, limit: int | None = None) -> list[Claim]:
        running, self._running = self._running, 0  # MUTANT: free slots = max_concurrency
        try:
            return super().ready(limit)
        finally:
            self._running += running


@mutant(name="sched-limit-skips-max-concurrency", system="scheduler", clause=S_CLAIM_ONCE,
        source=SEED,
        mistake="more workers to hide a backlog: ready(limit) trusts the caller's limit and "
                "does not re-check max_concurrency, so ready(limit=2) on max_concurrency=1 "
                "claims two")
class LimitSkipsMaxConcurrencyScheduler(_Mutant):
    """ready(limit) trusts the caller's limit and does not re-check max_concurrency."""

    def ready(self, limit: int | None = None) -> list[Claim]:
        if limit is None:
            return super().ready()
        saved = self.max_concurrency
        self.max_concurrency = self._running + require_int(limit, "limit", minimum=0)
        try:
            return super().ready(limit)  # MUTANT: the limit alone decides
        finally:
            self.max_concurrency = saved


@mutant(name="sched-blocked-cause-overwritten", system="scheduler", clause=S_TERMINAL, source=EXTRA,
        mistake="a later failure re-blocks already BLOCKED tasks: info().cause names the last "
                "failure, not the root that blocked it first (a terminal generation's cause "
                "changes)")
class BlockedCauseOverwrittenScheduler(_Mutant):
    """Propagation re-blocks BLOCKED tasks, so a later failure overwrites the root cause."""

    def _block(self, root: int, cause: Cause, *, release_root: bool = True) -> None:
        super()._block(root, cause, release_root=release_root)
        stack, seen = [root], {root}
        while stack:
            for d in slots(self._out[stack.pop()]).tolist():
                if self._st[d] == BLK and d not in seen:
                    self._cause[d] = cause  # MUTANT: the last propagation wins
                    seen.add(d)
                    stack.append(d)


@mutant(name="sched-forced-cancel", system="scheduler", clause=S6, source=SEED,
        mistake="cancel() of a RUNNING task answers APPLIED/CANCELLED at once instead of "
                "REQUESTED/RUNNING; the later complete() is REJECTED instead of winning")
class ForcedCancelScheduler(_Mutant):
    """cancel() of a RUNNING task makes it CANCELLED at once (no cooperative exit)."""

    def cancel(self, task_id: Any, generation: int | None = None) -> Reply:
        with self._lock:
            s = self._slot.get(task_id)
            running = (s is not None and self._gen[s] > 0 and self._st[s] == RUN
                       and (generation is None or generation == self._gen[s]))
            if running:
                assert s is not None
                self._st[s] = CAN  # MUTANT: the slot is freed while the function still runs
                self._cause[s] = cause = Cause("cancelled", self._id[s], self._gen[s])
                self._running -= 1
                self._block(s, cause)
                return Reply(Outcome.APPLIED, TaskState.CANCELLED)
        return super().cancel(task_id, generation)


@mutant(name="sched-close-drops-pending", system="scheduler", clause=S8, source=EXTRA,
        mistake="close() returns [] and leaves PENDING/READY tasks as they are, instead of "
                "CANCELLED with cause shutdown")
class CloseDropsPendingScheduler(_Mutant):
    """close() empties the ready queue but records nothing: PENDING/READY tasks just stay."""

    def close(self) -> list[Any]:
        with self._lock:
            self._closed = True  # MUTANT: no CANCELLED, no cause "shutdown", nothing returned
            self._clear_queue()
            return []


@mutant(name="sched-one-shot-toposort", system="scheduler", clause=S_INV, source=SEED,
        mistake="one topological sort up front and only the completion transition: fail() and "
                "cancel() end the task itself but nothing reaches its dependents, which wait "
                "PENDING for ever instead of becoming BLOCKED")
class OneShotSortScheduler(_Mutant):
    """Completion releases dependents along the sorted order; failure and cancellation have
    no transition of their own, so a dead task's dependents are never told."""

    def _block(self, root: int, cause: Cause, *, release_root: bool = True) -> None:
        if release_root:
            self._opt_release(root)  # MUTANT: no propagation through the required dependents


@mutant(name="sched-retry-reuses-failed", system="scheduler", clause=S7, source=SEED,
        mistake="a retry (resubmit or retry()) of a FAILED task turns the same generation back "
                "into PENDING/READY instead of making a new one: submit() returns the old "
                "generation, and the failed run's late fail()/complete() is APPLIED to the "
                "retry instead of STALE")
class RetryReusesFailedScheduler(_Mutant):
    """A FAILED record is reused for the retry: same generation, state moved back."""

    def _detach(self, task_id: Any, *, unlinked: bool = False) -> int:
        old = self._slot.get(task_id)
        reused = old is not None and self._gen[old] > 0 and self._st[old] == FAIL
        s = super()._detach(task_id, unlinked=unlinked)
        if reused:
            self._gen[s] -= 1  # MUTANT: FAILED -> PENDING under the same (task, generation) key
        return s


@mutant(name="sched-reversed-cycle", system="scheduler", clause=S_ORACLE_CYCLE, source=EXTRA,
        mistake="CycleError.cycle lists the cycle backwards: each element is a dependent of "
                "the next instead of one of its dependencies ([a, ..., a] read the wrong way "
                "round)")
class ReversedCycleScheduler(_Mutant):
    """start() and submit() report the right cycle in the wrong direction."""

    def start(self) -> None:
        try:
            super().start()
        except CycleError as exc:
            raise CycleError(list(reversed(exc.cycle))) from None  # MUTANT: dependents order

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, *,
               optional: Any = ()) -> int:
        try:
            return super().submit(task_id, deps, fn, optional=optional)
        except CycleError as exc:
            raise CycleError(list(reversed(exc.cycle))) from None


@mutant(name="sched-blocks-through-running", system="scheduler", clause=S6, also=(S5,),
        source=EXTRA,
        mistake="failure and cancellation propagate through a RUNNING dependent (one claimed "
                "before its dependency was resubmitted): the RUNNING task stays RUNNING but its "
                "own PENDING dependents become BLOCKED, although it may still succeed")
class BlocksThroughRunningScheduler(_Mutant):
    """Propagation does not stop at RUNNING tasks: it walks on to their dependents."""

    def _block(self, root: int, cause: Cause, *, release_root: bool = True) -> None:
        super()._block(root, cause, release_root=release_root)
        stack, seen = [root], {root}
        while stack:
            for d in slots(self._out[stack.pop()]).tolist():
                if d in seen:
                    continue
                seen.add(d)
                if self._st[d] == RUN:  # MUTANT: a RUNNING task passes the blocking on
                    for x in slots(self._out[d]).tolist():
                        if self._st[x] == P:
                            self._st[x] = BLK
                            self._cause[x] = cause
                            self._m.blocked += 1
                            super()._block(x, cause)
                elif self._st[d] == BLK:
                    stack.append(d)


@mutant(name="sched-cancel-running-twice", system="scheduler", clause=S6, source=EXTRA,
        mistake="a second cancel() of a RUNNING task answers REQUESTED again instead of "
                "DUPLICATE: the request is recorded afresh every time")
class CancelRunningTwiceScheduler(_Mutant):
    """cancel() of a RUNNING task forgets that a cancel was already requested."""

    def cancel(self, task_id: Any, generation: int | None = None) -> Reply:
        reply = super().cancel(task_id, generation)
        if reply.outcome is Outcome.DUPLICATE and reply.state is TaskState.RUNNING:
            return Reply(Outcome.REQUESTED, TaskState.RUNNING)  # MUTANT: requested again
        return reply


@mutant(name="sched-pending-on-dead-dependency", system="scheduler", clause=S1, also=(S7, S_INV),
        source=EXTRA,
        mistake="a new generation whose dependency already FAILED (or was cancelled) is left "
                "PENDING, waiting for ever, instead of BLOCKED with that dependency's cause")
class PendingOnDeadDependencyScheduler(_Mutant):
    """submit() counts a dead dependency as merely outstanding."""

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, *,
               optional: Any = ()) -> int:
        return self._submit(task_id, deps, fn, optional)  # the general path only

    def _decide(self, s: int) -> None:
        return None  # MUTANT: no BLOCKED at submit; the dead dependency stays outstanding


@mutant(name="sched-complete-many-broken", system="scheduler", clause=S4, also=(S9,),
        source=EXTRA,
        mistake="the batch path complete_many() raises NameError (a name left over from a "
                "refactoring) instead of applying each completion as complete() would")
class BrokenCompleteManyScheduler(_Mutant):
    """complete_many() crashes on its first line."""

    def complete_many(self, claims: Any) -> list[Reply]:
        raise NameError("name 'replies' is not defined")  # MUTANT: the batch path is broken
