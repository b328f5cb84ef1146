"""The scheduler's differential suite: it passes correct schedulers, catches broken ones with
the right clause, is deterministic per seed, and its oracles are right on tiny graphs.

Broken targets here are subclasses (or wrappers) of the reference model with one mistake
each, so each test shows exactly which mistake a clause catches. Examples are bounded per
test where a whole suite runs inside a test (meta-tests, allowed by the rules): the kill comes
in the first few examples, and the bound keeps the CI budget.
"""

from __future__ import annotations

from typing import Any

import pytest
from schedcheck.model import Scheduler as ModelScheduler

from schedcheck.contract import CycleError, SchedcheckInternalError, TaskState
from schedcheck.harness.result import BROKEN, HELD, NOT_EXERCISED, NOT_SUPPORTED
from schedcheck.harness.scheduler import oracles as oracles
from schedcheck.harness.scheduler.suite import (
    check_scheduler_scaling,
    make_scheduler_machine,
    probe_support,
    run_scheduler_suite,
)
from schedcheck.targets import adapt
from tests.counts import quarter_and_whole

#: Meta-tests that expect a kill run at most this many examples (a kill takes a handful).
KILL_EXAMPLES = 150


# --------------------------------------------------------------------------------------------
# Broken targets: one mistake each
# --------------------------------------------------------------------------------------------


class NoGenerationCheck(ModelScheduler):
    """complete() ignores the generation: a late callback from an old worker applies."""

    def complete(self, task_id: Any, generation: int) -> Any:
        try:
            current = self.info(task_id).generation
        except Exception:
            current = generation
        return super().complete(task_id, current)


class ClaimsTwice(ModelScheduler):
    """ready() hands out the previous batch's first claim again."""

    def __init__(self, max_concurrency: int) -> None:
        super().__init__(max_concurrency)
        self._last: list[Any] = []

    def ready(self, limit: int | None = None) -> list[Any]:
        got = super().ready(limit)
        out = got + self._last[:1]
        self._last = got or self._last
        return out


class ShortCycle(ModelScheduler):
    """CycleError.cycle drops the closing element: [a, b] instead of [a, b, a]."""

    def start(self) -> None:
        try:
            super().start()
        except CycleError as exc:
            raise CycleError(exc.cycle[:-1]) from None

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kwargs: Any) -> int:
        try:
            return super().submit(task_id, deps, fn, **kwargs)
        except CycleError as exc:
            raise CycleError(exc.cycle[:-1]) from None


class KeyErrorForUnknown(ModelScheduler):
    """An unknown id raises a bare KeyError instead of UnknownTaskError."""

    def info(self, task_id: Any) -> Any:
        if task_id not in self.task_ids():
            raise KeyError(task_id)
        return super().info(task_id)


class NoBlocking(ModelScheduler):
    """fail() does not block the dependents: they stay PENDING behind a dead dependency."""

    def _block_from(self, root: Any, cause: Any) -> None:
        return None

    def check_invariants(self) -> None:  # its own check would say so first; hide it
        return None


class Stranger:
    """A third party's scheduler: plain tuples, lower-case names, its own error classes, and no
    extensions (Part 3). Correct otherwise: it delegates to the model."""

    class UnknownTaskError(KeyError):
        pass

    def __init__(self, max_concurrency: int) -> None:
        self._m = ModelScheduler(max_concurrency)

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except KeyError as exc:
            raise Stranger.UnknownTaskError(*exc.args) from None

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None) -> int:
        return int(self._m.submit(task_id, deps, fn))

    def start(self) -> None:
        self._m.start()

    def ready(self, limit: int | None = None) -> list[tuple[Any, int, Any]]:
        return [tuple(c) for c in self._m.ready(limit)]

    def _reply(self, r: Any) -> tuple[str, str]:
        return (r.outcome.name.lower(), r.state.name.lower())

    def complete(self, task_id: Any, generation: int) -> tuple[str, str]:
        return self._reply(self._call(self._m.complete, task_id, generation))

    def fail(self, task_id: Any, generation: int, error: Any = None) -> tuple[str, str]:
        return self._reply(self._call(self._m.fail, task_id, generation, error))

    def cancel(self, task_id: Any, generation: int | None = None) -> tuple[str, str]:
        return self._reply(self._call(self._m.cancel, task_id, generation))

    def cancel_requested(self, task_id: Any, generation: int) -> bool:
        return bool(self._call(self._m.cancel_requested, task_id, generation))

    def close(self) -> tuple[Any, ...]:
        return tuple(self._m.close())

    def info(self, task_id: Any) -> tuple[Any, ...]:
        i = self._call(self._m.info, task_id)
        cause = None if i.cause is None else (i.cause.kind.upper(), i.cause.task_id,
                                              i.cause.generation)
        return (i.task_id, i.generation, i.state.name.lower(), cause)


