"""The report card: one row per clause, and never "held" for a clause no step reached."""

from __future__ import annotations

from rich.console import Console

from schedcheck.harness.clauses import SCHEDULER_CLAUSES, WHEEL_CLAUSES
from schedcheck.harness.result import RunResult
from schedcheck.report.card import card_rows, card_table, card_text

from .fakes import scheduler_result


def test_card_has_one_row_per_clause_in_catalogue_order() -> None:
    for system, clauses in (("scheduler", SCHEDULER_CLAUSES), ("wheel", WHEEL_CLAUSES)):
        rows = card_rows(RunResult.fresh(system, "t:T"))
        assert [r[0] for r in rows] == [c.id for c in clauses]


def test_unexercised_clause_is_never_shown_as_held() -> None:
    result = RunResult.fresh("scheduler", "t:T")
    result.exercise("S3", 4)
    verdicts = {cid: (verdict, steps) for cid, _t, _s, verdict, steps in card_rows(result)}
    assert verdicts["S3"] == ("held", 4)
    assert all(v == ("not reached", 0) for cid, v in verdicts.items() if cid != "S3")
    text = card_text(result)
    held_lines = [ln for ln in text.splitlines() if " held " in ln]
    assert len(held_lines) == 1 and "S3" in held_lines[0]


def test_broken_and_not_supported_show_as_such_with_step_counts() -> None:
    result = scheduler_result()
    rows = {cid: (verdict, steps) for cid, _t, _s, verdict, steps in card_rows(result)}
    assert rows["S4"] == ("broken", 10)
    assert rows["S-X-RETRY"] == ("not supported", 0)
    text = card_text(result)
    assert any(ln.startswith("!!S4") and "broken" in ln for ln in text.splitlines())
    assert "COUNTEREXAMPLE FOUND" in text and "1 broken" in text and "seed 7" in text


def test_rich_table_renders_every_row_with_its_verdict() -> None:
    console = Console(width=200, record=True, color_system=None)
    console.print(card_table(scheduler_result()))
    out = console.export_text()
    assert "S-X-RETRY" in out and "not supported" in out and "broken" in out
    # 20 rows not reached for one reason: folded into one line that names all 20
    assert out.count("│ not reached") == 1 and "│ 20 clauses │" in out
