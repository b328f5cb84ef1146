"""Linearizability of a concurrent history against a sequential spec (Wing-Gong, Lowe's JIT).

The spec is any object with ``copy()`` and an ``apply(call) -> response`` (or pass ``apply`` /
``copy`` / ``key`` functions). The search walks the history's events in time order and keeps a
*set of configurations* -- (spec state, operations linearized but not yet returned) -- instead
of one guessed linearization: when several linearizations fit, every resulting state is carried
forward. At each response of an operation ``o`` it extends every configuration by linearizing
pending operations (each checked against its recorded response, since the history is complete)
until ``o`` is linearized; configurations that cannot linearize ``o`` die. If none survive,
``o`` could not be linearized: the report names it, the longest partial linearization reached,
and what the model would have answered instead.

Memoisation (Lowe): configurations are deduplicated on (``key(state)``, linearized set); the
default key is ``state.key()`` or ``repr(state.snapshot())``. ``partition`` (optional) splits the
history into independent sub-histories (operations on different keys of a map), each checked
from its own copy of the initial state -- only sound when the spec is a product over those keys.

Budget: ``apply`` calls. A search that runs out says ``unknown``, never ``ok``.

Cost: exponential in the number of overlapping operations in the worst case; concurrent rounds
keep that at 2-3 threads x 3 operations, and stress rounds at 8 x 10 with mostly short overlaps.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from schedcheck.concurrency.history import History, Operation

S = TypeVar("S")

OK = "ok"
VIOLATION = "violation"
UNKNOWN = "unknown"

DEFAULT_BUDGET = 200_000

#: (spec state, linearized-but-not-returned operation ids, the linearization so far)
_Config = tuple[Any, frozenset[int], tuple[Operation, ...]]


@dataclass
class LinResult(Generic[S]):
    verdict: str  #: "ok", "violation" or "unknown"
    final_states: list[S] = field(default_factory=list)  #: every state a linearization ends in
    #: for each final state, one linearization (operations in order) that ends in it
    final_paths: list[list[Operation]] = field(default_factory=list)
    failed: Operation | None = None  #: the operation that could not be linearized
    longest: list[Operation] = field(default_factory=list)  #: longest partial linearization
    model_would_answer: list[Any] = field(default_factory=list)
    explored: int = 0  #: apply() calls spent
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict == OK


def _default_key(state: Any) -> Hashable:
    key = getattr(state, "key", None)
    if callable(key):
        value: Hashable = key()
        return value
    snap = getattr(state, "snapshot", None)
    if callable(snap):
        return repr(snap())
    return repr(state)


def check(
    history: History | Iterable[Operation],
    initial: S,
    *,
    apply: Callable[[S, Any], Any] | None = None,
    copy: Callable[[S], S] | None = None,
    key: Callable[[S], Hashable] | None = None,
    same: Callable[[Any, Any], bool] | None = None,
    partition: Callable[[Operation], Hashable] | None = None,
    budget: int = DEFAULT_BUDGET,
    alternatives: Sequence[S] = (),
) -> LinResult[S]:
    """Is the history linearizable from ``initial`` -- or from any of ``alternatives``, the
    other states an earlier history may have left (the set carried forward)? Nothing given is
    modified."""
    ops = list(history.operations if isinstance(history, History) else history)
    do_apply: Callable[[S, Any], Any] = apply or (lambda s, c: s.apply(c))  # type: ignore[attr-defined]
    do_copy: Callable[[S], S] = copy or (lambda s: s.copy())  # type: ignore[attr-defined]
    do_key: Callable[[S], Hashable] = key or _default_key
    do_same: Callable[[Any, Any], bool] = same or (lambda a, b: bool(a == b))
    if partition is not None:
        groups: dict[Hashable, list[Operation]] = {}
        for op in ops:
            groups.setdefault(partition(op), []).append(op)
        spent = 0
        verdict = OK
        for part in groups.values():
            sub = _search(part, [initial, *alternatives], do_apply, do_copy, do_key, do_same,
                          budget - spent)
            spent += sub.explored
            if sub.verdict == VIOLATION:
                sub.explored = spent
                return sub
            if sub.verdict == UNKNOWN:
                verdict = UNKNOWN
        return LinResult(verdict, final_states=[], explored=spent,
                         message="" if verdict == OK else "search budget exhausted: unknown")
    return _search(ops, [initial, *alternatives], do_apply, do_copy, do_key, do_same, budget)


def _search(
    ops: list[Operation],
    initials: S | list[S],
    apply: Callable[[S, Any], Any],
    copy: Callable[[S], S],
    key: Callable[[S], Hashable],
    same: Callable[[Any, Any], bool],
    budget: int,
) -> LinResult[S]:
    events: list[tuple[int, int, Operation]] = []
    for op in ops:
        events.append((op.invoked, 0, op))
        if op.returned is not None:
            events.append((op.returned, 1, op))
    events.sort(key=lambda e: (e[0], e[1]))
    # configuration key -> (state, linearized-and-pending ids, the linearization so far)
    configs: dict[tuple[Hashable, frozenset[int]], _Config] = {}
    for initial in (initials if isinstance(initials, list) else [initials]):
        start = copy(initial)
        configs.setdefault((key(start), frozenset()), (start, frozenset(), ()))
    pending: dict[int, Operation] = {}
    explored = 0
    for _time, kind, op in events:
        if kind == 0:
            pending[op.id] = op
            continue
        survivors: dict[tuple[Hashable, frozenset[int]], _Config] = {}
        seen: set[tuple[Hashable, frozenset[int]]] = set(configs)
        frontier = list(configs.values())
        longest: tuple[Operation, ...] = ()
        while frontier:
            nxt: list[_Config] = []
            for state, lin, path in frontier:
                if len(path) > len(longest):
                    longest = path
                if op.id in lin:
                    rest = lin - {op.id}
                    survivors.setdefault((key(state), rest), (state, rest, path))
                    continue
                for pid, p in pending.items():
                    if pid in lin:
                        continue
                    explored += 1
                    if explored > budget:
                        return LinResult(
                            UNKNOWN, explored=explored,
                            message=f"search budget of {budget} steps exhausted at "
                            f"{op.describe()}: linearizability unknown (not a pass)",
                        )
                    after = copy(state)
                    try:
                        got = apply(after, p.call)
                    except Exception as exc:  # the spec raising is a response too
                        got = ("raise", type(exc).__name__)
                    if p.returned is not None and not same(got, p.response):
                        continue
                    lin2 = lin | {pid}
                    k2 = (key(after), lin2)
                    if k2 in seen:
                        continue
                    seen.add(k2)
                    nxt.append((after, lin2, (*path, p)))
            frontier = nxt
        if not survivors:
            answers = []
            for state, _lin, _path in configs.values():
                probe = copy(state)
                try:
                    answers.append(apply(probe, op.call))
                except Exception as exc:
                    answers.append(("raise", type(exc).__name__))
            chain = "; ".join(o.describe() for o in longest) or "(nothing)"
            return LinResult(
                VIOLATION,
                failed=op,
                longest=list(longest),
                model_would_answer=answers,
                explored=explored,
                message=(
                    f"not linearizable: {op.describe()} fits no order of the operations that "
                    f"overlap it; longest partial linearization: {chain}; from the states "
                    f"reachable there the model answers {answers!r}"
                ),
            )
        configs = survivors
        del pending[op.id]
    finals: dict[Hashable, tuple[S, list[Operation]]] = {}
    for state, _lin, path in configs.values():
        finals.setdefault(key(state), (state, list(path)))
    return LinResult(OK, final_states=[s for s, _ in finals.values()],
                     final_paths=[p for _, p in finals.values()], explored=explored)