def _kill(factory: Any, **kwargs: Any) -> Any:
    """The suite's first counterexample of ``factory``, unshrunk: which clause catches a
    mistake does not depend on shrinking (``test_shrunk_kills_keep_their_clause``, nightly,
    checks the shrunk ones), and shrinking a 30-step program costs minutes on 2 cores."""
    kwargs.setdefault("shrink", False)
    result = run_scheduler_suite(factory, examples=KILL_EXAMPLES, seed=kwargs.pop("seed", 0),
                                 **kwargs)
    assert result.counterexample is not None, (
        f"the suite did not catch {factory.__name__} in {result.examples} examples")
    return result


# --------------------------------------------------------------------------------------------
# Correct schedulers pass
# --------------------------------------------------------------------------------------------


@quarter_and_whole("the whole count of the suite, the model against itself: 25 s")
def test_the_model_passes_against_itself_with_every_clause_it_reaches_held(examples: int) -> None:
    result = run_scheduler_suite(ModelScheduler, target_name="model", seed=0, examples=examples)
    assert result.ok, result.counterexample and result.counterexample.message
    assert result.examples >= examples
    verdicts = {cid: s.verdict for cid, s in result.stats.items()}
    for cid in ("S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S-INV",
                "S-CLAIM-ONCE", "S-CLAIM-DEPS", "S-TERMINAL", "S-ORACLE-CYCLE",
                "S-ORACLE-TOPO", "S-X-RETRY", "S-X-OPTIONAL", "S-X-ADDDEP", "S-T1", "S-T3",
                "S-T4", "S-T5", "S-T6"):
        assert verdicts[cid] == HELD, (cid, verdicts[cid])
    # what the suite cannot see stays "not exercised", never "held"
    for cid in ("S-T2", "S-COST", "S-LIN"):
        assert verdicts[cid] == NOT_EXERCISED, (cid, verdicts[cid])


@quarter_and_whole("the whole count of the suite on the bundled scheduler: 25 s")
def test_the_bundled_scheduler_passes(examples: int) -> None:
    from schedcheck.impl import Scheduler

    result = run_scheduler_suite(Scheduler, target_name="schedcheck.impl:Scheduler",
                                 examples=examples)
    assert result.ok, result.counterexample and (
        result.counterexample.message + "\n" + result.counterexample.hypothesis_program)
    assert result.examples >= examples


def test_a_strangers_tuples_and_lower_case_names_pass_and_missing_extensions_are_not_supported(
) -> None:
    result = run_scheduler_suite(Stranger, examples=80, seed=3, target_name="stranger")
    assert result.ok, result.counterexample and result.counterexample.message
    for cid in ("S-X-RETRY", "S-X-OPTIONAL", "S-X-ADDDEP"):
        assert result.stats[cid].verdict == NOT_SUPPORTED
    assert set(result.unsupported) == {"submit(..., optional=...)", "add_dependency()",
                                       "retry()"}


def test_probe_support_finds_the_models_extensions_and_no_more_on_a_stranger() -> None:
    assert probe_support(ModelScheduler).retry
    assert probe_support(ModelScheduler).optional
    s = probe_support(Stranger)
    assert not (s.retry or s.optional or s.add_dependency or s.check_invariants)


# --------------------------------------------------------------------------------------------
# Broken schedulers are caught by the right clause
# --------------------------------------------------------------------------------------------


