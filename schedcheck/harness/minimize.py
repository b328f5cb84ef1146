"""Counterexamples with the essential steps only: delta debugging over the atomic program.

The search (``schedcheck.harness.search``) stops at the first failing run, unshrunk. That
run's atomic program (``program.Op``: one call made on both sides, no compound rule) is
reduced here by replaying it on a fresh machine -- the model and the target built again, every
reply and every state compared after every step, exactly as in the suite -- with parts of it
removed, keeping a removal whenever the replay still breaks the same clause:

1. each *task* removed (every step that mentions a scheduler id, or every step on a wheel's
   timer, together; a ``ready()`` that claimed that task alone goes with it);
2. ddmin (Zeller and Hildebrandt's delta debugging) over the steps, down to a program from
   which no single step can be removed, then every contiguous run of steps tried away;
3. a wheel program's points in time moved towards 0 together (a start offset of -2**41 and
   the deadlines and nows that follow it; tried first too, before step 1, so that every
   later replay runs near 0 and a hang that came from the distance goes), then arguments
   made simpler (every number halved together while the program still fails, then the
   steps' numbers lowered together -- numbers that cannot move alone -- then a dependency dropped
   from a submit, a smaller max_concurrency, an option dropped from the wheel's constructor,
   a raising callback made plain, every int made smaller: 0, 1, half, one less); a dropped
   dependency is also tried together with the removal of its task, which neither change
   passes alone when the dependency only held its dependent back (a resubmit's new edges);
4. a program still longer than ``shorter.SHORT`` steps: the search run again with a few rule
   steps per example (``shorter``); a shorter failing run of the same clause it finds is
   reduced too, and the shorter result kept;
5. ids renamed small, in order of first use (``'a'``, ``'b'`` ...); a wheel's handles and
   callbacks are named by the replay itself.

The counterexample returned is the last replay's: its code lines, checks and pictures come
from a real run of the reduced program. Each replay is a plain call sequence (a few
milliseconds); :data:`MAX_REPLAYS` and :data:`BUDGET_SECONDS` bound the work, and
:data:`MAX_HUNG_REPLAYS` the replays that hang (each waits out the step time limit).
Nothing here imports ``schedcheck.impl``.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase
from hypothesis import strategies as st

from schedcheck.harness import guard, shorter
from schedcheck.harness.common import Divergence, Progress, RunContext, SuiteMachine, run_suite
from schedcheck.harness.program import Op, TimerName
from schedcheck.harness.result import Counterexample, RunResult

__all__ = ["BUDGET_SECONDS", "MAX_HUNG_REPLAYS", "MAX_REPLAYS", "NAMING_OPS", "Minimized",
           "minimize", "not_minimized", "reduce_found", "reduce_ops", "replay", "run_reduced"]

#: Most replays one minimisation may make (each is one run of a short program).
MAX_REPLAYS = 3000
#: Most replays of one minimisation that may hang. Each waits out the step time limit
#: (``guard.STEP_SECONDS``, 10 s), so without a bound a hanging target's reduction could take
#: hours; after this many it stops, and the counterexample is the shortest reached by then.
MAX_HUNG_REPLAYS = 6
#: Seconds one minimisation may spend by default; past it, the shortest program reached so far
#: is the counterexample (the note says the reduction stopped at its budget).
BUDGET_SECONDS = 20.0
#: Programs up to this many steps also get the pass over contiguous runs (O(n^2) replays).
WINDOW_PASS_MAX = 40
#: The scheduler suite's alphabet (``sched_fixtures.IDS``), the names ids are renamed to.
_ID_ALPHABET = ("a", "b", "c", "d", "e", "f")


@dataclass
class Minimized:
    counterexample: Counterexample
    program: list[Op]
    replays: int
    before: int  #: steps of the counterexample before the reduction
    stopped: str = ""  #: why the reduction stopped at a limit before it was done ("" if done)


def replay(machine_class: type[SuiteMachine], ops: list[Op]) -> tuple[Counterexample | None,
                                                                     list[Op]]:
    """Run ``ops`` on a fresh machine of ``machine_class`` (invariants after every op); the
    counterexample of the first divergence (or None) and the program as replayed. Must run in
    a Hypothesis test context (:func:`minimize` provides one)."""
    ctx = RunContext(RunResult.fresh(machine_class.system, ""))
    bound = type(machine_class.__name__, (machine_class,),
                 {"_ctx": ctx, "__module__": machine_class.__module__,
                  "__qualname__": machine_class.__qualname__})
    machine: SuiteMachine = bound()
    program = machine.program
    assert program is not None
    names: dict[str, str] = {}
    try:
        for op in ops:
            renamed = replace(op, args=tuple(TimerName(names.get(a.name, "?" + a.name))
                                             if isinstance(a, TimerName) else a
                                             for a in op.args))
            thawed = machine.thaw_op(renamed)
            if thawed is None:
                continue
            args, kwargs = thawed
            at = len(program.ops)
            try:
                getattr(machine, op.name)(*args, **kwargs)
            finally:
                if len(program.ops) > at:
                    names.update(zip(op.made, program.ops[at].made))
            for inv in machine.invariants:
                if all(pre(machine) for pre in inv.preconditions):
                    inv.function(machine)
    except Divergence as exc:
        return exc.counterexample, list(program.ops)
    except Exception:
        return None, []  # a program this machine cannot run (not a counterexample)
    return None, list(program.ops)


class _Search:
    """The reduction of one program against one clause, counting replays."""

    def __init__(self, machine_class: type[SuiteMachine], clause: str,
                 budget_seconds: float) -> None:
        self.machine_class = machine_class
        self.clause = clause
        self.replays = 0
        self.best: Counterexample | None = None
        self.best_program: list[Op] = []
        self.timeouts_before = guard.timeouts()
        self.stopped = ""
        self.budget = budget_seconds
        self.ends = time.monotonic() + budget_seconds

    def fails(self, ops: list[Op]) -> bool:
        hung = guard.timeouts() - self.timeouts_before
        if self.replays >= MAX_REPLAYS:
            self.stopped = f"stopped at the limit of {MAX_REPLAYS} replays"
            return False
        if self.best is not None and time.monotonic() > self.ends:
            self.stopped = f"stopped at its time budget of {self.budget:g} s"
            return False
        if hung >= MAX_HUNG_REPLAYS:
            self.stopped = (f"stopped after {hung} replays that hung (each waits out the "
                            f"{guard.step_seconds():g} s step limit)")
            return False
        self.replays += 1
        cx, played = replay(self.machine_class, ops)
        if cx is None or cx.clause != self.clause:
            return False
        self.best, self.best_program = cx, played
        return True


def _pinned(op: Op) -> bool:
    return op.name == "_build"


def _ddmin(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """Zeller's ddmin over the ops that are not pinned (the construction stays first)."""
    head = [op for op in ops if _pinned(op)]
    items = [op for op in ops if not _pinned(op)]
    n = 2
    while len(items) >= 2:
        size = -(-len(items) // n)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        for i in range(len(chunks)):
            rest = [op for j, c in enumerate(chunks) if j != i for op in c]
            if fails(head + rest):
                items, n = rest, max(n - 1, 2)
                break
        else:
            for chunk in chunks if n > 2 else ():
                if fails(head + chunk):
                    items, n = chunk, 2
                    break
            else:
                if n >= len(items):
                    break
                n = min(len(items), 2 * n)
    if len(items) == 1 and fails(head):
        items = []
    return head + items


def _without_windows(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """Remove contiguous runs of steps, longest first (a run of advances that only moved the
    clock, say, where removing any one of them alone changes the story): ddmin tries only
    the runs of its own partition."""
    size = len(ops) - 1
    while size >= 2:
        for start in range(len(ops) - size + 1):
            window = ops[start:start + size]
            if any(_pinned(op) for op in window):
                continue
            candidate = ops[:start] + ops[start + size:]
            if fails(candidate):
                ops = candidate
                size = min(size, len(ops) - 1)
                break
        else:
            size -= 1
    return ops


def _ids_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if value in _ID_ALPHABET:
            yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _ids_in(v)
    elif isinstance(getattr(value, "items", None), list):  # deps as a one-shot iterable
        for v in value.items:
            yield from _ids_in(v)


#: The ops whose arguments name scheduler ids: the suites' atomic ones, and the plain calls of
#: ``grade``'s programs (``schedcheck.practice.reduce``).
NAMING_OPS = frozenset(("_submit", "_callback", "add_dependency", "retry",
                        "complete", "fail", "cancel"))


def _named(op: Op) -> set[str]:
    """The scheduler ids or wheel timers an op's arguments name."""
    found = {a.name for a in op.args if isinstance(a, TimerName)}
    if op.name in NAMING_OPS:
        found |= set(_ids_in(op.args))
    return found


def _tasks(op: Op) -> set[str]:
    """The scheduler ids or wheel timers an op touches: those it names and those it made (a
    wheel's timer, a scheduler's claims)."""
    return _named(op) | set(op.made)


def _of_task(op: Op, task: str) -> bool:
    """Whether ``op`` is a step of ``task``: it names the task, or the task is all it made (a
    ``ready()`` that claimed that task alone goes with it; one that claimed others too stays)."""
    return task in _named(op) or (bool(op.made) and set(op.made) == {task})


def _without(ops: list[Op], task: str) -> list[Op]:
    return [op for op in ops if _pinned(op) or not _of_task(op, task)]


def _without_tasks(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """Remove every step of one task at a time, most mentioned first."""
    counts: dict[str, int] = {}
    for op in ops:
        for t in _tasks(op):
            counts[t] = counts.get(t, 0) + 1
    for task in sorted(counts, key=lambda t: (-counts[t], t)):
        candidate = _without(ops, task)
        if len(candidate) < len(ops) and fails(candidate):
            ops = candidate
    return ops


def _simpler(op: Op) -> Iterator[Op]:
    """Simpler variants of one op: a dependency fewer, an option fewer, a plain callback."""
    if op.name == "_submit" and len(op.args) >= 2 and isinstance(op.args[1], (tuple, list)):
        deps = op.args[1]
        for i in range(len(deps)):
            yield replace(op, args=(op.args[0], tuple(deps[:i]) + tuple(deps[i + 1:]),
                                    *op.args[2:]))
        if op.kwargs.get("optional"):
            yield replace(op, kwargs={k: v for k, v in op.kwargs.items() if k != "optional"})
    elif op.name == "_build" and len(op.args) == 1 and isinstance(op.args[0], int):
        for smaller in (1, 2, 3):  # the scheduler's max_concurrency
            if smaller < op.args[0]:
                yield replace(op, args=(smaller,))
    elif op.name == "_build" and len(op.args) == 3 and isinstance(op.args[2], dict):
        for key in op.args[2]:
            yield replace(op, args=(*op.args[:2], {k: v for k, v in op.args[2].items()
                                                   if k != key}))
    elif op.name == "_schedule" and len(op.args) >= 2 and op.args[1] is True:
        yield replace(op, args=(op.args[0], False, *op.args[2:]))
    yield from _smaller_numbers(op)


def _smaller(value: int) -> list[int]:
    """Candidates for an int, simplest first: 0, 1, then halfway and one step towards 0."""
    if value in (0, 1):
        return [0] if value == 1 else []
    out = [0, 1, value // 2 if value > 0 else -(-value // 2), value - 1 if value > 0 else value + 1]
    return [c for c in dict.fromkeys(out) if abs(c) < abs(value) or (c == 1 and value < 0)]


def _is_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _words_with(words: Any, old: int, new: int) -> Any:
    """The op's words with the number it changed told as the new one."""
    if not isinstance(words, str):
        return words
    return re.sub(rf"(?<![\w.-]){re.escape(str(old))}(?![\w.])", str(new), words)


def _smaller_numbers(op: Op) -> Iterator[Op]:
    """The op with one int argument made smaller (positional, keyword, or in the wheel
    constructor's options): offsets, deadlines, delays, sizes towards 0."""
    for i, arg in enumerate(op.args):
        if _is_number(arg) and not (op.name == "_build" and i < 2 and arg <= 1):
            for c in _smaller(arg):
                if op.name == "_build" and i < 2 and c < 1:
                    continue  # a tick or a size of 0 is a malformed-argument case of its own
                kwargs = {k: _words_with(v, arg, c) if k == "words" else v
                          for k, v in op.kwargs.items()}
                yield replace(op, args=(*op.args[:i], c, *op.args[i + 1:]), kwargs=kwargs)
        elif isinstance(arg, dict):
            for key, v in arg.items():
                if _is_number(v):
                    for c in _smaller(v):
                        yield replace(op, args=(*op.args[:i], {**arg, key: c},
                                                *op.args[i + 1:]))
    for key, v in op.kwargs.items():
        if _is_number(v):
            for c in _smaller(v):
                yield replace(op, kwargs={**op.kwargs, key: c})


#: The wheel ops whose first argument is a point in time (``_schedule`` only when it is a
#: deadline, not a delay), and the constructor option that is one.
_TIME_OPS = ("_advance",)
_TIME_OPTION = "start"


def _time_index(op: Op) -> int | None:
    if op.name in _TIME_OPS and op.args and _is_number(op.args[0]):
        return 0
    if (op.name == "_schedule" and op.args and _is_number(op.args[0])
            and not op.kwargs.get("after", False)):
        return 0
    return None


def _shifted(ops: list[Op], by: int) -> list[Op]:
    """Every point in time of a wheel program moved by ``-by`` together (the start option,
    each deadline, each now): the same story, told nearer 0."""
    out = []
    for op in ops:
        i = _time_index(op)
        if i is not None:
            old = op.args[i]
            kwargs = {k: _words_with(v, old, old - by) if k == "words" else v
                      for k, v in op.kwargs.items()}
            op = replace(op, args=(*op.args[:i], old - by, *op.args[i + 1:]), kwargs=kwargs)
        elif (op.name == "_build" and len(op.args) == 3 and isinstance(op.args[2], dict)
              and _is_number(op.args[2].get(_TIME_OPTION))):
            options = {**op.args[2], _TIME_OPTION: op.args[2][_TIME_OPTION] - by}
            op = replace(op, args=(*op.args[:2], options))
        out.append(op)
    return out


def _nearer_zero(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """A wheel program whose times are far from 0 (a start offset of -2**41, say) moved
    towards 0 as a whole, largest moves first; then each number is made smaller alone by
    :func:`_simplify`."""
    times = [op.args[i] for op in ops if (i := _time_index(op)) is not None]
    for op in ops:
        if op.name == "_build" and len(op.args) == 3 and isinstance(op.args[2], dict):
            start = op.args[2].get(_TIME_OPTION)
            if _is_number(start):
                times.append(start)
    if not times:
        return ops
    for by in dict.fromkeys((min(times), min(times) // 2, min(times) - min(times) % 1000)):
        if by and fails(_shifted(ops, by)):
            return _shifted(ops, by)
    return ops


def _half(value: Any) -> Any:
    """Every int of ``value`` (2 or more away from 0) halved towards 0, inside tuples, lists
    and dicts; anything else as it is."""
    if _is_number(value):
        return value if abs(value) < 2 else int(value / 2)
    if isinstance(value, tuple):
        return tuple(_half(v) for v in value)
    if isinstance(value, list):
        return [_half(v) for v in value]
    if isinstance(value, dict):
        return {k: _half(v) for k, v in value.items()}
    return value


_NUMBER_IN_WORDS = re.compile(r"(?<![\w.])-?\d+(?![\w.])")


def _retold(words: str, told: dict[str, str]) -> str:
    """``words`` with each number in ``told`` replaced by what it maps to."""
    return _NUMBER_IN_WORDS.sub(lambda m: told.get(m.group(), m.group()), words)


def _halved(ops: list[Op]) -> list[Op]:
    """The whole program with its numbers halved together (the steps' words told with the
    new ones)."""
    out = []
    for op in ops:
        olds = [v for v in (*op.args, *op.kwargs.values()) if _is_number(v) and abs(v) >= 2]
        words = op.kwargs.get("words")
        kwargs = {k: _half(v) for k, v in op.kwargs.items() if k != "words"}
        if isinstance(words, str):
            kwargs["words"] = _retold(words, {str(v): str(_half(v)) for v in olds})
        elif "words" in op.kwargs:
            kwargs["words"] = words
        out.append(replace(op, args=_half(op.args), kwargs=kwargs))
    return out


def _largest(ops: list[Op]) -> int:
    found = [0]

    def walk(value: Any) -> None:
        if _is_number(value):
            found.append(abs(value))
        elif isinstance(value, (tuple, list)):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    for op in ops:
        walk(op.args)
        walk({k: v for k, v in op.kwargs.items() if k != "words"})
    return max(found)


#: Numbers up to this size are left to the one-at-a-time pass.
_SMALL = 16


def _lowered(ops: list[Op], by: int) -> list[Op]:
    """The steps' numbers above ``by`` lowered by it together (the constructor's stay)."""
    out = []
    for op in ops:
        if op.name == "_build":
            out.append(op)
            continue
        args = tuple(v - by if _is_number(v) and v > by else v for v in op.args)
        kwargs = dict(op.kwargs)
        if isinstance(kwargs.get("words"), str):
            told = {str(v): str(v - by) for v in op.args if _is_number(v) and v > by}
            kwargs["words"] = _retold(kwargs["words"], told)
        out.append(replace(op, args=args, kwargs=kwargs))
    return out


def _lowered_together(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """The steps' numbers moved down together by all but 1 of the smallest of them (delays of
    595, 603 and 615 become 1, 9 and 21), or by half of that."""
    numbers = [v for op in ops if op.name != "_build" for v in op.args
               if _is_number(v) and v > 1]
    if not numbers:
        return ops
    least = min(numbers)
    for by in dict.fromkeys((least - 1, (least - 1) // 2)):
        if by > 0 and fails(_lowered(ops, by)):
            return _lowered(ops, by)
    return ops


def _scaled_down(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """Every number of the program halved together, again while it still fails: numbers that
    cannot move alone (three timers at 595, 603 and 615 on a wheel of 56 buckets, whose
    relation the failure needs) go down together; the one-at-a-time pass then takes each on
    (that program ended as three timers at 1 on a wheel of 2)."""
    while _largest(ops) > _SMALL:
        candidate = _halved(ops)
        if not fails(candidate):
            break
        ops = candidate
    return ops


def _simplify(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """Each op made simpler where the program still fails; a variant that no longer names a
    task (a dependency dropped) is also tried with every step of that task removed, which
    alone may not fail (the dependency held its dependent back until then)."""
    changed = True
    while changed:
        changed = False
        for i in range(len(ops)):
            for variant in _simpler(ops[i]):
                candidate = [*ops[:i], variant, *ops[i + 1:]]
                if fails(candidate):
                    ops, changed = candidate, True
                    break
                dropped = sorted(_named(ops[i]) - _named(variant))
                shorter = next((c for c in (_without(candidate, t) for t in dropped)
                                if fails(c)), None)
                if shorter is not None:
                    ops, changed = shorter, True
                    break
            if changed:
                break
    return ops


def _renamed(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, tuple):
        return tuple(_renamed(v, mapping) for v in value)
    if isinstance(value, list):
        return [_renamed(v, mapping) for v in value]
    if isinstance(getattr(value, "items", None), list):
        return type(value)([_renamed(v, mapping) for v in value.items])
    return value


def _small_ids(ops: list[Op]) -> list[Op]:
    order: list[str] = []
    for op in ops:
        if op.name in ("_submit", "_callback", "add_dependency", "retry"):
            order += [t for t in _ids_in(op.args) if t not in order]
    mapping = dict(zip(order, _ID_ALPHABET))
    if all(k == v for k, v in mapping.items()):
        return ops
    quoted = re.compile(r"'([^']*)'")
    out = []
    for op in ops:
        if op.name not in ("_submit", "_callback", "add_dependency", "retry"):
            out.append(op)
            continue
        kwargs = {k: _renamed(v, mapping) if k != "words" else quoted.sub(
            lambda m: repr(mapping.get(m.group(1), m.group(1))), v)
            for k, v in op.kwargs.items()}
        out.append(replace(op, args=_renamed(op.args, mapping), kwargs=kwargs))
    return out


def reduce_ops(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """Steps 1 to 3 of the module docstring: ``ops`` (a failing program, ``fails(ops)`` true)
    reduced to one that still fails, where no task, no step, no contiguous run of steps can go
    and no argument can be simpler. ``fails`` replays a candidate and says whether it breaks
    the same rule. Every stage that reduces a failing program calls this: the suites through
    :func:`minimize`, and ``grade``'s items (``schedcheck.practice.reduce``)."""
    # times towards 0 first: a few candidates, and every later replay then runs near 0 -- a
    # wheel started at -2**40 that hangs walking ticks to now=True no longer hangs there
    ops = _nearer_zero(ops, fails)
    ops = _without_tasks(ops, fails)
    ops = _ddmin(ops, fails)
    ops = _nearer_zero(ops, fails)
    ops = _scaled_down(ops, fails)
    ops = _lowered_together(ops, fails)
    ops = _simplify(ops, fails)
    ops = _ddmin(ops, fails)
    if len(ops) <= WINDOW_PASS_MAX:
        ops = _without_windows(ops, fails)
    return ops


def _in_test_context(fn: Callable[[], Any]) -> Any:
    """Call ``fn`` once inside a Hypothesis test (the suites call ``event`` and ``target``)."""
    box: list[Any] = []

    @hypothesis.settings(max_examples=1, database=None, phases=[Phase.generate],
                         deadline=None, suppress_health_check=list(HealthCheck))
    @hypothesis.given(st.just(None))
    def run(_: None) -> None:
        if not box:
            try:
                box.append((fn(), None))
            except BaseException as exc:  # handed back outside Hypothesis
                box.append((None, exc))

    run()
    value, exc = box[0]
    if exc is not None:
        raise exc
    return value


def minimize(machine_class: type[SuiteMachine], program: list[Op],
             counterexample: Counterexample, *,
             budget_seconds: float | None = None) -> Minimized | None:
    """The failing ``program`` reduced to the steps it needs to break the clause of
    ``counterexample``; None if replaying it on a fresh target did not reproduce that clause,
    twice (a target that behaves differently for the same calls: the search's counterexample
    then stands). ``budget_seconds`` (default :data:`BUDGET_SECONDS`) bounds the reduction;
    when it runs out, the shortest program reached so far is the result and ``stopped``
    says so."""
    search = _Search(machine_class, counterexample.clause,
                     BUDGET_SECONDS if budget_seconds is None else budget_seconds)

    def run() -> Minimized | None:
        if not program or not (search.fails(program) or search.fails(program)):
            return None
        ops = reduce_ops(search.best_program, search.fails)
        renamed = _small_ids(ops)
        if renamed is not ops:
            search.fails(renamed)
        assert search.best is not None
        return Minimized(search.best, search.best_program, search.replays,
                         len(counterexample.steps), search.stopped)

    disabled = logging.root.manager.disable
    logging.disable(logging.CRITICAL)  # wheels log every callback error
    try:
        with guard.guarded():
            result: Minimized | None = _in_test_context(run)
    finally:
        logging.disable(disabled)
    return result


def run_reduced(machine_class: type[SuiteMachine], result: RunResult,
                settings: hypothesis.settings, progress: Progress | None = None, *,
                seed: int | None = None, reduce: bool = True) -> RunResult:
    """``common.run_suite`` of ``machine_class``, then (``reduce``) its counterexample reduced
    by :func:`reduce_found`, as the budgeted search does."""
    ctx = RunContext(result, progress)
    run_suite(machine_class, result, settings, progress, seed=seed, context=ctx)
    if reduce and result.counterexample is not None:
        reduce_found(machine_class, result, ctx.final_program or ctx.last_program)
    return result


def reduce_found(machine_class: type[SuiteMachine], result: RunResult,
                 program: list[Op]) -> None:
    """Reduce ``result``'s counterexample (found by a run of ``machine_class`` whose atomic
    program is ``program``) and put the reduced one in its place, the unreduced one kept on
    it; notes say what happened. Every search and suite run ends here."""
    cx = result.counterexample
    assert cx is not None
    reduced = minimize(machine_class, program, cx) if program else None
    if reduced is None:
        result.notes.append(not_minimized(cx, program))
        return
    note = (f"minimized by delta debugging from {reduced.before} to "
            f"{len(reduced.counterexample.steps)} steps ({reduced.replays} replays"
            + (f"; {reduced.stopped})" if reduced.stopped else ")"))
    if len(reduced.counterexample.steps) > shorter.SHORT:
        again = _shorter(machine_class, cx, reduced)
        if again is not None:
            reduced, note = again
    new = reduced.counterexample
    new.seed = cx.seed
    new.hypothesis_program = ""
    new.unreduced = cx
    result.counterexample = new
    result.break_(new.clause)
    result.notes.append(note)


def _shorter(machine_class: type[SuiteMachine], cx: Counterexample,
             reduced: Minimized) -> tuple[Minimized, str] | None:
    """A shorter reduction than ``reduced`` from the search with few steps (``shorter``) and
    its note, or None when that search finds none."""
    found = shorter.search_shorter(machine_class, cx.clause, seed=cx.seed)
    if found is None:
        return None
    again = minimize(machine_class, found.program, found.counterexample)
    if again is None or len(again.counterexample.steps) >= len(reduced.counterexample.steps):
        return None
    return again, (
        f"minimized by delta debugging to {len(again.counterexample.steps)} steps: the failing "
        f"run went from {reduced.before} to {len(reduced.counterexample.steps)} steps, then a "
        f"search with at most {found.steps} rule steps per example broke {cx.clause} in a run "
        f"of {again.before} steps, which went to {len(again.counterexample.steps)} "
        f"({again.replays} replays)")


def not_minimized(cx: Counterexample, program: list[Op]) -> str:
    """The note of a counterexample that stands unreduced: why, as it happened."""
    if not program:
        return (f"not minimized: this run recorded no replayable program for {cx.clause}; "
                "the counterexample is the failing run as found")
    return (f"not minimized: the failing run's {len(program)} calls, replayed twice on a "
            f"fresh target, did not break {cx.clause} again either time (the target answered "
            "the same calls differently: it depends on something besides them)")
