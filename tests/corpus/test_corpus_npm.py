"""Real implementations from npm, written by other people in JavaScript, checked through thin
JavaScript adapters (tests/corpus/js/, pinned by its package-lock.json) and the JavaScript shim:
each gets its expected verdict (a fixed seed, a fixed number of examples). A genuine bug is
reproduced without schedcheck by the script in tests/corpus/bugs/ named beside it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.languages.helpers import SHIMS, need, run_check

JS = Path(__file__).resolve().parent / "js"
BUGS = Path(__file__).resolve().parent / "bugs"

#: (adapter module, class, package, the clauses broken)
WHEELS = [
    ("fake_timers_wheel.js", "FakeTimersWheel", "@sinonjs/fake-timers", set()),
    # a delay of 0 (or a deadline passed) waits a whole rotation of its first layer, ~64 s:
    # W-INV-LATE, with the seed point W-T2 that rests on it (found by the swarm phase)
    ("timer_wheel.js", "TimerWheelAdapter", "timer-wheel", {"W-INV-LATE", "W-T2"}),
]
#: (adapter module, class, package, the clauses broken, S5's verdict: fail() of a running task,
#: examples, seed)
SCHEDULERS = [
    # DepGraph has no failure; its cycle path can start outside the cycle (a graph submitted
    # with the cycle's outsider first: 100 examples of seeds 0, 1 and 4 of 0-5 find it)
    ("dependency_graph_scheduler.js", "DependencyGraphScheduler", "dependency-graph",
     {"S-ORACLE-CYCLE", "S-T4"}, "not supported", "100", "0"),
    ("p_graph_scheduler.js", "PGraphScheduler", "p-graph", set(), "held", "40", "3"),
]


def installed(package: str) -> None:
    need("node")
    if not (JS / "node_modules" / package / "package.json").exists():
        pytest.skip(f"the npm corpus is not installed ({package} is missing from "
                    "tests/corpus/js/node_modules): scripts/setup installs it with npm ci "
                    "when node, npm and the npm registry are there")


def check(system: str, module: str, cls: str, out: Path, *extra: str,
          examples: str = "40") -> dict[str, str]:
    command = f"node {SHIMS / 'shim.js'} {JS / module} {cls}"
    status, report = run_check(system, command, out, "--examples", examples, *extra)
    verdicts: dict[str, str] = {c["id"]: c["verdict"] for c in report["clauses"]}
    assert status == (1 if broken_of(verdicts) else 0), report.get("card")
    return verdicts


def broken_of(verdicts: dict[str, str]) -> set[str]:
    return {c for c, v in verdicts.items() if v == "broken"}


@pytest.mark.parametrize(("module", "cls", "package", "broken"), WHEELS,
                         ids=[w[2] for w in WHEELS])
def test_wheel_verdict(module: str, cls: str, package: str, broken: set[str],
                       tmp_path: Path) -> None:
    installed(package)
    # seed 1: the swarm phase finds timer-wheel's late zero delay at once (with some seeds
    # the long phase finds it first, in a run of hundreds of steps that takes a minute to
    # reduce through the child process)
    verdicts = check("wheel", module, cls, tmp_path / "out", "--seed", "1")
    assert broken_of(verdicts) == broken
    # never early, never twice, never after a successful cancel: checked and held
    assert {verdicts[c] for c in ("W-INV-EARLY", "W-INV-ONCE", "W-INV-LATE")
            if c not in broken} == {"held"}
    if "W-INV-LATE" in broken:  # reduced to a timer due at once, verified at its step
        steps = (tmp_path / "out" / "W-INV-LATE" / "steps.txt").read_text()
        assert "is still pending after advance" in steps, steps
        replay = subprocess.run([sys.executable, "replay.py"], capture_output=True, text=True,
                                cwd=tmp_path / "out" / "W-INV-LATE", timeout=120, check=False)
        assert replay.returncode == 1 and "W-INV-LATE broken again" in replay.stderr
    assert verdicts["W2"] == "not supported"  # it fires at the deadline itself, by design


@pytest.mark.parametrize(("module", "cls", "package", "broken", "s5", "examples", "seed"),
                         SCHEDULERS, ids=[s[2] for s in SCHEDULERS])
def test_scheduler_core_verdict(module: str, cls: str, package: str, broken: set[str], s5: str,
                                examples: str, seed: str, tmp_path: Path) -> None:
    installed(package)
    verdicts = check("scheduler", module, cls, tmp_path / "out", "--level", "core",
                     "--seed", seed, examples=examples)
    assert broken_of(verdicts) == broken
    checked = {"S-CLAIM-ONCE", "S-CLAIM-DEPS", "S-ORACLE-CYCLE"} - broken
    assert {verdicts[c] for c in checked} == {"held"}
    assert verdicts["S6"] == "not supported"  # neither has a cancel()
    assert verdicts["S5"] == s5
    if "S-ORACLE-CYCLE" in broken:  # reduced to the outsider and its cycle, verified
        steps = (tmp_path / "out" / "S-ORACLE-CYCLE" / "steps.txt").read_text()
        assert "does not end" in steps, steps
        replay = subprocess.run([sys.executable, "replay.py"], capture_output=True, text=True,
                                cwd=tmp_path / "out" / "S-ORACLE-CYCLE", timeout=120,
                                check=False)
        assert replay.returncode == 1 and "S-ORACLE-CYCLE broken again" in replay.stderr


BUG_SCRIPTS = [
    ("timer_wheel_skips_at_wrap.js", "timer-wheel", "expired 65.5 s late"),
    ("timer_wheel_due_now_waits_a_rotation.js", "timer-wheel", "expired 64.512 s late"),
    ("dependency_graph_cycle_path_not_a_cycle.js", "dependency-graph", '["a","b","c","b"]'),
]


@pytest.mark.parametrize(("script", "package", "shows"), BUG_SCRIPTS,
                         ids=[Path(b[0]).stem for b in BUG_SCRIPTS])
def test_bug_reproduction_shows_the_bug(script: str, package: str, shows: str) -> None:
    installed(package)
    run = subprocess.run(["node", str(BUGS / script)], capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "BUG:" in run.stdout and shows in run.stdout, run.stdout