def test_a_late_callback_that_applies_is_a_counterexample_of_rule_4_with_a_divergence_step(
) -> None:
    result = _kill(NoGenerationCheck)
    cx = result.counterexample
    assert cx.clause == "S4"
    assert result.stats["S4"].verdict == BROKEN
    step = cx.divergence
    assert step is not None and "complete(" in step.code
    assert "STALE" in step.expected and "STALE" not in step.actual
    assert step.check is not None and "norm_reply" in step.check
    assert cx.setup.startswith("target = factory(")
    assert "state = " in cx.hypothesis_program  # Hypothesis's own program, verbatim
    assert set(cx.snapshot) >= {"model", "impl", "edges"}
    assert not result.ok


@pytest.mark.nightly
@pytest.mark.parametrize(("factory", "clause"), [
    (NoGenerationCheck, "S4"), (ClaimsTwice, "S-CLAIM-ONCE"), (ShortCycle, "S-ORACLE-CYCLE"),
    (KeyErrorForUnknown, "S9"), (NoBlocking, "S-INV")], ids=lambda v: getattr(v, "__name__", v))
def test_shrunk_kills_keep_their_clause(factory: Any, clause: str) -> None:
    """The kills above, shrunk by Hypothesis: the same clause, and no longer than unshrunk."""
    shrunk = _kill(factory, shrink=True).counterexample
    assert shrunk.clause == clause
    assert len(shrunk.steps) <= len(_kill(factory).counterexample.steps)


def test_a_generation_claimed_twice_breaks_claim_once() -> None:
    cx = _kill(ClaimsTwice).counterexample
    assert cx.clause == "S-CLAIM-ONCE"
    assert "again" in cx.message


def test_a_cycle_without_its_closing_element_breaks_the_cycle_oracle() -> None:
    cx = _kill(ShortCycle).counterexample
    assert cx.clause == "S-ORACLE-CYCLE"
    assert "cycle" in cx.snapshot


def test_a_bare_key_error_for_an_unknown_id_breaks_rule_9() -> None:
    cx = _kill(KeyErrorForUnknown).counterexample
    assert cx.clause == "S9"
    assert "KeyError" in cx.divergence.actual
    assert "UnknownTaskError" in cx.divergence.expected


def test_a_failure_that_does_not_block_dependents_breaks_the_invariant() -> None:
    cx = _kill(NoBlocking).counterexample
    assert cx.clause == "S-INV"
    assert "should be BLOCKED" in cx.message


def test_a_target_that_cannot_be_built_is_a_counterexample_not_a_crash() -> None:
    def unbuildable(max_concurrency: int) -> Any:
        raise RuntimeError("no")

    cx = _kill(unbuildable).counterexample
    assert cx.clause == "S9"
    assert "could not be built" in cx.message


@pytest.mark.parametrize("shrink", [
    False, pytest.param(True, marks=pytest.mark.nightly)], ids=["unshrunk", "shrunk"])
def test_one_seed_yields_one_trace(shrink: bool) -> None:
    first = run_scheduler_suite(ShortCycle, examples=KILL_EXAMPLES, seed=11, shrink=shrink)
    second = run_scheduler_suite(ShortCycle, examples=KILL_EXAMPLES, seed=11, shrink=shrink)
    assert first.counterexample is not None and second.counterexample is not None
    assert [s.code for s in first.counterexample.steps] == [
        s.code for s in second.counterexample.steps]
    assert first.counterexample.hypothesis_program == second.counterexample.hypothesis_program
    assert (first.examples, first.steps) == (second.examples, second.steps)
    passing = [run_scheduler_suite(ModelScheduler, examples=30, seed=5) for _ in range(2)]
    assert passing[0].steps == passing[1].steps


def test_progress_is_reported_after_every_example() -> None:
    calls: list[tuple[int, int, int]] = []
    result = run_scheduler_suite(ModelScheduler, examples=20, seed=1,
                                 progress=lambda e, s, f: calls.append((e, s, f)))
    assert calls and calls[-1][0] == result.examples and calls[-1][1] == result.steps
    assert [c[0] for c in calls] == list(range(1, len(calls) + 1))


