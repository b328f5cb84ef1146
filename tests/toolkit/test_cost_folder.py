"""A broken cost clause has its counterexample: a folder with the two runs' figures and a
script that measures them again; the card, report.json and index.html list it as broken."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from schedcheck import pipeline
from schedcheck.report.writer import write_run

TARGET = "schedcheck.zoo.scheduler_mutants:RescanAllScheduler"


def test_a_broken_cost_clause_gets_a_folder_a_script_and_a_place_in_every_report(
        tmp_path: Path) -> None:
    from schedcheck.zoo.scheduler_mutants import RescanAllScheduler

    result = pipeline.check("scheduler", RescanAllScheduler, target_name=TARGET, suite=False)
    assert not result.ok and result.stats["S-COST"].verdict == "broken"
    written = write_run(result, tmp_path, target_spec=TARGET, cwd=os.getcwd(),
                        command=f"schedcheck check scheduler {TARGET}")
    folder = tmp_path / "S-COST"
    assert {p.name for p in folder.iterdir()} == {"figures.json", "figures.txt", "measure.py"}
    figures = json.loads((folder / "figures.json").read_text())
    assert figures["n"] == result.cost_figures["n"] > 0 and figures["factor"] == 8
    assert figures["ratio"] > figures["threshold"]
    assert "S-COST/measure.py" in [written.rel(p) for p in written.files]

    report = json.loads((tmp_path / "report.json").read_text())
    assert report["ok"] is False and report["broken"] == ["S-COST"]
    assert report["cost"]["clause"] == "S-COST"
    card = (tmp_path / "card.txt").read_text()
    assert "figures and measure.py: S-COST/" in card
    assert 'href="S-COST/measure.py"' in (tmp_path / "index.html").read_text()

    # the script measures the same runs again (the steps are counted: the same verdict)
    run = subprocess.run([sys.executable, str(folder / "measure.py")], capture_output=True,
                         text=True, timeout=120, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"n = {figures['n']}: " in run.stdout and "S-COST: broken" in run.stdout


def test_a_held_cost_clause_writes_no_folder(tmp_path: Path) -> None:
    from schedcheck import impl

    result = pipeline.check("scheduler", impl.Scheduler, target_name="impl", suite=False)
    assert result.ok
    write_run(result, tmp_path, target_spec="schedcheck.impl:Scheduler", cwd=os.getcwd())
    assert not (tmp_path / "S-COST").exists()
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["broken"] == [] and report["cost"]["verdict"] == "held"
