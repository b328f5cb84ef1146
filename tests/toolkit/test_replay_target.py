"""How a replay.py chooses and loads its target (``schedcheck.report.replay_runtime``):
``--target SPEC`` against another implementation, and the check's own target loaded as the
check loaded it, a folder named like an imported package beside it included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schedcheck.report.replay_runtime import chosen_target


def test_without_target_the_replay_runs_on_the_checked_target_from_the_checks_folder() -> None:
    assert chosen_target("mine.py:Scheduler", "/where/checked", []) == (
        "mine.py:Scheduler", "/where/checked")


def test_target_names_another_implementation_read_from_the_current_folder() -> None:
    assert chosen_target("mine.py:Scheduler", "/where/checked",
                         ["--target", "fixed.py:Scheduler"]) == ("fixed.py:Scheduler",
                                                                 os.getcwd())
    assert chosen_target("mine.py:Scheduler", "/c", ["--target", "schedcheck.impl:Scheduler"])[0] \
        == "schedcheck.impl:Scheduler"


@pytest.mark.parametrize("spec", ["fixed.py", "fixed.py:", "Scheduler"])
def test_a_target_without_an_attribute_is_a_usage_error(
        spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        chosen_target("mine.py:Scheduler", "/c", ["--target", spec])
    assert stop.value.code == 2
    assert "expected path/to/file.py:ATTR or module:ATTR" in capsys.readouterr().err


def test_a_folder_named_like_an_imported_package_does_not_hide_the_installed_one(
        tmp_path: Path) -> None:
    """The adapter imports ``graphpkg``, installed only where the check ran (``site``), and
    sits beside a folder ``graphpkg/`` (a source checkout, no ``__init__.py``). The check
    found the installed package; so must the replay, run by a python that lacks it."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "graphpkg.py").write_text("class Sorter:\n    made_by = 'installed'\n")
    work = tmp_path / "work"
    (work / "graphpkg").mkdir(parents=True)
    (work / "graphpkg" / "README").write_text("the package's source checkout\n")
    (work / "adapter.py").write_text(
        "from graphpkg import Sorter\n\n\nclass Adapter(Sorter):\n    pass\n")
    code = ("import sys\n"
            "from schedcheck.report.replay_runtime import load_target\n"
            f"found = load_target('adapter.py:Adapter', {str(work)!r}, [{str(site)!r}])\n"
            "print(found.made_by)\n")
    done = subprocess.run([sys.executable, "-I", "-c", code], cwd=work, capture_output=True,
                           text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.strip() == "installed"
