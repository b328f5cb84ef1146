"""``schedcheck fuzz`` with its default engine, ``check``: each worker round is check's own
search (its phases, both levels) from a new seed; what it finds is kept in the campaign's
database as a reduced program, so the campaign stops, writes check's report, and a second
campaign on the same database replays it first without searching. The ``hypothesis`` engine
(the suite's plain Hypothesis search, saved in Hypothesis's own format) reports the same way;
the ``hypofuzz`` one is ``test_fuzz.py``'s."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from schedcheck import fuzz
from tests.toolkit.fakes import database_env

OFF_BY_ONE = '''\
from schedcheck.impl import Scheduler


class OffByOne(Scheduler):
    def submit(self, *args, **kwargs):
        return super().submit(*args, **kwargs) + 1
'''


def _fuzz(folder: Path, db: Path, *engine: str) -> str:
    """A campaign on ``buggy.py`` from ``folder`` (made here) with the database ``db``: its
    output, after asserting that it found the failure (exit 1)."""
    folder.mkdir(exist_ok=True)
    (folder / "buggy.py").write_text(OFF_BY_ONE)
    done = subprocess.run(
        [sys.executable, "-m", "schedcheck.cli", "fuzz", "scheduler", "buggy.py:OffByOne",
         "--db", str(db), "--workers", "1", "--budget", "120", "--out", "out", *engine],
        cwd=folder, capture_output=True, text=True, timeout=300, env=database_env())
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    return out


def test_the_check_engine_finds_keeps_and_reports_and_the_next_campaign_replays_it_first(
        tmp_path: Path) -> None:
    assert fuzz.default_engine() == "check"
    db, first, second = tmp_path / "db", tmp_path / "machine-1", tmp_path / "machine-2"
    out = _fuzz(first, db)
    assert "1 check worker(s)" in out and "a worker found a failure" in out, out
    # check's report, under --out: the card, the steps, a verified replay.py
    for name in ("card.txt", "steps.txt", "replay.py", "index.html", "report.json"):
        assert (first / "out" / name).is_file(), (name, out)
    assert "verified: fails at step" in out
    assert "FAILURES" not in out  # no raw pytest

    out = _fuzz(second, db)
    assert "already holds a failure" in out, out
    assert not list((second / "out").glob("worker-*.log"))  # no search
    assert (second / "out" / "replay.py").is_file()


def test_the_hypothesis_engine_runs_the_plain_suite_and_writes_the_same_report(
        tmp_path: Path) -> None:
    out = _fuzz(tmp_path, tmp_path / "db", "--engine", "hypothesis")
    assert "1 hypothesis worker(s)" in out and "a worker found a failure" in out, out
    assert "verified: fails at step" in out and (tmp_path / "out" / "replay.py").is_file()
