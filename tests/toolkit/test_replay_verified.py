"""Every written counterexample replays: ``python3 -I replay.py``, run from the folder it was
written to, fails with an AssertionError at the step the card prints -- over the zoo, the
core level, tolerance mode, real implementations through adapters, and a race.

Each test checks twice: the writer's own verdict (``Counterexample.replay_check``, which the
card shows) and an independent run of the script here. The zoo runs every sequential entry
with one seed (the seed alternates along the catalogue, so both seeds are covered) and,
nightly, with both; the replay of each also runs with ``--target`` on the bundled
implementation the entry was made from, where it must pass.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from schedcheck import pipeline, profiles, systems
from schedcheck.harness.result import Counterexample, RunResult
from schedcheck.report.replay_check import replay_python
from schedcheck.report.writer import write_run
from schedcheck.zoo.catalogue import Mutant, all_mutants

SEQUENTIAL = [m for m in all_mutants() if m.kind == "sequential"]
SEEDS = (0, 1)
#: The most steps a reduced zoo counterexample may keep. The longest mistakes need this many:
#: blocking that reaches a RUNNING task needs a chain of three, a claim, its completion, a
#: second claim, a resubmit and the cancel; W-MEM needs three timers filed and cancelled, an
#: advance and the query that counts them.
MOST_STEPS = 10


def _zoo_cases() -> list[Any]:
    """Every sequential entry with one seed (alternating along the catalogue, so both seeds
    are covered) and, nightly, with the other seed too."""
    return [pytest.param(m, seed, id=f"{m.name}-s{seed}",
                         marks=() if seed == i % len(SEEDS) else pytest.mark.nightly)
            for i, m in enumerate(SEQUENTIAL) for seed in SEEDS]


def correct_target(mutant: Mutant) -> str:
    """The bundled implementation the mutant was made from (a correct one)."""
    from schedcheck.impl import HierarchicalTimingWheel

    factory = mutant.factory
    if isinstance(factory, type) and issubclass(factory, HierarchicalTimingWheel):
        return "schedcheck.impl:HierarchicalTimingWheel"
    return {"scheduler": "schedcheck.impl:Scheduler",
            "wheel": "schedcheck.impl:HashedTimingWheel"}[mutant.system]


def _written(result: RunResult, out: Path, spec: str) -> list[tuple[Counterexample, Path]]:
    """Write the run as ``schedcheck check`` does; each counterexample and its replay.py."""
    write_run(result, out, target_spec=spec, cwd=str(Path.cwd()), with_pictures=False)
    found = result.all_counterexamples()
    assert found, f"{spec}: no counterexample to replay"
    return [(cx, out / cx.clause / "replay.py" if (out / cx.clause).is_dir()
             else out / "replay.py") for cx in found]


def _run(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([replay_python(), "-I", script.name, *args], cwd=script.parent,
                          capture_output=True, text=True, timeout=120, check=False)


def _assert_passes_on(script: Path, target: str) -> None:
    """``replay.py --target TARGET`` on a correct implementation: exit 0, "did not reproduce"."""
    done = _run(script, "--target", target)
    assert done.returncode == 0 and "did not reproduce" in done.stdout, (
        f"{script} --target {target} (exit {done.returncode}):\n{done.stderr[-2000:]}")


def _assert_replays(cx: Counterexample, script: Path) -> None:
    at = cx.divergence
    assert at is not None, f"{cx.clause}: no diverging step"
    assert cx.replay_check == f"verified: fails at step {at.index} as shown", cx.replay_check
    done = _run(script)
    assert done.returncode != 0, f"{script} ran to the end:\n{done.stdout}"
    failed = re.findall(r"^AssertionError: step (-?\d+) ", done.stderr, re.MULTILINE)
    assert failed == [str(at.index)], f"{script}:\n{done.stderr[-2000:]}"


@pytest.mark.parametrize(("mutant", "seed"), _zoo_cases())
def test_the_replay_of_each_zoo_counterexample_fails_at_its_step_and_passes_once_fixed(
        mutant: Mutant, seed: int, tmp_path: Path) -> None:
    """On its mutant: the AssertionError at the printed step; with ``--target`` on the
    bundled implementation the mutant was made from: exit 0, "did not reproduce"."""
    spec = f"zoo:{mutant.name}"
    result = pipeline.check(systems.get(mutant.system), mutant.factory, target_name=spec,
                            examples=500, seed=seed, cost=False, first=True)
    for cx, script in _written(result, tmp_path, spec):
        _assert_replays(cx, script)
        assert len(cx.steps) <= MOST_STEPS, f"{cx.clause}: {len(cx.steps)} steps after reduction"
        _assert_passes_on(script, correct_target(mutant))


def test_a_core_level_counterexample_is_reduced_and_replays_without_schedcheck(
        tmp_path: Path) -> None:
    from tests.toolkit.replay_answers import DoubleReleaseScheduler

    spec = "tests.toolkit.replay_answers:DoubleReleaseScheduler"
    result = pipeline.check("scheduler", DoubleReleaseScheduler, target_name=spec,
                            examples=300, seed=1, cost=False, levels=True, level="core",
                            first=True)
    assert not any(n.startswith("not minimized") for n in result.notes), result.notes
    for cx, script in _written(result, tmp_path, spec):
        _assert_replays(cx, script)
        assert len(cx.steps) <= 8
        source = script.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import) schedcheck", source, re.MULTILINE)
        assert "<function" not in source and " at 0x" not in source


def test_a_tolerance_mode_counterexample_replays(tmp_path: Path) -> None:
    from tests.toolkit.replay_answers import EarlyWheel

    spec = "tests.toolkit.replay_answers:EarlyWheel"
    result = pipeline.check("wheel", EarlyWheel, target_name=spec, examples=300, seed=1,
                            cost=False, tolerance=True, first=True)
    for cx, script in _written(result, tmp_path, spec):
        _assert_replays(cx, script)
        numbers = [int(n) for n in re.findall(r"-?\d+", cx.setup + " ".join(
            st.code for st in cx.steps))]
        assert max(map(abs, numbers)) <= 1000, (cx.setup, [st.code for st in cx.steps])


def test_a_batch_counterexample_replays_and_passes_once_fixed(tmp_path: Path) -> None:
    """A mistake of ``complete_many`` alone: its replay reads the batch's list of replies
    as the check did."""
    from tests.toolkit.replay_batch import BatchIgnoresGenerations

    spec = "tests.toolkit.replay_batch:BatchIgnoresGenerations"
    result = pipeline.check("scheduler", BatchIgnoresGenerations, target_name=spec,
                            examples=100, seed=0, cost=False, first=True)
    found = _written(result, tmp_path, spec)
    assert any(cx.divergence is not None and "complete_many" in cx.divergence.code
               for cx, _ in found), [cx.steps for cx, _ in found]
    for cx, script in found:
        _assert_replays(cx, script)
        _assert_passes_on(script, "schedcheck.impl:Scheduler")


def test_a_target_found_through_pythonpath_replays(tmp_path: Path) -> None:
    """``python3 -I replay.py`` ignores PYTHONPATH: the folders the check found the target
    in through it are tried as well, so the replay loads it and is verified."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "pythonpath_target.py").write_text(
        "from schedcheck.impl import Scheduler\n\n\n"
        "class Forgetful(Scheduler):\n"
        "    def complete(self, task_id, generation):\n"
        "        return super().complete(task_id, self.info(task_id).generation)\n",
        encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(lib)}
    done = subprocess.run([sys.executable, "-m", "schedcheck.cli", "check", "scheduler",
                           "pythonpath_target:Forgetful", "--examples", "100", "--seed", "0",
                           "--no-cost", "--first", "--out", str(work / "out")],
                          cwd=work, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "replay it:   python3 replay.py   (run before this was shown: verified" in done.stdout, \
        done.stdout[-3000:]


@pytest.mark.parametrize(("system", "spec", "level"), [
    ("scheduler", "tests.corpus.graphlib2_rust:Graphlib2", "core"),
    ("wheel", "tests.corpus.timewheel_pypi:PyPITimeWheel", None),
])
def test_an_adapter_counterexample_replays(system: str, spec: str, level: str | None,
                                           tmp_path: Path) -> None:
    from schedcheck.targets import load_target

    factory = load_target(spec).factory
    result = pipeline.check(system, factory, target_name=spec, examples=200, seed=1,
                            cost=False, levels=True, level=level, first=True)
    for cx, script in _written(result, tmp_path, spec):
        _assert_replays(cx, script)


def test_a_race_counterexample_replays_under_the_recorded_schedule(tmp_path: Path) -> None:
    mutant = next(m for m in all_mutants() if m.name == "race-complete-decrement-unlocked")
    spec = f"zoo:{mutant.name}"
    result = pipeline.check("scheduler", mutant.factory, target_name=spec, examples=60,
                            seed=1, suite=False, cost=False, rounds=True)
    for cx, script in _written(result, tmp_path, spec):
        _assert_replays(cx, script)



def test_a_duplicate_callback_that_hangs_is_a_core_verdict() -> None:
    """The core level does not compare a duplicate callback's reply (any answer will do),
    but the call must return: a hang there breaks S4, and the counterexample says so (the
    check runs the target in a supervised child, which it stops at the hang). The answer
    also loses tasks submitted after start() and recurses once per task in its cycle check
    (a deep chain): seeds 0, 4 and 5 of 0-5 find one of those first; seed 2
    also draws a late worker's fail() after a resubmit, which the core level once sent to a
    target without fail() (an internal error of the check, now a complete()). With ``first``
    the check stops at the hang; it once searched on and reduced another mistake for 40 s."""
    from schedcheck import supervised
    from tests.toolkit.replay_answers import HangsOnDuplicateScheduler

    result = supervised.check("scheduler", HangsOnDuplicateScheduler, step_seconds=0.3,
                              target_name="HangsOnDuplicateScheduler", examples=200, seed=2,
                              profile="ci", cost=False, levels=True, level="core", first=True)
    cx = result.counterexample
    assert cx is not None and cx.clause == "S4", result.notes
    assert "did not return within 0.3 s" in cx.message, cx.message
    assert cx.divergence is not None and "again" in cx.divergence.words, cx.divergence
    assert cx.divergence.actual == "raises Hang[did not return within 0.3 s]"
    # first=True: no second process searches on for the answer's other mistakes
    assert any("--first stops at the first counterexample" in n for n in result.notes), \
        result.notes


def test_a_round_found_by_the_suite_replays_its_history(tmp_path: Path) -> None:
    """A race the suite's concurrent round finds (not the standalone hunt): the replay runs
    the round under the recorded schedule and fails where the same history comes back."""
    from schedcheck.concurrency import concurrency_bases
    from schedcheck.harness.search import search
    from schedcheck.harness.wheel.suite import make_wheel_machine
    from schedcheck.zoo.race_mutants import SplitMaxPendingWheel

    result = RunResult.fresh("wheel", "SplitMaxPendingWheel")
    machine = make_wheel_machine(SplitMaxPendingWheel, result=result,
                                 extra_bases=concurrency_bases("wheel", SplitMaxPendingWheel))
    with profiles.seed_only_draws():  # the seed the rounds test keeps first
        search(machine, result, budget=None, examples=100, seed=2, minimize=False,
               profile="ci")
    spec = "schedcheck.zoo.race_mutants:SplitMaxPendingWheel"
    for cx, script in _written(result, tmp_path, spec):
        assert cx.clause == "W-LIN" and cx.divergence is not None
        assert ".describe() == " in (cx.divergence.observed or "")
        _assert_replays(cx, script)
