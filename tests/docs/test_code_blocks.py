"""Every code block of README.md and docs/ that a user would run is run here, as written.

Each chain of blocks (a block and the blocks marked ``<!-- continues -->`` after it) runs in a
fresh workspace: a temporary folder holding links to the repository's files and ``.venv``, so
that what a block writes (report folders, answers, databases) lands in the temporary folder.
Shell blocks run with bash (``-e``: a command that fails stops the block), ``.venv/bin`` first
on PATH; Python blocks with the venv's python. The environment is pinned: no ``CI``, the
``dev`` profile, so a block runs the same everywhere; blocks that search fix their own seed.
The directives are described in ``tests/docs/pages.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.pages import ROOT, RUNNABLE, Block, blocks, chains, pages

#: the longest one block may take before the test gives up on it (the blocks take < 40 s)
BLOCK_TIMEOUT_S = 150

PAGES = pages()
CHAINS = [chain for page in PAGES for chain in chains(page)]


def _tracked_top_level() -> set[str]:
    """The repository's top-level entries (files git knows of, or would add), plus .venv."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        listed = [p.name for p in ROOT.iterdir() if not p.name.startswith(".")]
    return {p.split("/", 1)[0] for p in listed if not p.startswith(".")} | {".venv"}


def _workspace(tmp: Path) -> Path:
    for name in sorted(_tracked_top_level()):
        if (ROOT / name).exists():
            (tmp / name).symlink_to(ROOT / name)
    return tmp


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"CI", "PYTHONPATH", "SCHEDCHECK_PROFILE"} and not k.startswith("PYTEST")}
    env["SCHEDCHECK_PROFILE"] = "dev"
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _command(block: Block, ws: Path) -> list[str]:
    if block.lang == "python":
        name = block.file or f"_block_{block.line}.py"
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(block.text, encoding="utf-8")
        return [str(ws / ".venv" / "bin" / "python"), name]
    text = block.text
    if block.lang == "console":
        text = "\n".join(line[2:] for line in text.splitlines() if line.startswith("$ "))
    return ["bash", "-e", "-c", text]


def _run(block: Block, ws: Path) -> None:
    try:
        done = subprocess.run(_command(block, ws), cwd=ws, env=_env(), capture_output=True,
                              text=True, timeout=BLOCK_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{block.where}: still running after {BLOCK_TIMEOUT_S} s "
                    f"(output so far: {exc.stdout!r})")
    if done.returncode != block.exits:
        pytest.fail(
            f"{block.where}: the {block.lang} block exited {done.returncode}, its page says "
            f"{block.exits}\n--- block\n{block.text}--- stdout (tail)\n{done.stdout[-3000:]}"
            f"--- stderr (tail)\n{done.stderr[-3000:]}")


@pytest.mark.parametrize("chain", [
    pytest.param(c, marks=pytest.mark.nightly(reason=c[0].nightly)) if c[0].nightly else c
    for c in CHAINS], ids=[c[0].where for c in CHAINS])
def test_the_block_runs_and_exits_as_its_page_says(chain: list[Block], tmp_path: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover - the blocks are bash and POSIX paths
        pytest.skip("the blocks are written for a POSIX shell")
    ws = _workspace(tmp_path)
    for block in chain:
        _run(block, ws)


def test_every_block_has_a_language_and_valid_directives() -> None:
    problems = []
    for page in PAGES:
        seen_runnable = False
        for block in blocks(page):
            problems += [f"{block.where}: {e}" for e in block.errors]
            if not block.lang:
                problems.append(f"{block.where}: a fence with no language (say ```sh, "
                                "```python, or ```text for what is not run)")
            if block.file and block.lang != "python":
                problems.append(f"{block.where}: 'file:' is for python blocks")
            if block.continues and not seen_runnable:
                problems.append(f"{block.where}: 'continues' with no runnable block above it")
            if block.nightly and block.continues:
                problems.append(f"{block.where}: 'nightly' goes on the first block of a chain")
            if block.lang not in RUNNABLE and (block.not_run or block.exits or block.continues
                                               or block.nightly):
                problems.append(f"{block.where}: a directive on a {block.lang!r} block, "
                                "which is never run")
            seen_runnable = seen_runnable or block.runnable
    assert not problems, "\n".join(problems)


def test_the_manual_has_runnable_blocks_and_the_two_commands_are_marked() -> None:
    readme = blocks(ROOT / "README.md")
    assert sum(b.runnable for b in readme) >= 3, "README's journeys are runnable blocks"
    marked = [b for b in readme if "scripts/main" in b.text and "scripts/test" in b.text]
    assert marked and all(b.not_run for b in marked), \
        "the block of scripts/main and scripts/test is marked <!-- not run: ... -->"
