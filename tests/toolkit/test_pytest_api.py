"""`from schedcheck import scheduler_suite, wheel_suite`: test classes for your own code.

A test module outside the repository binds a broken scheduler and a correct wheel; pytest (in
a subprocess, as a user would run it) fails the first with the plain-words steps and the path
of the pictures, and passes the second.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import schedcheck

USER_TESTS = '''\
from hypothesis import Phase, settings

from schedcheck import scheduler_suite, wheel_suite
from schedcheck.impl import HashedTimingWheel, Scheduler


class LateCallbackWins(Scheduler):
    def complete(self, task_id, generation):
        return super().complete(task_id, self.info(task_id).generation)


# small, derandomized and unshrunk: this file tests the API, not the suites
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
    folder = re.search(r"replay, pictures and report\.json: (\S+)", out)
    assert folder is not None, out
    path = Path(folder.group(1))
    assert (path / "replay.py").exists() and (path / "lanes.dot").exists()
    assert (path / "report.json").exists()
