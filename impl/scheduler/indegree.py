"""The production task scheduler (specs/scheduler.md): indegree counts, reverse edges, a heap.

Data structure: columns, not objects. Each task id gets an int *slot* (``_slot``: id -> slot)
and its *current* generation lives in parallel lists indexed by the slot: ``_id``, ``_gen``,
``_stamp`` (the submission stamp), ``_st`` (the state as a small int: impl/scheduler/_support.py),
``_wait`` (required deps not SUCCEEDED + optional deps not terminal; exact only while the task
is PENDING/READY: a task in any other state is re-counted when resubmitted), ``_deps`` (the
required deps as a tuple of their slots: the cycle search and propagation never hash an id),
``_fn``, ``_t`` and ``_out``: the required dependents as a
``bytearray`` of packed slots (one entry per occurrence in the dependent's deps: a fast-path
submit does not de-duplicate, it links and counts a repeated dep twice, which releases it
exactly like once). The rare fields (cause, error, cancel request, optional edges both ways,
``optional_failed``) are dicts or a set keyed by slot, holding only the non-default values.

Why: the cyclic garbage collector's cost is the number of tracked container objects, and its
full passes walk every one of them. A task here adds *none* that stay tracked: ints, floats
and bytearrays are not tracked, a tuple of ids is untracked at its first collection, and the
columns are a few big lists. One object per task (the previous design: a record that was its
own list of dependents) made every full pass walk 200,000 more objects at 200k tasks. A
dependency named before it is submitted gets a *ghost* slot (generation 0, state ``GHOST``,
in ``_ghosts``) so that edges always join slots; a ghost exists only while an edge ends at it
(then it is forgotten), so start() finds unknown dependencies iff ``_ghosts`` is not empty, and
it exists only before start() (naming an unknown id after start() is an error), while
``_maybe_cyclic`` is set (an edge ends at a ghost).
The ready queue holds int *keys*: ``_stamp[s]`` is the stamp packed with the slot,
``stamp << KEY_SHIFT | slot``, so keys order as stamps and a key names its slot (no index
from stamps to slots to keep up). Releases only append their key to ``_incoming``; a claim
files them into the heap ``_heap`` (one heapify for a large batch) or, when it takes every
entry, sorts them all at once. Lazy deletion: an entry is live iff its slot is READY with that
key; a READY -> PENDING move *parks* the key (``_parked``) so that READY again with the same
stamp revives that entry instead of adding one. ``_stale`` counts dead entries; the bound
``_stale <= live + _SLACK`` is restored by compaction and asserted by check_invariants().

Batch paths: ``complete_many(claims)`` applies many completions under one lock acquisition
(graphlib's ``done(*nodes)``; when every claim names a distinct RUNNING generation, the batch
is checked by C loops and the dependents of all of it are walked as one joined buffer), and
``ready_pairs()`` claims like ``ready()`` but returns plain ``(task_id, generation)`` tuples,
which the collector untracks, where ``Claim`` (a named tuple) stays tracked: a batch of
10^4-10^5 claims held at once otherwise sets off full passes.

Costs (contract "Costs"). submit O(deps); start() O(V+E) (skipped to O(1) when every edge
points to an earlier stamp: then the graph is acyclic by construction); ready() O(k log V)
amortised (one sort instead of k pops when it takes every queued entry); complete() touches the
direct dependents only; fail()/cancel() touch what they block (plus optional dependents);
resubmit O(new deps + dependents + the in-degree of each old dep, as the buffer is rewritten
without it: buffers keep submit and complete fast, and resubmits are rare); an incremental
cycle check after start() searches only the dependents reachable from the resubmitted task.
Only start(), close() and the diagnostics (metrics, snapshot, check_invariants) visit tasks
they don't change. State codes, buffers, metrics and argument parsing live in
impl/scheduler/_support.py; the columns and the lock-held helpers (propagation, the edges of a
generation, the cycle searches, the invariant recount) in impl/scheduler/_core.py; the
extensions (add_dependency, retry) and the checking helpers (snapshot, copy, check_invariants)
in impl/scheduler/_extras.py.

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

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import reduce
from heapq import heappop
from itertools import repeat
from operator import add, itemgetter, sub
from typing import Any

from schedcheck.impl.scheduler._extras import SchedulerExtras
from schedcheck.impl.scheduler._support import (
    _REPLY,
    BLK,
    CAN,
    FAIL,
    KEY_SHIFT,
    OK,
    PACK,
    RUN,
    SLOT_MASK,
    STATE,
    P,
    R,
    SchedulerMetrics,
    _parse,
    _uniq,
)

from schedcheck.contract import (
    Cause,
    Claim,
    ClosedError,
    ConflictError,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    TaskDetails,
    UnknownDependencyError,
    details,
    require_hashable,
    require_int,
)

__all__ = ["Scheduler", "SchedulerMetrics"]

_APPLIED_OK = _REPLY[Outcome.APPLIED, OK]
_first, _second = itemgetter(0), itemgetter(1)
_tuple_new = tuple.__new__


class Scheduler(SchedulerExtras):
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
                slot, gen = self._slot, self._gen
                got: list[Any] | None
                try:
                    s = slot.get(task_id)
                    got = (list(map(slot.get, deps))  # TypeError before any change
                           if (s is None or not gen[s]) and not self._closed else None)
                except TypeError:
                    got = None  # the general path names the unhashable value
                if got is not None and (not self._started
                                        or (None not in got and task_id not in deps)):
                    st, out = self._st, self._out
                    if s is None:
                        s = self._new_slot(task_id)
                    else:  # a ghost becomes a task
                        del self._ghosts[task_id]
                    self._order.append(s)
                    self._seq = seq = self._seq + 1
                    gen[s], self._stamp[s], st[s] = 1, seq << KEY_SHIFT | s, P
                    if fn is not None:
                        self._fn[s] = fn
                    b = PACK(s)
                    cyclic = None in got
                    if cyclic:  # deps named before they are submitted (or itself)
                        for dep_id in deps:
                            if dep_id not in slot:  # itself is: its slot exists
                                self._ghosts[dep_id] = self._new_slot(dep_id)
                        got = list(map(slot.__getitem__, deps))
                    if cyclic or task_id in deps:  # (an older ghost set it when it was named)
                        self._maybe_cyclic = True
                    for d in got:  # a repeat is linked once per occurrence
                        buf = out[d]
                        if buf is None:
                            out[d] = bytearray(b)  # the reverse edge
                        else:
                            buf += b
                    waiting = len(got)
                    cause = None
                    if self._started or self._cause:
                        # Some dep may be SUCCEEDED or dead. Before start() nothing has run,
                        # and no task is dead while no task has a cause (only CANCELLED and
                        # BLOCKED have one; FAILED needs a run): every dep is outstanding.
                        xs = list(map(st.__getitem__, got))
                        waiting -= xs.count(OK)
                        if waiting and max(xs) >= FAIL:  # cause of the first dead dep
                            cause = self._dead_cause(got[next(i for i, x in enumerate(xs)
                                                              if x >= FAIL)])
                    self._deps[s] = tuple(got)
                    self._wait[s] = waiting
                    if cause is not None:
                        st[s] = BLK
                        self._cause[s] = cause
                        self._m.blocked += 1
                        self._block(s, cause)
                        self._check_bound()
                    elif not waiting:
                        if self._started:
                            self._t[s] = self._clock()
                        self._push(s)
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
            s = self._slot.get(task_id)
            if s is not None and not self._gen[s]:
                s = None  # a ghost: not a task yet
            if s is not None and self._st[s] == RUN:
                raise ConflictError(task_id, self._gen[s])
            if self._started:
                self._validate(task_id, s, req + opt)
            s = self._detach(task_id)
            self._attach(s, req, opt, fn)
            self._decide(s)
            self._settle_new(s)
            self._check_bound()
            return self._gen[s]

    # ---- rule 2: start -------------------------------------------------------------------
    def start(self) -> None:
        """Rule 2: unknown deps (first task in submission sequence), then cycles."""
        with self._lock:
            if self._closed and not self._started:
                raise ClosedError("cannot start(): the scheduler was closed before it started")
            if self._started:
                return
            if self._ghosts:
                ids, ghosts = self._id, self._ghosts
                for s in sorted(self._order, key=self._stamp.__getitem__):
                    wanted = _uniq((*self._deps[s], *self._opt.get(s, ())))
                    missing = [ids[d] for d in wanted if ids[d] in ghosts]
                    if missing:
                        raise UnknownDependencyError(ids[s], missing)
            if self._maybe_cyclic:
                cycle = self._find_cycle()
                if cycle is not None:
                    raise CycleError(cycle)
                self._maybe_cyclic = False
            self._started = True
            # a READY wait counts from start() at the earliest: the tasks READY now (every
            # queued key, stale ones harmlessly too) are READY since now
            t = self._t
            deque(map(t.__setitem__, map(SLOT_MASK.__and__, (*self._heap, *self._incoming)),
                      repeat(self._clock())), 0)

    # ---- rule 3: ready -------------------------------------------------------------------
    def ready(self, limit: int | None = None) -> list[Claim]:
        """Rule 3: claim READY tasks in submission sequence, up to the free slots."""
        return self._claim(limit, True)

    def ready_pairs(self, limit: int | None = None) -> list[tuple[Any, int]]:
        """Exactly ``ready(limit)``, each claim as a plain ``(task_id, generation)`` tuple
        (no ``fn``): for a driver that keeps its functions itself, or has none. CPython's
        collector untracks a plain tuple of untracked values; it never untracks a ``Claim``
        (a named tuple), so a large batch of Claims costs full collections."""
        return self._claim(limit, False)

    def _claim(self, limit: int | None, as_claims: bool) -> list[Any]:
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
            entries = self._entries()
            out: list[Any] = []
            if n <= 0 or not entries:
                return out
            now = self._clock()
            if n >= entries and not self._stale and not self._opt:
                return self._claim_all(now, as_claims)
            m = self._m
            wait_total, wait_max = m.ready_wait_total, m.ready_wait_max
            stale = 0
            append, parked = out.append, self._parked
            st, stamp, t, ids, gen, fns = (self._st, self._stamp, self._t, self._id, self._gen,
                                           self._fn)
            opt = self._opt
            if n >= entries:  # every entry goes: one C sort, not a heappop (log V) per entry
                keys: Iterable[int] = self._take_all()
            else:
                self._admit()
                keys = map(heappop, repeat(self._heap, entries))  # lazily, never past the end
            for key in keys:
                s = key & SLOT_MASK
                if st[s] != R or stamp[s] != key:
                    stale += 1
                    if parked:
                        parked.discard(key)  # its entry is gone: a new one if READY again
                    continue
                st[s] = RUN
                w = now - t[s]
                t[s] = now
                wait_total += w
                if w > wait_max:
                    wait_max = w
                if opt and s in opt:
                    dead = tuple(ids[d] for d in opt[s] if st[d] >= FAIL)
                    if dead:
                        self._ofail[s] = dead
                append(_tuple_new(Claim, (ids[s], gen[s], fns[s])) if as_claims
                       else (ids[s], gen[s]))
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

    def _claim_all(self, now: float, as_claims: bool) -> list[Any]:
        """_claim() when every queued entry goes and none is stale (so every one is live) and
        no task has optional deps: the same claims and metrics, with the per-claim work done
        by C loops (map/zip over the slots) instead of bytecode per claim."""
        ss = list(map(SLOT_MASK.__and__, self._take_all()))
        st, t, ids, gen = self._st, self._t, self._id, self._gen
        since = list(map(t.__getitem__, ss))  # when each became READY
        deque(map(st.__setitem__, ss, repeat(RUN)), 0)
        deque(map(t.__setitem__, ss, repeat(now)), 0)
        k = len(ss)
        m = self._m
        self._running += k
        m.claims += k
        m.ready_wait_count += k
        m.ready_wait_total += now * k - sum(since)
        m.ready_wait_max = max(m.ready_wait_max, now - min(since))
        fields = [map(ids.__getitem__, ss), map(gen.__getitem__, ss)]
        if not as_claims:
            return list(zip(*fields))
        fields.append(map(self._fn.__getitem__, ss))
        return list(map(_tuple_new, repeat(Claim), zip(*fields)))

    # ---- rules 4-6 -----------------------------------------------------------------------
    def _ran(self, s: int, now: float) -> None:
        """s's run ended at ``now``: free its slot, count its duration."""
        self._running -= 1
        m = self._m
        d = now - self._t[s]
        m.run_count += 1
        m.run_total += d
        if d > m.run_max:
            m.run_max = d

    def complete(self, task_id: Hashable, generation: int) -> Reply:
        """Rule 4: RUNNING -> SUCCEEDED; each PENDING dependent loses one outstanding dep."""
        with self._lock:
            return self._complete_all(((task_id, generation),))[0]

    def complete_many(self, claims: Iterable[Sequence[Any]]) -> list[Reply]:
        """``complete(task_id, generation)`` for each claim in order (a ``Claim``, or any
        sequence starting with the id and the generation, e.g. from ``ready_pairs()``), under
        one acquisition of the lock; the replies in the same order. Exactly the same calls one
        by one: an error (as complete() raises it) leaves the claims before it applied and the
        rest untouched."""
        with self._lock:
            ss = self._all_running(claims)
            if ss is not None:
                return self._complete_batch(ss)
            return self._complete_all(claims)

    def _all_running(self, claims: Iterable[Sequence[Any]]) -> list[int] | None:
        """The slots named by ``claims`` (a list or tuple) if each claim names, with an int,
        the RUNNING current generation of a distinct task -- then every one applies -- else
        None (the call-by-call path decides, and raises). Checked by C loops over the batch."""
        if claims.__class__ is not list and claims.__class__ is not tuple:
            return None
        try:
            found = list(map(self._slot.get, map(_first, claims)))
            gens = list(map(_second, claims))
        except Exception:  # the call-by-call path raises it, after the claims before it
            return None
        if None in found:
            return None
        ss: list[int] = found  # type: ignore[assignment]  # (no None, just checked)
        if (len(set(ss)) != len(ss) or not set(map(type, gens)) <= {int}
                or list(map(self._gen.__getitem__, ss)) != gens
                or list(map(self._st.__getitem__, ss)).count(RUN) != len(ss)):
            return None
        return ss

    def _complete_batch(self, ss: list[int]) -> list[Reply]:
        """complete() of every slot in ``ss`` (each RUNNING, distinct): the same states,
        releases and metrics as one call each, the per-claim work done by C loops and the
        dependents of the whole batch walked as one buffer."""
        st, m = self._st, self._m
        now = self._clock()
        k = len(ss)
        deque(map(st.__setitem__, ss, repeat(OK)), 0)
        since = list(map(self._t.__getitem__, ss))  # when each was claimed
        self._running -= k
        m.run_count += k
        # left to right from the old total, as one complete() each adds them (sum() of floats
        # compensates from Python 3.12 on); sub, not now.__sub__: an int now and a float start
        m.run_total = reduce(add, map(sub, repeat(now, k), since), m.run_total)
        if since:
            m.run_max = max(m.run_max, now - min(since))
        bufs = filter(None, map(self._out.__getitem__, ss))  # (None: no dependents)
        self._release(memoryview(b"".join(bufs)).cast("I"), now)
        oout = self._oout
        if oout:
            for s in ss:
                if s in oout:
                    self._opt_release(s)
        return [_APPLIED_OK] * k

    def _complete_all(self, claims: Iterable[Sequence[Any]]) -> list[Reply]:
        slot_get, gen, st, out, t = self._slot.get, self._gen, self._st, self._out, self._t
        oout, m = self._oout, self._m
        now = self._clock()
        replies: list[Reply] = []
        append = replies.append
        ran, total, longest = 0, m.run_total, m.run_max  # written back even on an error
        try:
            for claim in claims:
                task_id, generation = claim[0], claim[1]
                if generation.__class__ is not int:
                    require_int(generation, "generation")
                try:
                    s = slot_get(task_id)
                except TypeError:
                    require_hashable(task_id, "task_id")
                    raise
                if s is None or generation != gen[s] or st[s] != RUN:
                    append(self._complete_other(task_id, generation, s))
                    continue
                st[s] = OK
                ran += 1
                took = now - t[s]
                total += took
                if took > longest:
                    longest = took
                buf = out[s]
                if buf:
                    self._release(memoryview(buf).cast("I"), now)
                if oout and s in oout:
                    self._opt_release(s)
                append(_APPLIED_OK)
        finally:
            self._running -= ran
            m.run_count += ran
            m.run_total, m.run_max = total, longest
        return replies

    def _complete_other(self, task_id: Any, generation: int, s: int | None) -> Reply:
        if s is None or not self._gen[s]:
            s = self._get(task_id)
        if generation != self._gen[s]:
            return self._reply(Outcome.STALE, self._st[s])
        x = self._st[s]
        return self._reply(Outcome.DUPLICATE if x == OK else Outcome.REJECTED, x)

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> Reply:
        """Rule 5: RUNNING -> FAILED (CANCELLED after a request); dependents BLOCKED."""
        require_int(generation, "generation")
        with self._lock:
            s = self._get(task_id)
            x = self._st[s]
            if generation != self._gen[s]:
                return self._reply(Outcome.STALE, x)
            if x != RUN:
                dup = x in (FAIL, CAN)
                return self._reply(Outcome.DUPLICATE if dup else Outcome.REJECTED, x)
            self._ran(s, self._clock())
            if error is not None:
                self._error[s] = error
            if s in self._req:
                self._st[s] = CAN
                self._cause[s] = cause = Cause("cancelled", self._id[s], generation)
            else:
                self._st[s] = FAIL
                cause = Cause("failed", self._id[s], generation)
            self._block(s, cause)
            self._check_bound()
            return _REPLY[Outcome.APPLIED, self._st[s]]

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        """Rule 6: PENDING/READY -> CANCELLED (dependents BLOCKED); RUNNING -> requested."""
        if generation is not None:
            require_int(generation, "generation")
        with self._lock:
            s = self._get(task_id)
            x = self._st[s]
            if generation is not None and generation != self._gen[s]:
                return self._reply(Outcome.STALE, x)
            if x <= R:
                if x == R:
                    self._stale += 1
                self._st[s] = CAN
                self._cause[s] = cause = Cause("cancelled", self._id[s], self._gen[s])
                self._block(s, cause)
                self._check_bound()
                return _REPLY[Outcome.APPLIED, CAN]
            if x == RUN:
                if s in self._req:
                    return self._reply(Outcome.DUPLICATE, RUN)
                self._req.add(s)
                return _REPLY[Outcome.REQUESTED, RUN]
            return self._reply(Outcome.DUPLICATE if x == CAN else Outcome.REJECTED, x)

    def cancel_requested(self, task_id: Hashable, generation: int) -> bool:
        """Rule 6: true iff ``generation`` is current and a cancel was requested while it ran."""
        require_int(generation, "generation")
        with self._lock:
            s = self._get(task_id)
            return generation == self._gen[s] and s in self._req

    # ---- rule 8: close -------------------------------------------------------------------
    def close(self) -> list[Any]:
        """Rule 8: PENDING/READY -> CANCELLED (shutdown), ids in submission sequence."""
        with self._lock:
            if self._closed:
                return []
            self._closed = True
            st, ids, gen = self._st, self._id, self._gen
            hit = sorted((s for s in self._order if st[s] <= R), key=self._stamp.__getitem__)
            for s in hit:
                st[s] = CAN
                self._cause[s] = Cause("shutdown", ids[s], gen[s])
            self._clear_queue()
            return [ids[s] for s in hit]

    # ---- queries -------------------------------------------------------------------------
    def _optional_failed(self, s: int) -> tuple[Any, ...]:
        """Model D6: live while PENDING/READY, else as frozen at the claim."""
        if self._st[s] <= R:
            return tuple(self._id[d] for d in self._opt.get(s, ()) if self._st[d] >= FAIL)
        return self._ofail.get(s, ())

    def info(self, task_id: Hashable) -> TaskDetails:
        """The current generation (model D6 for ``error`` and ``optional_failed``)."""
        with self._lock:
            s = self._get(task_id)
            return details(self._id[s], self._gen[s], STATE[self._st[s]], self._cause.get(s),
                           self._error.get(s), self._optional_failed(s))

    def task_ids(self) -> list[Any]:
        with self._lock:
            return [self._id[s] for s in self._order]

    def deps_of(self, task_id: Hashable) -> tuple[Any, ...]:
        with self._lock:
            return self._dep_ids(self._get(task_id))

    def optional_of(self, task_id: Hashable) -> tuple[Any, ...]:
        with self._lock:
            return tuple(self._id[d] for d in self._opt.get(self._get(task_id), ()))

    def metrics(self) -> SchedulerMetrics:
        """A copy of the counters, with per-state counts (an O(V) diagnostic read)."""
        with self._lock:
            m = SchedulerMetrics(**{k: v for k, v in vars(self._m).items() if k != "states"})
            for s in self._order:
                name = STATE[self._st[s]].name
                m.states[name] = m.states.get(name, 0) + 1
            m.heap_entries, m.stale_entries = self._entries(), self._stale
            return m
