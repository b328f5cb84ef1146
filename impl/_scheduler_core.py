"""The lock-held machinery under impl/scheduler.py: the fields, the ready queue, propagation,
the edges of a generation (detach, link, attach, decide), the cycle searches and the invariant
recount.

``Scheduler`` (impl/scheduler.py) adds the public methods on top; every method here runs with
``self._lock`` held by its caller and never calls user code (the clock excepted).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from heapq import heapify, heappush
from typing import Any

from schedcheck.impl._scheduler_support import _SLACK, SchedulerMetrics, _Rec

from schedcheck.contract import (
    DEAD,
    TERMINAL,
    Cause,
    CycleError,
    TaskState,
    UnknownDependencyError,
    UnknownTaskError,
    require_hashable,
    require_int,
)

__all__ = ["SchedulerCore"]

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, FAIL, BLK, CAN = (
    TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED,
)
PR = (P, R)
_LOCK_FACTORY: Callable[[], Any] = threading.Lock


class SchedulerCore:
    """The state of a scheduler and the helpers its public methods share (lock held)."""

    def __init__(self, max_concurrency: int, *, lock_factory: Callable[[], Any] = _LOCK_FACTORY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_concurrency = require_int(max_concurrency, "max_concurrency", minimum=0)
        self._lock_factory = lock_factory
        self._lock = lock_factory()
        self._clock = clock
        self._tasks: dict[Any, _Rec] = {}  # submitted ids, in order of first submit
        self._ghosts: dict[Any, _Rec] = {}  # named as deps before being submitted
        self._unknown_refs = 0  # edges ending at a ghost
        self._maybe_cyclic = False  # some edge points to a later stamp (or a ghost)
        self._seq = 0
        self._started = False
        self._t_start = 0.0  # clock at start(): a READY wait is counted from here at the earliest
        self._closed = False
        self._heap: list[int] = []  # submission stamps, a heapq
        self._queued: dict[int, _Rec] = {}  # stamp -> record, for every stamp in the heap
        self._stale = 0  # heap entries that are not live
        self._running = 0
        self._m = SchedulerMetrics()

    # ---- small helpers (lock held) -------------------------------------------------------
    def _get(self, task_id: Any) -> _Rec:
        try:
            rec = self._tasks.get(task_id)
        except TypeError:
            require_hashable(task_id, "task_id")
            raise
        if rec is None:
            raise UnknownTaskError(task_id)
        return rec

    def _rec_of(self, dep_id: Any) -> _Rec:
        """The record of a dependency id: a task's, or a ghost's."""
        rec = self._tasks.get(dep_id)
        return self._ghosts[dep_id] if rec is None else rec

    def _push(self, rec: _Rec) -> None:
        """rec just became READY."""
        rec.state = R
        seq = rec.seq
        if seq in self._queued:
            self._stale -= 1  # its old entry (READY -> PENDING -> READY) is live again
        else:
            self._queued[seq] = rec
            heappush(self._heap, seq)

    def _compact(self) -> None:
        """Restore the bound ``stale <= live + _SLACK`` (reached by
        tests/impl/test_scheduler_impl.py::test_queue_compacts_stale_entries)."""
        q = self._queued
        live = [seq for seq in self._heap if q[seq].state is R and q[seq].seq == seq]
        self._queued = {seq: q[seq] for seq in live}
        heapify(live)
        self._heap, self._stale = live, 0
        self._m.compactions += 1
        assert len(live) == sum(1 for r in self._tasks.values() if r.state is R)

    def _check_bound(self) -> None:
        if self._stale > len(self._heap) - self._stale + _SLACK:
            self._compact()

    def _opt_release(self, rec: _Rec) -> None:
        """rec's current generation just became terminal: optional dependents count it done."""
        od = rec.odependents
        if od:
            for d in od:
                if d.state is P:
                    d.waiting -= 1
                    if not d.waiting:
                        d.t = self._clock()
                        self._push(d)

    def _block(self, root: _Rec, cause: Cause, *, release_root: bool = True) -> None:
        """Rules 5-7: PENDING/READY tasks reachable through required dependents -> BLOCKED."""
        stack = [root]
        m = self._m
        while stack:
            x = stack.pop()
            for d in x:  # its dependents
                st = d.state
                if st is P or st is R:
                    if st is R:
                        self._stale += 1
                    d.state, d.cause = BLK, cause
                    m.blocked += 1
                    self._opt_release(d)
                    stack.append(d)
        if release_root:
            self._opt_release(root)

    def _validate(self, task_id: Any, rec: _Rec | None, new: tuple[Any, ...]) -> None:
        """Rule 7 after start: known deps (or itself); no cycle through a new edge. A new edge
        ``d -> task`` closes a cycle iff ``d`` is reachable from ``task`` through dependents."""
        tasks = self._tasks
        missing = [d for d in new if d not in tasks and d != task_id]
        if missing:
            raise UnknownDependencyError(task_id, missing)
        if task_id in new:
            raise CycleError([task_id, task_id])
        if rec is None:
            return  # a brand-new id has no dependents: no path back to it
        targets = {tasks[d] for d in new}
        parent: dict[_Rec, _Rec | None] = {rec: None}
        stack = [rec]
        while stack:
            x = stack.pop()
            for d in (*x.dependents, *(x.odependents or ())):
                if d in parent:
                    continue
                parent[d] = x
                if d in targets:
                    path: list[Any] = []
                    y: _Rec | None = d
                    while y is not None:
                        path.append(y.task_id)
                        y = parent[y]
                    raise CycleError([*reversed(path), task_id])
                stack.append(d)

    def _detach(self, task_id: Any, *, unlinked: bool = False) -> _Rec:
        """Start a new generation: drop the old edges (unless ``unlinked``: retry() drops a
        whole batch's at once), stamp it, leave it PENDING with no deps, and apply to
        dependents the effect of the old state going away (rule 7)."""
        rec = self._tasks.get(task_id)
        if rec is None:
            rec = self._ghosts.pop(task_id, None)
            if rec is None:
                rec = _Rec(task_id)
            else:
                self._unknown_refs -= len(rec.dependents) + len(rec.odependents or ())
            self._tasks[task_id] = rec
        else:
            old = rec.state
            for dep_id in () if unlinked else rec.deps:
                d = self._rec_of(dep_id)
                d.dependents.remove(rec)  # O(in-degree of d): see the module comment
                self._unlinked(d)
            for d in rec.opt:
                assert d.odependents is not None
                del d.odependents[rec]
                self._unlinked(d)
            if old is R:
                self._stale += 1
            if rec.dependents or rec.odependents:
                self._maybe_cyclic = True  # they now point to a later stamp
            if old is OK:
                for d in rec.dependents:
                    if d.state is R or d.state is P:
                        if d.state is R:
                            d.state = P
                            self._stale += 1
                        d.waiting += 1
            if old in TERMINAL and rec.odependents:
                for d in rec.odependents:
                    if d.state is R or d.state is P:
                        if d.state is R:
                            d.state = P
                            self._stale += 1
                        d.waiting += 1
        self._seq += 1
        rec.gen += 1
        rec.seq = self._seq
        rec.deps, rec.opt = (), ()
        rec.fn = rec.cause = rec.error = None
        rec.state, rec.requested, rec.optional_failed, rec.waiting = P, False, (), 0
        return rec

    def _unlink_all(self, recs: list[_Rec]) -> None:
        """Drop the required edges of every record in ``recs`` with one pass over each
        dependency's list: a retry of the 10^5 blocked dependents of one failed hub costs
        O(its in-degree), not O(in-degree^2) as one list.remove per dependent would."""
        members = set(recs)
        deps = {id(d): d for r in recs for d in map(self._rec_of, r.deps)}
        for d in deps.values():
            kept = [x for x in d.dependents if x not in members]
            if not d.gen:
                self._unknown_refs -= len(d.dependents) - len(kept)
            d.dependents = kept
            if not d.gen and not kept and not d.odependents:
                del self._ghosts[d.task_id]

    def _unlinked(self, dep: _Rec) -> None:
        if not dep.gen:
            self._unknown_refs -= 1
            if not dep.dependents and not dep.odependents:
                del self._ghosts[dep.task_id]

    def _link(self, dep_id: Any, rec: _Rec) -> _Rec:
        dep = self._tasks.get(dep_id)
        if dep is None:
            dep = self._ghosts.get(dep_id)
            if dep is None:
                dep = self._ghosts[dep_id] = _Rec(dep_id)
            self._unknown_refs += 1
            self._maybe_cyclic = True
        elif dep.seq >= rec.seq:  # itself, or resubmitted later
            self._maybe_cyclic = True
        return dep

    def _attach(self, rec: _Rec, req: tuple[Any, ...], opt: tuple[Any, ...],
                fn: Callable[..., Any] | None) -> None:
        """Register the new edges; the new generation stays PENDING with its count."""
        rec.fn = fn
        waiting = 0
        for dep_id in req:
            dep = self._link(dep_id, rec)
            dep.append(rec)
            if dep.state is not OK:
                waiting += 1
        rec.deps = req
        if opt:
            odeps = []
            for dep_id in opt:
                dep = self._link(dep_id, rec)
                if dep.odependents is None:
                    dep.odependents = {}
                dep.odependents[rec] = None
                odeps.append(dep)
                if dep.state not in TERMINAL:
                    waiting += 1
            rec.opt = tuple(odeps)
        rec.waiting = waiting

    def _decide(self, rec: _Rec) -> None:
        """Rule 1: BLOCKED (cause from the first dead dep in deps order) or left PENDING."""
        for dep_id in rec.deps:
            dep = self._rec_of(dep_id)
            st = dep.state
            if st in DEAD:
                cause = Cause("failed", dep.task_id, dep.gen) if st is FAIL else dep.cause
                assert cause is not None
                if rec.state is BLK:  # reached by an earlier retry's propagation
                    rec.cause = cause
                    self._block(rec, cause, release_root=False)
                else:
                    rec.state, rec.cause = BLK, cause
                    self._m.blocked += 1
                    self._block(rec, cause)
                return

    def _settle_new(self, rec: _Rec) -> None:
        if rec.state is P and not rec.waiting:
            rec.t = self._clock()
            self._push(rec)

    def _find_cycle(self) -> list[Any] | None:
        """Iterative three-colour DFS over ids, the stack as parent pointers (no recursion);
        roots in order of first submit (which cycle is found is ours to choose)."""
        tasks = self._tasks
        colour: dict[Any, int] = {}  # 1 grey (on the stack), 2 black

        def edges(task_id: Any) -> Iterator[Any]:
            r = tasks[task_id]  # every dep is known when this runs
            return iter((*r.deps, *(o.task_id for o in r.opt)) if r.opt else r.deps)

        for root in tasks:
            if root in colour:
                continue
            colour[root] = 1
            stack = [root]
            iters = [edges(root)]
            while iters:
                for nxt in iters[-1]:
                    c = colour.get(nxt)
                    if c is None:
                        colour[nxt] = 1
                        stack.append(nxt)
                        iters.append(edges(nxt))
                        break
                    if c == 1:
                        i = stack.index(nxt)
                        return [nxt, *reversed(stack[i:])]
                else:
                    colour[stack.pop()] = 2
                    iters.pop()
        return None

    def _recount(self) -> None:
        """The body of check_invariants() (lock held by the caller)."""
        running = 0
        live = 0
        for r in self._tasks.values():
            who = f"{r.task_id!r} g{r.gen}"
            assert r.gen >= 1 and self._tasks[r.task_id] is r, f"{who} :: bad record"
            running += r.state is RUN
            deps = [self._tasks.get(d, self._ghosts.get(d)) for d in r.deps]
            for dep_id, d in zip(r.deps, deps, strict=True):
                assert d is not None, f"{who} :: dep {dep_id!r} has no record (task or ghost)"
                assert d.dependents.count(r) == r.deps.count(dep_id), (
                    f"{who} :: reverse edges from {dep_id!r} do not match its deps")
            for d in r.opt:
                assert d.odependents and r in d.odependents, (
                    f"{who} :: missing optional reverse edge from {d.task_id!r}")
            for d in r.dependents:
                assert r.task_id in d.deps, f"{who} :: stale reverse edge to {d.task_id!r}"
            for d in r.odependents or ():
                assert r in d.opt, f"{who} :: stale optional reverse edge to {d.task_id!r}"
            if r.state in PR:
                for d in deps:
                    assert d is not None
                    assert d.state not in DEAD, (
                        f"{who} :: {r.state.name} with dead dep {d.task_id!r} g{d.gen} "
                        f"({d.state.name})")
                want = sum(1 for d in deps if d is None or not d.gen or d.state is not OK) + sum(
                    1 for d in r.opt if not d.gen or d.state not in TERMINAL)
                assert r.waiting == want, f"{who} :: waiting={r.waiting}, recount {want}"
                assert (r.state is R) == (want == 0), f"{who} :: {r.state.name} waiting {want}"
                assert not self._closed, f"{who} :: {r.state.name} after close()"
            if r.state is R:
                live += 1
                assert self._queued.get(r.seq) is r, f"{who} :: READY without its heap entry"
            if r.state is BLK:
                assert r.cause is not None and r.cause.kind in ("failed", "cancelled"), (
                    f"{who} :: BLOCKED with cause {r.cause!r}")
            elif r.state is CAN:
                assert r.cause is not None and r.cause.kind in ("cancelled", "shutdown") and (
                    r.cause[1:] == (r.task_id, r.gen)), f"{who} :: CANCELLED, {r.cause!r}"
            else:
                assert r.cause is None, f"{who} :: {r.state.name} with cause {r.cause!r}"
            assert not r.requested or r.state in (RUN, OK, CAN), (
                f"{who} :: cancel requested but {r.state.name}")
        assert running == self._running, f"running={self._running}, recount {running}"
        assert running <= self.max_concurrency, (
            f"{running} RUNNING > max_concurrency {self.max_concurrency}")
        q = self._queued
        assert len(set(self._heap)) == len(self._heap) == len(q) and set(q) == set(self._heap), (
            "ready queue and its stamp index disagree")
        valid = sum(1 for seq, r in q.items() if r.state is R and r.seq == seq)
        assert valid == live, f"{live} READY tasks but {valid} live heap entries"
        assert self._stale == len(self._heap) - live, (
            f"stale={self._stale}, recount {len(self._heap) - live}")
        assert self._stale <= live + _SLACK, f"stale {self._stale} > live {live} + {_SLACK}"
        refs = sum(len(g.dependents) + len(g.odependents or ()) for g in self._ghosts.values())
        assert refs == self._unknown_refs, f"unknown_refs={self._unknown_refs}, recount {refs}"
        assert all(g.dependents or g.odependents for g in self._ghosts.values()), "empty ghost"
        if self._started:
            assert not self._ghosts, f"ghosts {list(self._ghosts)} after start()"
            assert self._find_cycle() is None, "cycle after start()"
