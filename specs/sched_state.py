"""The scheduler's state over N task ids and its invariants I0..I10, written once.

Part of the z3 lemmas of specs/lemmas_scheduler.py (read that docstring first). A
:class:`View` holds either z3 terms (the encoding) or plain Python values (built from
``schedcheck.model.Scheduler`` by ``lemmas_scheduler.view_of_model``). Each invariant is a
function of a View and an :class:`Ops` (z3's ``And``/``Or``/``If``/``Sum`` or Python's), so the
formula z3 proves and the predicate the Hypothesis test evaluates on the executable model are
the same code; specs/scheduler.md lists the same numbers in words.

Per task: exists, state, generation, submission stamp, required-dependency row, outstanding
count, cause (kind, task, generation), cancel requested, and a ghost ``cok`` ("every
dependency had SUCCEEDED when this generation was claimed"); globally max_concurrency,
started, closed and the stamp counter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import z3

__all__ = ["INVARIANTS", "PY", "STEP_INVARIANTS", "Z3", "Call", "Ops", "View"]

P, R, RUN, OK, FAIL, BLK, CAN = range(7)
STATE_NAMES = ("PENDING", "READY", "RUNNING", "SUCCEEDED", "FAILED", "BLOCKED", "CANCELLED")
DEAD_S = (FAIL, BLK, CAN)
TERMINAL_S = (OK, FAIL, BLK, CAN)
CK_NONE, CK_FAILED, CK_CANCELLED, CK_SHUTDOWN = range(4)
CK_NAMES = (None, "failed", "cancelled", "shutdown")

MAX_N = 5  #: the inductive lemmas are proved for every N in 1..MAX_N
BMC_N, BMC_DEPTH = 3, 4


# ----------------------------------------------------------------------------------------
# Ops: the same predicate on z3 terms and on Python values
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ops:
    And: Callable[..., Any]
    Or: Callable[..., Any]
    Not: Callable[[Any], Any]
    Implies: Callable[[Any, Any], Any]
    If: Callable[[Any, Any, Any], Any]
    Sum: Callable[[list[Any]], Any]
    select: Callable[[list[Any], Any], Any]


def _z3_select(xs: list[Any], idx: Any) -> Any:
    out = xs[-1]
    for i in range(len(xs) - 2, -1, -1):
        out = z3.If(idx == i, xs[i], out)
    return out


Z3 = Ops(
    And=lambda *a: z3.And(*a) if a else z3.BoolVal(True),
    Or=lambda *a: z3.Or(*a) if a else z3.BoolVal(False),
    Not=z3.Not,
    Implies=z3.Implies,
    If=z3.If,
    Sum=lambda xs: z3.Sum(xs) if xs else z3.IntVal(0),
    select=_z3_select,
)
PY = Ops(
    And=lambda *a: all(a),
    Or=lambda *a: any(a),
    Not=lambda a: not a,
    Implies=lambda a, b: (not a) or bool(b),
    If=lambda c, a, b: a if c else b,
    Sum=lambda xs: sum(xs),
    select=lambda xs, i: xs[i],
)


@dataclass
class View:
    """The scheduler's state over N task ids (z3 terms or Python values)."""

    n: int
    exists: list[Any]
    state: list[Any]
    gen: list[Any]
    seq: list[Any]
    dep: list[list[Any]]  #: dep[i][j]: task i requires task j
    out: list[Any]  #: outstanding: dependencies not SUCCEEDED (PENDING/READY tasks)
    ck: list[Any]  #: cause kind (CK_*)
    ct: list[Any]  #: cause task index
    cg: list[Any]  #: cause generation
    req: list[Any]  #: cancel requested while this generation ran
    cok: list[Any]  #: ghost: every dependency SUCCEEDED when this generation was claimed
    max_conc: Any
    started: Any
    closed: Any
    counter: Any  #: the last submission stamp handed out

    def replace(self, **kw: Any) -> View:
        return dataclasses.replace(self, **kw)


def fresh_view(n: int, tag: str) -> View:
    def ints(f: str) -> list[Any]:
        return [z3.Int(f"{f}{i}_{tag}") for i in range(n)]

    def bools(f: str) -> list[Any]:
        return [z3.Bool(f"{f}{i}_{tag}") for i in range(n)]

    return View(n, bools("exists"), ints("state"), ints("gen"), ints("seq"),
                [[z3.Bool(f"dep{i}_{j}_{tag}") for j in range(n)] for i in range(n)],
                ints("out"), ints("ck"), ints("ct"), ints("cg"), bools("req"), bools("cok"),
                z3.Int(f"max_conc_{tag}"), z3.Bool(f"started_{tag}"), z3.Bool(f"closed_{tag}"),
                z3.Int(f"counter_{tag}"))


