"""The production task scheduler (specs/scheduler.md): indegree counts, reverse edges, a heap.

Data structure. One slotted ``_Rec`` per task id holds its *current* generation: state,
generation, submission stamp ``seq``, its required deps as a tuple of ids (the caller's own
tuple when it passed one: ints in a tuple are not tracked by the garbage collector, which
matters at 10^6 tasks), its optional deps as a tuple of records, the
``waiting`` count (required deps not SUCCEEDED + optional deps not terminal; kept exact only
while the task is PENDING/READY: a task in any other state is re-counted when resubmitted) and
its reverse edges: ``dependents`` (one entry per occurrence in the dependent's deps: a
fast-path submit does not de-duplicate, it links and counts a repeated dep twice, which
releases it exactly like once) and ``odependents`` (optional edges, a dict, usually None).
The record *is* its ``dependents`` list (``_Rec`` subclasses list, with identity equality):
one GC-tracked object per task instead of two, which is what the cyclic collector's full
passes cost at 10^5-10^6 tasks (submit of 200,000 tasks: about a third less CPU time).
A dependency named before it is submitted gets a *ghost* record (generation 0, in
``_ghosts``) so that edges always join records; ``_unknown_refs`` counts edges ending at one.
The ready queue is a heapq of bare int stamps (cheap to compare, not tracked by the garbage
collector); ``_queued`` maps each stamp in the heap to its record. Lazy deletion: an entry is
live iff ``rec.state is READY and rec.seq == seq``; a READY -> PENDING -> READY move finds
its entry and reuses it. ``_stale`` counts dead entries; the bound ``_stale <= live + _SLACK``
is restored by compaction and asserted by check_invariants().

Costs (contract "Costs"). submit O(deps); start() O(V+E) (skipped to O(1) when every edge
points to an earlier stamp: then the graph is acyclic by construction); ready() O(k log V) (one
sort instead of k pops when it takes every queued entry);
complete() touches the direct dependents only; fail()/cancel() touch what they block (plus
optional dependents); resubmit O(new deps + dependents + the in-degree of each old dep, as
``list.remove`` unlinks it: lists keep submit and complete fast, and resubmits are rare); an
incremental cycle check after start() searches only the dependents reachable from the
resubmitted task. Only start(), close() and the diagnostics (metrics, snapshot,
check_invariants) visit tasks they don't change. Records, metrics and argument parsing live
in impl/_scheduler_support.py; the fields and the lock-held helpers (propagation, the edges
of a generation, the cycle searches, the invariant recount) in impl/_scheduler_core.py.

Departures from the model (schedcheck.model.scheduler): counts instead of rescans, the heap,
ghosts, the acyclic-by-construction shortcut. Behaviour, decisions D1-D10 and snapshot() are
the model's: ``impl.snapshot() == model.snapshot()`` after the same calls.

Locking. ``self._lock`` (from ``lock_factory``) guards every field; every public method takes
it once, and no user code (task functions, the clock excepted) runs under it.

Durable backend (the contract's last extension: described, not built). The same state lives
in a table ``tasks(id, generation, seq, state, deps, waiting, lease_owner, lease_until,
cause)`` and an edge table indexed both ways. A claim is a conditional write ``UPDATE tasks SET
state='RUNNING', lease_owner=?, lease_until=now()+L WHERE id=? AND generation=? AND
state='READY'`` (one row changed = claimed; zero = someone else won), and complete/fail are
conditional on ``generation`` *and* the lease owner, in one transaction with the dependents'
``waiting`` decrements. A lease that expires (``lease_until < now()``) is put back to READY
under the same generation by a sweeper, so a crashed worker's task runs again: execution is
at-least-once and task functions must be idempotent (or fenced by the generation and lease
they were given). Everything else -- rules 1-9, causes, STALE late reports -- is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from heapq import heappop, heappush
from itertools import repeat
from typing import Any

from schedcheck.impl._scheduler_core import SchedulerCore
from schedcheck.impl._scheduler_support import (
    SchedulerMetrics,
    _clone,
    _ids,
    _parse,
    _Rec,
    _uniq,
)

from schedcheck.contract import (
    DEAD,
    Cause,
    Claim,
    ClosedError,
    ConflictError,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    TaskDetails,
    TaskState,
    UnknownDependencyError,
    details,
    require_hashable,
    require_int,
)

__all__ = ["Scheduler", "SchedulerMetrics"]

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, FAIL, BLK, CAN = (
    TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED,
)
PR = (P, R)
#: Every possible Reply, built once (the hot paths allocate none).
_REPLY = {(o, s): Reply(o, s) for o in Outcome for s in TaskState}
_APPLIED_OK = _REPLY[Outcome.APPLIED, OK]
_tuple_new = tuple.__new__


class Scheduler(SchedulerCore):
    """Thread-safe; see the module comment for the structures and the costs."""

    # ---- rule 1 / 7: submit --------------------------------------------------------------
    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (),
               fn: Callable[..., Any] | None = None, *,
               optional: Iterable[Hashable] = ()) -> int:
        """Rules 1 and 7: a task, or a new generation of one. Returns the generation.

        The hot path, inlined: a first submit of a valid task with a list/tuple of deps and no
        optional deps. Repeated deps are linked and counted once per occurrence there."""
        cls = deps.__class__
        if ((cls is list or cls is tuple) and optional.__class__ is tuple and not optional
                and (fn is None or callable(fn))):
            with self._lock:
                tasks = self._tasks
                try:
                    got = (list(map(tasks.get, deps))  # TypeError before any change
                           if task_id not in tasks and not self._closed else None)
                except TypeError:
                    got = None  # the general path names the unhashable value
                if got is not None and (not self._started
                                        or (None not in got and task_id not in deps)):
                    ghosts = self._ghosts
                    rec = ghosts.pop(task_id, None) if ghosts else None
                    if rec is None:
                        rec = _Rec(task_id)
                    else:
                        self._unknown_refs -= len(rec) + len(rec.odependents or ())
                    tasks[task_id] = rec
                    self._seq = seq = self._seq + 1
                    rec.gen, rec.seq, rec.fn = 1, seq, fn
                    waiting = unknown = 0
                    cause = None
                    ok = OK
                    ghosts_get = ghosts.get
                    cyclic = False
                    for dep, dep_id in zip(got, deps):  # a repeat is linked once per occurrence
                        if dep is None:  # the dep's state is PENDING; it is not SUCCEEDED
                            if dep_id == task_id:  # a self-dependency: start() reports the cycle
                                dep = rec
                            else:  # named before it is submitted
                                dep = ghosts_get(dep_id)
                                if dep is None:
                                    dep = ghosts[dep_id] = _Rec(dep_id)
                                unknown += 1
                            dep.append(rec)  # the reverse edge
                            waiting += 1
                            cyclic = True
                            continue
                        dep.append(rec)
                        st = dep.state
                        if st is not ok:
                            waiting += 1
                            if cause is None and (st is FAIL or st is BLK or st is CAN):
                                cause = (Cause("failed", dep.task_id, dep.gen) if st is FAIL
                                         else dep.cause)
                    if unknown:
                        self._unknown_refs += unknown
                    if cyclic:
                        self._maybe_cyclic = True
                    rec.deps = deps if cls is tuple else tuple(deps)  # type: ignore[assignment]
                    rec.waiting = waiting
                    if cause is not None:
                        rec.state, rec.cause = BLK, cause
                        self._m.blocked += 1
                        self._block(rec, cause)
                        self._check_bound()
                    elif not waiting:
                        if self._started:
                            rec.t = self._clock()
                        rec.state = R
                        self._queued[seq] = rec
                        heappush(self._heap, seq)
                    return 1
        return self._submit(task_id, deps, fn, optional)

    def _submit(self, task_id: Any, deps: Iterable[Any], fn: Callable[..., Any] | None,
                optional: Iterable[Any]) -> int:
        try:
            hash(task_id)
        except TypeError:
            require_hashable(task_id, "task_id")
        req = _parse(deps, "deps", task_id)
        opt = _parse(optional, "optional", task_id)
        if fn is not None and not callable(fn):
            raise TypeError(f"fn of {task_id!r} must be callable or None, got "
                            f"{type(fn).__name__} {fn!r}")
        if opt:
            both = [d for d in opt if d in req]
            if both:
                raise ValueError(f"{both[0]!r} is both a required and an optional dependency "
                                 f"of {task_id!r}; list it in only one of deps/optional")
        with self._lock:
            if self._closed:
                raise ClosedError(f"cannot submit {task_id!r}: the scheduler is closed")
            rec = self._tasks.get(task_id)
            if rec is not None and rec.state is RUN:
                raise ConflictError(task_id, rec.gen)
            if self._started:
                self._validate(task_id, rec, req + opt)
            rec = self._detach(task_id)
            self._attach(rec, req, opt, fn)
            self._decide(rec)
            self._settle_new(rec)
            self._check_bound()
            return rec.gen


    # ---- rule 2: start -------------------------------------------------------------------
    def start(self) -> None:
        """Rule 2: unknown deps (first task in submission sequence), then cycles."""
        with self._lock:
            if self._closed and not self._started:
                raise ClosedError("cannot start(): the scheduler was closed before it started")
            if self._started:
                return
            if self._unknown_refs:
                for rec in sorted(self._tasks.values(), key=lambda r: r.seq):
                    missing = [d for d in _uniq(rec.deps) + _ids(rec.opt) if d in self._ghosts]
                    if missing:
                        raise UnknownDependencyError(rec.task_id, missing)
            if self._maybe_cyclic:
                cycle = self._find_cycle()
                if cycle is not None:
                    raise CycleError(cycle)
                self._maybe_cyclic = False
            self._started = True
            self._t_start = self._clock()

    # ---- rule 3: ready -------------------------------------------------------------------
    def ready(self, limit: int | None = None) -> list[Claim]:
        """Rule 3: claim READY tasks in submission sequence, up to the free slots."""
        if limit is not None and (limit.__class__ is not int or limit < 0):
            require_int(limit, "limit", minimum=0)
        with self._lock:
            if not self._started:
                raise NotStartedError("ready() before start(): call start() first")
            if self._closed:
                return []
            n = self.max_concurrency - self._running
            if limit is not None and limit < n:
                n = limit
            heap, queued = self._heap, self._queued
            out: list[Claim] = []
            if n <= 0 or not heap:
                return out
            now = self._clock()
            m = self._m
            wait_total, wait_max = m.ready_wait_total, m.ready_wait_max
            stale = 0
            pop, qpop, append, claim = heappop, queued.pop, out.append, Claim
            ready_state, run_state, t_start = R, RUN, self._t_start
            entries = len(heap)
            if n >= entries:  # every entry goes: one C sort, not a heappop (log V) per entry
                seqs: Iterable[int] = sorted(heap)
                heap.clear()
            else:
                seqs = map(pop, repeat(heap, entries))  # pops lazily, never past the end
            for seq in seqs:
                rec = qpop(seq)
                if rec.state is not ready_state or rec.seq != seq:
                    stale += 1
                    continue
                rec.state = run_state
                w = now - (rec.t if rec.t > t_start else t_start)  # READY before start()
                rec.t = now
                wait_total += w
                if w > wait_max:
                    wait_max = w
                if rec.opt:
                    rec.optional_failed = tuple(d.task_id for d in rec.opt if d.state in DEAD)
                append(_tuple_new(claim, (rec.task_id, rec.gen, rec.fn)))
                n -= 1
                if not n:
                    break
            k = len(out)
            self._stale -= stale
            self._running += k
            m.claims += k
            m.ready_wait_count += k
            m.ready_wait_total, m.ready_wait_max = wait_total, wait_max
            return out

    # ---- rules 4-6 -----------------------------------------------------------------------
    def _reply(self, outcome: Outcome, state: TaskState) -> Reply:
        m = self._m
        if outcome is Outcome.STALE:
            m.stale_callbacks += 1
        elif outcome is Outcome.DUPLICATE:
            m.duplicate_callbacks += 1
        elif outcome is Outcome.REJECTED:
            m.rejected_callbacks += 1
        return _REPLY[outcome, state]

    def _ran(self, rec: _Rec) -> None:
        self._running -= 1
        m = self._m
        d = self._clock() - rec.t
        m.run_count += 1
        m.run_total += d
        if d > m.run_max:
            m.run_max = d

    def complete(self, task_id: Hashable, generation: int) -> Reply:
        """Rule 4: RUNNING -> SUCCEEDED; each PENDING dependent loses one outstanding dep."""
        if generation.__class__ is not int:
            require_int(generation, "generation")
        with self._lock:
            try:
                rec = self._tasks.get(task_id)
            except TypeError:
                require_hashable(task_id, "task_id")
                raise
            if rec is None or generation != rec.gen or rec.state is not RUN:
                return self._complete_other(task_id, generation, rec)
            rec.state = OK
            self._running -= 1
            now = self._clock()
            m = self._m
            d = now - rec.t
            m.run_count += 1
            m.run_total += d
            if d > m.run_max:
                m.run_max = d
            heap, queued = self._heap, self._queued
            for dep in rec:  # its dependents
                if dep.state is P:
                    w = dep.waiting - 1
                    dep.waiting = w
                    if not w:
                        dep.state = R
                        dep.t = now
                        seq = dep.seq
                        if seq in queued:
                            self._stale -= 1
                        else:
                            queued[seq] = dep
                            heappush(heap, seq)
            if rec.odependents:
                self._opt_release(rec)
            return _APPLIED_OK

    def _complete_other(self, task_id: Any, generation: int, rec: _Rec | None) -> Reply:
        if rec is None:
            rec = self._get(task_id)
        if generation != rec.gen:
            return self._reply(Outcome.STALE, rec.state)
        st = rec.state
        return self._reply(Outcome.DUPLICATE if st is OK else Outcome.REJECTED, st)

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> Reply:
        """Rule 5: RUNNING -> FAILED (CANCELLED after a request); dependents BLOCKED."""
        require_int(generation, "generation")
        with self._lock:
            rec = self._get(task_id)
            if generation != rec.gen:
                return self._reply(Outcome.STALE, rec.state)
            st = rec.state
            if st is not RUN:
                dup = st is FAIL or st is CAN
                return self._reply(Outcome.DUPLICATE if dup else Outcome.REJECTED, st)
            self._ran(rec)
            rec.error = error
            if rec.requested:
                rec.state = CAN
                rec.cause = cause = Cause("cancelled", rec.task_id, rec.gen)
            else:
                rec.state = FAIL
                cause = Cause("failed", rec.task_id, rec.gen)
            self._block(rec, cause)
            self._check_bound()
            return _REPLY[Outcome.APPLIED, rec.state]

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        """Rule 6: PENDING/READY -> CANCELLED (dependents BLOCKED); RUNNING -> requested."""
        if generation is not None:
            require_int(generation, "generation")
        with self._lock:
            rec = self._get(task_id)
            if generation is not None and generation != rec.gen:
                return self._reply(Outcome.STALE, rec.state)
            st = rec.state
            if st is P or st is R:
                if st is R:
                    self._stale += 1
                rec.state = CAN
                rec.cause = cause = Cause("cancelled", rec.task_id, rec.gen)
                self._block(rec, cause)
                self._check_bound()
                return _REPLY[Outcome.APPLIED, CAN]
            if st is RUN:
                if rec.requested:
                    return self._reply(Outcome.DUPLICATE, RUN)
                rec.requested = True
                return _REPLY[Outcome.REQUESTED, RUN]
            return self._reply(Outcome.DUPLICATE if st is CAN else Outcome.REJECTED, st)

    def cancel_requested(self, task_id: Hashable, generation: int) -> bool:
        """Rule 6: true iff ``generation`` is current and a cancel was requested while it ran."""
        require_int(generation, "generation")
        with self._lock:
            rec = self._get(task_id)
            return generation == rec.gen and rec.requested

    # ---- rule 8: close -------------------------------------------------------------------
    def close(self) -> list[Any]:
        """Rule 8: PENDING/READY -> CANCELLED (shutdown), ids in submission sequence."""
        with self._lock:
            if self._closed:
                return []
            self._closed = True
            hit = sorted((r for r in self._tasks.values() if r.state is P or r.state is R),
                         key=lambda r: r.seq)
            for r in hit:
                r.state, r.cause = CAN, Cause("shutdown", r.task_id, r.gen)
            self._heap, self._queued, self._stale = [], {}, 0
            return [r.task_id for r in hit]

    # ---- queries -------------------------------------------------------------------------
    def info(self, task_id: Hashable) -> TaskDetails:
        """The current generation (model D6 for ``error`` and ``optional_failed``)."""
        with self._lock:
            r = self._get(task_id)
            opt = (tuple(d.task_id for d in r.opt if d.state in DEAD) if r.state in PR
                   else r.optional_failed)
            return details(r.task_id, r.gen, r.state, r.cause, r.error, opt)

    def task_ids(self) -> list[Any]:
        with self._lock:
            return list(self._tasks)

    def deps_of(self, task_id: Hashable) -> tuple[Any, ...]:
        with self._lock:
            return _uniq(self._get(task_id).deps)

    def optional_of(self, task_id: Hashable) -> tuple[Any, ...]:
        with self._lock:
            return tuple(d.task_id for d in self._get(task_id).opt)

    def metrics(self) -> SchedulerMetrics:
        """A copy of the counters, with per-state counts (an O(V) diagnostic read)."""
        with self._lock:
            m = SchedulerMetrics(**{k: v for k, v in vars(self._m).items() if k != "states"})
            for r in self._tasks.values():
                m.states[r.state.name] = m.states.get(r.state.name, 0) + 1
            m.heap_entries, m.stale_entries = len(self._heap), self._stale
            return m

    # ---- extensions ----------------------------------------------------------------------
    def add_dependency(self, task_id: Hashable, dep: Hashable) -> Reply:
        """Extension (model D8): a new required edge while PENDING (or READY before start)."""
        require_hashable(task_id, "task_id")
        require_hashable(dep, "dep")
        with self._lock:
            if self._closed:
                raise ClosedError(
                    f"cannot add a dependency to {task_id!r}: the scheduler is closed")
            rec = self._get(task_id)
            st = rec.state
            if not (st is P or (st is R and not self._started)):
                return self._reply(Outcome.REJECTED, st)
            if dep in rec.deps or any(d.task_id == dep for d in rec.opt):
                return self._reply(Outcome.DUPLICATE, st)
            if self._started:
                self._validate(task_id, rec, (dep,))
            d = self._link(dep, rec)
            d.dependents.append(rec)
            rec.deps = (*rec.deps, dep)
            if d.state in DEAD:
                if st is R:
                    self._stale += 1
                rec.state = BLK
                rec.cause = cause = (Cause("failed", d.task_id, d.gen) if d.state is FAIL
                                     else d.cause)
                assert cause is not None
                self._m.blocked += 1
                self._block(rec, cause)
            elif d.state is not OK:
                rec.waiting += 1
                if st is R:
                    rec.state = P
                    self._stale += 1
            self._check_bound()
            return _REPLY[Outcome.APPLIED, rec.state]

    def retry(self, task_id: Hashable, cascade: bool = True) -> dict[Any, int]:
        """Extension (model D9): resubmit a dead task and, with cascade, its BLOCKED subtree."""
        require_hashable(task_id, "task_id")
        with self._lock:
            if self._closed:
                raise ClosedError(f"cannot retry {task_id!r}: the scheduler is closed")
            root = self._get(task_id)
            if root.state not in DEAD:
                return {}
            chosen = {root: None}
            stack = [root]
            while cascade and stack:
                for d in stack.pop().dependents:
                    if d.state is BLK and d not in chosen:
                        chosen[d] = None
                        stack.append(d)
            batch = sorted(chosen, key=lambda r: r.seq)
            plan = [(r, _uniq(r.deps), _ids(r.opt), r.fn)
                    for r in batch]
            self._unlink_all(batch)
            for r, req, opt, fn in plan:  # all new generations exist, PENDING, with edges
                self._detach(r.task_id, unlinked=True)
                self._attach(r, req, opt, fn)
            ids = {r.task_id for r in batch}
            todo = [r for r, *_ in plan]
            while todo:  # the model's order: dependency order within the batch, then stamps
                undecided = {r.task_id for r in todo}
                free = [r for r in todo
                        if not any(d in ids and d != r.task_id and d in undecided
                                   for d in r.deps)]
                now = free or todo  # all of todo: a cycle inside the batch (before start)
                for r in now:
                    self._decide(r)
                todo = [r for r in todo if r not in now]
            for r in batch:
                self._settle_new(r)
            self._check_bound()
            return {r.task_id: r.gen for r in batch}

    # ---- checking helpers ----------------------------------------------------------------
    def snapshot(self) -> tuple[Any, ...]:
        """The same value as the model's snapshot() after the same calls."""
        with self._lock:
            rows = []
            for r in self._tasks.values():
                err = r.error
                try:
                    hash(err)
                except TypeError:
                    err = repr(err)
                rows.append((r.task_id, r.gen, r.seq, _uniq(r.deps),
                             tuple(d.task_id for d in r.opt), r.fn, r.state, r.cause, err,
                             r.requested, r.optional_failed))
            return (self.max_concurrency, self._started, self._closed, self._seq, tuple(rows))

    def copy(self) -> Scheduler:
        """An independent scheduler in the same state (its own lock from the same factory).
        Iterative: records are cloned, then every reference between them is remapped."""
        with self._lock:
            new = object.__new__(type(self))
            new.__dict__.update(vars(self))
            new._lock = self._lock_factory()
            clones = {id(r): _clone(r) for r in (*self._tasks.values(), *self._ghosts.values())}
            for c in clones.values():
                c.dependents = [clones[id(d)] for d in c.dependents]
                c.opt = tuple(clones[id(d)] for d in c.opt)
                if c.odependents is not None:
                    c.odependents = {clones[id(d)]: None for d in c.odependents}
            new._tasks = {k: clones[id(r)] for k, r in self._tasks.items()}
            new._ghosts = {k: clones[id(r)] for k, r in self._ghosts.items()}
            new._heap = list(self._heap)
            new._queued = {k: clones[id(r)] for k, r in self._queued.items()}
            new._m = SchedulerMetrics(**vars(self._m))
            new._m.states = dict(self._m.states)
            return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scheduler):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def check_invariants(self) -> None:
        """Recount everything the hot paths keep incrementally; AssertionError with a story."""
        with self._lock:
            self._recount()

    def __repr__(self) -> str:
        with self._lock:
            body = ", ".join(f"{r.task_id!r}:g{r.gen}:{r.state.name}"
                             for r in self._tasks.values())
        return f"<impl.Scheduler max_concurrency={self.max_concurrency} {{{body}}}>"
