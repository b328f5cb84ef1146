"""The scheduler's graded items: short programs run on the learner's class and on the model.

A program is a list of steps ``(call, args)``. :func:`disagreement` runs it on
``schedcheck.model.Scheduler`` and on the learner's class side by side and compares, after
every step, the reply and the state of every task submitted so far. The main items compare
leniently (any exception where the model raises one; a reply's outcome only where the
learner returns one; causes only in the items about propagation, and only where the learner
gives them); the ``polish`` items compare error names exactly. Each divergence names the
item that owns it (``schedcheck.practice.scheduler_owners``); a program that meets another
item's rule first leaves its own item "blocked by" that one. Programs submit every task
before ``start()`` (the text allows refusing new ids once running; later submits are new
versions).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from schedcheck.model import Scheduler as ModelScheduler
from schedcheck.practice.grading import (
    CAPABILITY,
    UNFILLED,
    Item,
    Miss,
    NotAttempted,
)
from schedcheck.practice.reduce import reduce_program
from schedcheck.practice.scheduler_owners import (
    Context,
    generation_owner,
    reply_owner,
    state_owner,
)
from schedcheck.targets.adapt import error_name, norm_cause, norm_claims, norm_name, norm_reply

__all__ = ["ITEMS", "disagreement"]

Step = tuple[str, tuple[Any, ...]]
Program = list[Step]
Scenario = tuple[int, Program]  # (max_concurrency, steps)

_LIVE_OUTCOMES = ("APPLIED", "REQUESTED")


def S(call: str, *args: Any) -> Step:
    return (call, args)


def _line(step: Step) -> str:
    call, args = step
    if call == "submit_opt":
        task, deps, opt = args
        return f"s.submit({task!r}, {list(deps)!r}, optional={list(opt)!r})"
    return f"s.{call}({', '.join(repr(a) for a in args)})"


def _call(obj: Any, step: Step) -> tuple[str, Any]:
    call, args = step
    try:
        if call == "submit":
            return "ok", obj.submit(args[0], list(args[1]) if len(args) > 1 else [])
        if call == "submit_opt":
            return "ok", obj.submit(args[0], list(args[1]), optional=list(args[2]))
        return "ok", getattr(obj, call)(*args)
    except Exception as exc:
        return "raises", exc


def _observe(obj: Any, task: Any) -> tuple[str, int | None, Any]:
    info = obj.info(task)
    state = getattr(info, "state", None)
    if state is None and isinstance(info, tuple):
        state = info[2] if len(info) > 2 else info[0]
    gen = getattr(info, "generation", None)
    if gen is None and isinstance(info, tuple) and len(info) > 2:
        gen = info[1]
    cause = getattr(info, "cause", None)
    if cause is None and isinstance(info, tuple) and len(info) > 3:
        cause = info[3]
    return norm_name(state if state is not None else info), gen, cause


def _path_problem(exc: BaseException, deps: dict[Any, tuple[Any, ...]]) -> str:
    """'' when the exception carries the cycle as the contract orders it (.cycle or .path:
    ``[a, ..., a]``, each element a dependency of the next, no other repeat), else what is
    wrong with it."""
    path = getattr(exc, "cycle", None) or getattr(exc, "path", None)
    if not isinstance(path, (list, tuple)) or len(path) < 2:
        return "the cycle error carries no path (.cycle): only 'there is a cycle'"
    nodes = list(path) if path[0] == path[-1] else [*path, path[0]]
    if len(set(nodes[:-1])) != len(nodes) - 1:
        return f"the reported cycle {list(path)!r} repeats a task: not a simple cycle"
    if all(a in deps.get(b, ()) for a, b in itertools.pairwise(nodes)):
        return ""
    if all(b in deps.get(a, ()) for a, b in itertools.pairwise(nodes)):
        return (f"the reported cycle {list(path)!r} runs backwards: each element must be a "
                "dependency of the next (graphlib's order)")
    return f"the reported cycle {list(path)!r} is not in the graph"


def _compare(step: Step, mine: tuple[str, Any], theirs: tuple[str, Any], strict: bool,
             deps: dict[Any, tuple[Any, ...]]) -> str:
    call = step[0]
    if mine[0] == "raises":
        want = error_name(mine[1])
        if theirs[0] != "raises":
            return f"the model raises {want}; yours returned {theirs[1]!r}"
        if strict and error_name(theirs[1]) != want:
            return f"the model raises {want}; yours raised {error_name(theirs[1])}"
        if want == "CycleError" and call == "start":
            return _path_problem(theirs[1], deps)
        return ""
    if theirs[0] == "raises":
        return f"yours raised {error_name(theirs[1])}: {theirs[1]}; the model returns {mine[1]!r}"
    got = theirs[1]
    if call in ("submit", "submit_opt"):
        return "" if not isinstance(got, int) or got == mine[1] else (
            f"submit returned generation {got}; the model's is {mine[1]}")
    if call == "ready":
        want_claims = norm_claims(mine[1])
        try:
            got_claims = norm_claims(got)
        except (TypeError, IndexError):  # plain ids: compare the ids
            want_claims, got_claims = [c[0] for c in want_claims], list(got)
        return "" if want_claims == got_claims else (
            f"ready() claimed {got_claims}; the model claims {want_claims}")
    if call == "close" and isinstance(got, list) and got != mine[1]:
        return f"close() returned {got!r}; the model cancels {mine[1]!r}"
    if call in ("complete", "fail", "cancel", "add_dependency") and got is not None \
            and not isinstance(got, bool):
        want_o, want_s = norm_reply(mine[1])
        try:
            got_o, got_s = norm_reply(got)
        except (TypeError, IndexError):
            return f"{call} answered {got!r}, not an (outcome, state)" if strict else ""
        live = want_o in _LIVE_OUTCOMES
        if (live and got_o != want_o) or (not live and got_o in _LIVE_OUTCOMES) \
                or (strict and got_o != want_o) or got_s != want_s:
            return f"{call} answered {got_o} {got_s}; the model answers {want_o} {want_s}"
    return ""


def disagreement(factory: Callable[[int], Any], scenario: Scenario, *,
                 strict: bool = False, causes: bool = False) -> tuple[int, str, str, str] | None:
    """The first step where the learner's class and the model differ, as
    ``(step index, kind, message, owner)`` -- ``owner`` the item whose rule it broke (the
    rules of ``schedcheck.practice.scheduler_owners``) -- or None. A BLOCKED task's cause
    is compared only with ``causes`` (the items about propagation)."""
    mc, program = scenario
    model = ModelScheduler(mc)
    try:
        target = factory(mc)
    except Exception as exc:
        owner = UNFILLED if isinstance(exc, NotImplementedError) else "S-T1"
        return -1, "construct", f"constructing it raised {error_name(exc)}: {exc}", owner
    ids: list[Any] = []
    deps: dict[Any, tuple[Any, ...]] = {}
    resubmitted: set[Any] = set()
    dropped: dict[Any, set[Any]] = {}
    for i, step in enumerate(program):
        pre = {t: model.info(t) for t in ids}
        requested = {t: model.cancel_requested(t, pre[t].generation) for t in ids}
        started = model._started  # the model is ours
        mine, theirs = _call(model, step), _call(target, step)
        ctx = Context(step, mine, theirs, pre, requested, started, model, resubmitted, dropped)
        if theirs[0] == "raises" and isinstance(theirs[1], NotImplementedError):
            return i, "unfilled", f"{_line(step)} raised NotImplementedError", UNFILLED
        if theirs[0] == "raises" and isinstance(theirs[1], NotAttempted):
            return i, "capability", str(theirs[1]), CAPABILITY + str(theirs[1])
        if step[0] in ("submit", "submit_opt") and mine[0] == "ok":
            tid, before = step[1][0], deps.get(step[1][0], ())
            deps[tid] = tuple(step[1][1]) + (tuple(step[1][2]) if len(step[1]) > 2 else ())
            dropped[tid] = (dropped.get(tid, set()) | set(before)) - set(deps[tid])
        msg = _compare(step, mine, theirs, strict, deps)
        if msg:
            return i, f"reply:{step[0]}", msg, reply_owner(ctx, msg)
        if mine[0] == "ok" and step[0] in ("submit", "submit_opt"):
            if step[1][0] in ids:
                resubmitted.add(step[1][0])
            else:
                ids.append(step[1][0])
        for task in ids:
            want = model.info(task)
            try:
                got_state, got_gen, got_cause = _observe(target, task)
            except NotImplementedError:
                return i, "unfilled", f"info({task!r}) raised NotImplementedError", UNFILLED
            except Exception as exc:
                return i, "state", f"info({task!r}) raised {error_name(exc)}: {exc}", "S-T1"
            want_state = want.state.name
            if got_state != want_state:
                return i, "state", f"{task!r} is {got_state}; the model says {want_state}", \
                    state_owner(ctx, task, got_state, want_state)
            if isinstance(got_gen, int) and got_gen != want.generation:
                return i, "state", (f"{task!r} is at generation {got_gen}; the model says "
                                    f"{want.generation}"), generation_owner(ctx, task)
            if causes and got_cause is not None and want.state.name == "BLOCKED":
                got_c, want_c = norm_cause(got_cause), norm_cause(want.cause)
                if got_c != want_c:
                    return i, "state", (f"{task!r} is BLOCKED by {got_c}; the model names the "
                                        f"root {want_c}"), "S-T4"
    return None


def _model_errors(mc: int, program: Sequence[Step]) -> set[tuple[Step, str]]:
    """The calls of ``program`` the model refuses, with the error's name."""
    model = ModelScheduler(mc)
    out = set()
    for step in program:
        kind, value = _call(model, step)
        if kind == "raises":
            out.add((_hashable(step), error_name(value)))
    return out


