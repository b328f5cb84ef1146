"""Links and paths in the manual resolve: every relative markdown link of README.md, docs/ and
specs/ names a file that exists, every page of docs/ is linked from README's "Where to read
more", and every repository path quoted in backticks exists (so a moved module cannot leave the
manual pointing at its old place)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.pages import ROOT, pages

_LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")
#: a path in backticks that starts at one of the repository's source folders
_PATH = re.compile(
    r"`(?P<path>(?:model|impl|specs|schedcheck|tests|benchmarks|notebooks|scripts|docs)/"
    r"[\w./-]*)`")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _manual() -> list[Path]:
    return [*pages(), *sorted((ROOT / "specs").glob("*.md"))]


def _prose(path: Path) -> str:
    """The page without its fenced blocks (a command's placeholder paths are not links)."""
    out, inside = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            out.append(line)
    return "\n".join(out)


def relative_links(path: Path) -> list[str]:
    return [m["target"] for m in _LINK.finditer(_prose(path))
            if not re.match(r"^[a-z][a-z+.-]*:", m["target"]) and not m["target"].startswith("#")]


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in _manual():
        for target in relative_links(page):
            file = target.split("#", 1)[0]
            if not (page.parent / file).exists():
                broken.append(f"{page.relative_to(ROOT)}: ({target}) names nothing")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(ROOT / t.split("#", 1)[0]).resolve() for t in relative_links(ROOT / "README.md")}
    missing = [p.relative_to(ROOT) for p in sorted((ROOT / "docs").glob("*.md"))
               if p.resolve() not in linked]
    assert not missing, ("README.md's 'Where to read more' does not link: "
                         + ", ".join(map(str, missing)))


def test_every_quoted_repository_path_exists() -> None:
    gone = []
    for page in _manual():
        for m in _PATH.finditer(_prose(page)):
            path = m["path"].rstrip(".")
            if any(ch in path for ch in "*{}") or path.endswith("/..."):
                continue
            if not (ROOT / path).exists():
                gone.append(f"{page.relative_to(ROOT)}: `{path}` does not exist")
    assert not gone, "\n".join(gone)


def test_the_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; the manual belongs in docs/"
