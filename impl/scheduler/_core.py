"""The lock-held machinery under impl/scheduler/indegree.py: the per-slot columns, the ready queue,
propagation, the edges of a generation (detach, link, attach, decide), the cycle searches and
the invariant recount.

``Scheduler`` (impl/scheduler/indegree.py) adds the public methods on top; every method here
runs with ``self._lock`` held by its caller and never calls user code (the clock excepted).
Tasks are named by their *slot*, an int; the module comment of impl/scheduler/indegree.py
describes the columns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from heapq import heapify, heappush
from itertools import repeat
from typing import Any

from schedcheck.impl.scheduler._support import (
    _REPLY,
    _SLACK,
    BLK,
    CAN,
    FAIL,
    GHOST,
    KEY_SHIFT,
    OK,
    PACK,
    RUN,
    SLOT_MASK,
    STATE,
    P,
    R,
    SchedulerMetrics,
    _uniq,
    packed,
    slots,
)

from schedcheck.contract import (
    Cause,
    CycleError,
    Outcome,
    Reply,
    UnknownDependencyError,
    UnknownTaskError,
    require_hashable,
    require_int,
)

__all__ = ["SchedulerCore"]

_LOCK_FACTORY: Callable[[], Any] = threading.Lock
#: The per-slot columns and the value of a fresh slot (a ghost: never submitted).
_COLUMNS = (("_id", None), ("_gen", 0), ("_stamp", 0), ("_st", GHOST), ("_wait", 0),
            ("_deps", ()), ("_fn", None), ("_out", None), ("_t", 0.0))


class SchedulerCore:
    """The state of a scheduler and the helpers its public methods share (lock held)."""

    def __init__(self, max_concurrency: int, *, lock_factory: Callable[[], Any] = _LOCK_FACTORY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_concurrency = require_int(max_concurrency, "max_concurrency", minimum=0)
        self._lock_factory = lock_factory
        self._lock = lock_factory()
        self._clock = clock
        self._slot: dict[Any, int] = {}  # id -> slot, for every task and ghost
        self._order: list[int] = []  # the slots of submitted tasks, in order of first submit
        self._ghosts: dict[Any, int] = {}  # named as deps before being submitted
        self._maybe_cyclic = False  # some edge points to a later stamp (or a ghost)
        self._seq = 0
        self._started = False
        self._closed = False
        self._n = 0  # slots handed out
        # the columns, one entry per slot (grown in chunks by _new_slot)
        self._id: list[Any] = []  # the task id
        self._gen: list[int] = []  # current generation; 0 for a ghost
        self._stamp: list[int] = []  # the queue key: stamp of the generation (model D1), slot
        self._st: list[int] = []  # state code (impl/scheduler/_support.py)
        self._wait: list[int] = []  # outstanding deps; exact while PENDING/READY, 0 iff READY
        self._deps: list[tuple[int, ...]] = []  # slots of the required deps, in order
        self._fn: list[Callable[..., Any] | None] = []
        self._out: list[bytearray | None] = []  # required dependents: packed slots, or None
        self._t: list[float] = []  # clock when it became READY, then when it was claimed
        # the rare fields, by slot, present only when not the default
        self._cause: dict[int, Cause] = {}  # iff CANCELLED or BLOCKED
        self._error: dict[int, Any] = {}  # what fail() received
        self._req: set[int] = set()  # a cancel was requested while this generation ran
        self._ofail: dict[int, tuple[Any, ...]] = {}  # optional deps dead at the claim (D6)
        self._opt: dict[int, tuple[int, ...]] = {}  # optional deps (slots)
        self._oout: dict[int, dict[int, None]] = {}  # dependents by optional edges
        self._heap: list[int] = []  # queue keys, a heapq
        self._incoming: list[int] = []  # keys queued since the last claim, not yet in the heap
        self._parked: set[int] = set()  # stale keys of READY -> PENDING tasks (may revive)
        self._stale = 0  # queue entries (heap and incoming) that are not live
        self._running = 0
        self._m = SchedulerMetrics()

    # ---- slots (lock held) ---------------------------------------------------------------
    def _new_slot(self, task_id: Any) -> int:
        """A fresh slot for ``task_id``: a ghost until the caller submits it."""
        s = self._n
        if s == len(self._st):
            k = max(256, s >> 3)  # columns grow by an eighth: little slack, amortised O(1)
            for name, value in _COLUMNS:
                getattr(self, name).extend(repeat(value, k))
        self._n = s + 1
        self._id[s] = task_id
        self._slot[task_id] = s
        return s

    def _get(self, task_id: Any) -> int:
        """The slot of a submitted task (UnknownTaskError for a ghost or an unknown id)."""
        try:
            s = self._slot.get(task_id)
        except TypeError:
            require_hashable(task_id, "task_id")
            raise
        if s is None or not self._gen[s]:
            raise UnknownTaskError(task_id)
        return s

    def _reply(self, outcome: Outcome, x: int) -> Reply:
        """The Reply for ``outcome`` on state code ``x``, counted in the metrics."""
        m = self._m
        if outcome is Outcome.STALE:
            m.stale_callbacks += 1
        elif outcome is Outcome.DUPLICATE:
            m.duplicate_callbacks += 1
        elif outcome is Outcome.REJECTED:
            m.rejected_callbacks += 1
        return _REPLY[outcome, x]

    def _dep_ids(self, s: int) -> tuple[Any, ...]:
        """The ids of s's required deps, in order, repeats dropped."""
        return tuple(self._id[d] for d in _uniq(self._deps[s]))


    # ---- the ready queue -----------------------------------------------------------------
    def _push(self, s: int) -> None:
        """Slot ``s`` just became READY."""
        self._st[s] = R
        key = self._stamp[s]
        if self._parked and key in self._parked:
            self._parked.remove(key)
            self._stale -= 1  # its old entry (READY -> PENDING -> READY) is live again
        else:
            self._incoming.append(key)

    def _park(self, s: int) -> None:
        """Slot ``s`` goes READY -> PENDING: its entry is stale, and live again if it is READY
        again with the same stamp (model D1: it keeps its place in the queue)."""
        self._st[s] = P
        self._stale += 1
        self._parked.add(self._stamp[s])

    def _entries(self) -> int:
        return len(self._heap) + len(self._incoming)

    def _admit(self) -> None:
        """File the incoming keys into the heap: one heapify when they are at least an eighth
        of the heap (O(1) amortised each), else a heappush each (O(log V))."""
        heap, incoming = self._heap, self._incoming
        if len(incoming) >= len(heap) >> 3:
            heap += incoming
            heapify(heap)
        else:
            for key in incoming:
                heappush(heap, key)
        incoming.clear()

    def _take_all(self) -> list[int]:
        """Every queued key in ascending order (one sort), leaving the queue empty."""
        keys = self._heap
        keys += self._incoming
        keys.sort()
        self._heap, self._incoming = [], []
        self._parked.clear()  # their entries are gone with the rest
        return keys

    def _clear_queue(self) -> None:
        self._heap, self._incoming, self._stale = [], [], 0
        self._parked.clear()

    def _compact(self) -> None:
        """Restore the bound ``stale <= live + _SLACK`` (reached by
        tests/impl/test_scheduler_impl.py::test_queue_compacts_stale_entries)."""
        st, stamp = self._st, self._stamp
        live = [key for key in (*self._heap, *self._incoming)
                if st[key & SLOT_MASK] == R and stamp[key & SLOT_MASK] == key]
        heapify(live)
        self._clear_queue()  # the parked keys were stale: dropped with the others
        self._heap = live
        self._m.compactions += 1
        assert len(live) == sum(1 for s in self._order if st[s] == R)

    def _check_bound(self) -> None:
        if self._stale > self._entries() - self._stale + _SLACK:
            self._compact()

    # ---- propagation ---------------------------------------------------------------------
    def _opt_release(self, s: int) -> None:
        """s's current generation just became terminal: optional dependents count it done."""
        od = self._oout.get(s)
        if od:
            st, wait = self._st, self._wait
            for d in od:
                if st[d] == P:
                    wait[d] -= 1
                    if not wait[d]:
                        self._t[d] = self._clock()
                        self._push(d)

    def _release(self, dependents: Iterable[int], now: float) -> None:
        """Required deps just SUCCEEDED: each PENDING dependent (one entry per edge) loses one
        outstanding dep and is READY at zero, its wait counted from ``now``."""
        st, wait, t, push = self._st, self._wait, self._t, self._push
        for d in dependents:
            if st[d] == P:
                w = wait[d] - 1
                wait[d] = w
                if not w:
                    t[d] = now
                    push(d)

    def _block(self, root: int, cause: Cause, *, release_root: bool = True) -> None:
        """Rules 5-7: PENDING/READY tasks reachable through required dependents -> BLOCKED."""
        stack = [root]
        m, st, out, causes, oout = self._m, self._st, self._out, self._cause, self._oout
        while stack:
            for d in slots(out[stack.pop()]):  # its dependents (always submitted tasks)
                x = st[d]
                if x <= R:
                    if x == R:
                        self._stale += 1
                    st[d] = BLK
                    causes[d] = cause
                    m.blocked += 1
                    if oout:
                        self._opt_release(d)
                    stack.append(d)
        if release_root:
            self._opt_release(root)

    def _dead_cause(self, d: int) -> Cause:
        """The cause a dependent of the dead slot ``d`` is BLOCKED with (contract "Cause")."""
        if self._st[d] == FAIL:
            return Cause("failed", self._id[d], self._gen[d])
        return self._cause[d]

    # ---- edges of a generation -----------------------------------------------------------
    def _validate(self, task_id: Any, s: int | None, new: tuple[Any, ...]) -> None:
        """Rule 7 after start: known deps (or itself); no cycle through a new edge. A new edge
        ``d -> task`` closes a cycle iff ``d`` is reachable from ``task`` through dependents."""
        slot, gen = self._slot, self._gen
        missing = [d for d in new if (d not in slot or not gen[slot[d]]) and d != task_id]
        if missing:
            raise UnknownDependencyError(task_id, missing)
        if task_id in new:
            raise CycleError([task_id, task_id])
        if s is None:
            return  # a brand-new id has no dependents: no path back to it
        targets = {slot[d] for d in new}
        parent = {s: -1}
        stack = [s]
        out, oout = self._out, self._oout
        while stack:
            x = stack.pop()
            for d in (*slots(out[x]), *oout.get(x, ())):
                if d in parent:
                    continue
                parent[d] = x
                if d in targets:
                    path: list[Any] = []
                    while d != -1:
                        path.append(self._id[d])
                        d = parent[d]
                    raise CycleError([*reversed(path), task_id])
                stack.append(d)

    def _detach(self, task_id: Any, *, unlinked: bool = False) -> int:
        """Start a new generation: drop the old edges (unless ``unlinked``: retry() drops a
        whole batch's at once), stamp it, leave it PENDING with no deps, and apply to
        dependents the effect of the old state going away (rule 7)."""
        s = self._slot.get(task_id)
        st, gen, out, oout, wait = self._st, self._gen, self._out, self._oout, self._wait
        if s is None:
            s = self._new_slot(task_id)
            self._order.append(s)
        elif not gen[s]:  # a ghost becomes a task
            del self._ghosts[task_id]
            self._order.append(s)
        else:
            old = st[s]
            if not unlinked:
                for d in self._deps[s]:
                    rest = slots(out[d]).tolist()
                    rest.remove(s)  # O(in-degree of d): see the module comment
                    out[d] = packed(rest) if rest else None
                    self._unlinked(d)
            for d in self._opt.pop(s, ()):
                del oout[d][s]
                if not oout[d]:
                    del oout[d]
                self._unlinked(d)
            if old == R:
                self._stale += 1
            od = oout.get(s)
            if out[s] or od:
                self._maybe_cyclic = True  # they now point to a later stamp
            back = [*slots(out[s])] if old == OK else []
            if old >= OK and od:
                back += od
            for d in back:
                x = st[d]
                if x <= R:
                    if x == R:
                        self._park(d)
                    wait[d] += 1
        self._seq += 1
        gen[s] += 1
        self._stamp[s] = self._seq << KEY_SHIFT | s
        self._deps[s] = ()
        self._fn[s] = None
        self._cause.pop(s, None)
        self._error.pop(s, None)
        self._req.discard(s)
        self._ofail.pop(s, None)
        st[s], wait[s] = P, 0
        return s

    def _forget_ghost(self, d: int) -> None:
        """The ghost ``d`` has no edge left: its id is forgotten (the slot stays unused)."""
        task_id = self._id[d]
        del self._ghosts[task_id], self._slot[task_id]
        self._id[d] = None

    def _unlinked(self, d: int) -> None:
        if not self._gen[d] and not self._out[d] and not self._oout.get(d):
            self._forget_ghost(d)

    def _unlink_all(self, batch: list[int]) -> None:
        """Drop the required edges of every slot in ``batch`` with one pass over each
        dependency's buffer: a retry of the 10^5 blocked dependents of one failed hub costs
        O(its in-degree), not O(in-degree^2) as one removal per dependent would."""
        members = set(batch)
        out, gen = self._out, self._gen
        for d in {d for s in batch for d in self._deps[s]}:
            cur = slots(out[d]).tolist()
            kept = [x for x in cur if x not in members]
            out[d] = packed(kept) if kept else None
            if not gen[d] and not kept and not self._oout.get(d):
                self._forget_ghost(d)

    def _link(self, dep_id: Any, s: int) -> int:
        """The slot of dependency ``dep_id`` of ``s`` (a new ghost if never named)."""
        d = self._slot.get(dep_id)
        if d is None:
            d = self._new_slot(dep_id)
            self._ghosts[dep_id] = d
            self._maybe_cyclic = True
        elif not self._gen[d] or self._stamp[d] >= self._stamp[s]:  # a ghost, itself, or
            # resubmitted later
            self._maybe_cyclic = True
        return d

    def _attach(self, s: int, req: tuple[Any, ...], opt: tuple[Any, ...],
                fn: Callable[..., Any] | None) -> None:
        """Register the new edges; the new generation stays PENDING with its count."""
        self._fn[s] = fn
        waiting = 0
        b = PACK(s)
        out, st = self._out, self._st
        ds = []
        for dep_id in req:
            d = self._link(dep_id, s)
            ds.append(d)
            buf = out[d]
            if buf is None:
                out[d] = bytearray(b)
            else:
                buf += b
            if st[d] != OK:
                waiting += 1
        self._deps[s] = tuple(ds)
        if opt:
            odeps = []
            for dep_id in opt:
                d = self._link(dep_id, s)
                self._oout.setdefault(d, {})[s] = None
                odeps.append(d)
                if st[d] < OK:
                    waiting += 1
            self._opt[s] = tuple(odeps)
        self._wait[s] = waiting

    def _decide(self, s: int) -> None:
        """Rule 1: BLOCKED (cause from the first dead dep in deps order) or left PENDING."""
        st = self._st
        for d in self._deps[s]:
            if st[d] >= FAIL:
                cause = self._dead_cause(d)
                self._cause[s] = cause
                if st[s] == BLK:  # reached by an earlier retry's propagation
                    self._block(s, cause, release_root=False)
                else:
                    st[s] = BLK
                    self._m.blocked += 1
                    self._block(s, cause)
                return

    def _settle_new(self, s: int) -> None:
        if self._st[s] == P and not self._wait[s]:
            self._t[s] = self._clock()
            self._push(s)

    # ---- cycles --------------------------------------------------------------------------
    def _edges(self, s: int) -> Iterator[int]:
        """The slots ``s`` depends on (every dep is known when this runs)."""
        o = self._opt.get(s)
        return iter((*self._deps[s], *o)) if o else iter(self._deps[s])

    def _find_cycle(self) -> list[Any] | None:
        """Iterative three-colour DFS over slots, the stack as parent pointers (no recursion);
        roots in order of first submit (which cycle is found is ours to choose)."""
        colour = bytearray(self._n)  # 0 white, 1 grey (on the stack), 2 black
        edges = self._edges
        for root in self._order:
            if colour[root]:
                continue
            colour[root] = 1
            stack = [root]
            iters = [edges(root)]
            while iters:
                for nxt in iters[-1]:
                    c = colour[nxt]
                    if not c:
                        colour[nxt] = 1
                        stack.append(nxt)
                        iters.append(edges(nxt))
                        break
                    if c == 1:
                        i = stack.index(nxt)
                        return [self._id[x] for x in (nxt, *reversed(stack[i:]))]
                else:
                    colour[stack.pop()] = 2
                    iters.pop()
        return None

    # ---- check_invariants ----------------------------------------------------------------
    def _recount(self) -> None:
        """The body of check_invariants() (lock held by the caller)."""
        st, gen, ids, slot, out, oout = (self._st, self._gen, self._id, self._slot, self._out,
                                          self._oout)
        running = live = 0
        queued = {*self._heap, *self._incoming}
        assert len(queued) == self._entries(), "a key queued twice"
        for s in self._order:
            who = f"{ids[s]!r} g{gen[s]}"
            x = st[s]
            assert gen[s] >= 1 and slot[ids[s]] == s, f"{who} :: bad slot"
            running += x == RUN
            deps = self._deps[s]
            for d in deps:
                assert slot.get(ids[d]) == d, f"{who} :: dep slot {d} has no id (task or ghost)"
                assert slots(out[d]).tolist().count(s) == deps.count(d), (
                    f"{who} :: reverse edges from {ids[d]!r} do not match its deps")
            opt = self._opt.get(s, ())
            assert len(set(opt)) == len(opt) and all(s in oout.get(d, ()) for d in opt), (
                f"{who} :: optional reverse edges do not match its optional deps")
            for d in slots(out[s]):
                assert s in self._deps[d], f"{who} :: stale reverse edge to {ids[d]!r}"
            for d in oout.get(s, ()):
                assert s in self._opt.get(d, ()), (
                    f"{who} :: stale optional reverse edge to {ids[d]!r}")
            if x <= R:
                for d in deps:
                    assert st[d] < FAIL, (
                        f"{who} :: {STATE[x].name} with dead dep {ids[d]!r}")
                want = sum(1 for d in deps if st[d] != OK) + sum(1 for d in opt if st[d] < OK)
                assert self._wait[s] == want, f"{who} :: waiting={self._wait[s]}, recount {want}"
                assert (x == R) == (want == 0), f"{who} :: {STATE[x].name} waiting {want}"
                assert not self._closed, f"{who} :: {STATE[x].name} after close()"
            if x == R:
                live += 1
                assert self._stamp[s] in queued, f"{who} :: READY, not queued"
            cause = self._cause.get(s)
            if x == BLK:
                assert cause is not None and cause.kind in ("failed", "cancelled"), (
                    f"{who} :: BLOCKED with cause {cause!r}")
            elif x == CAN:
                assert cause is not None and cause.kind in ("cancelled", "shutdown") and (
                    cause[1:] == (ids[s], gen[s])), f"{who} :: CANCELLED, {cause!r}"
            else:
                assert cause is None, f"{who} :: {STATE[x].name} with cause {cause!r}"
            assert s not in self._req or x in (RUN, OK, CAN), (
                f"{who} :: cancel requested but {STATE[x].name}")
        assert running == self._running, f"running={self._running}, recount {running}"
        assert running <= self.max_concurrency, (
            f"{running} RUNNING > max_concurrency {self.max_concurrency}")
        stamp, parked = self._stamp, self._parked
        valid = {key for key in queued
                 if st[key & SLOT_MASK] == R and stamp[key & SLOT_MASK] == key}
        assert len(valid) == live, f"{live} READY tasks but {len(valid)} live heap entries"
        assert parked <= queued and not parked & valid, "a parked key that is not a stale entry"
        assert self._stale == self._entries() - live, (
            f"stale={self._stale}, recount {self._entries() - live}")
        assert self._stale <= live + _SLACK, f"stale {self._stale} > live {live} + {_SLACK}"
        ghosts = self._ghosts.values()
        assert all(out[g] or oout.get(g) for g in ghosts), "a ghost without edges"
        assert all(not gen[g] and st[g] == GHOST and slot[ids[g]] == g for g in ghosts), (
            "a ghost with a generation")
        assert len(slot) == len(self._order) + len(self._ghosts), "stray ids in the index"
        assert not ghosts or self._maybe_cyclic, "ghosts, but the cycle search would be skipped"
        if self._started:
            assert not self._ghosts, f"ghosts {list(self._ghosts)} after start()"
            assert self._find_cycle() is None, "cycle after start()"