def initial_view(n: int, max_conc: Any) -> View:
    f, zero = z3.BoolVal(False), z3.IntVal(0)
    return View(n, [f] * n, [z3.IntVal(P)] * n, [zero] * n, [zero] * n,
                [[f] * n for _ in range(n)], [zero] * n, [z3.IntVal(CK_NONE)] * n,
                [zero] * n, [zero] * n, [f] * n, [f] * n, max_conc, f, f, zero)


# ----------------------------------------------------------------------------------------
# The invariants, written once
# ----------------------------------------------------------------------------------------


def _in(o: Ops, x: Any, vals: Sequence[int]) -> Any:
    return o.Or(*[x == v for v in vals])


def live(v: View, o: Ops, i: int) -> Any:
    """A current generation that is PENDING or READY."""
    return o.And(v.exists[i], _in(o, v.state[i], (P, R)))


def succeeded(v: View, o: Ops, j: int) -> Any:
    return o.And(v.exists[j], v.state[j] == OK)


def dead(v: View, o: Ops, j: int) -> Any:
    return o.And(v.exists[j], _in(o, v.state[j], DEAD_S))


def not_succeeded_deps(v: View, o: Ops, i: int) -> Any:
    return o.Sum([o.If(o.And(v.dep[i][j], o.Not(succeeded(v, o, j))), 1, 0)
                  for j in range(v.n)])


def running(v: View, o: Ops) -> Any:
    return o.Sum([o.If(o.And(v.exists[i], v.state[i] == RUN), 1, 0) for i in range(v.n)])


def i0_well_formed(v: View, o: Ops) -> Any:
    parts = [v.max_conc >= 0, v.counter >= 0]
    for i in range(v.n):
        s = v.state[i]
        parts += [
            o.Implies(o.Not(v.exists[i]), o.And(v.gen[i] == 0, s == P, v.ck[i] == CK_NONE,
                                                o.Not(v.req[i]), o.Not(v.cok[i]))),
            o.Implies(v.exists[i], o.And(v.gen[i] >= 1, s >= P, s <= CAN, v.seq[i] >= 1,
                                         v.seq[i] <= v.counter)),
            v.ct[i] >= 0, v.ct[i] < v.n,
            o.Implies(s == CAN, o.And(_in(o, v.ck[i], (CK_CANCELLED, CK_SHUTDOWN)),
                                      v.ct[i] == i, v.cg[i] == v.gen[i])),
            o.Implies(_in(o, s, (P, R, RUN, OK, FAIL)), v.ck[i] == CK_NONE),
            o.Implies(v.ck[i] == CK_SHUTDOWN, v.closed),
            o.Implies(v.req[i], _in(o, s, (RUN, OK, CAN))),
            o.Implies(o.And(v.exists[i], s == RUN), v.started),
            o.Implies(v.closed, o.Not(live(v, o, i))),
        ]
    return o.And(*parts)


def i1_outstanding(v: View, o: Ops) -> Any:
    return o.And(*[o.Implies(live(v, o, i), v.out[i] == not_succeeded_deps(v, o, i))
                   for i in range(v.n)])


def i2_ready_iff_zero(v: View, o: Ops) -> Any:
    return o.And(*[o.Implies(live(v, o, i), (v.state[i] == R) == (v.out[i] == 0))
                   for i in range(v.n)])


def i3_limit(v: View, o: Ops) -> Any:
    return running(v, o) <= v.max_conc


def i4_claimed_deps(v: View, o: Ops) -> Any:
    return o.And(*[o.Implies(o.And(v.exists[i], _in(o, v.state[i], (RUN, OK))), v.cok[i])
                   for i in range(v.n)])


def i5_no_dead_dep(v: View, o: Ops) -> Any:
    return o.And(*[o.Implies(o.And(live(v, o, i), v.dep[i][j]), o.Not(dead(v, o, j)))
                   for i in range(v.n) for j in range(v.n)])


def i6_blocked_root(v: View, o: Ops) -> Any:
    parts = []
    for i in range(v.n):
        r = v.ct[i]
        root_state = o.select(v.state, r)
        root_gen = o.select(v.gen, r)
        parts.append(o.Implies(o.And(v.exists[i], v.state[i] == BLK), o.And(
            _in(o, v.ck[i], (CK_FAILED, CK_CANCELLED)), o.select(v.exists, r),
            v.cg[i] >= 1, v.cg[i] <= root_gen,
            o.Implies(v.cg[i] == root_gen,
                      root_state == o.If(v.ck[i] == CK_FAILED, FAIL, CAN)))))
    return o.And(*parts)


