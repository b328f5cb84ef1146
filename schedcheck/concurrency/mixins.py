"""The "concurrent round" rule, mixed into the differential suites' state machines.

:func:`concurrency_bases` returns the mixin for a system and a target. The mixin

* swaps the machine's ``factory`` (at class creation, ``__init_subclass__``) for one that
  builds the target with cooperative primitives -- through ``lock_factory`` when the
  constructor takes one, else inside ``patching.patched()`` -- so the baton sees every lock;
* adds one rule, ``concurrent_round``: 2-3 lanes of 1-3 operations drawn from the model's
  current tasks, a schedule drawn by Hypothesis (so shrinking removes preemptions,
  operations and lanes with the rest of the program) -- or, when the target has ``copy()``,
  the first schedule within one preemption that fails on a copy -- run on the *same* target
  the sequential rules drive, then checked (``rounds.run_round``: linearizability, the
  quiescent state). On success the machine's model becomes the state the target's
  observations select, and the suite's ``@invariant`` compares everything as after any rule;
  on failure the machine diverges on ``S-LIN`` with the thread programs, the schedule and --
  for a deadlock -- the wait-for edges and cycle in the counterexample.

The step printed for a round is one replayable line,
``concurrent_round(target, 'scheduler', threads=[...], schedule=[...], names=[...])``, and the
setup line builds the target through ``controlled(factory, ...)``, so the replay script
reproduces the exact interleaving.

The wheel's suite keeps an independent ledger and handle maps that a round would have to
update in linearization order; that mixin is not written yet, so for the wheel
:func:`concurrency_bases` raises the toolkit's ``Unavailable`` (``schedcheck.report.runs``),
whose fallback is the standalone hunt (``hunt.hunt``), and ``describe_bases`` says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from schedcheck.concurrency import patching
from schedcheck.concurrency.explore import explore
from schedcheck.concurrency.hunt import build as _build
from schedcheck.concurrency.rounds import SchedulerSpec, describe_round, explain, run_round

__all__ = ["SchedulerRoundMixin", "concurrency_bases", "describe_bases"]


def concurrency_bases(system: str, factory: Callable[..., Any]) -> tuple[type, ...]:
    """The mixin(s) adding concurrent rounds to ``system``'s suite machine for ``factory``."""
    if system == "scheduler":
        return (SchedulerRoundMixin,)
    if system == "wheel":
        # Not written yet: tell the toolkit, whose fallback is the standalone hunt.
        try:
            from schedcheck.report.runs import Unavailable
        except ImportError:  # a build without the toolkit: no mixin, said by describe_bases
            return ()
        raise Unavailable("the wheel's in-suite concurrent round is not written; the "
                          "standalone hunt (schedcheck.concurrency.hunt) runs instead")
    raise ValueError(f"unknown system {system!r}; expected 'scheduler' or 'wheel'")


def describe_bases(system: str, factory: Callable[..., Any]) -> str:
    """How the rounds reach the target's primitives, in one sentence for the report."""
    how = ("its lock_factory" if patching.patchable(factory)
           else "threading/queue patched while it is built")
    if system == "wheel":
        return ("wheel: concurrent rounds run as a standalone hunt (the suite mixin is not "
                f"written yet); primitives through {how}")
    return f"scheduler: concurrent rounds inside the suite; primitives through {how}"


def _lane_ops(ids: list[Any]) -> st.SearchStrategy[tuple[Any, ...]]:
    # No resubmits inside a round: the submission order of two overlapping resubmits is not
    # observable at the quiescent point, and the suite carries one model state, not a set
    # (the standalone hunt and the stress runs, which carry sets, do race resubmits).
    ref = st.one_of(st.just(("claimed",)), st.just(("mine", 0)), st.sampled_from(ids))
    return st.one_of(
        st.tuples(st.just("complete"), ref),
        st.tuples(st.just("ready"), st.sampled_from([1, None, 2])),
        st.tuples(st.sampled_from(["cancel", "fail"]), ref),
    )


class SchedulerRoundMixin:
    """Adds ``concurrent_round`` to ``scheduler_suite.SchedulerMachine`` (see module doc)."""

    _uncontrolled_factory: ClassVar[Callable[..., Any] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        raw = cls.__dict__.get("factory")
        if raw is None:
            return
        original = raw.__func__ if isinstance(raw, staticmethod) else raw
        cls._uncontrolled_factory = original

        def controlled(*args: Any, **options: Any) -> Any:
            return _build(original, args, options)

        controlled.__qualname__ = getattr(original, "__qualname__", "factory")
        cls.factory = staticmethod(controlled)  # type: ignore[attr-defined]

    @precondition(lambda self: self.model is not None and self._started())
    @rule(data=st.data())
    def concurrent_round(self, data: st.DataObject) -> None:
        machine: Any = self
        ids = list(machine.m.task_ids())
        if not ids:
            return
        threads = data.draw(st.lists(st.lists(_lane_ops(ids), min_size=1, max_size=3),
                                     min_size=2, max_size=3), label="threads")
        names = [f"t{i}" for i in range(len(threads))]
        bound = 6 * max(len(ops) for ops in threads) + 2
        triple = st.tuples(st.integers(0, len(threads) - 1), st.integers(0, bound),
                           st.integers(0, 2))
        schedule = [x for t in data.draw(st.lists(triple, max_size=4), label="schedule")
                    for x in t]
        spec = SchedulerSpec(machine.m)
        if callable(getattr(machine.target, "copy", None)):
            # Try every schedule within one preemption on copies of the target first; a
            # failing one is what the real round runs (the verdict is the real run's).
            def trial(sch: list[int]) -> tuple[Any, bool, Any]:
                out = run_round("scheduler", machine.target.copy(), spec, threads, sch,
                                names=names)
                return out.run, out.ok, out

            sweep = explore(trial, bound=1, max_runs=16)
            if sweep.failing is not None:
                schedule = sweep.failing
        mc = machine.max_concurrency
        machine.trace.setup = (
            "from schedcheck.concurrency import concurrent_round, controlled; "
            f"target = controlled(factory, {mc!r})"
        )
        round_name = machine.trace.fresh_name("round")
        code = (f"{round_name} = concurrent_round(target, 'scheduler', threads={threads!r}, "
                f"schedule={schedule!r}, names={names!r})")
        words = "concurrent round:\n" + describe_round(threads, schedule, names)
        step = machine.trace.add(code, words, clause="S-LIN", thread="+".join(names))
        outcome = run_round("scheduler", machine.target, spec, threads, schedule, names=names)
        machine.exercise("S-LIN", "S-T6")
        machine.last_clause, machine.last_words = "S-LIN", "a concurrent round"
        for op in outcome.history.operations:
            if op.call[0] == "ready" and isinstance(op.response, list):
                for claim in op.response:
                    key = (claim[0], claim[1])
                    if key in machine.claimed:
                        machine.exercise("S-CLAIM-ONCE")
                    machine.claimed.add(key)
        if outcome.ok:
            machine.model = outcome.final_spec.model
            step.expected = step.actual = "linearizable"
            return
        step.expected, step.actual = "linearizable", outcome.verdict
        snapshot: dict[str, Any] = {"threads": threads, "names": names,
                                    "history": outcome.history.describe()}
        if outcome.run.deadlock:
            snapshot["wait_for"] = outcome.run.wait_for
            snapshot["cycle"] = outcome.run.cycle
        try:
            machine.diverge("S-LIN", explain(outcome), step=step, snapshot=snapshot)
        except AssertionError as exc:
            cx = getattr(exc, "counterexample", None)
            if cx is not None:
                cx.schedule = list(schedule)
            raise