def test_the_machine_class_runs_as_a_plain_hypothesis_test_case() -> None:
    machine = make_scheduler_machine(ModelScheduler)
    assert {"model", "target", "trace"} <= set(vars(machine()))
    assert machine.support.retry


def test_a_bug_in_the_model_side_is_an_internal_error_not_a_counterexample(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_close(self: Any) -> list[Any]:
        raise RuntimeError("model bug")

    monkeypatch.setattr(ModelScheduler, "close", broken_close)
    with pytest.raises(SchedcheckInternalError, match="reference model raised RuntimeError"):
        run_scheduler_suite(Stranger, examples=100, seed=0, shrink=False)


# --------------------------------------------------------------------------------------------
# Oracles on tiny known graphs
# --------------------------------------------------------------------------------------------


def test_networkx_sees_self_loops_and_cycles_and_ignores_unknown_dependencies() -> None:
    assert oracles.has_cycle({"a": ["a"]})
    assert oracles.has_cycle({"a": ["c"], "b": ["a"], "c": ["b"]})
    assert not oracles.has_cycle({"a": [], "b": ["a"], "c": ["a", "b"]})
    assert not oracles.has_cycle({"a": ["zzz"]})


def test_a_reported_cycle_may_be_any_rotation_but_must_follow_real_edges() -> None:
    deps = {"a": ["c"], "b": ["a"], "c": ["b"]}  # a -> b -> c -> a (each a dep of the next)
    for rotation in (["a", "b", "c", "a"], ["b", "c", "a", "b"], ["c", "a", "b", "c"]):
        assert oracles.cycle_problem(rotation, deps) is None
    assert "claims 'a' is a dependency of 'c'" in str(
        oracles.cycle_problem(["a", "c", "b", "a"], deps))  # the reverse direction
    assert "does not end where it starts" in str(oracles.cycle_problem(["a", "b", "c"], deps))
    assert "repeats" in str(oracles.cycle_problem(["a", "b", "a", "b", "a"], deps))
    assert "too short" in str(oracles.cycle_problem(["a"], deps))
    assert "must be a list" in str(oracles.cycle_problem(None, deps))
    assert oracles.cycle_problem(["s", "s"], {"s": ["s"]}) is None


def test_graphlib_batches_of_a_diamond_are_its_layers() -> None:
    deps = {"top": [], "left": ["top"], "right": ["top"], "bottom": ["left", "right"]}
    assert oracles.topo_batches(deps) == [
        frozenset({"top"}), frozenset({"left", "right"}), frozenset({"bottom"})]


def test_ready_batches_of_an_unbounded_scheduler_equal_graphlibs_groups() -> None:
    deps = {"a": (), "b": ("a",), "c": ("a",), "d": ("b", "c"), "e": ()}
    s = ModelScheduler(100)
    for task, ds in deps.items():
        s.submit(task, ds)
    s.start()
    batches = []
    while claims := adapt.norm_claims(s.ready()):
        batches.append(frozenset(t for t, _ in claims))
        for t, g in claims:
            s.complete(t, g)
    assert batches == oracles.topo_batches(deps)
    assert s.info("d").state is TaskState.SUCCEEDED


# --------------------------------------------------------------------------------------------
# S-COST
# --------------------------------------------------------------------------------------------


def test_the_layered_workload_completes_every_task_on_the_model() -> None:
    assert oracles.drain(ModelScheduler, 40) == 40


def test_the_bundled_scheduler_scales_linearly() -> None:
    from schedcheck.impl import Scheduler

    result = check_scheduler_scaling(Scheduler, n=2000)
    assert result.verdict == HELD, result.text
    assert result.ratio < 3.0


def test_a_scheduler_that_rescans_every_task_per_call_does_not_scale() -> None:
    # the reference model rescans every task after every call, on purpose: O(V) per call
    result = check_scheduler_scaling(ModelScheduler, n=150)
    assert result.verdict == BROKEN, result.text
    assert result.ratio > 3.0
