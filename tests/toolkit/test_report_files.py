"""The --out folder from a hand-made counterexample: steps.txt, replay.py, pictures, report.json.

The replay script is run with plain ``python`` against a small target file that behaves like
the counterexample says (it fails at step 4) and against a fixed one (it does not reproduce).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from schedcheck.report import render
from schedcheck.report.writer import fresh_out_dir, write_run

from .fakes import scheduler_result

BROKEN_TARGET = """\
class Scheduler:
    def __init__(self, n):
        self.done = False
    def submit(self, task_id, deps=(), fn=None):
        return 1
    def start(self):
        return None
    def ready(self, limit=None):
        return [("a", 1, None)]
    def complete(self, task_id, generation):
        return ("APPLIED", "SUCCEEDED") if not FIXED or generation == 1 else ("STALE", "RUNNING")
FIXED = False
"""


def _out(tmp_path: Path, fixed: bool = False) -> Path:
    (tmp_path / "sched.py").write_text(BROKEN_TARGET.replace("FIXED = False", f"FIXED = {fixed}"))
    out = tmp_path / "out"
    write_run(scheduler_result(), out, target_spec="sched.py:Scheduler", cwd=str(tmp_path))
    return out


def test_folder_holds_steps_replay_pictures_and_report(tmp_path: Path) -> None:
    out = _out(tmp_path)
    names = {p.name for p in out.iterdir()}
    assert {"card.txt", "steps.txt", "replay.py", "report.json", "lanes.dot", "tasks.dot"} <= names
    if render.dot_available():
        assert {"lanes.svg", "lanes.png", "tasks.svg", "tasks.png"} <= names
    report = json.loads((out / "report.json").read_text())
    assert report["ok"] is False
    assert report["counterexample"]["clause"] == "S4"
    assert {c["id"]: c["verdict"] for c in report["clauses"]}["S4"] == "broken"
    assert "replay.py" in report["files"] and "report.json" in report["files"]
    assert report["command"] == "schedcheck check scheduler sched.py:Scheduler --seed 7"


def test_steps_txt_puts_model_and_implementation_side_by_side(tmp_path: Path) -> None:
    text = (_out(tmp_path) / "steps.txt").read_text()
    assert "4. [w2] worker w2 completes 'a' generation 2  <== first divergence" in text
    row = next(ln for ln in text.splitlines() if "('STALE', 'RUNNING')" in ln)
    assert "('APPLIED', 'SUCCEEDED')" in row  # the two results on one line
    assert "model (expected)" in text and "implementation (actual)" in text


def test_replay_fails_with_assertion_error_at_the_diverging_step(tmp_path: Path) -> None:
    out = _out(tmp_path)
    run = subprocess.run([sys.executable, "replay.py"], cwd=out, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1
    assert "AssertionError: step 4 (worker w2 completes 'a' generation 2)" in run.stderr
    assert "the model expected ('STALE', 'RUNNING')" in run.stderr


def test_replay_of_a_fixed_target_says_it_did_not_reproduce(tmp_path: Path) -> None:
    out = _out(tmp_path, fixed=True)
    run = subprocess.run([sys.executable, str(out / "replay.py")], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "did not reproduce" in run.stdout


def test_replay_names_an_unexpected_exception_and_the_step(tmp_path: Path) -> None:
    out = _out(tmp_path)
    (tmp_path / "sched.py").write_text(textwrap.dedent(BROKEN_TARGET).replace(
        "        return [(\"a\", 1, None)]", "        raise KeyError('lost the queue')"))
    run = subprocess.run([sys.executable, "replay.py"], cwd=out, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1
    assert "step 3 (worker w1 claims)" in run.stderr
    assert "this time it raised KeyError: 'lost the queue'" in run.stderr


def test_without_dot_only_dot_sources_are_written(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(render, "dot_available", lambda: False)
    out = _out(tmp_path)
    assert (out / "lanes.dot").exists()
    assert not list(out.glob("*.svg")) and not list(out.glob("*.png"))


def test_default_out_folder_is_fresh_each_time(tmp_path: Path) -> None:
    first = fresh_out_dir("wheel", tmp_path)
    first.mkdir()
    second = fresh_out_dir("wheel", tmp_path)
    assert first != second
    assert first.name.startswith("schedcheck-out-wheel-")


@pytest.mark.parametrize("ok", [True, False])
def test_a_passing_run_writes_card_and_report_but_no_counterexample(tmp_path: Path, ok) -> None:
    result = scheduler_result(broken=not ok)
    write_run(result, tmp_path, target_spec="x:Y", cwd=str(tmp_path))
    assert (tmp_path / "report.json").exists() and (tmp_path / "card.txt").exists()
    assert (tmp_path / "replay.py").exists() is (not ok)
