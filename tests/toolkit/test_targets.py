"""Loading targets: both accepted forms, and exit status 2 with the accepted forms otherwise."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from schedcheck.cli import main
from schedcheck.targets import TargetError, load_target

SCHEDCHECK = str(Path(sys.executable).with_name("schedcheck"))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_file_target_loads_the_attribute_from_a_file_anywhere(tmp_path: Path) -> None:
    path = _write(tmp_path, "mine.py", "class Scheduler:\n    def __init__(self, n): self.n = n\n")
    target = load_target(f"{path}:Scheduler")
    assert target.kind == "file"
    assert target.factory(3).n == 3


def test_module_target_imports_from_the_current_directory(tmp_path: Path, monkeypatch) -> None:
    _write(tmp_path, "mymod_for_target_test.py", "def make(n):\n    return ('made', n)\n")
    monkeypatch.chdir(tmp_path)
    target = load_target("mymod_for_target_test:make")
    assert target.kind == "module"
    assert target.factory(2) == ("made", 2)


def test_bundled_model_is_a_target() -> None:
    assert load_target("schedcheck.model:Scheduler").attr == "Scheduler"


@pytest.mark.parametrize(
    ("spec_of", "reason"),
    [
        (lambda d: "no_colon_here", "expected WHERE:ATTRIBUTE"),
        (lambda d: f"{d}/missing.py:Scheduler", "does not exist"),
        (lambda d: "no_such_module_xyz:Scheduler", "no module named 'no_such_module_xyz'"),
        (lambda d: f"{d}/ok.py:Nope", "has no attribute 'Nope'"),
        (lambda d: f"{d}/ok.py:VALUE", "not a class or factory"),
        (lambda d: f"{d}/broken.py:Scheduler", "syntax error in"),
        (lambda d: f"{d}/raises.py:Scheduler", "raised RuntimeError: boom at import"),
    ],
)
def test_unusable_target_raises_target_error_naming_it(tmp_path: Path, spec_of, reason) -> None:
    _write(tmp_path, "ok.py", "VALUE = 3\nclass Scheduler:\n    pass\n")
    _write(tmp_path, "broken.py", "class Scheduler(:\n    pass\n")
    _write(tmp_path, "raises.py", "raise RuntimeError('boom at import')\n")
    spec = spec_of(tmp_path)
    with pytest.raises(TargetError, match="accepted forms") as info:
        load_target(spec)
    assert reason in str(info.value)
    assert repr(spec) in str(info.value)


@pytest.mark.parametrize(
    ("name", "text", "attr", "reason"),
    [
        ("gone.py", None, "Scheduler", "does not exist"),
        ("noattr.py", "class Other: pass\n", "Scheduler", "has no attribute 'Scheduler'"),
        ("notcallable.py", "Scheduler = 42\n", "Scheduler", "not a class or factory"),
        ("syntax.py", "def oops(:\n", "Scheduler", "syntax error"),
    ],
)
def test_check_exits_2_with_the_target_and_the_accepted_forms(
    tmp_path: Path, capsys, name, text, attr, reason
) -> None:
    if text is not None:
        _write(tmp_path, name, text)
    spec = f"{tmp_path / name}:{attr}"
    status = main(["check", "scheduler", spec, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert reason in err
    assert "accepted forms" in err and "path/to/file.py:attr" in err and "module:attr" in err
    assert not (tmp_path / "out").exists()


def test_a_target_that_cannot_be_constructed_is_unusable(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, "ctor.py", "class Scheduler:\n    def __init__(self):\n        pass\n")
    status = main(["check", "scheduler", f"{path}:Scheduler"])
    err = capsys.readouterr().err
    assert status == 2
    assert "cls(max_concurrency)" in err and "TypeError" in err


def test_a_target_without_the_required_methods_is_unusable(tmp_path: Path, capsys) -> None:
    path = _write(tmp_path, "half.py", """\
        class Wheel:
            def __init__(self, tick, size, **options):
                pass
            def schedule(self, deadline, callback):
                pass
    """)
    status = main(["check", "wheel", f"{path}:Wheel"])
    err = capsys.readouterr().err
    assert status == 2
    assert "without the required methods cancel(), advance(), pending()" in err
    status = main(["check", "wheel", f"{path}:Wheel", "--level", "contract"])
    err = capsys.readouterr().err
    assert status == 2
    assert "without the required methods schedule_after(), cancel(), advance(), pending()" in err


def test_console_script_exits_2_for_a_missing_file(tmp_path: Path) -> None:
    spec = f"{tmp_path}/absent.py:Scheduler"
    run = subprocess.run([SCHEDCHECK, "check", "scheduler", spec], capture_output=True,
                         text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 2
    assert spec in run.stderr and "accepted forms" in run.stderr


def test_console_script_exits_2_for_bad_arguments(tmp_path: Path) -> None:
    run = subprocess.run([SCHEDCHECK, "check", "scheduler", "x:Y", "--examples", "many"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 2
    assert "argument --examples: expected a whole number >= 1, got 'many'" in run.stderr
