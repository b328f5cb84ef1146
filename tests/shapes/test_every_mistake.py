"""Every mistake of a clause: past a clause's first counterexample, keep-going grading looks
for another kind of mistake in it (another operation or outcome), up to
``KINDS_PER_CLAUSE``; the card and report.json list each, reduced and verified."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schedcheck import profiles, systems
from schedcheck.harness.result import Step, kind_of
from schedcheck.keep_going import KINDS_PER_CLAUSE
from schedcheck.levels import grade
from schedcheck.report.writer import write_run
from tests.shapes.two_in_one import TwoFailMistakes

HERE = Path(__file__).resolve().parent
KINDS = {"fail: expected REJECTED, got DUPLICATE", "fail: expected DUPLICATE, got REJECTED"}


def test_a_kind_names_the_operation_and_both_outcomes_without_ids() -> None:
    step = Step(0, "reply_3 = target.fail('a', 2)", "fail 'a'",
                expected="('REJECTED', 'SUCCEEDED')", actual="('DUPLICATE', 'SUCCEEDED')")
    assert kind_of(step) == "fail: expected REJECTED, got DUPLICATE"
    other = Step(1, "target.start()", "start", expected="None",
                 actual="raises RecursionError('maximum recursion depth exceeded')")
    assert kind_of(other) == "start: expected a value, got raises RecursionError"
    assert kind_of(None) == ""


def test_both_mistakes_of_one_clause_are_found_each_reduced_and_written_verified(
        tmp_path: Path) -> None:
    """One grading run (its search is the cost of this test), then its out folder."""
    with profiles.seed_only_draws():
        result = grade(systems.get("scheduler"), TwoFailMistakes, level="contract",
                       examples=200, seed=0, profile="ci", every_kind=True)
    found = [cx for cx in result.counterexamples if cx.clause == "S5"]
    assert {cx.kind for cx in found} == KINDS, [cx.kind for cx in found]
    assert [cx.folder for cx in found] == ["S5", "S5-2"]
    assert all(len(cx.steps) <= 6 for cx in found), [len(cx.steps) for cx in found]
    assert "2 kinds of mistake" in result.stats["S5"].why
    assert any(f"up to {KINDS_PER_CLAUSE} a clause" in n for n in result.notes), result.notes
    _the_out_folder_holds_each_kind_verified(result, tmp_path)


def test_seed_only_grading_looks_for_one_kind_a_clause_unless_asked() -> None:
    with profiles.seed_only_draws():
        result = grade(systems.get("scheduler"), TwoFailMistakes, level="contract",
                       examples=200, seed=0, profile="ci")
    assert [cx.clause for cx in result.counterexamples].count("S5") == 1


def _the_out_folder_holds_each_kind_verified(result: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_run(result, out, target_spec=f"{HERE / 'two_in_one.py'}:TwoFailMistakes",
              cwd=str(tmp_path), with_pictures=False)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    every = [report["counterexample"], *report["other_counterexamples"]]
    s5 = [cx for cx in every if cx["clause"] == "S5"]
    assert {cx["kind"] for cx in s5} == KINDS
    assert all(cx["replay_check"].startswith("verified") for cx in s5), s5
    assert (out / "S5" / "replay.py").exists() and (out / "S5-2" / "replay.py").exists()
    assert report["broken"].count("S5") == 1
    card = (out / "card.txt").read_text(encoding="utf-8")
    assert "folders S5/, S5-2/" in card
