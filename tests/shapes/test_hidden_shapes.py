"""The shapes phase of the search finds mistakes that only real graph shapes reach, on
schedulers the suite's small id-ordered graphs pass (``tests/shapes/hidden.py``), and reduces
each to the size it needs; the bundled scheduler passes the same search.

Every run counts examples (one whole round of the search's chunks), never seconds, with a
pinned seed and profile, inside ``seed_only_draws``: the same run in every process."""

from __future__ import annotations

import re
from typing import Any

from schedcheck.impl import Scheduler

from schedcheck import profiles
from schedcheck.harness import guard, search
from schedcheck.harness.result import RunResult
from schedcheck.harness.scheduler.suite import make_scheduler_machine
from tests.shapes import hidden

#: One whole round of the scheduler's chunks: scenarios, free directed, swarm, long, then
#: each shape small and large (a chunk may run an example or two more than it asks, so the
#: runs below are given two rounds)
ROUND = sum(c.examples for c in search.plan("scheduler"))


def _search(factory: Any, *, seed: int, examples: int = 2 * ROUND) -> RunResult:
    result = RunResult.fresh("scheduler", getattr(factory, "__name__", ""))
    machine = make_scheduler_machine(factory, result=result)
    with profiles.seed_only_draws():
        return search.search(machine, result, budget=None, examples=examples, seed=seed,
                             profile="ci")


def _found_note(result: RunResult) -> str:
    return next(n for n in result.notes if n.startswith("search: found"))


def test_a_round_ends_with_every_shape_small_then_large() -> None:
    from schedcheck.harness.scheduler.shapes import SHAPES

    chunks = search.plan("scheduler")
    shaped = [c.start_state for c in chunks if c.phase == "shapes"]
    assert len(shaped) == 2 * len(SHAPES) == 16
    sizes = [int(str(s).rsplit(":", 1)[1]) for s in shaped]
    # the first six shapes small then large; then the directed-only scenarios; then the two
    # added later, each in its first pass (larger: the point is a threshold), then large
    assert max(sizes[:6]) <= 6 and min(sizes[6:12]) >= 300
    assert sizes[12:14] == [150, 300] and min(sizes[14:]) >= 1000
    last = [c.phase for c in chunks[-6:]]
    assert last == ["directed", "directed", "shapes", "shapes", "shapes", "shapes"], last
    assert "shape:deep chain:2000" in shaped
    assert not [c for c in search.plan("scheduler", scenarios=False) if c.phase == "shapes"]


def test_a_cycle_entered_from_a_dependent_is_found_by_the_shapes_phase() -> None:
    result = _search(hidden.MissesCycleBehindDependent, seed=0)
    cx = result.counterexample
    assert cx is not None and cx.clause in ("S2", "S-ORACLE-CYCLE"), result.notes
    assert "the shape 'cycle behind a dependent'" in _found_note(result)
    assert any("start" in step.code for step in cx.steps)
    assert len(cx.steps) <= 6, [step.code for step in cx.steps]


def test_a_recursive_cycle_check_dies_on_the_deep_chain_reduced_to_the_depth_it_needs() -> None:
    result = _search(hidden.RecursiveCycleCheck, seed=0)
    cx = result.counterexample
    assert cx is not None and cx.clause == "S2", result.notes
    assert "RecursionError" in str(cx.steps[-1].actual)
    assert "the shape 'deep chain' of 2,000 tasks" in _found_note(result)
    note = next(n for n in result.notes if n.startswith("minimized"))
    depth = re.search(r"recursion at depth ~([\d,]+)", note)
    assert depth is not None, note
    # Python's default limit is 1,000 frames: a walk from the top needs ~1,000 tasks, one
    # from a task in the middle of a shuffled chain more (the bisection may stop at its time
    # budget, with a size that still fails)
    assert 900 <= int(depth.group(1).replace(",", "")) < 2000, note


def test_an_edge_check_that_walks_every_path_hangs_on_a_large_random_dag() -> None:
    with guard.step_limit(0.5):
        result = _search(hidden.EveryPathEdgeCheck, seed=2)
    cx = result.counterexample
    assert cx is not None and cx.clause == "S1", result.notes
    assert "Hang" in str(cx.steps[-1].actual)
    assert "the shape 'shuffled DAG' of 300 tasks" in _found_note(result)
    note = next(n for n in result.notes if n.startswith("minimized"))
    assert re.search(r"'shuffled DAG' went from 300 tasks to \d+", note), note


def test_the_bundled_scheduler_passes_a_whole_round_shapes_included() -> None:
    result = _search(Scheduler, seed=0)
    assert result.counterexample is None, result.notes
    # seed-only mode charges steps (a large shape its calls): at least one whole round ran
    assert result.examples >= ROUND, result.notes
    assert re.search(r"shapes \d+", result.notes[-1]), result.notes


