"""`schedcheck check` grades levels and keeps going, guarded against the target, end to end.

Small fake targets written to a temporary folder, and two of the corpus adapters: a wheel
with two independent bugs lists both, each with its own counterexample folder; a target that
hangs or runs out of memory ends with a verdict (never a stuck run, never a traceback); a
target without the contract's surface is graded at the core level with the rest "not
supported"; one without even the core's surface is unusable (exit 2, naming what is missing).
Counterexamples are not shrunk (``--no-shrink``) and example counts are small: these tests are
about the grading, not the search.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schedcheck.harness.clauses import SEED_RULES

SCHEDCHECK = str(Path(sys.executable).with_name("schedcheck"))
CORPUS = Path(__file__).resolve().parents[1] / "corpus"

TWO_BUGS = '''\
class Timer:
    def __init__(self, deadline, callback):
        self.deadline, self.callback = deadline, callback
        self.fired = self.cancelled = False


class Wheel:
    """Two independent bugs: fires one unit early, and fires a timer cancel() stopped."""

    def __init__(self, tick, wheel_size):
        self.now, self.timers = 0, []

    def schedule(self, deadline, callback):
        timer = Timer(deadline, callback)
        self.timers.append(timer)
        return timer

    def schedule_after(self, delay, callback):
        return self.schedule(self.now + delay, callback)

    def cancel(self, handle):
        if handle not in self.timers or handle.cancelled:
            return False
        handle.cancelled = True  # but left in the list: it fires anyway
        return True

    def advance(self, now):
        self.now = max(self.now, now)
        due = [t for t in self.timers if t.deadline <= now + 1]  # one unit early
        self.timers = [t for t in self.timers if t not in due]
        for timer in due:
            timer.fired = True
        return due

    def pending(self):
        return sum(1 for t in self.timers if not t.cancelled)
'''

HANGS = '''\
import threading

from schedcheck.impl import HashedTimingWheel


class Wheel(HashedTimingWheel):
    """cancel() of a timer that already fired never returns."""

    def cancel(self, handle):
        if getattr(handle, "fired", False):
            threading.Event().wait()
        return super().cancel(handle)
'''

OUT_OF_MEMORY = '''\
from schedcheck.impl import HashedTimingWheel


class Wheel(HashedTimingWheel):
    """Allocates 64 bytes per unit of delay once a delay passes 2**30 units (a bucket array
    as long as the delay); below that it is the bundled wheel."""

    def schedule(self, deadline, callback):
        delay = deadline - self._now
        if delay > 2**30:
            self._buckets = bytearray(delay * 64)
        return super().schedule(deadline, callback)
'''

TWO_BUGS_SCHEDULER = '''\
from schedcheck.impl import Scheduler as _Base


class Scheduler(_Base):
    """Two independent bugs: one slot more than max_concurrency, and fail() releases the
    dependents (it completes the task)."""

    def __init__(self, max_concurrency):
        super().__init__(max_concurrency + 1)

    def fail(self, task_id, generation, error=None):
        return self.complete(task_id, generation)
'''

NO_COMPLETE = '''\
class Scheduler:
    def __init__(self, max_concurrency):
        self.tasks = []

    def submit(self, task_id, deps=(), fn=None):
        self.tasks.append(task_id)

    def start(self):
        pass
'''


def _check(cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCHEDCHECK, "check", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def _verdicts(out: Path) -> dict[str, str]:
    report = json.loads((out / "report.json").read_text())
    return {c["id"]: c["verdict"] for c in report["clauses"]}


def test_two_independent_bugs_are_both_listed_each_with_its_own_counterexample(
        tmp_path: Path) -> None:
    (tmp_path / "two_bugs.py").write_text(TWO_BUGS)
    # --no-cost: the cost clause now runs at the core level too (a list of timers breaks it)
    run = _check(tmp_path, "wheel", "two_bugs.py:Wheel", "--level", "core", "--examples", "20",
                 "--seed", "1", "--no-shrink", "--no-cost", "--out", "out")
    assert run.returncode == 1, run.stdout + run.stderr
    broken = sorted(ln[2:].split()[0] for ln in run.stdout.splitlines() if ln.startswith("!!")
                    and ln[2:].split()[0] not in SEED_RULES)  # a seed point has no folder
    assert broken == ["W-INV-EARLY", "W-INV-ONCE"]
    assert "2 COUNTEREXAMPLES FOUND" in run.stdout
    out = tmp_path / "out"
    report = json.loads((out / "report.json").read_text())
    assert sorted(report["broken"]) == broken
    for clause in broken:  # each clause its own steps, replay and picture
        steps = (out / clause / "steps.txt").read_text()
        assert f"clause broken: {clause}" in steps
        assert (out / clause / "replay.py").exists() and (out / clause / "lanes.dot").exists()
    assert _verdicts(out)["W-INV-LATE"] == "held"


def test_a_scheduler_over_its_limit_that_releases_dependents_on_failure_lists_both(
        tmp_path: Path) -> None:
    (tmp_path / "two_bugs.py").write_text(TWO_BUGS_SCHEDULER)
    run = _check(tmp_path, "scheduler", "two_bugs.py:Scheduler", "--level", "core",
                 "--examples", "40", "--seed", "1", "--no-shrink", "--out", "out")
    assert run.returncode == 1, run.stdout + run.stderr
    broken = sorted(ln[2:].split()[0] for ln in run.stdout.splitlines() if ln.startswith("!!")
                    and ln[2:].split()[0] not in SEED_RULES)  # a seed point has no folder
    # one slot too many: S-CLAIM-ONCE; fail() that completes: S5 (fail's rule), or S4 where the
    # completion it makes releases a dependent the model has blocked (complete's rule)
    assert "S-CLAIM-ONCE" in broken and {"S4", "S5"} & set(broken), broken
    assert set(broken) <= {"S-CLAIM-ONCE", "S4", "S5"}, broken
    for clause in broken:
        assert f"clause broken: {clause}" in (tmp_path / "out" / clause / "steps.txt").read_text()


def test_a_hanging_target_is_a_verdict_not_a_stuck_run(tmp_path: Path) -> None:
    (tmp_path / "hangs.py").write_text(HANGS)
    run = _check(tmp_path, "wheel", "hangs.py:Wheel", "--level", "contract", "--examples",
                 "15", "--seed", "3", "--no-shrink", "--no-cost", "--step-seconds", "0.2",
                 "--out", "out", timeout=240)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Hang[did not return within 0.2 s]" in run.stdout
    assert _verdicts(tmp_path / "out")["W4"] == "broken"
    assert "Traceback" not in run.stderr


def test_memory_that_grows_with_the_delay_is_a_probed_horizon_not_a_crash(
        tmp_path: Path) -> None:
    (tmp_path / "greedy.py").write_text(OUT_OF_MEMORY)
    run = _check(tmp_path, "wheel", "greedy.py:Wheel", "--level", "contract", "--examples",
                 "15", "--seed", "1", "--no-cost", "--out", "out")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert any("bounded horizon" in u and "probed" in u for u in report["unsupported"])
    assert _verdicts(tmp_path / "out")["W-T1"] == "partly exercised"


def test_a_target_without_the_core_surface_is_unusable_naming_what_is_missing(
        tmp_path: Path) -> None:
    (tmp_path / "half.py").write_text(NO_COMPLETE)
    run = _check(tmp_path, "scheduler", "half.py:Scheduler")
    assert run.returncode == 2
    assert "without the required methods ready(), complete()" in run.stderr
    assert "Traceback" not in run.stderr


def test_corpus_wheel_that_fires_early_exits_1_with_w_inv_early(tmp_path: Path) -> None:
    # --no-cost: at the core level the cost clause runs too, and this wheel walks a stall tick
    # by tick (W-COST broken, counted): not what this test is about
    run = _check(tmp_path, "wheel", f"{CORPUS}/timewheel_pypi.py:PyPITimeWheel", "--level",
                 "core", "--examples", "30", "--seed", "1", "--no-shrink", "--no-cost",
                 "--out", "out")
    assert run.returncode == 1, run.stdout + run.stderr
    broken = [ln[2:].split()[0] for ln in run.stdout.splitlines() if ln.startswith("!!")
              and ln[2:].split()[0] not in SEED_RULES]  # a seed point has no folder
    assert broken == ["W-INV-EARLY"]


def test_correct_corpus_targets_exit_0_with_design_differences_not_supported(
        tmp_path: Path) -> None:
    run = _check(tmp_path, "wheel", f"{CORPUS}/sched_stdlib.py:StdlibSched", "--examples",
                 "30", "--seed", "1", "--no-cost", "--out", "wheel")
    assert run.returncode == 0, run.stdout + run.stderr
    verdicts = _verdicts(tmp_path / "wheel")
    assert verdicts["W2"] == "not supported" and verdicts["W-INV-EARLY"] == "held"
    assert "core level" in run.stdout and "contract level" in run.stdout
    run = _check(tmp_path, "scheduler", f"{CORPUS}/graphlib_stdlib.py:StdlibGraphlib",
                 "--examples", "30", "--seed", "1", "--out", "sched")
    assert run.returncode == 0, run.stdout + run.stderr
    verdicts = _verdicts(tmp_path / "sched")
    assert verdicts["S-CLAIM-DEPS"] == "held" and verdicts["S8"] == "not supported"
    assert "has no cancel_requested(), close(), info()" in run.stdout
    run = _check(tmp_path, "scheduler", f"{CORPUS}/graphlib_stdlib.py:StdlibGraphlib",
                 "--level", "contract")  # nothing of that level can be checked: no pass
    assert run.returncode == 2 and "close(), info()" in run.stderr and "--level core" in run.stderr
