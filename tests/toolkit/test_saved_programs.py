"""The counterexamples of check's search are kept in the example database (``schedcheck.saved``)
under the key every door shares: a later check, pytest API test or fuzz campaign replays them
first; once the mistake is fixed, a replay deletes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis.database import DirectoryBasedExampleDatabase
from schedcheck.impl import HashedTimingWheel

from schedcheck import cli, fuzz, profiles, saved
from schedcheck.pipeline import check


class CancelSaysNo(HashedTimingWheel):
    """cancel() of a timer due at a multiple of 3 cancels it and answers False (W4)."""

    def cancel(self, handle: Any) -> bool:
        done = super().cancel(handle)
        return False if done and handle.deadline % 3 == 0 else done


#: the same target, fixed: the same module and qualified name, so the same database key
Fixed = type("CancelSaysNo", (HashedTimingWheel,), {"__module__": __name__,
                                                    "__qualname__": "CancelSaysNo"})


def _found(tmp_path: Path) -> tuple[DirectoryBasedExampleDatabase, Any]:
    with profiles.seed_only_draws():
        result = check("wheel", CancelSaysNo, target_name="CancelSaysNo", examples=30, seed=1,
                       levels=True, cost=False, profile="ci")
    assert not result.ok
    db = DirectoryBasedExampleDatabase(str(tmp_path / "db"))
    kept = saved.save(db, "wheel", CancelSaysNo, result)
    assert kept == len(result.all_counterexamples()) >= 1
    return db, result


def test_a_kept_counterexample_fails_again_at_its_level_then_goes_once_fixed(
        tmp_path: Path) -> None:
    db, result = _found(tmp_path)
    levels = sorted(cx.level for cx in result.all_counterexamples())
    again = saved.replay(db, "wheel", CancelSaysNo, "CancelSaysNo")
    assert again is not None
    assert sorted(cx.level for cx in again.all_counterexamples()) == levels
    assert {cx.clause for cx in again.all_counterexamples()} & {
        cx.clause for cx in result.all_counterexamples()}
    # the doors' own replay (check --db, fuzz's report) reads them when Hypothesis's own
    # entries fail nothing
    assert fuzz.replay_saved("wheel", CancelSaysNo, "CancelSaysNo", str(tmp_path / "db"))
    assert Fixed is not CancelSaysNo and saved.key("wheel", Fixed) == saved.key(
        "wheel", CancelSaysNo)
    assert saved.replay(db, "wheel", Fixed, "CancelSaysNo") is None
    assert list(db.fetch(saved.key("wheel", Fixed))) == []  # deleted: the mistake is gone


def test_check_with_a_database_keeps_its_counterexamples_and_replays_them_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "mywheel.py"
    source.write_text("from schedcheck.impl import HashedTimingWheel\n\n\n"
                      "class Wheel(HashedTimingWheel):\n"
                      "    def cancel(self, handle):\n"
                      "        done = super().cancel(handle)\n"
                      "        return False if done and handle.deadline % 3 == 0 else done\n")
    monkeypatch.chdir(tmp_path)
    pinned = ["--profile", "ci", "--no-cost", "--db", "db"]
    assert cli.main(["check", "wheel", "mywheel.py:Wheel", "--examples", "30", "--seed", "1",
                     "--out", "first", *pinned]) == 1
    assert "kept in the example database db" in capsys.readouterr().out
    # one example at the contract level: the search alone need not find it, the kept
    # programs are replayed first all the same
    assert cli.main(["check", "wheel", "mywheel.py:Wheel", "--examples", "1", "--seed", "5",
                     "--level", "contract", "--out", "second", *pinned]) == 1
    assert "by an earlier check" in capsys.readouterr().out
