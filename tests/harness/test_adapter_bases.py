"""The adapter bases are correct by construction: a correct implementation behind
``SchedulerAdapter`` or ``WheelAdapter`` gets no counterexample, under every combination of
the capabilities that the implementation can honestly declare.

The bundled scheduler and wheels are wrapped in the thinnest adapters (each method one call
of the implementation) and checked with a fixed seed and example budget. An adapter base that
invents a mistake -- hands out a task cancelled since it took it from the implementation,
reports to the implementation a task it never handed out -- fails here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import pytest

from schedcheck import impl, pipeline
from schedcheck.targets.adapters import (
    SchedulerAdapter,
    SchedulerCapabilities,
    WheelAdapter,
    WheelCapabilities,
)

#: examples per search round, and the seed: fixed (the verdicts do not depend on the
#: environment's Hypothesis profile). The base's known way to invent a mistake -- handing out
#: a task cancelled since it took it -- has its own tests below (the sequence, and the search
#: meeting it); without cancel() that cannot happen, and fewer examples do
EXAMPLES, SEED = 100, 1
EXAMPLES_WITHOUT_CANCEL = 40
#: the wheels' (each level runs its own rounds: fewer examples per round keep each test short)
WHEEL_EXAMPLES = 30


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


def scheduler_adapter(*, fail: bool, cancel: bool, limit: bool) -> type[SchedulerAdapter]:
    """The bundled scheduler behind the base, declaring ``fail``/``cancel``/``limit``."""

    class Bundled(SchedulerAdapter):
        capabilities = SchedulerCapabilities(
            generations=False, fail=fail, cancel=cancel, close=False, info=False,
            claim_order="any", validates_args=False, unknown_deps=False, limit=limit)

        def build(self) -> None:
            # without a limit of its own, the implementation hands out every ready task
            self.inner = impl.Scheduler(self.max_concurrency if limit else 10_000)
            self.generation: dict[Hashable, int] = {}

        def add(self, task_id: Hashable, deps: tuple[Hashable, ...]) -> None:
            self.inner.submit(task_id, deps, _noop)

        def start_graph(self) -> None:
            self.inner.start()

        def take(self) -> Iterable[Any]:
            claims = self.inner.ready()
            self.generation.update((c.task_id, c.generation) for c in claims)
            return [c.task_id for c in claims]

        def finish(self, task_id: Any) -> None:
            self.inner.complete(task_id, self.generation.get(task_id, 0))

        def fail_task(self, task_id: Any) -> None:
            self.inner.fail(task_id, self.generation.get(task_id, 0))

        def cancel_task(self, task_id: Any) -> None:
            self.inner.cancel(task_id)

    Bundled.__qualname__ = Bundled.__name__ = (
        f"Bundled_fail{int(fail)}_cancel{int(cancel)}_limit{int(limit)}")
    return Bundled


def wheel_adapter(make: Callable[..., Any], *, cancel: str,
                  counts_pending: bool) -> type[WheelAdapter]:
    """A bundled wheel behind the base: its handles as tokens, ``cancel`` in the declared
    style (``raises``: the adapter raises where the wheel answers False)."""

    class Bundled(WheelAdapter):
        # the wheel checks the arguments the adapter passes it (``fire``), not the suite's
        capabilities = WheelCapabilities(cancel=cancel,  # type: ignore[arg-type]
                                         counts_pending=counts_pending, validates_args=False)

        def build(self, tick: int, wheel_size: int) -> None:
            self.inner = make(tick, wheel_size)

        def add(self, deadline: int, fire: Callable[[], None]) -> Any:
            return self.inner.schedule(deadline, fire)

        def remove(self, token: Any) -> Any:
            stopped = self.inner.cancel(token)
            if cancel == "raises" and stopped is not True:
                raise KeyError("not pending")
            return None if cancel == "none" else stopped

        def run_until(self, now: int) -> None:
            for handle in self.inner.advance(now):  # no executor: the caller runs them
                handle.callback()

        def count(self) -> int | None:
            return self.inner.pending() if counts_pending else None

    Bundled.__qualname__ = Bundled.__name__ = (
        f"Bundled_{getattr(make, '__name__', 'wheel')}_{cancel}_counts{int(counts_pending)}")
    return Bundled


def _found(result: Any) -> list[str]:
    return [f"{cx.clause}: {cx.message}" for cx in result.all_counterexamples()]


SCHEDULER_CASES = [dict(zip(("fail", "cancel", "limit"), combo, strict=True))
                   for combo in itertools.product((False, True), repeat=3)]


@pytest.mark.parametrize("caps", SCHEDULER_CASES,
                         ids=lambda c: "-".join(k for k, v in c.items() if v) or "bare")
def test_the_bundled_scheduler_behind_the_base_has_no_counterexample(
        caps: dict[str, bool]) -> None:
    adapter = scheduler_adapter(**caps)
    result = pipeline.check("scheduler", adapter, target_name=adapter.__name__,
                            examples=EXAMPLES if caps["cancel"] else EXAMPLES_WITHOUT_CANCEL,
                            seed=SEED, cost=False, levels=True, level="core", profile="ci",
                            shrink=False)
    assert not _found(result), _found(result)
    assert result.stats, "nothing was checked"


WHEEL_CASES = [(make, cancel, counts)
               for make in (impl.HashedTimingWheel, impl.HierarchicalTimingWheel)
               for cancel in ("bool", "raises", "none")
               for counts in (True, False)]
#: the base's code is the same whichever wheel it wraps: every combination runs on the hashed
#: wheel in every run, and on the hierarchical one nightly (one combination in every run)
_EVERY_RUN = {impl.HashedTimingWheel, (impl.HierarchicalTimingWheel, "bool", True)}


def _wheel_case(make: Any, cancel: str, counts: bool) -> Any:
    if make in _EVERY_RUN or (make, cancel, counts) in _EVERY_RUN:
        return (make, cancel, counts)
    return pytest.param(make, cancel, counts, marks=pytest.mark.nightly(
        reason="the same base code as on the hashed wheel, whose combinations run every time"))


@pytest.mark.parametrize(("make", "cancel", "counts_pending"),
                         [_wheel_case(*case) for case in WHEEL_CASES],
                         ids=[f"{m.__name__}-{c}-{'counts' if n else 'books'}"
                              for m, c, n in WHEEL_CASES])
def test_the_bundled_wheels_behind_the_base_have_no_counterexample(
        make: Callable[..., Any], cancel: str, counts_pending: bool) -> None:
    adapter = wheel_adapter(make, cancel=cancel, counts_pending=counts_pending)
    result = pipeline.check("wheel", adapter, target_name=adapter.__name__,
                            examples=WHEEL_EXAMPLES, seed=SEED, cost=False, levels=True,
                            profile="ci", shrink=False)
    assert not _found(result), _found(result)
    assert result.stats, "nothing was checked"


class _ForwardsCancelOnly(scheduler_adapter(fail=True, cancel=True, limit=False)):  # type: ignore[misc]
    """The base as it once was: a cancel of a task in its queue forwarded, the task kept."""

    def cancel(self, task_id: Any) -> None:
        self.cancel_task(task_id)


def _claims_after_cancelling_a_queued_task(adapter: type[SchedulerAdapter]) -> list[Any]:
    """Two roots, one slot: ``a`` is claimed, ``b`` waits in the base's queue (the
    implementation handed out both) and is cancelled there; ``a`` completes; then ready()."""
    scheduler = adapter(1)
    scheduler.submit("a", ())
    scheduler.submit("b", ())
    scheduler.start()
    assert [c.task_id for c in scheduler.ready()] == ["a"]
    scheduler.cancel("b")
    scheduler.complete("a")
    return [c.task_id for c in scheduler.ready()]


def test_a_task_cancelled_in_the_bases_queue_is_never_handed_out() -> None:
    assert _claims_after_cancelling_a_queued_task(scheduler_adapter(
        fail=True, cancel=True, limit=False)) == []
    # the sequence reaches the mistake: the old base hands the cancelled task out
    assert _claims_after_cancelling_a_queued_task(_ForwardsCancelOnly) == ["b"]


def test_the_core_levels_search_meets_a_cancel_of_a_task_a_queue_took() -> None:
    """The core level cancels tasks no worker holds, some of which a queue in front of the
    implementation has already taken: the old base's mistake is a counterexample."""
    result = pipeline.check("scheduler", _ForwardsCancelOnly, target_name="ForwardsCancelOnly",
                            examples=EXAMPLES, seed=0, cost=False, levels=True, level="core",
                            profile="ci", shrink=False)
    assert any(f.startswith("S-CLAIM-DEPS: ") and "which is dead" in f
               for f in _found(result)), _found(result)


def test_the_base_never_reports_a_task_it_did_not_hand_out() -> None:
    scheduler = scheduler_adapter(fail=True, cancel=True, limit=False)(1)
    scheduler.submit("a", ())
    scheduler.submit("b", ())
    scheduler.start()
    scheduler.ready()  # a claimed; b held in the base's queue
    for report in (scheduler.complete, scheduler.fail):
        with pytest.raises(ValueError, match="was not claimed"):
            report("b")
    # the implementation was told nothing of b: it still runs there
    assert scheduler.inner.info("b").state.name == "RUNNING"
