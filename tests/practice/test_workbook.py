"""The notebooks' helpers: raised() fails when nothing is raised, attempt() goes on,
check() grades one section exactly as schedcheck grade does, and an untouched skeleton gets
a short list instead of a screen of NotImplementedError."""

from __future__ import annotations

import pytest

from schedcheck import impl
from schedcheck.practice.grading import NOT_IMPLEMENTED
from schedcheck.practice.items import grade
from schedcheck.practice.seed_answers import SeedWheel
from schedcheck.practice.workbook import attempt, check, raised


def test_raised_returns_the_error_and_fails_when_there_is_none() -> None:
    err = raised(ValueError, lambda: int("x"))
    assert isinstance(err, ValueError)
    with pytest.raises(AssertionError, match="returned 1"):
        raised(ValueError, lambda: 1)
    with pytest.raises(KeyError):  # another error is not swallowed
        raised(ValueError, lambda: {}["k"])


def test_attempt_says_what_was_raised_and_goes_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert attempt(lambda: 2) == 2
    assert attempt(lambda: 1 / 0) is None
    assert "raised ZeroDivisionError" in capsys.readouterr().out


def test_check_grades_one_section_as_the_grader_does(capsys: pytest.CaptureFixture[str]) -> None:
    card = check(SeedWheel, "T", seed_shaped=True)
    full = grade("wheel", SeedWheel, seed_shaped=True, cost=False)
    assert card.failed == [i for i in full.failed if i.startswith("W-T")] == ["W-T1"]
    out = capsys.readouterr().out
    assert "W-T1" in out and "hint:" in out and "W-M1" not in out
    with pytest.raises(ValueError, match="section"):
        check(impl.Scheduler, "X")


def test_an_untouched_skeleton_gets_the_list_of_items(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    class Skeleton:
        def __init__(self, max_concurrency: int) -> None:
            raise NotImplementedError

        def submit(self) -> None:
            raise NotImplementedError

        def ready(self) -> None:
            raise NotImplementedError

    card = check(Skeleton, "M")
    out = capsys.readouterr().out
    assert "not attempted yet" in out and "S-M4" in out and "what happened" not in out
    assert not card.failed  # nothing is wrong yet: every item is still to do
    assert {r.status for r in card.results
            if r.item.check is not None and not r.item.cost} == {NOT_IMPLEMENTED}


def test_z3_rows_prints_the_rows_and_refuses_a_name_that_is_not_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    from schedcheck.practice.workbook import z3_rows

    rows = z3_rows("wheel-placement", "mut-forgot-remaining-rounds")
    assert [r.ok for r in rows] == [True, True]
    out = capsys.readouterr().out
    assert "proved" in out and "refuted" in out and "== mut-forgot-remaining-rounds" in out
    with pytest.raises(ValueError, match="no-such-row"):
        z3_rows("no-such-row")
