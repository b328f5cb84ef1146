"""What a newcomer meets first: help text, bad arguments, an incomplete target, progress and
log noise, a replay script run outside the virtual environment, and the pictures and z3 rows
of the report. Each test is small (hand-made counterexamples, two zoo entries at most)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest
from schedcheck.specs._z3util import LemmaResult

from schedcheck import pipeline, systems
from schedcheck.cli import build_parser, main
from schedcheck.harness.result import Counterexample, Step
from schedcheck.report import render
from schedcheck.report.html import _lemmas_html
from schedcheck.report.writer import write_run

from .fakes import scheduler_result
from .test_report_files import BROKEN_TARGET

SCHEDCHECK = str(Path(sys.executable).with_name("schedcheck"))


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_command_has_a_description_and_every_option_a_help_text() -> None:
    missing = []
    for name, sub in _subparsers(build_parser()).items():
        if not sub.description:
            missing.append(f"{name}: no description")
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            if not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


@pytest.mark.parametrize("argv", [
    ["check", "scheduler", "schedcheck.impl:Scheduler", "--examples", "0"],
    ["check", "wheel", "schedcheck.impl:HashedTimingWheel", "--examples", "-1"],
    ["check", "wheel", "schedcheck.impl:HashedTimingWheel", "--seed", "x"],
    ["zoo", "--examples", "0"],
    ["verify", "--examples", "-3"],
    ["verify", "--zoo-examples", "many"],
])
def test_bad_numbers_are_refused_by_argparse_with_exit_status_2(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --" in err and "Traceback" not in err


class NoCancelRequested:
    """The bundled scheduler without cancel_requested()."""

    def __init__(self, n: int) -> None:
        from schedcheck.impl import Scheduler

        self._inner = Scheduler(n)

    def __getattr__(self, name: str) -> object:
        if name == "cancel_requested":
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_a_target_without_a_contract_method_is_unusable_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    why = pipeline.probe_construct(systems.get("scheduler"), NoCancelRequested)
    assert why is not None and "without the required method cancel_requested()" in why
    (tmp_path / "mine.py").write_text(
        "from tests.toolkit.test_newcomer_edges import NoCancelRequested as Scheduler\n")
    monkeypatch.syspath_prepend(str(Path(__file__).parents[2]))
    status = main(["check", "scheduler", f"{tmp_path / 'mine.py'}:Scheduler", "--examples",
                   "5", "--no-cost", "--level", "contract", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert "cancel_requested()" in err and "internal error" not in err


def test_zoo_off_a_terminal_prints_its_phase_and_moves_log_records_to_a_file(
        tmp_path: Path) -> None:
    log = tmp_path / "zoo.log"
    run = subprocess.run([SCHEDCHECK, "zoo", "--only", "wheel-absolute-rounds",
                          "sched-close-drops-pending", "--log", str(log)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stderr.splitlines()[0].startswith("schedcheck: zoo: 2 mutants")
    assert "Traceback" not in run.stderr + run.stdout
    notes = [ln for ln in run.stderr.splitlines() if ln.startswith("note:")]
    if log.exists():  # the mutants logged something: one summary line names the file
        assert len(notes) == 1 and str(log) in notes[0]
        found = re.search(r"note: (\d+) log records", notes[0])
        assert found is not None
        records = [ln for ln in log.read_text().splitlines()
                   if ln.startswith(("WARNING ", "ERROR ", "CRITICAL "))]
        assert int(found.group(1)) == len(records) > 0
    else:
        assert notes == []


def _replay_folder(tmp_path: Path) -> Path:
    (tmp_path / "sched.py").write_text(BROKEN_TARGET)
    out = tmp_path / "out"
    write_run(scheduler_result(), out, target_spec="sched.py:Scheduler", cwd=str(tmp_path))
    return out


def _bare_python(script: Path) -> subprocess.CompletedProcess[str]:
    """``python script`` without any site-packages (-S) or PYTHON* variables (-E): the virtual
    environment schedcheck is installed in is not on the path."""
    base = getattr(sys, "_base_executable", sys.executable)
    return subprocess.run([base, "-S", "-E", str(script)], capture_output=True, text=True,
                          timeout=120, cwd=script.parent)


def test_replay_runs_with_a_python_that_does_not_see_the_venv(tmp_path: Path) -> None:
    out = _replay_folder(tmp_path)
    run = _bare_python(out / "replay.py")
    assert run.returncode == 1, run.stderr
    assert "AssertionError: step 4 (worker w2 completes 'a' generation 2)" in run.stderr


def test_replay_needs_no_schedcheck_for_a_target_that_does_not_import_it(
        tmp_path: Path) -> None:
    out = _replay_folder(tmp_path)
    script = out / "replay.py"
    text = script.read_text()
    assert "SEARCH_PATHS = [" in text
    script.write_text(re.sub(r"SEARCH_PATHS = \[.*\]", "SEARCH_PATHS = []", text))
    run = _bare_python(script)
    assert run.returncode == 1
    assert "AssertionError: step 4 (worker w2 completes 'a' generation 2)" in run.stderr


def _race() -> Counterexample:
    steps = [
        Step(0, "target.submit('a', [])", "submit 'a'", actual="1"),
        Step(1, "target.start()", "start scheduling", actual="None"),
        Step(2, "round_0 = concurrent_round(...)", "concurrent round:\n#   t0: ...",
             thread="t0+t1", diverged=True, clause="S-LIN", expected="linearizable",
             actual="violation"),
    ]
    snap = {"round": [
        {"lane": "t0", "call": "('ready', 1)", "invoked": 1, "returned": 4,
         "response": "[('a', 1)]"},
        {"lane": "t1", "call": "('ready', 1)", "invoked": 2, "returned": 3,
         "response": "[('a', 1)]"}],
        "switches": [{"lane": "t0", "k": 2, "point": "release Lock0", "chosen": "t1",
                      "preemption": True}]}
    return Counterexample(system="scheduler", clause="S-LIN", message="claimed twice",
                          steps=steps, setup="", snapshot=snap)


def test_a_race_picture_has_one_lane_per_thread_and_draws_the_switch_points() -> None:
    source = render.pictures(_race())["lanes"].source
    assert "thread t0" in source and "thread t1" in source
    assert "t0+t1" not in source
    assert "switch at release Lock0 (preempted)" in source
    assert "switch\"" in source or "label=switch" in source  # t1 returns, t0 resumes
    assert source.count("rank=same") == 4  # one row per event: two calls, two returns


def test_task_graph_outlines_the_task_the_failing_step_names_not_other_differences() -> None:
    cx = scheduler_result().counterexample  # 'a' and 'b' differ; step 4 completes 'a'
    assert cx is not None
    source = render.pictures(cx)["tasks"].source
    red = [ln for ln in source.splitlines() if "penwidth=3" in ln]
    assert len(red) == 2 and all("_a_" in ln for ln in red)
    cx.steps[-1] = Step(4, "target.ready()", "claims", diverged=True, clause="S4")
    red = [ln for ln in render.pictures(cx)["tasks"].source.splitlines() if "penwidth=3" in ln]
    assert len(red) == 4  # nothing named: every difference is outlined


def test_z3_rows_show_statement_bound_verdict_and_the_counterexample_as_a_table() -> None:
    row = LemmaResult(
        name="mut-floor", kind="mutation", system="wheel",
        says="floor(deadline/tick) instead of ceiling fires early", status="refuted",
        seconds=0.1, counterexample="W = 1, cursor = 0, deadline = 5, tick = 2\n"
        "-- replayed in schedcheck.model --\nwheel.advance(4)  # fires h_0")
    page = _lemmas_html([row])
    assert "<th>statement</th><th>bound</th><th>verdict</th>" in page
    assert "<td><code>deadline</code></td><td><code>5</code></td>" in page
    assert "<pre>wheel.advance(4)  # fires h_0</pre>" in page


def test_wheel_step_words_show_the_deadline_or_delay_drawn() -> None:
    from schedcheck.impl import HashedTimingWheel

    class EarlyWheel(HashedTimingWheel):  # type: ignore[misc]
        def cancel(self, handle: object) -> bool:
            super().cancel(handle)
            return True

    # the ci profile's step count whatever the environment's profile: the dev profile's
    # shorter programs find, at this seed, a counterexample with no schedule step in it
    result = pipeline.check("wheel", EarlyWheel, examples=30, seed=1, shrink=False,
                            cost=False, profile="ci")
    assert result.counterexample is not None
    words = [s.words for s in result.counterexample.steps]
    scheduled = [w for w in words if w.startswith(("schedule a timer (", "schedule a timer at",
                                                   "schedule_after"))]
    assert scheduled
    assert all(re.match(r"(schedule a timer at -?\d+ |schedule_after\(-?\d+\) )", w)
               for w in scheduled)
