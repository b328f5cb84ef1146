"""grade's failing programs go through the suites' own delta debugging
(``schedcheck.practice.reduce`` over ``schedcheck.harness.minimize.reduce_ops``): steps,
whole tasks, arguments and the constructor's numbers, not only steps one at a time."""

from __future__ import annotations

from typing import Any

from schedcheck.practice.reduce import from_ops, reduce_program, to_ops

Step = tuple[str, tuple[Any, ...]]


def test_every_kind_of_step_survives_the_round_trip() -> None:
    steps: list[Step] = [("submit", ("a", [])), ("submit", ("b", ["a"])),
                         ("submit_opt", ("c", ["a"], ["b"])), ("start", ()), ("ready", (2,)),
                         ("complete", ("a", 1)), ("schedule", (25,)), ("after", (3,)),
                         ("advance", (30,)), ("cancel", (0,)), ("cancel_foreign", ())]
    assert from_ops(to_ops((3,), steps)) == ((3,), steps)


def test_a_wheel_program_loses_its_extra_steps_and_its_numbers_go_towards_zero() -> None:
    calls: list[Any] = []

    def fails(build: tuple[Any, ...], steps: list[Step]) -> bool:  # "a deadline past 5"
        calls.append(build)
        return any(call == "schedule" and args[0] > 5 for call, args in steps)

    build, steps = reduce_program(
        (10, 8), [("advance", (3,)), ("schedule", (1_000_000,)), ("cancel", (0,)),
                  ("schedule", (2,)), ("advance", (40,))], fails)
    assert (build, steps) == ((1, 1), [("schedule", (6,))])
    assert len(calls) < 200  # replays counted, not timed


def test_a_scheduler_program_loses_a_task_a_dependency_and_concurrency() -> None:
    def fails(build: tuple[Any, ...], steps: list[Step]) -> bool:  # "b completed twice"
        return (steps.count(("complete", ("b", 1))) >= 2
                and any(call == "submit" and args[0] == "b" for call, args in steps))

    build, steps = reduce_program(
        (4,), [("submit", ("a", [])), ("submit", ("b", ["a"])), ("submit", ("c", ["b"])),
               ("start", ()), ("ready", (None,)), ("complete", ("a", 1)),
               ("complete", ("b", 1)), ("complete", ("c", 1)), ("complete", ("b", 1))], fails)
    assert build == (1,)
    assert steps == [("submit", ("b", [])), ("complete", ("b", 1)), ("complete", ("b", 1))]
