"""The scheduler's extensions and checking helpers, on top of impl/scheduler/_core.py.

Split out of impl/scheduler/indegree.py (which keeps the contract's rules 1-9 and the queries):
``add_dependency`` and ``retry`` (specs/scheduler.md section 7, model D8 and D9), and the
diagnostics every suite uses -- ``snapshot``, ``copy``, equality, ``check_invariants`` and the
repr. Every public method takes ``self._lock`` once; the helpers it calls run with it held.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Self

from schedcheck.impl.scheduler._core import SchedulerCore
from schedcheck.impl.scheduler._support import (
    _REPLY,
    BLK,
    FAIL,
    KEY_SHIFT,
    OK,
    PACK,
    STATE,
    P,
    R,
    SchedulerMetrics,
    slots,
)

from schedcheck.contract import ClosedError, Outcome, Reply, require_hashable

__all__ = ["SchedulerExtras"]


class SchedulerExtras(SchedulerCore):
    """The extensions and the checking helpers of :class:`~schedcheck.impl.Scheduler`."""

    # ---- extensions ----------------------------------------------------------------------
    def add_dependency(self, task_id: Hashable, dep: Hashable) -> Reply:
        """Extension (model D8): a new required edge while PENDING (or READY before start)."""
        require_hashable(task_id, "task_id")
        require_hashable(dep, "dep")
        with self._lock:
            if self._closed:
                raise ClosedError(
                    f"cannot add a dependency to {task_id!r}: the scheduler is closed")
            s = self._get(task_id)
            x = self._st[s]
            if not (x == P or (x == R and not self._started)):
                return self._reply(Outcome.REJECTED, x)
            known = self._slot.get(dep)
            if known is not None and (known in self._deps[s] or known in self._opt.get(s, ())):
                return self._reply(Outcome.DUPLICATE, x)
            if self._started:
                self._validate(task_id, s, (dep,))
            d = self._link(dep, s)
            buf = self._out[d]
            if buf is None:
                self._out[d] = bytearray(PACK(s))
            else:
                buf += PACK(s)
            self._deps[s] = (*self._deps[s], d)
            y = self._st[d]
            if y >= FAIL:
                if x == R:
                    self._stale += 1
                self._st[s] = BLK
                self._cause[s] = cause = self._dead_cause(d)
                self._m.blocked += 1
                self._block(s, cause)
            elif y != OK:
                self._wait[s] += 1
                if x == R:
                    self._park(s)
            self._check_bound()
            return _REPLY[Outcome.APPLIED, self._st[s]]

    def retry(self, task_id: Hashable, cascade: bool = True) -> dict[Any, int]:
        """Extension (model D9): resubmit a dead task and, with cascade, its BLOCKED subtree."""
        require_hashable(task_id, "task_id")
        with self._lock:
            if self._closed:
                raise ClosedError(f"cannot retry {task_id!r}: the scheduler is closed")
            root = self._get(task_id)
            st, ids = self._st, self._id
            if st[root] < FAIL:
                return {}
            chosen = {root: None}
            stack = [root]
            while cascade and stack:
                for d in slots(self._out[stack.pop()]):
                    if st[d] == BLK and d not in chosen:
                        chosen[d] = None
                        stack.append(d)
            batch = sorted(chosen, key=self._stamp.__getitem__)
            plan = [(s, self._dep_ids(s), tuple(ids[d] for d in self._opt.get(s, ())),
                     self._fn[s]) for s in batch]
            self._unlink_all(batch)
            for s, req, opt, fn in plan:  # all new generations exist, PENDING, with edges
                self._detach(ids[s], unlinked=True)
                self._attach(s, req, opt, fn)
            todo = list(batch)
            while todo:  # the model's order: dependency order within the batch, then stamps
                undecided = set(todo)
                free = [s for s in todo
                        if not any(d != s and d in undecided for d in self._deps[s])]
                now = free or todo  # all of todo: a cycle inside the batch (before start)
                for s in now:
                    self._decide(s)
                todo = [s for s in todo if s not in now]
            for s in batch:
                self._settle_new(s)
            self._check_bound()
            return {ids[s]: self._gen[s] for s in batch}

    # ---- checking helpers ----------------------------------------------------------------
    def snapshot(self) -> tuple[Any, ...]:
        """The same value as the model's snapshot() after the same calls."""
        with self._lock:
            rows = []
            ids = self._id
            for s in self._order:
                err = self._error.get(s)
                try:
                    hash(err)
                except TypeError:
                    err = repr(err)
                rows.append((ids[s], self._gen[s], self._stamp[s] >> KEY_SHIFT, self._dep_ids(s),
                             tuple(ids[d] for d in self._opt.get(s, ())), self._fn[s],
                             STATE[self._st[s]], self._cause.get(s), err, s in self._req,
                             self._ofail.get(s, ())))
            return (self.max_concurrency, self._started, self._closed, self._seq, tuple(rows))

    def copy(self) -> Self:
        """An independent scheduler in the same state (its own lock from the same factory):
        every column, buffer and index copied (slots are ints: nothing to remap)."""
        with self._lock:
            new = object.__new__(type(self))
            new.__dict__.update(vars(self))
            new._lock = self._lock_factory()
            for name, value in vars(self).items():
                if isinstance(value, (list, dict, set)):
                    setattr(new, name, value.copy())
            new._out = [None if b is None else bytearray(b) for b in self._out]
            new._oout = {s: dict(d) for s, d in self._oout.items()}
            new._m = SchedulerMetrics(**vars(self._m))
            new._m.states = dict(self._m.states)
            return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SchedulerExtras):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def check_invariants(self) -> None:
        """Recount everything the hot paths keep incrementally; AssertionError with a story."""
        with self._lock:
            self._recount()

    def __repr__(self) -> str:
        with self._lock:
            body = ", ".join(f"{self._id[s]!r}:g{self._gen[s]}:{STATE[self._st[s]].name}"
                             for s in self._order)
        return f"<impl.Scheduler max_concurrency={self.max_concurrency} {{{body}}}>"
