"""z3 lemmas of the task scheduler (specs/scheduler.md, invariants I0..I10), N = 1..5 tasks.

The state (:mod:`schedcheck.specs.sched_state`) and the transitions
(:mod:`schedcheck.specs.sched_transitions`) are z3 encodings of the transition table
(specs/scheduler.md section 3) and of the model's decisions. Rows of ``schedcheck prove``:

* ``sched-I0`` .. ``sched-I6`` -- base case (the empty scheduler, any max_concurrency) and
  inductive step: I0..I6 before any transition (submit/resubmit, start, claim, complete, fail,
  cancel request, cancel confirm, close) imply the invariant after it. For every N in 1..5
  (bounded: "outstanding equals the number of unsucceeded dependencies" counts, and blocking
  propagates along reachability -- neither is decidable for arbitrary N with arrays or
  uninterpreted sorts; the encoding is exact for N tasks, and five tasks already hold every
  shape of two-level propagation, diamonds and resubmits that the rules distinguish).
* ``sched-I7`` .. ``sched-I10`` -- step properties (terminal absorbing, a stale generation
  changes nothing, one claim per generation, a completion releases each PENDING direct
  dependent exactly once) for every transition from a state satisfying I0..I6, N in 1..5;
  ``sched-I7-anyN``, ``sched-I9-anyN`` also for an arbitrary number of tasks (arrays over
  an uninterpreted sort of task ids, the propagation over-approximated by "any set of
  PENDING/READY tasks", which only makes the claim stronger).
* ``sched-bmc`` -- from the initial state, every sequence of up to ``BMC_DEPTH`` calls on
  ``BMC_N`` tasks keeps I0..I6 (no reliance on inductiveness).
* ``mut-sched-*`` -- the seeds' mistakes; see :mod:`schedcheck.specs.sched_replay`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import z3
from schedcheck.specs._z3util import Lemma, Query
from schedcheck.specs.sched_replay import MUTATIONS, bmc_trace, describe_trace, replay_trace
from schedcheck.specs.sched_state import (
    BMC_DEPTH,
    BMC_N,
    INVARIANTS,
    MAX_N,
    STEP_INVARIANTS,
    Z3,
    View,
    all_invariants,
    fresh_view,
    initial_view,
)
from schedcheck.specs.sched_transitions import TRANSITIONS, transition

__all__ = ["LEMMAS"]

_S = "scheduler"
_K0 = z3.IntVal(0)  # by symmetry (see sched_transitions.transition)
_WHY = ("counting unsucceeded dependencies and reachability of blocking are not decidable "
        "for arbitrary N; the encoding is exact for N tasks")


@functools.cache
def _steps(n: int) -> list[tuple[str, View, Any, list[Any], View, Any]]:
    """(name, pre, I0..I6 of pre, preconditions, post, call) per transition, built once per N
    and shared by every lemma row (the terms are hash-consed by z3 anyway)."""
    out = []
    for name in TRANSITIONS:
        pre = fresh_view(n, "pre")
        (conds, post, call), _args = transition(name, pre, "t", k=_K0)
        out.append((name, pre, all_invariants(pre, Z3), conds, post, call))
    return out


def _inductive(pred: Callable[[Any, Any], Any]) -> Callable[[], list[Query]]:
    def build() -> list[Query]:
        out = []
        for n in range(1, MAX_N + 1):
            mc = z3.Int("max_conc")
            init = initial_view(n, mc)
            out.append(Query([mc >= 0], pred(init, Z3), label=f"N={n} base case"))
            for name, _pre, inv, conds, post, _call in _steps(n):
                out.append(Query([inv, *conds], pred(post, Z3), label=f"N={n} {name}"))
        return out
    return build


def _step(pred: Callable[[Any, Any, Any, Any], Any]) -> Callable[[], list[Query]]:
    def build() -> list[Query]:
        out = []
        for n in range(1, MAX_N + 1):
            for name, pre, inv, conds, post, call in _steps(n):
                out.append(Query([inv, *conds], pred(pre, post, call, Z3),
                                 label=f"N={n} {name}"))
        return out
    return build


def _bmc() -> Iterator[Query]:
    for depth in range(1, BMC_DEPTH + 1):
        hyps, views, steps = bmc_trace(BMC_N, depth)
        q = Query(hyps, all_invariants(views[-1], Z3), label=f"N={BMC_N} depth {depth}",
                  data={"views": views, "steps": steps})
        q.describe = describe_trace(q)
        yield q


# ---------------------------------------------------------------------------------------
# Arbitrary N: the local step properties, with arrays over an uninterpreted sort of ids
# ---------------------------------------------------------------------------------------

_TASK = z3.DeclareSort("TaskId")


def _any_n(which: str) -> Callable[[], list[Query]]:
    """I7/I9 for any number of tasks: complete/fail/cancel change the named task as the
    table says, and (over-approximating propagation and release) may move any other
    PENDING/READY task to READY/PENDING/BLOCKED; nothing else changes."""
    def build() -> list[Query]:
        out = []
        for call in ("complete", "fail", "cancel", "claim", "close"):
            state = z3.Array("state", _TASK, z3.IntSort())
            gen = z3.Array("gen", _TASK, z3.IntSort())
            req = z3.Array("req", _TASK, z3.BoolSort())
            k, i = z3.Const("k", _TASK), z3.Const("i", _TASK)
            g, given = z3.Int("g"), z3.Bool("given")
            other = z3.Function("other_next", _TASK, z3.IntSort())  # any choice per task
            s_k, r_k = state[k], req[k]
            stale = g != gen[k]
            if call == "cancel":
                stale = z3.And(given, stale)
            if call in ("claim", "close"):
                stale = z3.BoolVal(False)
            own = {
                "complete": z3.If(s_k == 2, 3, s_k),
                "fail": z3.If(s_k == 2, z3.If(r_k, 6, 4), s_k),
                "cancel": z3.If(z3.Or(s_k == 0, s_k == 1), 6, s_k),
                "claim": z3.If(s_k == 1, 2, s_k),
                "close": z3.If(z3.Or(s_k == 0, s_k == 1), 6, s_k),
            }[call]
            moved = z3.If(z3.Or(state[i] == 0, state[i] == 1),
                          z3.If(z3.Or(other(i) == 0, other(i) == 1, other(i) == 5),
                                other(i), state[i]), state[i])
            if call == "close":
                moved = z3.If(z3.Or(state[i] == 0, state[i] == 1), 6, state[i])
            if call == "claim":
                moved = state[i]
            nxt_i = z3.If(stale, state[i], z3.If(i == k, own, moved))
            hyps = [z3.ForAll([i], z3.And(state[i] >= 0, state[i] <= 6))]
            gen_same = z3.BoolVal(True)  # none of these calls makes a new generation
            if which == "I7":
                claim = z3.Implies(z3.And(gen_same, state[i] >= 3), nxt_i == state[i])
            elif which == "I8":
                claim = z3.Implies(stale, nxt_i == state[i])
            else:
                claim = z3.Implies(z3.And(gen_same, state[i] >= 2),
                                   z3.And(nxt_i != 0, nxt_i != 1))
            out.append(Query(hyps, claim, label=f"any N, {call}"))
        return out
    return build


@functools.cache
def _epr_sorts() -> tuple[Any, Any, tuple[Any, ...]]:
    """z3 declares an enumeration sort once per context: build it once."""
    st, values = z3.EnumSort("St", ["P", "R", "RUN", "OK", "FAIL", "BLK", "CAN"])
    return z3.DeclareSort("TaskId"), st, tuple(values)


def _any_n_i5() -> list[Query]:
    """I5 -- the contract's invariant -- for any number of tasks, in EPR (effectively
    propositional: an uninterpreted sort of ids, predicates and functions into finite sorts
    only, so decidable). Blocking propagation is a set B of PENDING/READY tasks *closed* under
    "depends on the root or on a member of B" -- any closed set, the least one included, so the
    claim covers the exact propagation. Resubmit and complete over-approximate the release and
    the READY -> PENDING move (any such dependent may take the new state)."""
    task, st, (p, r, run, ok, fail, blk, can) = _epr_sorts()
    out = []
    for call in ("submit", "claim", "complete", "fail", "cancel", "close"):
        state = z3.Function("state", task, st)
        nxt = z3.Function("next", task, st)
        ex = z3.Function("exists", task, z3.BoolSort())
        ex2 = z3.Function("exists_next", task, z3.BoolSort())
        dep = z3.Function("dep", task, task, z3.BoolSort())
        dep2 = z3.Function("dep_next", task, task, z3.BoolSort())
        in_b = z3.Function("B", task, z3.BoolSort())
        deps = z3.Function("D", task, z3.BoolSort())
        k = z3.Const("k", task)
        i, j = z3.Consts("i j", task)

        def live(sf: Any, ef: Any, x: Any) -> Any:
            return z3.And(ef(x), z3.Or(sf(x) == p, sf(x) == r))

        def dead(sf: Any, ef: Any, x: Any) -> Any:
            return z3.And(ef(x), z3.Or(sf(x) == fail, sf(x) == blk, sf(x) == can))

        hyps: list[Any] = [z3.ForAll([i, j], z3.Implies(
            z3.And(live(state, ex, i), dep(i, j)), z3.Not(dead(state, ex, j))))]
        blocking = z3.Bool("blocking")  # this call blocks the dependents of k
        hyps += [
            z3.ForAll([i], z3.Implies(in_b(i), z3.And(blocking, live(state, ex, i), i != k))),
            z3.ForAll([i, j], z3.Implies(z3.And(blocking, live(state, ex, i), i != k, dep(i, j),
                                                z3.Or(j == k, in_b(j))), in_b(i)))]
        same = [z3.ForAll([i, j], dep2(i, j) == dep(i, j)), z3.ForAll([i], ex2(i) == ex(i))]
        others_blocked = z3.ForAll([i], z3.Implies(i != k, nxt(i) == z3.If(
            in_b(i), blk, state(i))))
        if call == "submit":
            hyps += [z3.ForAll([i], ex2(i) == z3.Or(ex(i), i == k)),
                     z3.ForAll([i, j], dep2(i, j) == z3.If(i == k, deps(j), dep(i, j))),
                     z3.Not(z3.And(ex(k), state(k) == run)),
                     blocking == z3.Exists([j], z3.And(deps(j), j != k, dead(state, ex, j))),
                     z3.Implies(blocking, nxt(k) == blk),
                     z3.Implies(z3.Not(blocking), z3.Or(nxt(k) == p, nxt(k) == r)),
                     z3.ForAll([i], z3.Implies(i != k, z3.Or(
                         nxt(i) == z3.If(in_b(i), blk, state(i)),
                         z3.And(z3.Not(blocking), live(state, ex, i), dep(i, k),
                                nxt(i) == p))))]
        elif call in ("fail", "cancel"):
            own = (z3.And(state(k) == run, z3.Or(nxt(k) == fail, nxt(k) == can))
                   if call == "fail" else z3.And(live(state, ex, k), nxt(k) == can))
            hyps += [ex(k), blocking, own, others_blocked, *same]
        elif call == "complete":
            hyps += [ex(k), state(k) == run, nxt(k) == ok, z3.Not(blocking), *same,
                     z3.ForAll([i], z3.Implies(i != k, z3.Or(nxt(i) == state(i), z3.And(
                         state(i) == p, dep(i, k), nxt(i) == r))))]
        elif call == "claim":
            hyps += [ex(k), state(k) == r, nxt(k) == run, z3.Not(blocking), others_blocked,
                     *same]
        else:  # close
            hyps += [z3.Not(blocking), *same, z3.ForAll([i], nxt(i) == z3.If(
                live(state, ex, i), can, state(i)))]
        claim = z3.ForAll([i, j], z3.Implies(z3.And(live(nxt, ex2, i), dep2(i, j)),
                                             z3.Not(dead(nxt, ex2, j))))
        out.append(Query(hyps, claim, label=f"any N, {call}"))
    return out


def _lemmas() -> tuple[Lemma, ...]:
    rows: list[Lemma] = []
    for iid, says, pred in INVARIANTS:
        rows.append(Lemma(f"sched-{iid}", "lemma", _S, f"{iid}: {says} (base + inductive "
                          "step over every transition)", _inductive(pred),
                          bounded_n=MAX_N, why_bounded=_WHY))
    for iid, says, spred in STEP_INVARIANTS:
        rows.append(Lemma(f"sched-{iid}", "lemma", _S, f"{iid}: {says}", _step(spred),
                          bounded_n=MAX_N, why_bounded=_WHY))
        if iid in ("I7", "I9"):  # local to the named task; I8/I10 there would restate the rule
            rows.append(Lemma(f"sched-{iid}-anyN", "lemma", _S,
                              f"{iid} for any number of tasks (arrays, uninterpreted ids)",
                              _any_n(iid)))
    rows.append(Lemma("sched-I5-anyN", "lemma", _S, "I5 (the contract's invariant) for any "
                      "number of tasks: blocking as a closed set (EPR, decidable)", _any_n_i5))
    rows.append(Lemma("sched-bmc", "bmc", _S, f"every trace of <= {BMC_DEPTH} calls on "
                      f"{BMC_N} tasks from the empty scheduler keeps I0..I6", _bmc,
                      bounded_n=BMC_N, why_bounded=f"bounded model check: {BMC_N} tasks, "
                      f"depth {BMC_DEPTH}"))
    for m in MUTATIONS:
        rows.append(Lemma(m.name, "mutation", _S, m.says, m.build, replay_trace(m),
                          bounded_n=m.n, why_bounded="a witness: the shortest trace from "
                          "the empty scheduler"))
    return tuple(rows)


LEMMAS: tuple[Lemma, ...] = _lemmas()
