"""The reference model of the dependency-aware task scheduler (specs/scheduler.md sections 2-4).

Small and slow on purpose: one slotted record per task id (its *current* generation), a
TRANSITIONS table for complete/fail/cancel (rules 4-6), and readiness recomputed from scratch
after every call by rescanning the edges (no indegree counters, no reverse adjacency, no heap:
those live in ``impl/``). Every method's docstring cites its rule.

Decisions (where the contract is silent; copied to specs/scheduler.md):

* D1 *Submission sequence* is a stamp of a **generation**, taken when its submit succeeds.
  A READY task that goes back to PENDING (rule 7) keeps its generation, hence its stamp.
  ``retry`` stamps the new generations in ascending old stamp.
* D2 ``close()`` before ``start()`` works (cancels PENDING/READY with cause shutdown).
  ``start()`` after ``close()`` raises ClosedError unless already started (then a no-op);
  ``ready()`` of a closed, never-started scheduler raises NotStartedError (rule 3 literally).
* D3 complete/fail/cancel/info/cancel_requested work before ``start()`` and after ``close()``
  (only the table decides: nothing is RUNNING before start, so complete/fail are REJECTED).
* D4 A generation argument is any ``int`` (never ``bool``); a value that is not the current
  generation (0, negative, older, newer) is STALE, not an error.
* D5 ``cancel_requested`` and ``info`` of an id never submitted raise UnknownTaskError.
* D6 ``info()`` returns a :class:`TaskDetails`: a ``TaskInfo`` (equal to the 4-field tuple) with
  two extra attributes, ``error`` (what ``fail`` received for this generation, else None) and
  ``optional_failed`` (a tuple of optional deps, in ``optional`` order, whose current
  generation is dead: live while the task is PENDING/READY, frozen when it is claimed, ``()``
  for a generation that was never claimed and is terminal).
* D7 Optional edges: an id in both ``deps`` and ``optional`` is ValueError. Optional edges
  count for unknown-dependency checks (``.missing`` lists required then optional, each in its
  order) and for cycles. Readiness is a function of the current generations of the deps: a
  resubmit of an optional dependency that was terminal sends a READY dependent back to PENDING.
* D8 ``add_dependency(t, d)``: precedence TypeError, ClosedError, UnknownTaskError(t), then
  REJECTED unless ``t`` is PENDING (or READY before start), then UnknownDependencyError (after
  start only, as for submit), CycleError. An edge that already exists (required or optional)
  is DUPLICATE. The new dep goes last in ``deps``.
* D9 ``retry(t)``: precedence TypeError, ClosedError, UnknownTaskError; a current generation
  that is not FAILED/CANCELLED/BLOCKED gives ``{}`` (nothing retried). The cascade follows
  required edges through BLOCKED tasks. All retried tasks get their new generations first, then
  their states are decided in dependency order, so a retried subtree is not re-blocked by its
  own not-yet-retried root. Works before start; after close it raises ClosedError.
* D10 ``start()`` checks the current generations of every task, terminal ones included.
* D11 Before ``start()`` ``info()`` shows what rule 1 gives: READY when nothing is outstanding
  (no required deps -- none can have SUCCEEDED yet -- and every optional dep already
  terminal), else PENDING, or CANCELLED/BLOCKED after a cancel; nothing is claimed until
  ``start()``.
* D12 Each retried task gets generation g+1 (a retry *is* a resubmit: same deps, same fn),
  a new stamp, and a fresh cause/error/cancel flag; the dict it returns is in stamp order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from schedcheck.contract import (
    DEAD,
    TERMINAL,
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
    UnknownTaskError,
    details,
    require_hashable,
    require_int,
)

__all__ = ["TRANSITIONS", "Scheduler", "TaskDetails", "find_cycle", "parse_deps"]

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, FAIL, BLK, CAN = (
    TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED,
)

#: Rules 4-6: (call, state, cancel requested while running) -> (outcome, next state).
#: A key that is not here is REJECTED (the state does not change). STALE is decided before.
TRANSITIONS: dict[tuple[str, TaskState, bool], tuple[Outcome, TaskState]] = {
    ("complete", RUN, False): (Outcome.APPLIED, OK),  # rule 4
    ("complete", RUN, True): (Outcome.APPLIED, OK),  # rule 6: a later complete still wins
    ("complete", OK, False): (Outcome.DUPLICATE, OK),
    ("complete", OK, True): (Outcome.DUPLICATE, OK),
    ("fail", RUN, False): (Outcome.APPLIED, FAIL),  # rule 5
    ("fail", RUN, True): (Outcome.APPLIED, CAN),  # rule 5/6: fail confirms a cancel request
    ("fail", FAIL, False): (Outcome.DUPLICATE, FAIL),
    ("fail", CAN, False): (Outcome.DUPLICATE, CAN),
    ("fail", CAN, True): (Outcome.DUPLICATE, CAN),
    ("cancel", P, False): (Outcome.APPLIED, CAN),  # rule 6
    ("cancel", R, False): (Outcome.APPLIED, CAN),
    ("cancel", RUN, False): (Outcome.REQUESTED, RUN),  # cooperative: keeps its slot
    ("cancel", RUN, True): (Outcome.DUPLICATE, RUN),
    ("cancel", CAN, False): (Outcome.DUPLICATE, CAN),
    ("cancel", CAN, True): (Outcome.DUPLICATE, CAN),
}


def parse_deps(value: object, name: str, task_id: Any) -> tuple[Any, ...]:
    """Rule 1: any iterable of hashables except str/bytes/None; repeats count once (first wins)."""
    if value is None or isinstance(value, (str, bytes, bytearray)) or not isinstance(
        value, Iterable
    ):
        raise TypeError(
            f"{name} of {task_id!r} must be an iterable of task ids (not str, bytes or None), "
            f"got {type(value).__name__} {value!r}; write {name}=[...]"
        )
    out: dict[Any, None] = {}
    for dep in value:
        require_hashable(dep, f"a dependency of {task_id!r}")
        out.setdefault(dep, None)
    return tuple(out)


def find_cycle(roots: Iterable[Any], edges: Callable[[Any], Iterable[Any]]) -> list[Any] | None:
    """Iterative three-colour DFS along ``edges(x)`` (the ids ``x`` depends on, known ones only).

    Returns ``[v, ..., v]`` in which each element is a dependency of the next, or None.
    """
    colour: dict[Any, int] = {}  # absent: white, 1: grey (on the stack), 2: black
    for root in roots:
        if root in colour:
            continue
        stack: list[Any] = [root]
        iters = [iter(edges(root))]
        colour[root] = 1
        while iters:
            nxt = next(iters[-1], _END)
            if nxt is _END:
                colour[stack.pop()] = 2
                iters.pop()
            elif colour.get(nxt) == 1:
                i = stack.index(nxt)
                return [nxt, *reversed(stack[i:])]
            elif nxt not in colour:
                colour[nxt] = 1
                stack.append(nxt)
                iters.append(iter(edges(nxt)))
    return None


_END = object()


class _Task:
    """The current generation of one task id."""

    __slots__ = (
        "cause",
        "deps",
        "error",
        "fn",
        "generation",
        "optional",
        "optional_failed",
        "requested",
        "seq",
        "state",
        "task_id",
    )

    def __init__(self, task_id: Any) -> None:
        self.task_id = task_id  #: the id, hashable
        self.generation = 0  #: current generation, >= 1 once submitted
        self.seq = 0  #: submission stamp of the current generation (D1)
        self.deps: tuple[Any, ...] = ()  #: required deps, first-occurrence order, no repeats
        self.optional: tuple[Any, ...] = ()  #: optional deps, disjoint from deps
        self.fn: Callable[..., Any] | None = None  #: handed out in the Claim
        self.state = P  #: TaskState of the current generation
        self.cause: Cause | None = None  #: not None iff state is CANCELLED or BLOCKED
        self.error: Any = None  #: error given to fail() for this generation
        self.requested = False  #: a cancel was requested while this generation RAN
        self.optional_failed: tuple[Any, ...] = ()  #: frozen at the claim (D6)

    def copy(self) -> _Task:
        t = _Task.__new__(_Task)
        for f in _Task.__slots__:
            setattr(t, f, getattr(self, f))
        return t

    def row(self) -> tuple[Any, ...]:
        err = self.error
        try:
            hash(err)
        except TypeError:
            err = repr(err)
        return (self.task_id, self.generation, self.seq, self.deps, self.optional, self.fn,
                self.state, self.cause, err, self.requested, self.optional_failed)


class Scheduler:
    """The executable contract. Not thread-safe: the harness drives it from one thread."""

    def __init__(self, max_concurrency: int) -> None:
        """Construction: an int >= 0, never bool."""
        self.max_concurrency = require_int(max_concurrency, "max_concurrency", minimum=0)
        self._tasks: dict[Any, _Task] = {}  # insertion order = order of first submits
        self._seq = 0  # last submission stamp handed out
        self._started = False
        self._closed = False

    # ---- queries -----------------------------------------------------------------------
    def _get(self, task_id: object) -> _Task:
        require_hashable(task_id, "task_id")
        t = self._tasks.get(task_id)
        if t is None:
            raise UnknownTaskError(task_id)
        return t

    def _gen(self, generation: object) -> int:
        return require_int(generation, "generation")

    def task_ids(self) -> list[Any]:
        return list(self._tasks)

    def deps_of(self, task_id: Hashable) -> tuple[Any, ...]:
        return self._get(task_id).deps

    def optional_of(self, task_id: Hashable) -> tuple[Any, ...]:
        return self._get(task_id).optional

    def info(self, task_id: Hashable) -> TaskDetails:
        """The current generation (rule 9: unknown ids raise; D6 for the extra attributes)."""
        t = self._get(task_id)
        opt = self._optional_dead(t) if t.state in (P, R) else t.optional_failed
        return details(t.task_id, t.generation, t.state, t.cause, t.error, opt)

    def cancel_requested(self, task_id: Hashable, generation: int) -> bool:
        """Rule 6: true iff ``generation`` is current and a cancel was requested while it ran."""
        g = self._gen(generation)
        t = self._get(task_id)
        return g == t.generation and t.requested

    def _adopt(self, task_id: Hashable, generation: int, state: TaskState, cause: Cause | None,
              requested: bool) -> None:
        """Not a contract call: keep-going grading. After a target diverged on a clause whose
        oracle is set aside, the harness makes the current generation of the known
        ``task_id`` what the target reports, so the run goes on from the target's state.
        Whether the result is a state the contract defines is ``check_invariants()``'s
        business (section 4); nothing else is re-derived: every rule reads these fields."""
        t = self._get(task_id)
        t.generation, t.state, t.cause, t.requested = generation, state, cause, requested

    def _dead(self, dep: Any) -> bool:
        d = self._tasks.get(dep)
        return d is not None and d.state in DEAD

    def _optional_dead(self, t: _Task) -> tuple[Any, ...]:
        return tuple(o for o in t.optional if self._dead(o))

    def _ready_now(self, t: _Task) -> bool:
        for d in t.deps:
            dt = self._tasks.get(d)
            if dt is None or dt.state is not OK:
                return False
        for o in t.optional:
            ot = self._tasks.get(o)
            if ot is None or ot.state not in TERMINAL:
                return False
        return True

    def _edges(self, override: dict[Any, tuple[Any, ...]] | None = None
               ) -> Callable[[Any], list[Any]]:
        def edges(x: Any) -> list[Any]:
            if override and x in override:
                ds = override[x]
            else:
                t = self._tasks[x]
                ds = t.deps + t.optional
            return [d for d in ds if d in self._tasks or (override and d in override)]
        return edges

    # ---- propagation (rules 1, 5, 6, 7) ------------------------------------------------
    def _blocking_cause(self, t: _Task) -> Cause | None:
        """Rule 1: the cause from the first dead required dep in deps order, else None."""
        for d in t.deps:
            dt = self._tasks.get(d)
            if dt is not None and dt.state in DEAD:
                if dt.state is FAIL:
                    return Cause("failed", d, dt.generation)
                return dt.cause
        return None

    def _dependents(self) -> dict[Any, list[_Task]]:
        """Each id's direct dependents through required edges (one pass over the tasks)."""
        out: dict[Any, list[_Task]] = {}
        for t in self._tasks.values():
            for d in t.deps:
                out.setdefault(d, []).append(t)
        return out

    def _block_from(self, root: Any, cause: Cause) -> None:
        """Rules 5-7: every task reachable through current PENDING/READY dependents (required
        edges) becomes BLOCKED with the root's cause; stops at RUNNING and terminal tasks."""
        dependents = self._dependents()
        frontier = [root]
        while frontier:
            x = frontier.pop()
            for t in dependents.get(x, ()):
                if t.state in (P, R):
                    t.state, t.cause = BLK, cause
                    frontier.append(t.task_id)

    def _settle(self) -> None:
        """Readiness from scratch: PENDING/READY is READY iff required deps SUCCEEDED and
        optional deps are terminal (rules 1, 4, 7)."""
        for t in self._tasks.values():
            if t.state in (P, R):
                t.state = R if self._ready_now(t) else P

    # ---- rule 1 / 7: submit --------------------------------------------------------------
    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (),
               fn: Callable[..., Any] | None = None, *,
               optional: Iterable[Hashable] = ()) -> int:
        """Rule 1 (and 7 for a known id): returns the new generation."""
        require_hashable(task_id, "task_id")
        req = parse_deps(deps, "deps", task_id)
        opt = parse_deps(optional, "optional", task_id)
        if fn is not None and not callable(fn):
            raise TypeError(f"fn of {task_id!r} must be callable or None, got "
                            f"{type(fn).__name__} {fn!r}")
        both = [d for d in opt if d in req]
        if both:
            raise ValueError(f"{both[0]!r} is both a required and an optional dependency of "
                             f"{task_id!r}; list it in only one of deps/optional")
        if self._closed:
            raise ClosedError(f"cannot submit {task_id!r}: the scheduler is closed")
        old = self._tasks.get(task_id)
        if old is not None and old.state is RUN:
            raise ConflictError(task_id, old.generation)
        if self._started:
            self._validate_edges(task_id, req + opt)
        self._resubmit([(task_id, req, opt, fn)])
        return self._tasks[task_id].generation

    def _validate_edges(self, task_id: Any, new: tuple[Any, ...]) -> None:
        """Rule 7 after start: known deps (or itself), and no cycle through the new edges."""
        missing = [d for d in new if d not in self._tasks and d != task_id]
        if missing:
            raise UnknownDependencyError(task_id, missing)
        cycle = find_cycle([task_id], self._edges({task_id: new}))
        if cycle is not None:
            raise CycleError(cycle)

    def _resubmit(self, batch: list[tuple[Any, tuple[Any, ...], tuple[Any, ...],
                                          Callable[..., Any] | None]]) -> None:
        """New generations for ``batch`` (in stamp order), then their states in dependency
        order (D9), then the effects on dependents (rule 7)."""
        fresh = []
        for task_id, req, opt, fn in batch:
            t = self._tasks.get(task_id)
            if t is None:
                t = self._tasks[task_id] = _Task(task_id)
            self._seq += 1
            t.generation += 1
            t.seq, t.deps, t.optional, t.fn = self._seq, req, opt, fn
            t.state, t.cause, t.error, t.requested, t.optional_failed = P, None, None, False, ()
            fresh.append(t)
        ids = {t.task_id for t in fresh}
        todo = list(fresh)
        while todo:  # dependency order within the batch, ties in stamp order
            free = [t for t in todo
                    if not any(d in ids and d != t.task_id and self._tasks[d] in todo
                               for d in t.deps)]
            now = free or todo  # all of `todo`: a cycle inside the batch (only before start)
            for t in now:
                self._decide(t)
            todo = [t for t in todo if t not in now]
        self._settle()

    def _decide(self, t: _Task) -> None:
        cause = self._blocking_cause(t)
        if cause is not None:
            t.state, t.cause = BLK, cause
            self._block_from(t.task_id, cause)

    # ---- rule 2: start -------------------------------------------------------------------
    def start(self) -> None:
        """Rule 2: unknown deps first (first task in submission sequence), then cycles."""
        if self._closed and not self._started:
            raise ClosedError("cannot start(): the scheduler was closed before it started")
        if self._started:
            return
        for t in sorted(self._tasks.values(), key=lambda t: t.seq):
            missing = [d for d in t.deps + t.optional if d not in self._tasks]
            if missing:
                raise UnknownDependencyError(t.task_id, missing)
        order = [t.task_id for t in sorted(self._tasks.values(), key=lambda t: t.seq)]
        cycle = find_cycle(order, self._edges())
        if cycle is not None:
            raise CycleError(cycle)
        self._started = True

    # ---- rule 3: ready -------------------------------------------------------------------
    def ready(self, limit: int | None = None) -> list[Claim]:
        """Rule 3: READY tasks in submission sequence, made RUNNING in the same step."""
        if limit is not None:
            require_int(limit, "limit", minimum=0)
        if not self._started:
            raise NotStartedError("ready() before start(): call start() first")
        if self._closed:
            return []
        running = sum(1 for t in self._tasks.values() if t.state is RUN)
        n = self.max_concurrency - running
        if limit is not None:
            n = min(n, limit)
        queue = sorted((t for t in self._tasks.values() if t.state is R), key=lambda t: t.seq)
        claims = []
        for t in queue[:max(n, 0)]:
            t.state = RUN
            t.optional_failed = self._optional_dead(t)
            claims.append(Claim(t.task_id, t.generation, t.fn))
        return claims

    # ---- rules 4-6: the table ------------------------------------------------------------
    def _apply(self, call: str, task_id: Hashable, generation: int | None,
               error: Any = None) -> Reply:
        g = None if generation is None else self._gen(generation)
        t = self._get(task_id)
        if g is not None and g != t.generation:
            return Reply(Outcome.STALE, t.state)
        hit = TRANSITIONS.get((call, t.state, t.requested))
        if hit is None:
            return Reply(Outcome.REJECTED, t.state)
        outcome, nxt = hit
        if outcome is Outcome.APPLIED:
            t.state = nxt
            if nxt is CAN:
                t.cause = Cause("cancelled", t.task_id, t.generation)
            if call == "fail":
                t.error = error
            if nxt in DEAD:  # rules 5-6: the root cause of every task this blocks
                root = t.cause if nxt is CAN else Cause("failed", t.task_id, t.generation)
                assert root is not None
                self._block_from(t.task_id, root)
            self._settle()
        elif outcome is Outcome.REQUESTED:
            t.requested = True
        return Reply(outcome, t.state)

    def complete(self, task_id: Hashable, generation: int) -> Reply:
        """Rule 4: RUNNING -> SUCCEEDED; PENDING dependents READY once all deps succeeded."""
        return self._apply("complete", task_id, require_int(generation, "generation"))

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> Reply:
        """Rule 5: RUNNING -> FAILED (CANCELLED after a request); dependents BLOCKED."""
        return self._apply("fail", task_id, require_int(generation, "generation"), error)

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        """Rule 6: PENDING/READY -> CANCELLED; RUNNING -> request recorded (cooperative)."""
        return self._apply("cancel", task_id, generation)

    # ---- rule 8: close -------------------------------------------------------------------
    def close(self) -> list[Any]:
        """Rule 8: PENDING/READY -> CANCELLED (shutdown), ids in submission sequence."""
        if self._closed:
            return []
        self._closed = True
        hit = sorted((t for t in self._tasks.values() if t.state in (P, R)),
                     key=lambda t: t.seq)
        for t in hit:
            t.state, t.cause = CAN, Cause("shutdown", t.task_id, t.generation)
        return [t.task_id for t in hit]

    # ---- extensions ----------------------------------------------------------------------
    def add_dependency(self, task_id: Hashable, dep: Hashable) -> Reply:
        """Extension (D8): a new required edge while PENDING (or READY before start)."""
        require_hashable(task_id, "task_id")
        require_hashable(dep, "dep")
        if self._closed:
            raise ClosedError(f"cannot add a dependency to {task_id!r}: the scheduler is closed")
        t = self._get(task_id)
        if not (t.state is P or (t.state is R and not self._started)):
            return Reply(Outcome.REJECTED, t.state)
        if dep in t.deps or dep in t.optional:
            return Reply(Outcome.DUPLICATE, t.state)
        if self._started:
            self._validate_edges(task_id, t.deps + t.optional + (dep,))
        t.deps = (*t.deps, dep)
        cause = self._blocking_cause(t)
        if cause is not None:
            t.state, t.cause = BLK, cause
            self._block_from(task_id, cause)
        self._settle()
        return Reply(Outcome.APPLIED, t.state)

    def retry(self, task_id: Hashable, cascade: bool = True) -> dict[Any, int]:
        """Extension (D9): resubmit a dead task (and its BLOCKED subtree) with the same deps."""
        require_hashable(task_id, "task_id")
        if self._closed:
            raise ClosedError(f"cannot retry {task_id!r}: the scheduler is closed")
        root = self._get(task_id)
        if root.state not in DEAD:
            return {}
        chosen = {task_id: root}
        dependents = self._dependents()
        frontier = [task_id]
        while cascade and frontier:
            x = frontier.pop()
            for t in dependents.get(x, ()):
                if t.state is BLK and t.task_id not in chosen:
                    chosen[t.task_id] = t
                    frontier.append(t.task_id)
        batch = sorted(chosen.values(), key=lambda t: t.seq)
        self._resubmit([(t.task_id, t.deps, t.optional, t.fn) for t in batch])
        return {t.task_id: t.generation for t in batch}

    # ---- checking helpers ----------------------------------------------------------------
    def snapshot(self) -> tuple[Any, ...]:
        return (self.max_concurrency, self._started, self._closed, self._seq,
                tuple(t.row() for t in self._tasks.values()))

    def copy(self) -> Scheduler:
        s = Scheduler.__new__(Scheduler)
        s.max_concurrency, s._seq = self.max_concurrency, self._seq
        s._started, s._closed = self._started, self._closed
        s._tasks = {k: t.copy() for k, t in self._tasks.items()}
        return s

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scheduler):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def check_invariants(self) -> None:
        """Every invariant of specs/scheduler.md section 4; AssertionError with a story naming
        the task."""
        running = 0
        for t in self._tasks.values():
            who = f"{t.task_id!r} g{t.generation}"
            running += t.state is RUN
            if t.state in (P, R):
                for d in t.deps:
                    dt = self._tasks.get(d)
                    assert dt is None or dt.state not in DEAD, (
                        f"{who} :: {t.state.name} with dead dep {d!r} g{dt.generation} "
                        f"({dt.state.name})")
                assert (t.state is R) == self._ready_now(t), (
                    f"{who} :: {t.state.name} but its deps say otherwise")
                assert not self._closed, f"{who} :: {t.state.name} after close()"
            if t.state is BLK:
                assert t.cause is not None and t.cause.kind in ("failed", "cancelled"), (
                    f"{who} :: BLOCKED with cause {t.cause!r}")
            elif t.state is CAN:
                assert t.cause is not None and t.cause.kind in ("cancelled", "shutdown") and (
                    t.cause.task_id == t.task_id and t.cause.generation == t.generation), (
                    f"{who} :: CANCELLED with cause {t.cause!r}")
            else:
                assert t.cause is None, f"{who} :: {t.state.name} with cause {t.cause!r}"
            assert not t.requested or t.state in (RUN, OK, CAN), (
                f"{who} :: cancel requested but {t.state.name}")
            assert not (set(t.deps) & set(t.optional)), f"{who} :: dep both required and optional"
            assert t.state is not RUN or self._started, f"{who} :: RUNNING before start()"
        assert running <= self.max_concurrency, (
            f"{running} RUNNING > max_concurrency {self.max_concurrency}")
        if self._started:
            for t in self._tasks.values():
                for d in t.deps + t.optional:
                    assert d in self._tasks, f"{t.task_id!r} :: unknown dep {d!r} after start()"
            assert find_cycle(list(self._tasks), self._edges()) is None, "cycle after start()"

    def __repr__(self) -> str:
        body = ", ".join(f"{t.task_id!r}:g{t.generation}:{t.state.name}"
                         for t in self._tasks.values())
        return f"<model.Scheduler max_concurrency={self.max_concurrency} {{{body}}}>"
