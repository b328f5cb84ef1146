"""`from schedcheck import scheduler_suite, wheel_suite`: test classes for your own code.

A test module outside the repository binds a broken scheduler and a correct wheel; pytest (in
a subprocess, as a user would run it) fails the first with the plain-words steps and the path
of the pictures, and passes the second. A three-line test file with Hypothesis settings of its
own runs with Hypothesis's own example database: the second run replays the saved failure
first (Hypothesis's statistics say in which phase it failed). Without settings the suite runs
``schedcheck check``'s search (``test_pytest_api_search.py``). The plugin's
``--schedcheck-scheduler`` needs no test file at all.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import schedcheck
from tests.toolkit.fakes import database_env

USER_TESTS = '''\
from hypothesis import Phase, settings

from schedcheck import scheduler_suite, wheel_suite
from schedcheck.impl import HashedTimingWheel, Scheduler


class LateCallbackWins(Scheduler):
    def complete(self, task_id, generation):
        return super().complete(task_id, self.info(task_id).generation)


# small, derandomized and without Hypothesis's shrinker: this file tests the API, not the
# suites (the failure is still reduced by schedcheck's delta debugging)
FAST = settings(max_examples=30, stateful_step_count=30, derandomize=True, deadline=None,
                phases=[Phase.explicit, Phase.reuse, Phase.generate])

TestMyScheduler = scheduler_suite(LateCallbackWins, settings=FAST)
TestMyWheel = wheel_suite(HashedTimingWheel, settings=settings(FAST, max_examples=10))
'''


def test_the_package_exports_the_two_suite_factories() -> None:
    assert schedcheck.scheduler_suite.__module__ == "schedcheck.pytest_api"
    cls = schedcheck.wheel_suite(object)
    assert {"test_behaves_like_the_model", "test_cost_grows_linearly"} <= set(dir(cls))


def test_pytest_fails_the_broken_class_with_steps_and_pictures(tmp_path: Path) -> None:
    (tmp_path / "test_mine.py").write_text(USER_TESTS)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k",
         "behaves_like_the_model", f"--basetemp={tmp_path / 'base'}", "test_mine.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 1 passed" in out
    assert "FAILED test_mine.py::TestMyScheduler::test_behaves_like_the_model" in out
    assert "<== first divergence" in out and "model (expected)" in out
    # the same reduction as `schedcheck check`, and the replay run before it is shown
    reduced = re.search(r"minimized by delta debugging from (\d+) to (\d+) steps", out)
    assert reduced is not None, out
    # (the user's session draws its own seed: how long the program was before varies)
    assert int(reduced.group(2)) <= min(8, int(reduced.group(1))), out
    at = re.search(r"verified: fails at step (\d+) as shown", out)
    assert at is not None, out
    assert re.search(rf"^\s+{at.group(1)}\. .*<== first divergence", out, re.M), out
    folder = re.search(r"replay, pictures and report\.json: (\S+)", out)
    assert folder is not None, out
    path = Path(folder.group(1))
    assert (path / "replay.py").exists() and (path / "lanes.dot").exists()
    assert (path / "report.json").exists()


# fails on every example (its first submit), so the phase that finds it is the first one run
OFF_BY_ONE = '''\
from schedcheck.impl import Scheduler


class OffByOne(Scheduler):
    def submit(self, *args, **kwargs):
        return super().submit(*args, **kwargs) + 1
'''

# with Hypothesis settings of its own, the suite is Hypothesis's state-machine test (without
# them it is check's search, whose failures the example database does not keep yet)
TWO_LINES = "from buggy import OffByOne; from schedcheck import scheduler_suite\n" \
            "from hypothesis import settings\n" \
            "TestMine = scheduler_suite(OffByOne, settings=settings(max_examples=20))\n"


def _pytest(folder: Path, *args: str) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--hypothesis-show-statistics", f"--basetemp={folder / 'base'}", *args],
        cwd=folder, capture_output=True, text=True, timeout=300,
        env=database_env(),
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    return out


def _phases(out: str) -> dict[str, str]:
    """Hypothesis's statistics: phase -> its 'N passing, N failing' line."""
    found = re.findall(r"during (\w+) phase .*\n.*\n\s*- (\d+ passing, \d+ failing)", out)
    return dict(found)


def test_a_two_line_file_keeps_hypothesis_database_and_replays_the_failure_first(
        tmp_path: Path) -> None:
    (tmp_path / "buggy.py").write_text(OFF_BY_ONE)
    (tmp_path / "test_mine.py").write_text(TWO_LINES)
    first = _pytest(tmp_path, "-k", "behaves_like_the_model", "test_mine.py")
    assert "FAILED test_mine.py::TestMine::test_behaves_like_the_model" in first
    assert _phases(first).get("generate") == "0 passing, 1 failing", first
    assert "reuse" not in _phases(first)  # the database was empty
    examples = tmp_path / ".hypothesis" / "examples"
    assert examples.is_dir() and any(examples.iterdir())  # Hypothesis's default database
    folder = re.search(r"replay, pictures and report\.json: (\S+)", first)
    assert folder is not None and (Path(folder.group(1)) / "replay.py").exists()

    second = _pytest(tmp_path, "-k", "behaves_like_the_model", "test_mine.py")
    # the saved failure is the first example run, and no new one is generated
    assert _phases(second) == {"reuse": "0 passing, 1 failing"}, second
    assert "<== first divergence" in second


def test_the_plugin_checks_a_target_without_a_test_file(tmp_path: Path) -> None:
    (tmp_path / "buggy.py").write_text(OFF_BY_ONE)
    (tmp_path / "test_other.py").write_text("def test_other():\n    assert False\n")
    db = tmp_path / "db"
    out = _pytest(tmp_path, "--schedcheck-scheduler", "buggy.py:OffByOne",
                  "--schedcheck-db", str(db), "-k", "behaves_like_the_model")
    assert "FAILED schedcheck-targets::TestScheduler::test_behaves_like_the_model" in out
    assert "1 failed, 1 deselected" in out and "test_other" not in out  # only the suites
    assert db.is_dir() and any(db.iterdir())
    assert _phases(out).get("generate") == "0 passing, 1 failing", out


def test_the_plugin_adds_nothing_without_its_options(tmp_path: Path) -> None:
    (tmp_path / "test_other.py").write_text("def test_other():\n    pass\n")
    probe = ("import sys, pytest; import schedcheck.pytest_plugin; "
             "sys.exit(pytest.main(['-q', '--co', '-p', 'no:cacheprovider']) or "
             "any(m in sys.modules for m in ('schedcheck.harness.common', 'schedcheck.fuzz')))")
    run = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "test_other.py::test_other" in run.stdout and "schedcheck-targets" not in run.stdout
