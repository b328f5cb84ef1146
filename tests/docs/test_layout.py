"""docs/layout.md describes the tree as it is: every folder and module it must list is listed,
and every path it lists exists.

What the page must list:

* every top-level folder of the repository (git's files, or the folders on disk), hidden
  ones apart;
* every package folder under ``schedcheck/``, ``model/``, ``impl/`` and ``specs/`` (a folder
  with an ``__init__.py``), every other folder inside one (such as ``specs/seeds/``), and every
  module and markdown file in them (``__init__.py`` is its folder's row);
* every folder of ``tests/`` (one level), and every file of ``benchmarks/``, ``notebooks/``
  and ``scripts/``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.docs.pages import ROOT

LAYOUT = ROOT / "docs" / "layout.md"
PACKAGE_ROOTS = ("schedcheck", "model", "impl", "specs")
FLAT_FOLDERS = ("benchmarks", "notebooks", "scripts")
_ROW = re.compile(r"^\|\s*`(?P<path>[^`]+)`\s*\|")
_SKIP = {"__pycache__"}


def listed() -> list[str]:
    """The paths of the page's table rows (first column), in order."""
    return [m["path"] for line in LAYOUT.read_text(encoding="utf-8").splitlines()
            if (m := _ROW.match(line))]


def _files() -> list[str]:
    """The repository's files: git's (tracked, or untracked and not ignored), else on disk."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\n")
        files = [f for f in out if f and (ROOT / f).exists()]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
            if p.is_file() and not any(part.startswith(".") or part in _SKIP
                                       for part in p.relative_to(ROOT).parts)]


def expected() -> set[str]:
    files = [f for f in _files()
             if not set(Path(f).parts) & _SKIP and not f.startswith(".")]
    want: set[str] = set()
    for f in files:
        parts = Path(f).parts
        if len(parts) > 1:
            want.add(parts[0] + "/")
        if parts[0] in PACKAGE_ROOTS:
            for i in range(1, len(parts) - 1):  # every folder inside a package root
                want.add("/".join(parts[:i + 1]) + "/")
            folder = ROOT.joinpath(*parts[:-1])
            if (folder / "__init__.py").exists() and parts[-1] != "__init__.py" \
                    and Path(f).suffix in {".py", ".md"}:
                want.add(f)
        elif parts[0] == "tests" and len(parts) > 2:
            want.add(f"tests/{parts[1]}/")
        elif parts[0] in FLAT_FOLDERS and len(parts) == 2:
            want.add(f)
    return want


def test_the_layout_page_lists_every_folder_and_module() -> None:
    rows = set(listed())
    missing = sorted(expected() - rows)
    assert not missing, (
        "docs/layout.md does not list these (add a row `| `PATH` | what it holds |` to its "
        "folder's table):\n" + "\n".join(missing))


def test_every_row_of_the_layout_page_exists() -> None:
    gone = [p for p in listed()
            if not (ROOT / p).exists() or (p.endswith("/") and not (ROOT / p).is_dir())]
    assert not gone, "docs/layout.md lists what does not exist:\n" + "\n".join(gone)


def test_each_path_is_listed_once_and_every_row_says_something() -> None:
    rows = listed()
    assert len(rows) == len(set(rows)), sorted({p for p in rows if rows.count(p) > 1})
    empty = [line for line in LAYOUT.read_text(encoding="utf-8").splitlines()
             if _ROW.match(line) and line.rstrip().rstrip("|").rstrip().endswith("|")]
    assert not empty, "rows with no description:\n" + "\n".join(empty)
