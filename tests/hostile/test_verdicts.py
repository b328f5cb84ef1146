"""Whatever the target does, ``schedcheck check`` ends with a verdict.

Each hostile target (``targets.py``) is the bundled scheduler or wheel with one call that
never returns, ends the process, allocates or recurses without bound, or leaves a thread
behind. The check must exit 1 with a card naming that call, print no traceback, and leave
nothing of the target running: no child process, no thread. Example counts, step limits,
seeds and the Hypothesis profile are pinned on the command line, so the run is the same
whatever the environment selects.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from schedcheck import cli
from tests.hostile.targets import BEHAVIOURS
from tests.processes import children, threads

HERE = Path(__file__).parent
TARGETS = HERE / "targets.py"
#: what the card says of the call, per kind of misbehaviour
SAYS = {"spin": "did not return within 1 s", "lock": "did not return within 1 s",
        "exit": "the process exited with status 0", "segfault": "killed by SIGSEGV",
        "memory": "OutOfMemory", "recursion": "RecursionError", "thread": "counterexample"}
METHOD = {"scheduler": "complete(", "wheel": "advance("}


#: examples per search round: counted, not timed, so every run plays the same programs
#: whatever the load (each misbehaviour here is met within the first few examples; the
#: deadlines of a time budget are tested on a clock of their own in test_stage_limits.py)
EXAMPLES = "8"


def check(system: str, target: str, out: Path, *more: str) -> int:
    return cli.main(["check", system, target, "--examples", EXAMPLES, "--step-seconds", "1",
                     "--seed", "1", "--profile", "ci", "--memory-limit", "256", "--no-cost",
                     "--out", str(out), *more])


#: kinds checked here without reducing their counterexample: each candidate of a hang's
#: reduction that still hangs waits out the step limit (the reduction takes its 10 s), and
#: the reduction of a hang is the business of test_a_hang_is_reduced_reported_once_...
UNREDUCED = {"spin": ("--no-shrink",), "lock": ("--no-shrink",)}
#: the runaway allocation is met on every call of the method: a lower limit makes each of
#: those calls cheaper (the page faults of 256 MiB took most of the check's time)
MORE = {**UNREDUCED, "memory": ("--memory-limit", "64")}


#: the supervisor's code is the same whichever system's call misbehaves: every kind runs in
#: every run on one system (alternating), and on the other nightly
EVERY_RUN = {"spin": "scheduler", "lock": "wheel", "exit": "scheduler", "segfault": "wheel",
             "memory": "scheduler", "recursion": "wheel", "thread": "scheduler"}


def _cases() -> list[Any]:
    return [pytest.param(kind, system, id=f"{kind}-{system}", marks=() if EVERY_RUN[kind] == system
                         else pytest.mark.nightly(reason="the same supervisor code as the "
                                                  "other system's, which runs every time"))
            for kind in sorted(BEHAVIOURS) for system in ("scheduler", "wheel")]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize(("kind", "system"), _cases())
def test_a_misbehaving_call_is_a_verdict_and_nothing_is_left_running(
        system: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = threads()
    name = f"{kind.title()}{system.title()}"
    code = check(system, f"{TARGETS}:{name}", tmp_path / "out", *MORE.get(kind, ()))
    shown = capsys.readouterr()
    text = shown.out + shown.err
    assert code == 1, text
    assert "Traceback" not in text
    assert "report card" in shown.out
    assert METHOD[system] in shown.out
    assert SAYS[kind] in shown.out, shown.out
    assert (tmp_path / "out" / "report.json").exists()
    assert children() == []
    assert threads() == before, [t.name for t in threading.enumerate()]
    if kind in REPLAYED:
        _replay_fails_on_it_and_passes_once_fixed(tmp_path / "out", system)


def test_a_call_the_capability_probe_makes_misbehaves_only_in_a_supervised_process(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """cancel() leaves a thread: the card still comes, and the checker's own process keeps
    no thread of the target (it would wait for it at exit, for ever)."""
    before = threads()
    code = check("wheel", f"{TARGETS}:ThreadOnCancelWheel", tmp_path / "out")
    shown = capsys.readouterr()
    assert code == 1, shown.out + shown.err
    assert "report card" in shown.out and "Traceback" not in shown.out + shown.err
    assert threads() == before, [t.name for t in threading.enumerate()]
    assert children() == []


#: kinds whose counterexample's replay.py is run here (memory and recursion depend on the
#: machine's limits, a lock's replay is the spin's)
REPLAYED = ("exit", "segfault", "spin", "thread")
BUNDLED = {"scheduler": "schedcheck.impl:Scheduler", "wheel": "schedcheck.impl:HashedTimingWheel"}


def _replay_fails_on_it_and_passes_once_fixed(out: Path, system: str) -> None:
    """The misbehaving call's replay.py: the AssertionError at its printed step on the
    hostile target, with plain python3; exit 0 with ``--target`` on the bundled one."""
    import json
    import subprocess
    import sys

    report = json.loads((out / "report.json").read_text())
    cx = next(c for c in [report["counterexample"], *report["other_counterexamples"]]
              if c["steps"] and c["steps"][-1]["actual"].startswith("raises "))
    assert cx["replay_check"].startswith("verified"), cx["replay_check"]
    script = next(p for p in (out / cx["clause"] / "replay.py", out / "replay.py") if p.exists())
    last = cx["steps"][-1]["index"]
    run = [sys.executable, "-I", script.name]
    hostile = subprocess.run(run, cwd=script.parent, capture_output=True, text=True, timeout=60)
    assert hostile.returncode == 1 and f"AssertionError: step {last} " in hostile.stderr, \
        hostile.stderr[-1500:]
    fixed = subprocess.run([*run, "--target", BUNDLED[system]], cwd=script.parent,
                           capture_output=True, text=True, timeout=60)
    assert fixed.returncode == 0 and "did not reproduce" in fixed.stdout, fixed.stderr[-1500:]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_a_hang_is_reduced_reported_once_and_its_replay_fails_at_the_call(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code = check("scheduler", f"{TARGETS}:LockScheduler", tmp_path / "out")
    capsys.readouterr()
    assert code == 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    found = [report["counterexample"], *report["other_counterexamples"]]
    hangs = [cx for cx in found if "did not return within 1 s" in cx["message"]]
    assert len(hangs) == 1  # reported once: the search went on without complete()
    hang = hangs[0]
    assert "each in a fresh process" in hang["message"]  # reduced in fresh children
    last = hang["steps"][-1]
    assert last["diverged"] and "complete(" in last["code"]
    assert last["actual"] == "raises Hang[did not return within 1 s]"
    assert hang["replay_check"] == f"verified: fails at step {last['index']} as shown"
    assert children() == []


@pytest.mark.parametrize(("system", "spec"), [("scheduler", "schedcheck.impl:Scheduler"),
                                              ("wheel", "schedcheck.impl:HashedTimingWheel")])
def test_a_correct_target_gets_the_same_verdicts_supervised_as_in_process(
        system: str, spec: str) -> None:
    from schedcheck import pipeline, supervised
    from schedcheck.targets import load_target

    factory = load_target(spec).factory
    pinned = {"examples": 12, "seed": 3, "profile": "ci", "cost": False, "levels": True}
    plain = pipeline.check(system, factory, target_name=spec, **pinned)
    watched = supervised.check(system, factory, target_name=spec, **pinned)
    assert plain.ok and watched.ok
    assert ({cid: s.verdict for cid, s in watched.stats.items()}
            == {cid: s.verdict for cid, s in plain.stats.items()})
    assert watched.examples == plain.examples
    assert children() == []


def test_a_correct_target_exits_0_under_supervision(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["check", "scheduler", "schedcheck.impl:Scheduler", "--examples", "10",
                     "--seed", "1", "--profile", "ci", "--no-cost", "--out", str(tmp_path)])
    shown = capsys.readouterr().out
    assert code == 0, shown
    assert "the target ran in a supervised process" in shown
    assert children() == []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_the_pytest_api_fails_a_hanging_target_and_the_session_goes_on(
        request: pytest.FixtureRequest) -> None:
    from hypothesis import settings

    from schedcheck import scheduler_suite
    from schedcheck.harness import guard
    from tests.hostile.targets import LockScheduler

    before = threads()
    suite = scheduler_suite(LockScheduler, settings=settings(
        max_examples=20, database=None, derandomize=True, deadline=None))
    with guard.step_limit(1.0), pytest.raises(pytest.fail.Exception,
                                              match="did not return within 1 s"):
        suite().test_behaves_like_the_model(request)
    assert children() == []
    assert threads() == before


def test_after_a_hang_the_method_is_still_called_and_its_other_mistake_is_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    # seed-only (examples, not a budget): the same programs in every run, whatever the load
    code = cli.main(["check", "scheduler", f"{TARGETS}:SelfLoopScheduler", "--examples", "30",
                     "--step-seconds", "1", "--seed", "1", "--profile", "ci", "--no-cost",
                     "--no-shrink", "--out", str(tmp_path / "out")])
    capsys.readouterr()
    assert code == 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    found = [report["counterexample"], *report["other_counterexamples"]]
    hangs = [cx for cx in found if "did not return" in cx["message"]]
    assert len(hangs) == 1 and "submit(" in hangs[0]["steps"][-1]["code"]  # reported once
    # ready(0) handing out a task needs tasks, so submit() went on being called
    assert "S3" in {cx["clause"] for cx in found}, [cx["message"] for cx in found]
    assert any("still called with other arguments" in note for note in report["notes"])
    if Path("/proc/self/task").exists():  # what is left running is read from Linux's /proc
        assert children() == []

