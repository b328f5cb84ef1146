"""The pytest API runs ``schedcheck check``'s search: the same seed and examples find what
check finds, the failure message is check's card, steps, replay path and search-again
command, and the cost test fails with words, not a traceback into the package."""

from __future__ import annotations

from pathlib import Path

import hypothesis
import pytest

from schedcheck import impl, pipeline, scheduler_suite
from schedcheck.zoo.catalogue import get

# no example database (nothing to replay) and every phase: the run depends on the seed alone
PINNED = hypothesis.settings(database=None, deadline=None,
                             phases=list(hypothesis.Phase))


#: a duplicate complete() answers DUPLICATE but releases the dependents again
RELEASES_AGAIN = get("sched-double-release").factory


def _run(suite: type, request: pytest.FixtureRequest, test: str) -> str | None:
    """The suite's ``test`` as pytest runs it; the failure's message, or None if it passed."""
    pinned = type("Pinned", (suite,), {"settings": PINNED})
    try:
        getattr(pinned(), test)(request) if test != "test_cost_grows_linearly" else \
            getattr(pinned(), test)()
    except pytest.fail.Exception as exc:
        return str(exc)
    return None


def test_a_duplicate_completion_that_releases_again_is_found_in_nine_of_ten_runs(
        request: pytest.FixtureRequest) -> None:
    found = 0
    for seed in range(10):
        suite = scheduler_suite(RELEASES_AGAIN, examples=20, seed=seed)
        message = _run(suite, request, "test_behaves_like_the_model")
        if message is not None:
            assert "clause broken: S4" in message, message
            found += 1
    assert found >= 9


def test_the_same_seed_finds_what_check_finds_and_says_it_as_check_does(
        request: pytest.FixtureRequest) -> None:
    factory = get("sched-no-generation-check").factory
    result = pipeline.check("scheduler", factory, target_name="mine", examples=20, seed=5,
                            cost=False, levels=True, first=True)
    wanted = [cx.clause for cx in result.all_counterexamples()]
    assert wanted
    message = _run(scheduler_suite(factory, examples=20, seed=5, name="mine"), request,
                   "test_behaves_like_the_model")
    assert message is not None
    assert f"clause broken: {wanted[0]}" in message
    assert "report card: scheduler mine" in message  # check's card
    assert "<== first divergence" in message  # check's steps
    assert "search again: schedcheck check scheduler mine --seed 5 --examples 20" in message
    folder = Path(next(line.split(": ", 1)[1] for line in message.splitlines()
                       if line.startswith("replay, pictures and report.json: ")))
    assert f"python3 {folder / 'replay.py'}" in message
    for name in ("replay.py", "index.html", "report.json", "card.txt"):
        assert (folder / name).is_file(), name
    assert "Traceback" not in message


def test_a_correct_scheduler_passes(request: pytest.FixtureRequest) -> None:
    assert _run(scheduler_suite(impl.Scheduler, examples=10, seed=1), request,
                "test_behaves_like_the_model") is None


def test_the_cost_test_fails_with_the_clause_and_its_figures(
        request: pytest.FixtureRequest) -> None:
    message = _run(scheduler_suite(get("sched-rescan-all-on-complete").factory), request,
                   "test_cost_grows_linearly")
    assert message is not None
    assert message.startswith("S-COST broken")
    assert "report card" in message and "Traceback" not in message


def test_one_database_key_per_target_whichever_door_loads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from schedcheck.pytest_api import suite_machine, target_key
    from schedcheck.targets import load_target

    (tmp_path / "mine.py").write_text("from schedcheck.impl import Scheduler\n\n\n"
                                      "class Mine(Scheduler):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    by_path = load_target("mine.py:Mine").factory  # fuzz, the plugin, check
    by_import = load_target("mine:Mine").factory  # a test file's import
    assert by_path is not by_import
    assert target_key(by_path) == target_key(by_import) == "mine:Mine"
    keys = {suite_machine("scheduler", f, name=n)._hypothesis_internal_add_digest
            for f, n in ((by_path, "mine.py:Mine"), (by_import, ""))}
    assert len(keys) == 1
    # an edited file keeps its key (its saved failures are replayed first)
    (tmp_path / "mine.py").write_text((tmp_path / "mine.py").read_text() + "# edited\n")
    assert target_key(load_target("mine.py:Mine").factory) == "mine:Mine"
    assert target_key(impl.Scheduler) != "mine:Mine"
