"""Delta debugging over an atomic program (``program.Op``), as pure passes: each takes the
failing program and ``fails`` -- a replay of a candidate that says whether it still breaks the
same rule -- and returns a program that still fails. :func:`reduce_ops` runs them in order;
``schedcheck.harness.minimize`` replays the suites' programs through it, and ``grade`` its
items' programs (``schedcheck.practice.reduce``). Nothing here runs a target or imports
Hypothesis.

0. each graph shape (``scheduler.shapes``, one step) bisected down to the least size that
   still fails (:func:`smaller_shapes`); the later passes leave a shape's numbers alone;
1. a wheel program's points in time moved towards 0 together (a start offset of -2**41 and
   the deadlines and nows that follow it), first, so that every later replay runs near 0 and
   a hang that came from the distance goes;
2. each *task* removed (every step that mentions a scheduler id, or every step on a wheel's
   timer, together; a ``ready()`` that claimed that task alone goes with it);
3. ddmin (Zeller and Hildebrandt's delta debugging) over the steps, down to a program from
   which no single step can be removed;
4. numbers that cannot move alone moved together: the times towards 0 again, every number
   halved together while the program still fails, then the steps' numbers lowered together;
5. each argument made simpler: a dependency dropped from a submit (also together with the
   removal of its task, which neither change passes alone when the dependency only held its
   dependent back), a smaller max_concurrency, an option dropped from the wheel's
   constructor, a raising callback made plain, every int made smaller (0, 1, half, one less);
6. ddmin again, then every contiguous run of steps tried away (short programs only).

:func:`small_ids` renames ids small, in order of first use; the caller replays the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from schedcheck.harness.program import Op, TimerName

__all__ = ["NAMING_OPS", "SHAPE_OP", "WINDOW_PASS_MAX", "reduce_ops", "small_ids", "smaller_ints",
           "smaller_shapes"]

#: The op that plays a whole graph shape: ``_shape(name, size, seed)`` (``scheduler.shapes``).
#: Its size is bisected (:func:`smaller_shapes`) and its seed names the graph drawn: the
#: number passes leave both alone (a shape of 1,249 tasks would otherwise be tried at
#: 1,248, 1,247 ... one replay of the whole shape each).
SHAPE_OP = "_shape"
#: The ops whose numbers the passes that move numbers together leave alone.
_FIXED_NUMBERS = ("_build", SHAPE_OP)

#: Programs up to this many steps also get the pass over contiguous runs (O(n^2) replays).
WINDOW_PASS_MAX = 40
#: The scheduler suite's alphabet (``scheduler.fixtures.IDS``), the names ids are renamed to.
_ID_ALPHABET = ("a", "b", "c", "d", "e", "f")


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


def smaller_ints(value: int) -> list[int]:
    """Candidates for an int, simplest first: 0, 1, then halfway and one step towards 0."""
    if value in (0, 1):
        return [0] if value == 1 else []
    out = [0, 1, value // 2 if value > 0 else -(-value // 2), value - 1 if value > 0 else value + 1]
    return [c for c in dict.fromkeys(out) if abs(c) < abs(value) or (c == 1 and value < 0)]


def _is_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_NUMBER_IN_WORDS = re.compile(r"(?<![\w.-])-?\d+(?![\w.])")


def _retold(words: str, told: dict[str, str]) -> str:
    """``words`` with each number in ``told`` replaced by what it maps to (a whole number
    only: not the 5 of ``x5``, ``1.5`` or ``a-5``)."""
    return _NUMBER_IN_WORDS.sub(lambda m: told.get(m.group(), m.group()), words)


def _words_with(words: Any, old: int, new: int) -> Any:
    """The op's words with the number it changed told as the new one."""
    return _retold(words, {str(old): str(new)}) if isinstance(words, str) else words