def _hashable(step: Step) -> Any:
    return (step[0], tuple(tuple(a) if isinstance(a, list) else a for a in step[1]))


def _scenarios(*scenarios: Scenario, strict: bool = False,
               causes: bool = False) -> Callable[[Any], list[Miss]]:
    """A check running each scenario; each that diverges gives one miss, reduced (steps,
    tasks, arguments, max_concurrency: ``schedcheck.practice.reduce``) while the same item's
    rule breaks at the end."""
    def check(factory: Any) -> list[Miss]:
        out: list[Miss] = []
        for mc, program in scenarios:
            found = disagreement(factory, (mc, program), strict=strict, causes=causes)
            if found is None:
                continue
            owner, message = found[3], found[2]
            allowed = _model_errors(mc, program)

            def same(build: tuple[Any, ...], p: Sequence[Step], owner: str = owner,
                     message: str = message, allowed: set[tuple[Step, str]] = allowed) -> bool:
                if not _model_errors(build[0], p) <= allowed:
                    return False  # a shorter program that trips over another rule
                d = disagreement(factory, (build[0], list(p)), strict=strict, causes=causes)
                return d is not None and d[3] == owner and (not strict or d[2] == message)

            small_mc, small = mc, program
            if found[0] >= 0 and owner != UNFILLED:
                (small_mc,), small = reduce_program((mc,), program, same)
            last = disagreement(factory, (small_mc, small), strict=strict, causes=causes)
            if last is None:  # a class whose answers change from run to run
                small_mc, small, last = mc, program, found
            i, _, message, owner = last
            lines = [f"s = YourScheduler({small_mc})", *(_line(st) for st in small[:i + 1])]
            lines[-1] += "   # <- here"
            out.append(Miss(tuple(lines), message, owner))
        return out
    return check


