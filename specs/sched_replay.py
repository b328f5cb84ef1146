"""Scheduler traces: bounded model checks, the seeds' mistakes, and their replay in the model.

Part of the z3 lemmas (specs/lemmas_scheduler.py). :func:`bmc_trace` unrolls ``depth`` steps
from the empty scheduler, each step any call (a symbolic ``op`` picks the transition). A
:class:`Mutation` appends one step with a mutated rule and asks z3 for the shortest trace that
breaks its target invariant. :func:`replay_trace` then replays z3's trace as real calls on a
subclass of ``schedcheck.model.Scheduler`` whose mutated behaviour is armed for the last call
only, compares the encoding's state with the model's after every call (so the encoding cannot
silently drift from the model), and evaluates the same invariant predicate on the model.

The model keeps no outstanding counters (it rescans edges); a mutation that miscounts
(``dup-complete``, ``fail-as-success``) keeps the count it would have stored in ``shadow`` --
what a counting implementation with that bug holds -- and :func:`view_of_model` reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import z3
from schedcheck.specs._z3util import Query, Replay
from schedcheck.specs.sched_state import (
    CK_NAMES,
    INVARIANTS,
    PY,
    STATE_NAMES,
    STEP_INVARIANTS,
    Z3,
    View,
    initial_view,
)
from schedcheck.specs.sched_transitions import merge, transition

__all__ = ["BMC_OPS", "MUTATIONS", "Mutation", "bmc_trace", "replay_trace", "view_of_model"]

BMC_OPS: tuple[str, ...] = ("submit", "start", "claim", "complete", "fail", "cancel", "close")


def bmc_trace(n: int, depth: int, *, mutation: str | None = None,
              mutated_op: str | None = None) -> tuple[list[Any], list[View], list[dict[str, Any]]]:
    """``depth`` free steps from the empty scheduler (then one mutated step, if asked)."""
    mc = z3.Int("max_conc")
    v = initial_view(n, mc)
    hyps: list[Any] = [mc >= 0, mc <= n]
    views, steps = [v], []
    for d in range(depth):
        tag = f"s{d}"
        op = z3.Int(f"op_{tag}")
        hyps += [op >= 0, op < len(BMC_OPS)]
        post, calls = v, {}
        args: dict[str, Any] = {}
        for idx, name in enumerate(BMC_OPS):
            (conds, p, call), args = transition(name, v, tag, bmc=True)
            hyps.append(z3.Implies(op == idx, z3.And(*conds)))
            post = merge(op == idx, p, post)
            calls[name] = call
        steps.append({"op": op, "ops": BMC_OPS, "calls": calls, **args})
        v = post
        views.append(v)
    if mutation is not None:
        assert mutated_op is not None
        (conds, p, call), args = transition(mutated_op, v, "mut", bmc=True, mutation=mutation)
        hyps += conds
        steps.append({"op": z3.IntVal(0), "ops": (mutated_op,), "calls": {mutated_op: call},
                      **args})
        views.append(p)
    return hyps, views, steps


# ---------------------------------------------------------------------------------------
# Reading a trace back from a z3 model
# ---------------------------------------------------------------------------------------


def _int(m: z3.ModelRef, t: Any) -> int:
    return int(m.eval(t, model_completion=True).as_long())


def _bool(m: z3.ModelRef, t: Any) -> bool:
    return bool(z3.is_true(m.eval(t, model_completion=True)))


def _call_text(m: z3.ModelRef, step: dict[str, Any], n: int) -> tuple[str, str, dict[str, Any]]:
    name = step["ops"][_int(m, step["op"])]
    k = _int(m, step["k"])
    tid = f"t{k}"
    g = _int(m, step["g"])
    given = _bool(m, step["given"])
    deps = [f"t{j}" for j in range(n) if _bool(m, step["deps"][j])]
    text = {
        "submit": f"s.submit({tid!r}, deps={deps!r})",
        "start": "s.start()",
        "claim": "s.ready(limit=1)",
        "complete": f"s.complete({tid!r}, {g})",
        "fail": f"s.fail({tid!r}, {g})",
        "cancel": f"s.cancel({tid!r}, {g if given else None})",
        "close": "s.close()",
    }[name]
    return name, text, {"k": k, "tid": tid, "g": g, "given": given, "deps": deps}


def _state_text(m: z3.ModelRef, v: View) -> str:
    parts = []
    for i in range(v.n):
        if not _bool(m, v.exists[i]):
            continue
        st = STATE_NAMES[_int(m, v.state[i])]
        extra = f" out={_int(m, v.out[i])}" if st in ("PENDING", "READY") else ""
        ck = CK_NAMES[_int(m, v.ck[i])]
        cause = f" cause=({ck}, t{_int(m, v.ct[i])}, g{_int(m, v.cg[i])})" if ck else ""
        parts.append(f"t{i}:g{_int(m, v.gen[i])}:{st}{extra}{cause}")
    return "{" + ", ".join(parts) + "}"


def describe_trace(q: Query) -> Callable[[z3.ModelRef], str]:
    def describe(m: z3.ModelRef) -> str:
        views, steps = q.data["views"], q.data["steps"]
        n = views[0].n
        lines = [f"s = Scheduler({_int(m, views[0].max_conc)})"]
        for i, step in enumerate(steps):
            _, text, _ = _call_text(m, step, n)
            mark = "   # <- the mutated rule" if i == len(steps) - 1 and q.data.get("mutated") \
                else ""
            lines.append(f"{text:<36} # -> {_state_text(m, views[i + 1])}{mark}")
        return "\n".join(lines)
    return describe


# ---------------------------------------------------------------------------------------
# The executable model's state as a View (Python values)
# ---------------------------------------------------------------------------------------


def view_of_model(sched: Any, ids: list[Any], ghost: dict[tuple[Any, int], bool],
                  shadow: dict[Any, int] | None = None) -> View:
    """The model's concrete state over ``ids`` (task i is ``ids[i]``); ``ghost`` maps
    (id, generation) to "every dependency SUCCEEDED when claimed" (the harness records it)."""
    tasks = sched._tasks
    n = len(ids)
    shadow = shadow or {}
    v = View(n, [False] * n, [0] * n, [0] * n, [0] * n, [[False] * n for _ in range(n)],
             [0] * n, [0] * n, [0] * n, [0] * n, [False] * n, [False] * n,
             sched.max_concurrency, sched._started, sched._closed, sched._seq)
    for i, tid in enumerate(ids):
        t = tasks.get(tid)
        if t is None:
            continue
        v.exists[i] = True
        v.state[i] = STATE_NAMES.index(t.state.name)
        v.gen[i], v.seq[i] = t.generation, t.seq
        v.dep[i] = [ids[j] in t.deps for j in range(n)]
        not_ok = sum(1 for d in t.deps
                     if d not in tasks or tasks[d].state.name != "SUCCEEDED")
        v.out[i] = shadow.get(tid, not_ok)
        if t.cause is not None:
            v.ck[i] = CK_NAMES.index(t.cause.kind)
            v.ct[i] = ids.index(t.cause.task_id)
            v.cg[i] = t.cause.generation
        v.req[i] = bool(t.requested)
        v.cok[i] = ghost.get((tid, t.generation), False)
    return v


def record_claims(sched: Any, claims: list[Any], ghost: dict[tuple[Any, int], bool]) -> None:
    """The ghost of I4: were all dependencies SUCCEEDED when ``claims`` were made?"""
    tasks = sched._tasks
    for c in claims:
        deps = tasks[c.task_id].deps
        ghost[(c.task_id, c.generation)] = all(
            d in tasks and tasks[d].state.name == "SUCCEEDED" for d in deps)


# ---------------------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------------------


def mutated_scheduler(kind: str) -> type:
    """A subclass of the model whose ``kind`` mistake is made while ``armed`` is true."""
    from schedcheck.model.scheduler import Scheduler

    from schedcheck.contract import Claim, Outcome, Reply, TaskState

    ok, pend, ready, run, fail = (TaskState.SUCCEEDED, TaskState.PENDING, TaskState.READY,
                                  TaskState.RUNNING, TaskState.FAILED)

    class MutatedScheduler(Scheduler):
        armed = False

        def __init__(self, max_concurrency: int) -> None:
            super().__init__(max_concurrency)
            self.shadow: dict[Any, int] = {}

        def _release_again(self, task_id: Any) -> None:
            # what a counting implementation does: each PENDING dependent loses one
            for d in self._tasks.values():
                if task_id in d.deps and d.state is pend:
                    left = sum(1 for x in d.deps
                               if x not in self._tasks or self._tasks[x].state is not ok) - 1
                    self.shadow[d.task_id] = left
                    if left == 0:
                        d.state = ready

        def complete(self, task_id: Any, generation: int) -> Any:
            t = self._tasks.get(task_id)
            if (self.armed and kind == "dup-complete" and t is not None
                    and generation == t.generation and t.state is ok):
                self._release_again(task_id)  # the mistake: a duplicate releases again
                return Reply(Outcome.DUPLICATE, t.state)
            return super().complete(task_id, generation)

        def _apply(self, call: str, task_id: Any, generation: int | None,
                   error: Any = None) -> Any:
            if self.armed and kind == "no-generation":
                generation = None  # the mistake: no generation check
            t = self._tasks.get(task_id)
            if (self.armed and kind == "fail-as-success" and call == "fail" and t is not None
                    and generation == t.generation and t.state is run):
                t.state, t.error = fail, error
                self._release_again(task_id)  # the mistake: released as if it succeeded
                return Reply(Outcome.APPLIED, t.state)
            return super()._apply(call, task_id, generation, error)

        def ready(self, limit: int | None = None) -> list[Any]:
            if not (self.armed and kind == "no-limit"):
                return super().ready(limit)
            queue = sorted((t for t in self._tasks.values() if t.state is ready),
                           key=lambda t: t.seq)  # the mistake: no running < max check
            claims = []
            for t in queue[: len(queue) if limit is None else limit]:
                t.state = run
                claims.append(Claim(t.task_id, t.generation, t.fn))
            return claims

    return MutatedScheduler


@dataclass(frozen=True)
class Mutation:
    name: str
    says: str
    kind: str  #: the ``mutation=`` key of sched_transitions
    op: str  #: the mutated call
    target: str  #: the invariant it breaks (I1..I9)
    n: int  #: tasks in the search
    max_depth: int  #: free steps before the mutated one
    old_generation: bool = False  #: the mutated call quotes an *older* generation (late worker)

    def build(self) -> Iterator[Query]:
        for depth in range(self.max_depth + 1):
            hyps, views, steps = bmc_trace(self.n, depth, mutation=self.kind,
                                           mutated_op=self.op)
            if self.old_generation:
                g = steps[-1]["g"]
                hyps += [g >= 1, g < Z3.select(views[-2].gen, steps[-1]["k"])]
            claim = _target(self.target, views[-2], views[-1],
                            steps[-1]["calls"][self.op], Z3)
            q = Query(hyps, claim, label=f"N={self.n}, {depth} calls then the mutated "
                      f"{self.op}", data={"views": views, "steps": steps, "mutated": True})
            q.describe = describe_trace(q)
            yield q


def _target(iid: str, pre: View, post: View, call: Any, o: Any) -> Any:
    for i, _, p in INVARIANTS:
        if i == iid:
            return p(post, o)
    for i, _, sp in STEP_INVARIANTS:
        if i == iid:
            return sp(pre, post, call, o)
    raise KeyError(iid)


MUTATIONS: tuple[Mutation, ...] = (
    Mutation("mut-sched-duplicate-completion", "seed mistake: a duplicate complete() "
             "decrements the dependents again (breaks I1: a task READY too early)",
             "dup-complete", "complete", "I1", 3, 6),
    Mutation("mut-sched-no-generation-check", "seed mistake: a completion without the "
             "generation lets a late worker of an old generation complete the new one (breaks "
             "I8)", "no-generation", "complete", "I8", 2, 5, old_generation=True),
    Mutation("mut-sched-failure-as-success", "seed mistake: a failed dependency treated as "
             "success releases its dependents (breaks I5)", "fail-as-success", "fail", "I5",
             2, 5),
    Mutation("mut-sched-claim-without-limit", "a claim that does not re-check running < "
             "max_concurrency (breaks I3)", "no-limit", "claim", "I3", 2, 4),
)


def replay_trace(m: Mutation) -> Callable[[z3.ModelRef, Query], Replay]:
    def replay(model: z3.ModelRef, q: Query) -> Replay:
        views, steps = q.data["views"], q.data["steps"]
        n = views[0].n
        ids = [f"t{i}" for i in range(n)]
        mc = _int(model, views[0].max_conc)
        sched = mutated_scheduler(m.kind)(mc)
        ghost: dict[tuple[Any, int], bool] = {}
        lines = [f"s = MutatedScheduler({mc})  # schedcheck.model.Scheduler + '{m.kind}'"]
        before = sched
        for i, step in enumerate(steps):
            name, text, a = _call_text(model, step, n)
            last = i == len(steps) - 1
            sched.armed = last
            before = sched.copy()
            before_view = view_of_model(before, ids, ghost, dict(sched.shadow))
            if name == "submit":
                reply: Any = sched.submit(a["tid"], a["deps"])
            elif name == "start":
                reply = sched.start()
            elif name == "claim":
                reply = sched.ready(limit=1)
                record_claims(sched, reply, ghost)
                if not last and [c.task_id for c in reply] != [a["tid"]]:
                    lines.append(f"{text}  # -> {reply!r}: z3 claimed {a['tid']!r}")
                    return Replay(False, "\n".join(lines) + "\n# the model diverged")
            elif name == "complete":
                reply = sched.complete(a["tid"], a["g"])
            elif name == "fail":
                reply = sched.fail(a["tid"], a["g"])
            elif name == "cancel":
                reply = sched.cancel(a["tid"], a["g"] if a["given"] else None)
            else:
                reply = sched.close()
            after = view_of_model(sched, ids, ghost, sched.shadow)
            lines.append(f"{text:<36} # {reply!r}" + ("   <- the mutated rule" if last else ""))
            if not last:
                want = views[i + 1]
                for j in range(n):
                    got = (after.exists[j], after.state[j], after.gen[j])
                    exp = (_bool(model, want.exists[j]), _int(model, want.state[j]),
                           _int(model, want.gen[j]))
                    if got != exp:
                        lines.append(f"# the model diverged from the encoding on t{j}: "
                                     f"model {got}, z3 {exp}")
                        return Replay(False, "\n".join(lines))
        call = steps[-1]["calls"][m.op]
        pycall = type(call)(call.op, _int(model, steps[-1]["k"]), _int(model, steps[-1]["g"]),
                            _bool(model, steps[-1]["given"]))
        held = bool(_target(m.target, before_view, after, pycall, PY))
        says = dict((i, s) for i, s, _ in (*INVARIANTS, *STEP_INVARIANTS))[m.target]
        lines.append(f"# {m.target} {'still holds' if held else 'BROKEN'} in the model: {says}")
        lines.append(f"# model state: {sched!r}; shadow counts {sched.shadow}")
        return Replay(not held, "\n".join(lines))
    return replay


# ---------------------------------------------------------------------------------------
# One concrete call through the encoding (the differential test of encoding vs model)
# ---------------------------------------------------------------------------------------

_FIELDS = ("exists", "state", "gen", "seq", "dep", "out", "ck", "ct", "cg", "req", "cok")


def _lift(x: Any) -> Any:
    if isinstance(x, list):
        return [_lift(e) for e in x]
    if isinstance(x, bool):
        return z3.BoolVal(x)
    return z3.IntVal(x)


def encode_call(v: View, name: str, *, k: int = 0, g: int = 0, given: bool = False,
                deps: tuple[int, ...] = ()) -> View | None:
    """Run one call through the z3 transition from the concrete state ``v``; the next
    concrete state, or None when the encoding's preconditions reject the call."""
    if name == "fail" and v.req[k]:
        name = "confirm"  # the encoding splits fail by the request flag
    zv = View(n=v.n, **{f: _lift(getattr(v, f)) for f in _FIELDS}, max_conc=_lift(v.max_conc),
              started=_lift(v.started), closed=_lift(v.closed), counter=_lift(v.counter))
    (conds, post, _call), args = transition(name, zv, "x", k=z3.IntVal(k))
    s = z3.Solver()
    s.add(*conds, args["g"] == g, args["given"] == given,
          *[args["deps"][j] == (j in deps) for j in range(v.n)])
    if s.check() != z3.sat:
        return None
    m = s.model()

    def low(x: Any) -> Any:
        if isinstance(x, list):
            return [low(e) for e in x]
        val = m.eval(x, model_completion=True)
        return bool(z3.is_true(val)) if z3.is_bool(val) else int(val.as_long())

    return View(n=v.n, **{f: low(getattr(post, f)) for f in _FIELDS},
                max_conc=low(post.max_conc), started=low(post.started),
                closed=low(post.closed), counter=low(post.counter))
