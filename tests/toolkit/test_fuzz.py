"""`schedcheck fuzz`: a campaign's workers share Hypothesis's example database.

A real ``redis-server`` (Debian's, installed by scripts/setup) runs on a free loopback port
with its files in a temporary folder. One machine's campaign (a HypoFuzz worker) finds the bug
of a small scheduler and saves it in Redis; a second worker, started later in another folder as
another machine would be, replays it as its very first example and searches no further.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from schedcheck import fuzz
from schedcheck.cli import main
from tests.toolkit.fakes import database_env

OFF_BY_ONE = '''\
from schedcheck.impl import Scheduler


class OffByOne(Scheduler):
    def submit(self, *args, **kwargs):
        return super().submit(*args, **kwargs) + 1
'''


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = shutil.which("redis-server")
    assert server is not None, "redis-server is missing: scripts/setup installs it"
    port = _free_port()
    data = tmp_path / "redis"
    data.mkdir()
    proc = subprocess.Popen(
        [server, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(data),
         "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for _ in range(200):  # the start-up banner is a few dozen lines
            line = proc.stdout.readline()
            if "Ready to accept connections" in line or not line:
                break
        assert proc.poll() is None, "redis-server did not start"
        # keep reading its log, so that a full pipe never blocks the server
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _campaign(folder: Path, url: str) -> subprocess.CompletedProcess[str]:
    folder.mkdir()
    (folder / "buggy.py").write_text(OFF_BY_ONE)
    env = database_env()
    return subprocess.run(
        [sys.executable, "-m", "schedcheck.cli", "fuzz", "scheduler", "buggy.py:OffByOne",
         "--redis", url, "--workers", "1", "--engine", "hypofuzz", "--out", "out"],
        cwd=folder, capture_output=True, text=True, timeout=300, env=env)


def test_a_failure_found_by_one_worker_is_replayed_first_by_the_other(
        tmp_path: Path, redis_url: str) -> None:
    import redis

    first = _campaign(tmp_path / "machine-1", redis_url)
    out = first.stdout + first.stderr
    assert first.returncode == 1, out
    assert "a worker found a failure" in out and "<== first divergence" in out
    log = (tmp_path / "machine-1" / "out" / "worker-0.log").read_text()
    assert "failure found and saved" in log
    keys = redis.Redis.from_url(redis_url).keys("hypothesis-example:*")
    assert keys, "nothing was saved in Redis"
    # check's report, under --out: the card, the steps, a verified replay.py, the pictures
    report = tmp_path / "machine-1" / "out"
    for name in ("card.txt", "steps.txt", "replay.py", "index.html", "report.json"):
        assert (report / name).is_file(), name
    assert "report card: scheduler buggy.py:OffByOne" in out
    assert "verified: fails at step" in out
    assert "FAILURES" not in out and "Hypothesis Statistics" not in out  # no raw pytest

    second = _campaign(tmp_path / "machine-2", redis_url)
    out = second.stdout + second.stderr
    assert second.returncode == 1, out
    assert "already holds a failure" in out
    # Hypothesis's statistics (pytest's log of the replay): the saved failure was the first
    # example run, none was generated
    log = (tmp_path / "machine-2" / "out" / "report.log").read_text()
    assert re.search(r"during reuse phase .*\n.*\n\s*- 0 passing, 1 failing", log), log
    assert "during generate phase" not in log
    assert "<== first divergence" in out and (tmp_path / "machine-2" / "out" /
                                              "replay.py").is_file()
    assert not list((tmp_path / "machine-2" / "out").glob("worker-*.log"))  # no search

    # check replays it first too: at the core level alone, whose search never compares what
    # submit() returns, the saved failure is the counterexample, with its folder
    third = tmp_path / "machine-3"
    third.mkdir()
    (third / "buggy.py").write_text(OFF_BY_ONE)
    run = subprocess.run(
        [sys.executable, "-m", "schedcheck.cli", "check", "scheduler", "buggy.py:OffByOne",
         "--db", redis_url, "--level", "core", "--examples", "10", "--seed", "0", "--no-cost",
         "--out", "out"], cwd=third, capture_output=True, text=True, timeout=300,
        env=database_env())
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "was replayed first and fails again" in out, out
    assert "a failure saved in the example database fails again" in out, out
    report = (third / "out" / "report.json").read_text()
    folders = [p.name for p in (third / "out").iterdir() if (p / "replay.py").is_file()]
    assert len(folders) == 1 and f'"{folders[0]}"' in report, (folders, out)


def test_bad_arguments_and_an_unreachable_database_are_unusable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "buggy.py").write_text(OFF_BY_ONE)
    target = str(tmp_path / "buggy.py") + ":OffByOne"
    with pytest.raises(SystemExit) as exc:
        main(["fuzz", "scheduler", target, "--workers", "0"])
    assert exc.value.code == 2
    assert "give a number above 0" in capsys.readouterr().err
    url = f"redis://127.0.0.1:{_free_port()}/0"  # nothing listens there
    assert main(["fuzz", "scheduler", target, "--redis", url]) == 2
    assert "does not answer" in capsys.readouterr().err
    assert main(["fuzz", "scheduler", target, "--tolerance"]) == 2
    assert "wheels only" in capsys.readouterr().err


def test_the_replay_only_profile_keeps_no_generation(tmp_path: Path) -> None:
    import hypothesis

    before = hypothesis.settings._current_profile  # type: ignore[attr-defined]
    try:
        fuzz.load_database_profile(str(tmp_path / "db"), replay_only=True)
        chosen = hypothesis.settings.default
        assert hypothesis.Phase.generate not in chosen.phases
        assert hypothesis.Phase.reuse in chosen.phases
        assert chosen.database == fuzz.open_database(str(tmp_path / "db"))
    finally:
        hypothesis.settings.load_profile(before or "default")


def test_the_campaign_sums_what_its_workers_report_having_tried(tmp_path: Path) -> None:
    from schedcheck.fuzz import STATUS_PREFIX, Campaign, tried_text, worker_status

    campaign = Campaign("scheduler", "t:T", out=tmp_path)
    assert tried_text(campaign) == "no worker has reported yet"
    (tmp_path / "worker-0.log").write_text(
        f"collected\n{STATUS_PREFIX} examples=10 behaviours=3 fingerprints=7\n"
        f"noise\n{STATUS_PREFIX} examples=1200 behaviours=40 fingerprints=95\n")
    (tmp_path / "worker-1.log").write_text(
        f"{STATUS_PREFIX} examples=800 behaviours=30 fingerprints=90\n")
    assert worker_status(tmp_path / "worker-0.log") == {
        "examples": 1200, "behaviours": 40, "fingerprints": 95}
    assert worker_status(tmp_path / "missing.log") == {}
    assert tried_text(campaign) == ("2,000 examples, 70 distinct behaviours (programs), "
                                    "185 coverage fingerprints")
    for log in tmp_path.glob("worker-*.log"):
        log.write_text(f"{STATUS_PREFIX} examples=66 behaviours=0 fingerprints=0\n")
    assert tried_text(campaign) == ("132 examples (HypoFuzz has reported no coverage yet)")
