"""`schedcheck check` end to end: the real console script, on files outside the repository.

A deliberately broken scheduler (``complete`` ignores the generation) and a broken wheel
(``cancel`` always says True) must give exit status 1, a report card with the right clause
broken, and an --out folder whose replay.py -- run with plain python -- fails with an
AssertionError at the diverging step; the bundled implementations must give 0. Example counts
are small and fixed seeds are used: these tests are about the toolkit, not the suites.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schedcheck.harness.clauses import SEED_RULES
from schedcheck.report import render

SCHEDCHECK = str(Path(sys.executable).with_name("schedcheck"))

BROKEN_SCHEDULER = '''\
from schedcheck.impl import Scheduler as _Base


class Scheduler(_Base):
    """complete() ignores the generation it is given: a late callback of an old worker wins."""

    def complete(self, task_id, generation):
        return super().complete(task_id, self.info(task_id).generation)
'''

BROKEN_WHEEL = '''\
from schedcheck.impl import HashedTimingWheel


class Wheel(HashedTimingWheel):
    """cancel() says True even for a timer that already fired or belongs to another wheel."""

    def cancel(self, handle):
        super().cancel(handle)
        return True
'''


def _check(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCHEDCHECK, "check", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _assert_counterexample_folder(out: Path, clause: str, first: set[str] | None = None) -> None:
    """``clause`` is broken; the folder's own counterexample is of ``clause`` or of one of
    ``first`` (the same mistake as a level checked before it sees it)."""
    report = json.loads((out / "report.json").read_text())
    assert report["ok"] is False
    verdicts = {c["id"]: c["verdict"] for c in report["clauses"]}
    assert verdicts[clause] == "broken"
    cx = report["counterexample"]
    assert cx["clause"] in {clause} | (first or set())
    diverging = next(s for s in cx["steps"] if s["diverged"])
    assert (out / "lanes.dot").exists()
    if render.dot_available():
        assert (out / "lanes.svg").read_text().lstrip().startswith("<?xml")
    steps = (out / "steps.txt").read_text()
    assert "<== first divergence" in steps and "model (expected)" in steps
    replay = subprocess.run([sys.executable, "replay.py"], cwd=out, capture_output=True,
                            text=True, timeout=120)
    assert replay.returncode == 1, replay.stdout + replay.stderr
    last = replay.stderr.strip().splitlines()[-1]
    assert last.startswith(f"AssertionError: step {diverging['index']} ({diverging['words']})")
    assert diverging["expected"] in last


# Shrinking a scheduler counterexample can take a minute on a loaded machine, so the scheduler
# case reports the first failure unshrunk (--no-shrink); the wheel case shrinks.
#: the core level's other clauses for the same mistake (it reaches late reports of older
#: generations too: an applied stale completion lets the task's current run be claimed again,
#: or releases the dependents of a run that failed)
CORE_VIEW = {"S4": {"S-CLAIM-ONCE", "S5"}, "W4": set()}
#: the contract level's other clause for the same mistake: a complete() that throws its
#: generation away never validates it either (complete('e', True) is not refused: S9)
CONTRACT_ALSO = {"S4": {"S9"}, "W4": set()}


@pytest.mark.parametrize(
    ("system", "source", "attr", "clause", "extra"),
    [("scheduler", BROKEN_SCHEDULER, "Scheduler", "S4", ["--examples", "30", "--no-shrink"]),
     ("wheel", BROKEN_WHEEL, "Wheel", "W4", ["--examples", "30"])],
)
def test_broken_target_outside_the_repo_exits_1_with_card_replay_and_pictures(
    tmp_path: Path, system, source, attr, clause, extra
) -> None:
    (tmp_path / "answer.py").write_text(source)
    run = _check(tmp_path, system, f"answer.py:{attr}", *extra, "--seed", "1", "--out", "out")
    assert run.returncode == 1, run.stdout + run.stderr
    card = [ln for ln in run.stdout.splitlines() if ln.startswith("!!")
            and ln[2:].split()[0] not in SEED_RULES]  # a seed point: broken with its rule
    contract = {ln[2:].split()[0] for ln in card} - CORE_VIEW[clause]
    assert clause in contract and contract <= {clause} | CONTRACT_ALSO[clause], card
    assert all("broken" in ln for ln in card), card
    assert f"schedcheck check {system} answer.py:{attr} --seed 1" in run.stdout
    _assert_counterexample_folder(tmp_path / "out", clause,
                                  CORE_VIEW[clause] | CONTRACT_ALSO[clause])


@pytest.mark.parametrize(
    ("system", "target"),
    [("scheduler", "schedcheck.impl:Scheduler"), ("wheel", "schedcheck.impl:HashedTimingWheel"),
     ("wheel", "schedcheck.impl:HierarchicalTimingWheel")],
)
def test_bundled_implementations_exit_0(tmp_path: Path, system, target) -> None:
    run = _check(tmp_path, system, target, "--examples", "15", "--seed", "2", "--no-cost",
                 "--out", "out")
    assert run.returncode == 0, run.stdout + run.stderr
    assert ": OK --" in run.stdout and "!!" not in run.stdout
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["ok"] is True and report["counterexample"] is None
    assert not (tmp_path / "out" / "replay.py").exists()


def test_json_flag_prints_only_the_report_on_stdout(tmp_path: Path) -> None:
    (tmp_path / "answer.py").write_text(BROKEN_SCHEDULER)
    run = _check(tmp_path, "scheduler", f"{tmp_path}/answer.py:Scheduler", "--examples", "30",
                 "--seed", "1", "--json", "--no-shrink")
    assert run.returncode == 1
    data = json.loads(run.stdout)
    assert data["counterexample"]["clause"] in {"S4", "S9"}  # unshrunk: the first failure found
    assert any("not shrunk" in note for note in data["notes"])
    out = Path(data["out"])
    assert out.parent == tmp_path and out.name.startswith("schedcheck-out-scheduler-")
    assert "replay.py" in data["files"]
