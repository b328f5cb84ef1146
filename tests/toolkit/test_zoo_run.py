"""The kill matrix: `schedcheck zoo` runs catalogued mistakes and says which check caught each.

Whether *every* catalogued mutant dies is asserted per mutant in tests/zoo/ (and by
`schedcheck verify`); here: the command's output and exit status, and that a "mutant" which is
really the correct implementation is reported as SURVIVED -- never as killed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schedcheck.impl import HashedTimingWheel

from schedcheck.report.kill_matrix import kill_matrix_text
from schedcheck.zoo.catalogue import Mutant
from schedcheck.zoo.run import run_mutant

SCHEDCHECK = str(Path(sys.executable).with_name("schedcheck"))


def test_zoo_prints_the_kill_matrix_and_exits_0_when_all_die(tmp_path: Path) -> None:
    run = subprocess.run([SCHEDCHECK, "zoo", "--only", "wheel-forgotten-rounds",
                          "wheel-absolute-rounds"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "2/2 killed"
    row = next(ln for ln in lines if "wheel-forgotten-rounds" in ln)
    assert row.split()[:2] == ["wheel-forgotten-rounds", "killed"]


def test_zoo_json_has_one_entry_per_mutant_with_clause_examples_and_seconds(
    tmp_path: Path,
) -> None:
    run = subprocess.run([SCHEDCHECK, "zoo", "--json", "--only", "wheel-negative-modulo"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["ok"] is True and data["total"] == 1
    entry = data["mutants"][0]
    assert entry["killed"] is True and entry["clause"]
    assert entry["examples"] >= 1 and entry["seconds"] >= 0
    assert entry["source"] and entry["mistake"]


def test_zoo_with_an_unknown_name_is_unusable(tmp_path: Path) -> None:
    run = subprocess.run([SCHEDCHECK, "zoo", "--only", "no-such-mutant"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "no mutant named 'no-such-mutant'; known:" in run.stderr


def test_a_correct_implementation_posing_as_a_mutant_survives() -> None:
    fake = Mutant("not-really-a-mutant", "wheel", "nothing wrong at all", "test", "W2",
                  HashedTimingWheel)
    row = run_mutant(fake, examples=10)
    assert row.killed is False and row.clause is None and row.examples >= 10
    text = kill_matrix_text([row])
    assert text.splitlines()[2].startswith("!!not-really-a-mutant")
    assert "SURVIVED" in text and text.endswith("0/1 killed")
