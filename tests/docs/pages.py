"""The manual as data: its pages, their fenced code blocks and the directives before them.

A page is README.md or any ``docs/*.md``. A fenced block whose language is ``sh``, ``bash``,
``shell``, ``console`` or ``python`` is one a user would run, and ``test_code_blocks`` runs it,
unless an HTML comment right above it (no blank line between) says otherwise. Directives, one
per comment:

* ``<!-- not run: REASON -->`` -- the block is not run; the reason is shown to the reader too;
* ``<!-- nightly: REASON -->`` -- the block (and the chain it starts) runs only in the nightly
  run (``scripts/test -m nightly``): it takes a minute or more, for REASON;
* ``<!-- exits N -->`` -- the block's last command exits with status N (default 0);
* ``<!-- file: NAME -->`` -- a Python block is saved as NAME in the workspace, then run;
* ``<!-- continues -->`` -- the block runs after the runnable block above it on the same page,
  in the same workspace (the files the earlier block wrote are still there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNABLE = frozenset({"sh", "bash", "shell", "console", "python"})

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)\s*$")
_COMMENT = re.compile(r"^\s*<!--\s*(?P<body>.*?)\s*-->\s*$")
_DIRECTIVE = re.compile(
    r"^(?:not run:\s*(?P<reason>\S.*)|nightly:\s*(?P<nightly>\S.*)|exits\s+(?P<exits>\d+)"
    r"|file:\s*(?P<file>[\w./-]+)"
    r"|(?P<continues>continues))$")


@dataclass
class Block:
    """One fenced code block of a page."""

    page: str  #: the page's path relative to the repository root, e.g. ``docs/checking.md``
    line: int  #: the line of the opening fence, 1-based
    lang: str  #: the fence's language ("" when it has none)
    text: str  #: the block's body, its indentation removed
    not_run: str | None = None  #: the reason it is not run, or None
    nightly: str | None = None  #: why it runs only in the nightly run, or None
    exits: int = 0  #: the exit status its last command must end with
    file: str | None = None  #: the name a Python block is saved as
    continues: bool = False  #: runs after the runnable block above it, in its workspace
    errors: list[str] = field(default_factory=list)  #: directives that could not be read

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.lang in RUNNABLE and self.not_run is None


def pages() -> list[Path]:
    """README.md and every page of docs/, in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _apply(block: Block, body: str) -> None:
    m = _DIRECTIVE.match(body)
    if m is None:
        # any other comment right above a block is a typo of a directive until shown otherwise
        block.errors.append(f"unknown directive <!-- {body} --> (expected 'not run: REASON', "
                            "'nightly: REASON', 'exits N', 'file: NAME' or 'continues')")
    elif m["reason"]:
        block.not_run = m["reason"]
    elif m["nightly"]:
        block.nightly = m["nightly"]
    elif m["exits"]:
        block.exits = int(m["exits"])
    elif m["file"]:
        block.file = m["file"]
    else:
        block.continues = True


def blocks(path: Path) -> list[Block]:
    """Every fenced block of one page, with the directives of the comments right above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = m["indent"], m["fence"]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            line = lines[j]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            j += 1
        page = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
        block = Block(page=page, line=i + 1, lang=m["lang"],
                      text="\n".join(body) + "\n")
        k = i - 1
        comments: list[str] = []
        while k >= 0 and (c := _COMMENT.match(lines[k])):
            comments.insert(0, c["body"])
            k -= 1
        for c in comments:
            _apply(block, c)
        out.append(block)
        i = j + 1
    return out


def chains(path: Path) -> list[list[Block]]:
    """The runnable blocks of a page grouped into chains: a block and those that continue it."""
    out: list[list[Block]] = []
    for block in blocks(path):
        if not block.runnable:
            continue
        if block.continues and out:
            out[-1].append(block)
        else:
            out.append([block])
    return out
