"""``schedcheck practice SYSTEM DIR --lang js|java``: the skeleton, the shim and the guide;
the skeleton grades as "not implemented" through ``grade --exec``, a filled-in answer holds."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from schedcheck.cli import main
from tests.languages.helpers import HERE, need


@pytest.mark.parametrize(("lang", "system", "files"), [
    ("js", "wheel", {"wheel.js", "shim.js", "GUIDE.md"}),
    ("js", "scheduler", {"scheduler.js", "shim.js", "GUIDE.md"}),
    ("java", "wheel", {"Wheel.java", "Shim.java", "GUIDE.md"}),
    ("java", "scheduler", {"Scheduler.java", "Shim.java", "GUIDE.md"}),
])
def test_practice_writes_the_skeleton_the_shim_and_the_guide(
        tmp_path: Path, lang: str, system: str, files: set[str]) -> None:
    assert main(["practice", system, str(tmp_path / "p"), "--lang", lang]) == 0
    assert {p.name for p in (tmp_path / "p").iterdir()} == files
    guide = (tmp_path / "p" / "GUIDE.md").read_text()
    assert f"schedcheck grade --system {system} --exec" in guide
    assert main(["practice", system, str(tmp_path / "p"), "--lang", lang]) == 2  # no overwrite


def test_the_javascript_skeleton_is_not_implemented_and_a_filled_one_holds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    need("node")
    folder = tmp_path / "p"
    assert main(["practice", "wheel", str(folder), "--lang", "js"]) == 0
    monkeypatch.chdir(folder)
    capsys.readouterr()
    assert main(["grade", "--system", "wheel", "--exec", "node shim.js wheel.js Wheel"]) == 1
    assert "not implemented" in capsys.readouterr().out
    shutil.copyfile(HERE / "js" / "wheel.js", folder / "wheel.js")  # the answer, filled in
    assert main(["grade", "--system", "wheel", "--exec",
                 "node shim.js wheel.js HashedWheel"]) == 0
    assert "0 failed" in capsys.readouterr().out


def test_the_java_skeleton_builds_and_grades_as_not_implemented(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    need("javac")
    need("java")
    folder = tmp_path / "p"
    assert main(["practice", "scheduler", str(folder), "--lang", "java"]) == 0
    subprocess.run(["javac", "-d", "build", "Shim.java", "Scheduler.java"], cwd=folder,
                   check=True, timeout=180)
    monkeypatch.chdir(folder)
    capsys.readouterr()
    assert main(["grade", "--system", "scheduler", "--exec",
                 "java -cp build Shim Scheduler"]) == 1
    assert "not implemented" in capsys.readouterr().out