def _needs(method: str) -> Callable[[Callable[[Any], list[Miss]]], Callable[[Any], list[Miss]]]:
    def wrap(check: Callable[[Any], list[Miss]]) -> Callable[[Any], list[Miss]]:
        def run(factory: Any) -> list[Miss]:
            try:
                probe = factory(1)
            except Exception as exc:
                owner = UNFILLED if isinstance(exc, NotImplementedError) else "S-T1"
                return [Miss((f"s = YourScheduler(1)   # raised {error_name(exc)}",), str(exc),
                             owner)]
            if method == "optional":
                try:
                    probe.submit("x", [], optional=[])
                except TypeError as exc:
                    raise NotAttempted("submit() takes no optional= (an extension)") from exc
            elif not callable(getattr(probe, method, None)):
                raise NotAttempted(f"no {method}() (an extension)")
            return check(factory)
        return run
    return wrap


def _cost(factory: Any) -> Miss | None:
    from schedcheck.harness.result import BROKEN
    from schedcheck.harness.scheduler.suite import check_scheduler_scaling

    result = check_scheduler_scaling(factory)
    if result.verdict == BROKEN:
        return Miss(("a layered graph of n and 8n tasks, run to the end",), result.text)
    return None


_A, _START = S("submit", "a", []), S("start")