def _smaller_numbers(op: Op) -> Iterator[Op]:
    """The op with one int argument made smaller (positional, keyword, or in the wheel
    constructor's options): offsets, deadlines, delays, sizes towards 0 (not a shape's)."""
    if op.name == SHAPE_OP:
        return
    for i, arg in enumerate(op.args):
        if _is_number(arg) and not (op.name == "_build" and i < 2 and arg <= 1):
            for c in smaller_ints(arg):
                if op.name == "_build" and i < 2 and c < 1:
                    continue  # a tick or a size of 0 is a malformed-argument case of its own
                kwargs = {k: _words_with(v, arg, c) if k == "words" else v
                          for k, v in op.kwargs.items()}
                yield replace(op, args=(*op.args[:i], c, *op.args[i + 1:]), kwargs=kwargs)
        elif isinstance(arg, dict):
            for key, v in arg.items():
                if _is_number(v):
                    for c in smaller_ints(v):
                        yield replace(op, args=(*op.args[:i], {**arg, key: c},
                                                *op.args[i + 1:]))
    for key, v in op.kwargs.items():
        if _is_number(v):
            for c in smaller_ints(v):
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


def _halved(ops: list[Op]) -> list[Op]:
    """The whole program with its numbers halved together (the steps' words told with the
    new ones)."""
    out = []
    for op in ops:
        if op.name == SHAPE_OP:
            out.append(op)
            continue
        olds = [v for v in (*op.args, *op.kwargs.values()) if _is_number(v) and abs(v) >= 2]
        words = op.kwargs.get("words")
        kwargs = {k: _half(v) for k, v in op.kwargs.items() if k != "words"}
        if isinstance(words, str):
            kwargs["words"] = _retold(words, {str(v): str(_half(v)) for v in olds})
        elif "words" in op.kwargs:
            kwargs["words"] = words
        out.append(replace(op, args=_half(op.args), kwargs=kwargs))
    return out


def _numbers_in(value: Any) -> Iterator[int]:
    if _is_number(value):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _numbers_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers_in(v)


def _largest(ops: list[Op]) -> int:
    """The largest number (in size) among the ops' arguments, 0 if none."""
    return max((abs(v) for op in ops if op.name != SHAPE_OP for v in _numbers_in(
        (op.args, {k: v for k, v in op.kwargs.items() if k != "words"}))), default=0)


#: Numbers up to this size are left to the one-at-a-time pass.
_SMALL = 16


def _lowered(ops: list[Op], by: int) -> list[Op]:
    """The steps' numbers above ``by`` lowered by it together (the constructor's stay)."""
    out = []
    for op in ops:
        if op.name in _FIXED_NUMBERS:
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
    numbers = [v for op in ops if op.name not in _FIXED_NUMBERS for v in op.args
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


def small_ids(ops: list[Op]) -> list[Op]:
    """``ops`` with the scheduler ids renamed ``'a'``, ``'b'`` ... in order of first use."""
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



def smaller_shapes(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """Each shape's size bisected down to the least that still fails (a few replays for a
    shape of thousands of tasks, where ddmin could take thousands): the mistakes a size
    brings out -- a recursion limit, a slow path -- stay past some size, so the bisection
    reads "fails at n, passes at n - 1"."""
    for i, op in enumerate(ops):
        if op.name != SHAPE_OP or len(op.args) != 3 or not _is_number(op.args[1]):
            continue
        name, size, seed = op.args
        low, high = 1, size  # high fails; below low nothing was tried
        while low < high:
            middle = (low + high) // 2
            candidate = [*ops[:i], replace(op, args=(name, middle, seed)), *ops[i + 1:]]
            if fails(candidate):
                high = middle
                ops = candidate
            else:
                low = middle + 1
    return ops


def reduce_ops(ops: list[Op], fails: Callable[[list[Op]], bool]) -> list[Op]:
    """The passes of the module docstring, in order: ``ops`` (a failing program: ``fails(ops)``
    is true) reduced to one that still fails, where no task, no step, no contiguous run of
    steps can go and no argument can be simpler. Every stage that reduces a failing program
    calls this: the suites through ``minimize.minimize``, and ``grade``'s items
    (``schedcheck.practice.reduce``)."""
    # times towards 0 first: a few candidates, and every later replay then runs near 0 -- a
    # wheel started at -2**40 that hangs walking ticks to now=True no longer hangs there
    ops = smaller_shapes(ops, fails)
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
