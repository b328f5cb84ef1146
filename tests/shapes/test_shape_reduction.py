"""The reduction's first pass bisects a graph shape's size (``delta.smaller_shapes``), and a
shape's state names round-trip (``scheduler.shapes``)."""

from __future__ import annotations

from schedcheck.harness import delta
from schedcheck.harness.program import Op
from schedcheck.harness.scheduler import shapes


def test_a_shape_is_bisected_to_the_least_size_that_still_fails() -> None:
    tried: list[int] = []

    def fails(ops: list[Op]) -> bool:
        size = next(op.args[1] for op in ops if op.name == delta.SHAPE_OP)
        tried.append(size)
        return size >= 994  # a recursion limit: fails from 994 tasks on

    program = [Op("_build", (5,), {}), Op("_shape", ("deep chain", 2000, 7), {}),
               Op("start", (), {})]
    reduced = delta.smaller_shapes(program, fails)
    assert reduced[1].args == ("deep chain", 994, 7)
    assert reduced[0] is program[0] and reduced[2] is program[2]
    assert len(tried) <= 12  # log2(2000) replays, not thousands
    assert 993 in tried  # "passes at 993" was seen, not assumed


def test_programs_without_shapes_are_untouched() -> None:
    program = [Op("_build", (5,), {}), Op("_submit", ("a", ()), {})]
    assert delta.smaller_shapes(program, lambda ops: True) == program


def test_shape_states_round_trip_and_say_what_a_size_means() -> None:
    state = shapes.start_state("wide fan-out", 500)
    assert shapes.parse(state) == ("wide fan-out", 500)
    assert shapes.parse("join, duplicate complete") is None
    assert shapes.parse(None) is None
    assert shapes.describe("deep chain", 1000) == "a chain ~1,000 deep"
    assert shapes.describe("wide fan-in", 501) == "one task depending on ~500 others"


def test_a_shape_seed_depends_on_the_draws_the_salt_and_the_example() -> None:
    order, picks = list("abcdef"), [[0], [1, 2], [], [], [3], [4]]
    seeds = {shapes.shape_seed(order, picks, salt, example)
             for salt in (0, 1) for example in (0, 1)}
    assert len(seeds) == 4
    assert shapes.shape_seed(order, picks) == shapes.shape_seed(list(order), picks)
