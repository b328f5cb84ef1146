"""The scheduler's transitions as z3 functions: View -> (preconditions, next View).

Part of the z3 lemmas (specs/lemmas_scheduler.py). One function per call that *succeeds*
(an error changes nothing, so it is no transition), following the transition table
(specs/scheduler.md section 3) and the model's decisions (specs/scheduler.md "Decisions").
The task a call names is a symbolic index ``k``; its generation argument ``g`` is a symbolic
int; a submit's dependency set ``D`` is N symbolic booleans.

``bmc=True`` adds what makes a trace replayable as real calls on the model: ``ready()`` claims
the READY task with the lowest submission stamp, ``start()`` and every submit after it keep
the graph closed (known deps) and acyclic (a rank per task that every edge decreases).

Mutated rules (the seeds' mistakes) are selected by ``mutation=``:
``"dup-complete"`` (a duplicate completion decrements dependents again), ``"no-generation"``
(complete/fail/cancel ignore the generation argument), ``"fail-as-success"`` (a failure
releases dependents as a success would), ``"no-limit"`` (a claim does not re-check
``running < max_concurrency``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3
from schedcheck.specs.sched_state import (
    BLK,
    CAN,
    CK_CANCELLED,
    CK_FAILED,
    CK_NONE,
    CK_SHUTDOWN,
    FAIL,
    OK,
    RUN,
    Z3,
    Call,
    P,
    R,
    View,
    dead,
    live,
    running,
    succeeded,
)

__all__ = ["TRANSITIONS", "Step", "merge", "transition"]

Step = tuple[list[Any], View, Call]  #: (preconditions, next view, the call)

_T, _F = z3.BoolVal(True), z3.BoolVal(False)


def _sel(xs: list[Any], k: Any) -> Any:
    return Z3.select(xs, k)


def merge(c: Any, a: View, b: View) -> View:
    """Field-wise ``If(c, a, b)``."""
    def m(x: Any, y: Any) -> Any:
        if isinstance(x, list):
            return [m(xi, yi) for xi, yi in zip(x, y)]
        return z3.If(c, x, y)
    return View(a.n, *[m(getattr(a, f), getattr(b, f)) for f in (
        "exists", "state", "gen", "seq", "dep", "out", "ck", "ct", "cg", "req", "cok",
        "max_conc", "started", "closed", "counter")])


def _upd(xs: list[Any], k: Any, new: Any, when: Any = True) -> list[Any]:
    return [z3.If(z3.And(k == i, when), new, x) for i, x in enumerate(xs)]


def propagate(v: View, roots: list[Any], ck: Any, ct: Any, cg: Any) -> View:
    """Rules 5-7: every task reachable from ``roots`` through PENDING/READY dependents becomes
    BLOCKED with the root's cause (``v`` already has the roots' own new states)."""
    n = v.n
    reach = [_F] * n
    for _ in range(n):
        reach = [z3.Or(reach[i], z3.And(live(v, Z3, i), z3.Or(*[
            z3.And(v.dep[i][j], z3.Or(roots[j], reach[j])) for j in range(n)])))
            for i in range(n)]
    return v.replace(
        state=[z3.If(reach[i], BLK, v.state[i]) for i in range(n)],
        ck=[z3.If(reach[i], ck, v.ck[i]) for i in range(n)],
        ct=[z3.If(reach[i], ct, v.ct[i]) for i in range(n)],
        cg=[z3.If(reach[i], cg, v.cg[i]) for i in range(n)])


def _release(v: View, k: Any) -> View:
    """Rule 4: each PENDING dependent of ``k`` loses one outstanding dependency; READY at 0."""
    n = v.n
    hit = [z3.And(k != i, v.exists[i], v.state[i] == P, _sel(v.dep[i], k)) for i in range(n)]
    out = [z3.If(hit[i], v.out[i] - 1, v.out[i]) for i in range(n)]
    return v.replace(out=out, state=[z3.If(z3.And(hit[i], out[i] == 0), R, v.state[i])
                                     for i in range(n)])


def _acyclic(v: View, tag: str) -> list[Any]:
    rank = [z3.Int(f"rank{i}_{tag}") for i in range(v.n)]
    return [z3.Implies(z3.And(v.exists[i], v.dep[i][j]), rank[j] < rank[i])
            for i in range(v.n) for j in range(v.n)]


def t_submit(v: View, k: Any, deps: list[Any], *, bmc: bool, tag: str) -> Step:
    """Rules 1 and 7: a new generation of ``k`` with required deps ``deps``."""
    n = v.n
    pre = [k >= 0, k < n, z3.Not(v.closed), z3.Not(z3.And(_sel(v.exists, k),
                                                          _sel(v.state, k) == RUN))]
    pre += [z3.Implies(z3.And(v.started, deps[j]), z3.And(v.exists[j], k != j))
            for j in range(n)]
    dead_dep = [z3.And(deps[j], k != j, dead(v, Z3, j)) for j in range(n)]
    succ_dep = [z3.And(deps[j], k != j, succeeded(v, Z3, j)) for j in range(n)]
    blocked = z3.Or(*dead_dep)
    ck, ct, cg = z3.IntVal(CK_NONE), z3.IntVal(0), z3.IntVal(0)
    for j in range(n - 1, -1, -1):  # the first dead dependency in deps order decides
        is_fail = v.state[j] == FAIL
        ck = z3.If(dead_dep[j], z3.If(is_fail, CK_FAILED, v.ck[j]), ck)
        ct = z3.If(dead_dep[j], z3.If(is_fail, j, v.ct[j]), ct)
        cg = z3.If(dead_dep[j], z3.If(is_fail, v.gen[j], v.cg[j]), cg)
    cnt = z3.Sum([z3.If(z3.And(deps[j], z3.Not(succ_dep[j])), 1, 0) for j in range(n)])
    new_state = z3.If(blocked, BLK, z3.If(cnt == 0, R, P))
    old_ok = z3.And(_sel(v.exists, k), _sel(v.state, k) == OK)
    gen = _sel(v.gen, k) + 1
    v1 = v.replace(
        exists=_upd(v.exists, k, _T), state=_upd(v.state, k, new_state),
        gen=_upd(v.gen, k, gen), seq=_upd(v.seq, k, v.counter + 1), counter=v.counter + 1,
        dep=[[z3.If(k == i, deps[j], v.dep[i][j]) for j in range(n)] for i in range(n)],
        out=_upd(v.out, k, cnt), ck=_upd(v.ck, k, ck), ct=_upd(v.ct, k, ct),
        cg=_upd(v.cg, k, cg), req=_upd(v.req, k, _F), cok=_upd(v.cok, k, _F))
    v_blocked = propagate(v1, [k == i for i in range(n)], ck, ct, cg)
    back = [z3.And(k != i, live(v1, Z3, i), _sel(v1.dep[i], k)) for i in range(n)]
    v_back = v1.replace(out=[z3.If(back[i], v1.out[i] + 1, v1.out[i]) for i in range(n)],
                        state=[z3.If(back[i], P, v1.state[i]) for i in range(n)])
    post = merge(blocked, v_blocked, merge(old_ok, v_back, v1))
    if bmc:
        pre += [z3.Implies(post.started, z3.And(*_acyclic(post, tag)))]
    return pre, post, Call("submit", k)


def t_start(v: View, *, bmc: bool, tag: str) -> Step:
    """Rule 2 (decision: start after close raises unless already started)."""
    pre = [z3.Or(z3.Not(v.closed), v.started)]
    if bmc:
        pre += [z3.Implies(z3.And(v.exists[i], v.dep[i][j]), v.exists[j])
                for i in range(v.n) for j in range(v.n)]
        pre += _acyclic(v, tag)
    return pre, v.replace(started=_T), Call("start")


def t_claim(v: View, k: Any, *, bmc: bool, mutation: str | None = None) -> Step:
    """Rule 3: one claim of ``ready()`` (a batch is a sequence of these in one step)."""
    n = v.n
    pre = [k >= 0, k < n, v.started, z3.Not(v.closed), _sel(v.exists, k),
           _sel(v.state, k) == R]
    if mutation != "no-limit":
        pre.append(running(v, Z3) < v.max_conc)
    if bmc:  # ready() takes READY tasks in submission sequence
        pre += [z3.Implies(z3.And(k != i, v.exists[i], v.state[i] == R),
                           v.seq[i] > _sel(v.seq, k)) for i in range(n)]
    row = [z3.Or(*[z3.And(k == i, v.dep[i][j]) for i in range(n)]) for j in range(n)]
    deps_ok = z3.And(*[z3.Implies(row[j], succeeded(v, Z3, j)) for j in range(n)])
    post = v.replace(state=_upd(v.state, k, RUN), cok=_upd(v.cok, k, deps_ok))
    return pre, post, Call("claim", k)


def t_complete(v: View, k: Any, g: Any, *, mutation: str | None = None) -> Step:
    """Rule 4: RUNNING -> SUCCEEDED, direct PENDING dependents released; else no change."""
    pre = [k >= 0, k < v.n, _sel(v.exists, k)]
    current = _T if mutation == "no-generation" else g == _sel(v.gen, k)
    st = _sel(v.state, k)
    applied = z3.And(current, st == RUN)
    post = _release(v.replace(state=_upd(v.state, k, OK)), k)
    if mutation == "dup-complete":  # the duplicate releases the dependents again
        post = merge(z3.And(current, st == OK), _release(v, k), post)
        applied = z3.Or(applied, z3.And(current, st == OK))
    return pre, merge(applied, post, v), Call("complete", k, g)


def t_fail(v: View, k: Any, g: Any, *, requested: bool | None = None,
           mutation: str | None = None) -> Step:
    """Rule 5: RUNNING -> FAILED (CANCELLED after a request, the cooperative confirm), then
    the root cause blocks every PENDING/READY task that depends on it."""
    pre = [k >= 0, k < v.n, _sel(v.exists, k)]
    if requested is not None:
        pre.append(_sel(v.req, k) == requested)
    current = _T if mutation == "no-generation" else g == _sel(v.gen, k)
    applied = z3.And(current, _sel(v.state, k) == RUN)
    req = _sel(v.req, k)
    gen = _sel(v.gen, k)
    if mutation == "fail-as-success":
        post = _release(v.replace(state=_upd(v.state, k, FAIL)), k)
    else:
        own = v.replace(state=_upd(v.state, k, z3.If(req, CAN, FAIL)),
                        ck=_upd(v.ck, k, z3.If(req, CK_CANCELLED, CK_NONE)),
                        ct=_upd(v.ct, k, z3.If(req, k, _sel(v.ct, k))),
                        cg=_upd(v.cg, k, z3.If(req, gen, _sel(v.cg, k))))
        post = propagate(own, [k == i for i in range(v.n)],
                         z3.If(req, CK_CANCELLED, CK_FAILED), k, gen)
    op = "fail" if requested is not True else "confirm"
    return pre, merge(applied, post, v), Call(op, k, g)


def t_cancel(v: View, k: Any, g: Any, given: Any, *, mutation: str | None = None) -> Step:
    """Rule 6: PENDING/READY -> CANCELLED (dependents blocked); RUNNING -> request recorded."""
    pre = [k >= 0, k < v.n, _sel(v.exists, k)]
    stale = _F if mutation == "no-generation" else z3.And(given, g != _sel(v.gen, k))
    st = _sel(v.state, k)
    gen = _sel(v.gen, k)
    is_live = z3.Or(st == P, st == R)
    own = v.replace(state=_upd(v.state, k, CAN), ck=_upd(v.ck, k, CK_CANCELLED),
                    ct=_upd(v.ct, k, k), cg=_upd(v.cg, k, gen))
    cancelled = propagate(own, [k == i for i in range(v.n)], z3.IntVal(CK_CANCELLED), k, gen)
    requested = v.replace(req=_upd(v.req, k, _T))
    post = merge(stale, v, merge(is_live, cancelled, merge(
        z3.And(st == RUN, z3.Not(_sel(v.req, k))), requested, v)))
    return pre, post, Call("cancel", k, g, given)


def t_close(v: View) -> Step:
    """Rule 8: every PENDING/READY task CANCELLED with cause shutdown; RUNNING untouched."""
    n = v.n
    hit = [z3.And(z3.Not(v.closed), live(v, Z3, i)) for i in range(n)]
    post = v.replace(closed=_T,
                     state=[z3.If(hit[i], CAN, v.state[i]) for i in range(n)],
                     ck=[z3.If(hit[i], CK_SHUTDOWN, v.ck[i]) for i in range(n)],
                     ct=[z3.If(hit[i], i, v.ct[i]) for i in range(n)],
                     cg=[z3.If(hit[i], v.gen[i], v.cg[i]) for i in range(n)])
    return [], post, Call("close")


#: the transition names, in the order of the lemma rows and of the BMC's ``op`` variable
TRANSITIONS: tuple[str, ...] = (
    "submit", "start", "claim", "complete", "fail", "confirm", "cancel", "close")


def transition(name: str, v: View, tag: str, *, bmc: bool = False,
               mutation: str | None = None, k: Any = None) -> tuple[Step, dict[str, Any]]:
    """The transition ``name`` from ``v`` with fresh symbolic arguments (returned by name).

    ``k`` fixes the task the call names; the inductive lemmas pass task 0: every invariant and
    every transition commutes with a renaming of the task indices, so "for all k" follows
    from "for k = 0" (and the queries lose an If-chain per field)."""
    if k is None:
        k = z3.Int(f"k_{tag}")
    g, given = z3.Int(f"g_{tag}"), z3.Bool(f"given_{tag}")
    deps = [z3.Bool(f"D{j}_{tag}") for j in range(v.n)]
    args: dict[str, Any] = {"k": k, "g": g, "given": given, "deps": deps}
    builders: dict[str, Callable[[], Step]] = {
        "submit": lambda: t_submit(v, k, deps, bmc=bmc, tag=tag),
        "start": lambda: t_start(v, bmc=bmc, tag=tag),
        "claim": lambda: t_claim(v, k, bmc=bmc, mutation=mutation),
        "complete": lambda: t_complete(v, k, g, mutation=mutation),
        "fail": lambda: t_fail(v, k, g, requested=False if not bmc else None,
                               mutation=mutation),
        "confirm": lambda: t_fail(v, k, g, requested=True, mutation=mutation),
        "cancel": lambda: t_cancel(v, k, g, given, mutation=mutation),
        "close": lambda: t_close(v),
    }
    return builders[name](), args