ITEMS: tuple[Item, ...] = (
    Item("S-T1", "T", "seven states: pending, ready, running, succeeded, failed, blocked, "
         "cancelled",
         "keep one explicit state per task version and move it only forward; a new version "
         "whose dependency already failed or was cancelled starts BLOCKED, not PENDING", _scenarios(
             (1, [_A, S("submit", "b", ["a"]), S("submit", "d", []),
                  S("submit", "e", []), S("submit", "f", []), _START, S("ready"),
                  S("cancel", "d"), S("fail", "a", 1), S("ready"), S("complete", "e", 1),
                  S("submit", "b", ["a"])]))),
    Item("S-T2", "T", "indegree and reverse edges, not a rescan of every task (cost)",
         "keep a count of unfinished dependencies and a list of dependents per task; a "
         "completion touches only its direct dependents", _cost, cost=True),
    Item("S-T3", "T", "a completion releases only the affected dependents, once",
         "decrement only the direct dependents, each once per completion; a READY task is "
         "one whose count reached zero", _scenarios(
             (10, [_A, S("submit", "b", ["a"]), S("submit", "c", ["a"]),
                   S("submit", "d", ["b", "c"]), S("submit", "e", []),
                   S("submit", "f", ["a", "e"]), _START, S("ready"), S("complete", "a", 1),
                   S("complete", "a", 1), S("ready"), S("complete", "b", 1),
                   S("complete", "c", 1), S("ready"), S("complete", "e", 1), S("ready")]))),
    Item("S-T4", "T", "cycle, failure and cancellation propagation are defined",
         "report a cycle as a path [a, ..., a] at start(); a failure or a cancel blocks every "
         "PENDING/READY task downstream, naming the root as the cause, and stops at RUNNING "
         "tasks (they still report)", _scenarios(
             (2, [S("submit", "a", ["c"]), S("submit", "b", ["a"]), S("submit", "c", ["b"]),
                  _START]),
             (10, [_A, S("submit", "b", ["a"]), S("submit", "c", ["b"]),
                   S("submit", "k", ["a"]), S("submit", "m", ["k", "a"]), _START,
                   S("cancel", "k"), S("ready"), S("fail", "a", 1)]),
             (2, [_A, S("submit", "x", ["a"]), S("submit", "y", ["x"]), _START, S("ready"),
                  S("complete", "a", 1), S("ready"), _A, S("cancel", "a")]), causes=True)),
    Item("S-T5", "T", "bounded workers, one claim per version, duplicate submits",
         "ready() hands out at most max_concurrency - running claims, each (id, generation) "
         "once; resubmitting a RUNNING task is a conflict, any other a new generation",
         _scenarios((2, [_A, S("submit", "b", []), S("submit", "c", []), S("submit", "d", []),
                         _START, S("ready"), S("ready"), S("submit", "a", []),
                         S("complete", "a", 1), S("ready"), S("complete", "c", 1),
                         S("submit", "c", []), S("ready")]),
                    (1, [_A, S("submit", "q", []), S("submit", "p", ["a"]), _START,
                         S("ready"), S("submit", "p", ["q"]), S("complete", "a", 1),
                         S("ready")]),
                    # a new generation of a SUCCEEDED task is outstanding again for its
                    # dependents: the READY one goes back to PENDING
                    (2, [_A, S("submit", "b", ["a"]), _START, S("ready"),
                         S("complete", "a", 1), S("submit", "a", []), S("ready")]))),
    Item("S-T6", "T", "late and duplicate callbacks change nothing",
         "every callback names (id, generation); an old generation's report is stale and a "
         "repeated one returns the known terminal state without releasing anything",
         _scenarios((2, [_A, S("submit", "b", ["a"]), S("submit", "c", ["b"]), _START,
                         S("ready"), S("fail", "a", 1),
                         S("submit", "a", []), S("submit", "c", ["a"]), S("ready"),
                         S("complete", "a", 1), S("fail", "a", 1), S("complete", "a", 2),
                         S("complete", "a", 2), S("cancel", "a"), S("ready")]))),
    Item("S-M1", "M", "failure and cancellation have transitions of their own",
         "a one-shot topological order knows only 'done': define what fail() and cancel() do "
         "to the task itself and to its dependents (BLOCKED)", _scenarios(
             (4, [_A, S("submit", "b", ["a"]), S("submit", "c", []), S("submit", "d", ["c"]),
                  S("submit", "g", ["d"]), _START, S("ready"), S("fail", "a", 1),
                  S("cancel", "d"), S("complete", "c", 1), S("ready")]))),
    Item("S-M2", "M", "no rescan of every node after each completion (cost)",
         "follow the reverse edges of the completed task instead of scanning all tasks",
         _cost, cost=True),
    Item("S-M3", "M", "a cycle comes with its path",
         "return the cycle itself (CycleError with .cycle = [a, ..., a], each element a "
         "dependency of the next), not a boolean",
         _scenarios((2, [S("submit", "a", ["b"]), S("submit", "b", ["a"]),
                         S("submit", "c", []), _START]),
                    (2, [S("submit", "d", ["d"]), _START]))),
    Item("S-M4", "M", "callbacks carry the generation; a stale worker releases nothing",
         "check the generation in complete()/fail(): a report from an older generation is "
         "stale and changes nothing", _scenarios(
             (2, [_A, S("submit", "c", ["a"]), _START, S("ready"), S("fail", "a", 1),
                  S("submit", "a", []), S("submit", "c", ["a"]), S("ready"),
                  S("complete", "a", 1), S("ready")]))),
    Item("S-M5", "M", "a failed dependency is never treated as success",
         "a failure blocks the dependents; they must never be claimed", _scenarios(
             (3, [_A, S("submit", "b", ["a"]), S("submit", "c", ["b"]), _START, S("ready"),
                  S("fail", "a", 1), S("ready")]))),
    Item("S-M6", "M", "cancelling a running task is cooperative",
         "cancel() of a RUNNING task only records the request (REQUESTED, then DUPLICATE if "
         "asked again); the function decides: complete() still wins, fail() confirms the "
         "cancellation (CANCELLED)", _scenarios(
             (2, [_A, S("submit", "b", ["a"]), _START, S("ready"), S("cancel", "a"),
                  S("cancel", "a"), S("ready"), S("complete", "a", 1), S("ready")]),
             (2, [S("submit", "c", []), _START, S("ready"), S("cancel", "c"),
                  S("fail", "c", 1)]))),
    Item("S-M7", "M", "no extra workers to hide a backlog",
         "a request for more than the free slots gets the free slots, never a raised limit",
         _scenarios((2, [_A, S("submit", "b", []), S("submit", "c", []),
                         S("submit", "d", []), _START, S("ready", 0), S("ready", 5), S("ready"),
                         S("complete", "a", 1), S("ready", 3)]))),
    Item("S-M8", "M", "a retry is a new generation, never FAILED moved back",
         "resubmit the failed task as generation g+1; the failed run's late report is then "
         "stale", _scenarios((2, [_A, _START, S("ready"), S("fail", "a", 1),
                                  S("submit", "a", []), S("ready"), S("fail", "a", 1),
                                  S("complete", "a", 2)]))),
    Item("S-F1", "F", "a graph too large for memory",
         "persist tasks and edges, keep only the active window and cursors in memory, claim "
         "by conditional write or lease with the generation in the condition (worked out in "
         "specs/large-graphs.md, with a tested sketch: schedcheck.impl.scheduler.disk)", None),
    Item("S-F2", "F", "a failed branch continues: optional edges (extension)",
         "label edges required or optional; READY once the required deps succeeded and the "
         "optional ones are terminal in any state", _needs("optional")(_scenarios(
             (2, [_A, S("submit_opt", "b", [], ["a"]), _START, S("ready"),
                  S("fail", "a", 1), S("ready")])))),
    Item("S-F3", "F", "dependencies added at run time (extension: add_dependency)",
         "only while the task is PENDING, raising its count in the same critical section; "
         "refuse for READY or RUNNING", _needs("add_dependency")(_scenarios(
             (2, [_A, S("submit", "b", []), S("submit", "c", ["a"]),
                  S("add_dependency", "c", "b"), _START, S("ready"), S("complete", "a", 1),
                  S("complete", "b", 1), S("ready"), S("add_dependency", "c", "a")])))),
    Item("S-F4", "F", "cancelling a shared dependency leaves unrelated branches running",
         "change only that task's state and follow the required reverse edges; everything "
         "else continues", _scenarios(
             (4, [S("submit", "s", []), S("submit", "x", ["s"]), S("submit", "y", ["s"]),
                  S("submit", "u", []), S("cancel", "s"), _START, S("ready")]), causes=True)),
    Item("S-F5", "F", "several worker processes",
         "claim with an atomic conditional update or lease that includes the generation; "
         "leases expire, so functions must be idempotent (DiskScheduler.expire_leases: the "
         "late report of an expired claim is STALE)", None),
    Item("S-F6", "F", "observability signals",
         "count cycles, blocked tasks, ready wait, run time, claim conflicts, duplicate "
         "callbacks, per-edge propagation latency; segment by task type and tenant (each one: "
         "Scheduler.metrics() and schedcheck.impl.scheduler.observability)", None),
    Item("S-F7", "F", "no task is claimed twice",
         "check the state, take the slot and write RUNNING in one critical section; a "
         "repeated ready() never returns the same (id, generation)", _scenarios(
             (3, [_A, S("submit", "b", []), S("submit", "c", []), S("submit", "d", []),
                  _START, S("ready"), S("ready"), S("complete", "a", 1),
                  S("ready"), S("complete", "a", 1), S("ready")]))),
    Item("S-polish-1", "polish", "a generation is an int: bool or str is TypeError",
         "validate argument types first and raise TypeError naming the argument",
         _scenarios((2, [_A, _START, S("ready"), S("complete", "a", True),
                         S("fail", "a", "1")]), strict=True)),
    Item("S-polish-2", "polish", "a negative limit is ValueError",
         "ready(limit) needs limit >= 0", _scenarios((2, [_A, _START, S("ready", -1)]),
                                                       strict=True)),
    Item("S-polish-3", "polish", "an id never submitted is UnknownTaskError",
         "raise UnknownTaskError (a KeyError) naming the id", _scenarios(
             (2, [_A, _START, S("complete", "zz", 1), S("cancel", "zz")]), strict=True)),
    Item("S-polish-4", "polish", "the contract's error names",
         "ready() before start() is NotStartedError, an unknown dependency "
         "UnknownDependencyError, resubmitting a RUNNING task ConflictError, submit after "
         "close() ClosedError", _scenarios(
             (2, [S("submit", "a", ["zz"]), S("ready"), _START]),
             (2, [_A, _START, S("ready"), S("submit", "a", []), S("close"),
                  S("submit", "q", [])]), strict=True)),
)