Predicate = Callable[[View, Ops], Any]

#: (id, one line, predicate) -- the numbers specs/scheduler.md and the tests cite
INVARIANTS: tuple[tuple[str, str, Predicate], ...] = (
    ("I0", "well-formed: causes match states, RUNNING only after start, nothing live after "
     "close", i0_well_formed),
    ("I1", "a PENDING/READY task's outstanding count is its number of dependencies not "
     "SUCCEEDED", i1_outstanding),
    ("I2", "a PENDING/READY task is READY iff its outstanding count is 0", i2_ready_iff_zero),
    ("I3", "RUNNING tasks never exceed max_concurrency", i3_limit),
    ("I4", "a RUNNING or SUCCEEDED generation had every dependency SUCCEEDED when claimed",
     i4_claimed_deps),
    ("I5", "no PENDING/READY task has a dead (FAILED/BLOCKED/CANCELLED) dependency",
     i5_no_dead_dep),
    ("I6", "a BLOCKED task's cause is a FAILED or CANCELLED root (that generation of it)",
     i6_blocked_root),
)


def all_invariants(v: View, o: Ops) -> Any:
    return o.And(*[p(v, o) for _, _, p in INVARIANTS])


@dataclass(frozen=True)
class Call:
    """The call a transition makes (for the step properties)."""

    op: str
    k: Any = None
    g: Any = None
    given: Any = None  #: cancel(id, g) with g given (not None)


def _same_task(a: View, b: View, o: Ops, i: int) -> Any:
    return o.And(a.exists[i] == b.exists[i], a.state[i] == b.state[i], a.gen[i] == b.gen[i],
                 a.req[i] == b.req[i], a.ck[i] == b.ck[i], a.out[i] == b.out[i])


def i7_terminal_absorbing(pre: View, post: View, call: Call, o: Ops) -> Any:
    return o.And(*[o.Implies(o.And(pre.exists[i], post.gen[i] == pre.gen[i],
                                   _in(o, pre.state[i], TERMINAL_S)),
                             post.state[i] == pre.state[i]) for i in range(pre.n)])


def i8_stale_no_change(pre: View, post: View, call: Call, o: Ops) -> Any:
    if call.op not in ("complete", "fail", "confirm", "cancel"):
        return True
    stale = call.g != o.select(pre.gen, call.k)
    if call.op == "cancel":
        stale = o.And(call.given, stale)
    return o.Implies(stale, o.And(*[_same_task(pre, post, o, i) for i in range(pre.n)]))


def i9_claimed_once(pre: View, post: View, call: Call, o: Ops) -> Any:
    return o.And(*[o.Implies(o.And(pre.exists[i], post.gen[i] == pre.gen[i],
                                   _in(o, pre.state[i], (RUN, *TERMINAL_S))),
                             o.Not(_in(o, post.state[i], (P, R)))) for i in range(pre.n)])


def i10_release_once(pre: View, post: View, call: Call, o: Ops) -> Any:
    if call.op != "complete":
        return True
    k = call.k
    applied = o.And(call.g == o.select(pre.gen, k), o.select(pre.state, k) == RUN)
    parts = []
    for i in range(pre.n):
        hit = o.And(pre.state[i] == P, o.select(pre.dep[i], k))
        parts.append(o.Implies(o.And(applied, o.Not(k == i), pre.exists[i]), o.And(
            o.Implies(live(pre, o, i), post.out[i] == pre.out[i] - o.If(hit, 1, 0)),
            post.state[i] == o.If(o.And(hit, pre.out[i] == 1), R, pre.state[i]))))
    return o.And(*parts)


StepPredicate = Callable[[View, View, Call, Ops], Any]

STEP_INVARIANTS: tuple[tuple[str, str, StepPredicate], ...] = (
    ("I7", "a terminal generation never leaves its state", i7_terminal_absorbing),
    ("I8", "complete/fail/cancel naming a stale generation changes nothing",
     i8_stale_no_change),
    ("I9", "a generation that left READY (claimed) or ended never becomes PENDING/READY again: "
     "one claim per generation", i9_claimed_once),
    ("I10", "an applied complete releases each PENDING direct dependent exactly once (READY at "
     "zero) and changes no other task", i10_release_once),
)