def test_the_core_level_meets_a_deep_chain_too() -> None:
    """An adapter is checked at the core level, which has no shapes phase: its drawn graphs
    include a chain 2,000 deep, submitted from its far end, so a recursive walk dies there
    too, and start() refusing a graph without a cycle is a counterexample."""
    from schedcheck.harness.scheduler.core import run_core_suite
    from schedcheck.harness.scheduler.core_graphs import DEEP

    with profiles.seed_only_draws():
        result = run_core_suite(hidden.RecursiveCycleCheck, examples=200, seed=2,
                                shrink=False, profile="ci")
    cx = result.counterexample
    assert cx is not None and cx.clause == "S-ORACLE-CYCLE", result.notes
    assert "RecursionError" in cx.message and "networkx finds no cycle" in cx.message
    assert f"{DEEP:,} tasks" in cx.message, cx.message


def _search_shape(factory: Any, name: str, *, seed: int) -> RunResult:
    """The first pass of shape ``name`` alone, as the round plays it (one example)."""
    return _search_chunk(factory, lambda c: c.phase == "shapes" and not c.large
                         and f":{name}:" in str(c.start_state), seed=seed)


def _search_chunk(factory: Any, which: Any, *, seed: int) -> RunResult:
    """The first chunk of a round that ``which`` picks, alone, as the round plays it."""
    chunk = next(c for c in search.plan("scheduler") if which(c))
    original = search.plan
    search.plan = lambda system, scenarios=True: [chunk]  # type: ignore[assignment]
    try:
        return _search(factory, seed=seed, examples=chunk.examples)
    finally:
        search.plan = original


def test_a_compaction_that_loses_queued_entries_is_found_by_a_burst_of_cancels() -> None:
    """Dead entries outnumber live ones only after a burst of cancels of a large queue (the
    bundled queue compacts past 64 dead entries): the small id-ordered graphs never get there."""
    result = _search_shape(hidden.CompactionForgetsNewEntries, "bulk cancel", seed=0)
    cx = result.counterexample
    assert cx is not None, result.notes
    assert "the shape 'bulk cancel' of 150 tasks" in _found_note(result)
    note = next(n for n in result.notes if n.startswith("minimized"))
    size = re.search(r"went from 150 tasks to (\d+)", note)
    assert size is not None and 64 < int(size.group(1)) < 150, note
    # the same first pass holds on the bundled queue
    assert _search_shape(Scheduler, "bulk cancel", seed=0).counterexample is None


def test_a_generation_compared_with_is_fails_from_the_257th_generation() -> None:
    result = _search_shape(hidden.GenerationComparedWithIs, "many generations", seed=0)
    cx = result.counterexample
    assert cx is not None and cx.clause in ("S4", "S5", "S6"), result.notes
    assert "the shape 'many generations' of 300 generations" in _found_note(result)
    note = next(n for n in result.notes if n.startswith("minimized"))
    assert "fails at 257, passes at 256" in note, note
    assert "a task resubmitted ~257 times" in note, note
    assert _search_shape(Scheduler, "many generations", seed=0).counterexample is None


def test_an_id_handed_back_as_text_is_found_by_the_directed_int_id() -> None:
    """Every id the rules draw is a string: only the directed start with an int id shows a
    scheduler that hands ids to its workers as text."""
    scenario = "an id that is not a string"
    result = _search_chunk(hidden.ClaimsCarryTextIds, lambda c: c.start_state == scenario,
                           seed=0)
    cx = result.counterexample
    assert cx is not None, result.notes
    assert f"from the scenario '{scenario}'" in _found_note(result)
    # reduced to the int id (7 shrinks to 0) and the claim that hands it back as text
    assert [st.code for st in cx.steps][-1] == "claim_0 = target.ready()", cx.steps
    assert (cx.steps[-1].expected, cx.steps[-1].actual) == ("[(0, 1)]", "[('0', 1)]")
    assert _search_chunk(Scheduler, lambda c: c.start_state == scenario,
                         seed=0).counterexample is None


def test_a_retry_that_forgets_its_root_is_found_by_the_directed_failed_chain() -> None:
    scenario = "retry a failed chain"
    result = _search_chunk(hidden.RetryForgetsItsOwnRoot, lambda c: c.start_state == scenario,
                           seed=0)
    cx = result.counterexample
    assert cx is not None and cx.clause == "S-X-RETRY", result.notes
    assert f"from the scenario '{scenario}'" in _found_note(result)
    assert "retry(" in cx.steps[-1].code, [st.code for st in cx.steps]
    assert _search_chunk(Scheduler, lambda c: c.start_state == scenario,
                         seed=0).counterexample is None
