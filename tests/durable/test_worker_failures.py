"""The worker and its supervisor with real processes, when things go wrong: nothing is marked
done that did not run, a task that ends its process is reported and its worker replaced, and
the store's errors surface at once, with an exit code that says which."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable.worker import run_worker

ROOT = Path(__file__).resolve().parents[2]
WORKER = [sys.executable, "-m", "schedcheck.impl.durable.worker"]


def _env(folder: Path) -> dict[str, str]:
    return {**os.environ, "FAIL_DIR": str(folder),
            "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _run(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WORKER, *args], env=_env(folder), cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)


def _store(folder: Path, tasks: dict[str, list[str]], **kw: object) -> str:
    url = f"sqlite:///{folder}/tasks.db"
    s = DurableScheduler(url, 2, 30.0, create=True)
    for task, deps in tasks.items():
        s.submit(task, deps, **kw)  # type: ignore[arg-type]
    s.start()
    s.disconnect()
    return url


def test_a_task_whose_function_cannot_be_imported_fails_with_that_error(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/tasks.db"
    s = DurableScheduler(url, 2, 30.0, create=True)
    s.submit("local", fn=lambda: None)  # only this process holds it
    s.submit("bare")  # no function, and the worker has no --fn
    s.submit("after", ["local"])
    s.start()
    out = _run([url, "--max-concurrency", "2", "--exit-when-idle", "--poll", "0.01"], tmp_path)
    assert out.returncode == 0, out.stderr
    local, bare = s.info("local"), s.info("bare")
    assert local.state.name == "FAILED" and local.attempts == 1  # not retried: it cannot run
    assert "cannot import task function" in local.error and "<lambda>" in local.error
    assert bare.state.name == "FAILED" and "nothing to run" in bare.error
    assert s.info("after").state.name == "BLOCKED"
    assert json.loads(out.stdout)["completed"] == 0


def test_sys_exit_inside_a_task_fails_the_task_and_the_worker_goes_on(tmp_path: Path) -> None:
    url = _store(tmp_path, {"exit": [], "a": [], "b": ["exit"]})
    out = _run([url, "--max-concurrency", "2", "--exit-when-idle", "--no-retry",
                "--fn", "tests.durable.failing_work:run"], tmp_path)
    assert out.returncode == 0, out.stderr
    s = DurableScheduler(url, 2, 30.0)
    assert s.info("exit").state.name == "FAILED"
    assert "sys.exit(0)" in s.info("exit").error
    assert s.info("a").state.name == "SUCCEEDED" and s.info("a").result == "done a"
    assert s.info("b").state.name == "BLOCKED"


def test_a_task_that_kills_its_worker_ends_failed_and_the_pool_lives_on(tmp_path: Path) -> None:
    tasks = {"doom": [], **{f"t{i}": [] for i in range(6)}}
    url = _store(tmp_path, tasks, max_attempts=2)
    out = _run([url, "--workers", "2", "--max-concurrency", "2", "--exit-when-idle",
                "--poll", "0.01", "--lease", "5", "--retry-backoff", "0.1",
                "--fn", "tests.durable.failing_work:run"], tmp_path)
    s = DurableScheduler(url, 2, 30.0)
    doom = s.info("doom")
    assert doom.state.name == "FAILED" and doom.attempts == 2, out.stderr
    assert "its worker died: exit code 7" in doom.error
    assert all(s.info(f"t{i}").state.name == "SUCCEEDED" for i in range(6))
    pids = (tmp_path / "doomed").read_text().split()
    assert len(pids) == 2  # it ran twice (max_attempts), each time in a worker it killed
    for pid in pids:  # each death reported: pid, cause, the task, its lease, the replacement
        line = next(ln for ln in out.stderr.splitlines() if f"worker {pid} " in ln)
        assert "exit code 7" in line and "it held task 'doom'" in line, line
        assert "failed with that cause" in line and "started worker" in line, line
    assert out.returncode == 1, out.stderr  # done, but workers died on the way


def test_a_worker_killed_from_outside_is_reported_and_its_task_runs_again(
        tmp_path: Path) -> None:
    url = _store(tmp_path, {"hang": [], "a": []})
    os.mkfifo(tmp_path / "pid")
    sup = subprocess.Popen([*WORKER, url, "--workers", "2", "--max-concurrency", "2",
                            "--exit-when-idle", "--poll", "0.01", "--retry-backoff", "0",
                            "--fn", "tests.durable.failing_work:run"], env=_env(tmp_path),
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(tmp_path / "pid") as fifo:
        pid = int(fifo.read())  # the worker running "hang" now
    os.kill(pid, signal.SIGKILL)
    _, err = sup.communicate(timeout=120)
    line = next(ln for ln in err.splitlines() if f"worker {pid} " in ln)
    assert "killed by SIGKILL" in line and "it held task 'hang'" in line, err
    assert "started worker" in line, err
    s = DurableScheduler(url, 2, 30.0)
    assert (s.info("hang").state.name, s.info("hang").attempts) == ("SUCCEEDED", 2)
    assert sup.returncode == 1, err


def test_workers_that_keep_dying_stop_the_pool_past_the_restart_rate(tmp_path: Path) -> None:
    url = _store(tmp_path, {"doom": []}, max_attempts=50)
    out = _run([url, "--workers", "2", "--max-concurrency", "2", "--poll", "0.01",
                "--retry-backoff", "0", "--max-restarts", "3", "--restart-window", "600",
                "--fn", "tests.durable.failing_work:run"], tmp_path)
    assert out.returncode == 5, out.stderr
    assert "died 3 times within 600 s: stopping the pool" in out.stderr
    assert len((tmp_path / "doomed").read_text().split()) == 4  # 3 restarts + the 4th death


def test_a_task_that_raises_is_retried_with_backoff_and_its_result_kept(tmp_path: Path) -> None:
    url = _store(tmp_path, {"flaky": []})
    os.environ["FAIL_DIR"] = str(tmp_path)  # run_worker runs the function in this process
    try:
        from tests.durable.failing_work import run
        stats = run_worker(url, max_concurrency=2, lease_seconds=30.0, fn=run, poll=0.01,
                           exit_when_idle=True, retry_backoff=0.05)
    finally:
        del os.environ["FAIL_DIR"]
    s = DurableScheduler(url, 2, 30.0)
    info = s.info("flaky")
    assert (info.state.name, info.attempts, info.result) == ("SUCCEEDED", 3, "done flaky")
    assert (stats.failed, stats.completed) == (2, 1)


def test_a_function_that_takes_ctx_gets_its_claim(tmp_path: Path) -> None:
    url = _store(tmp_path, {"a": [], "b": ["a"]})
    os.environ["FAIL_DIR"] = str(tmp_path)
    try:
        from tests.durable.failing_work import with_ctx
        run_worker(url, max_concurrency=2, lease_seconds=30.0, fn=with_ctx, poll=0.01,
                   exit_when_idle=True)
    finally:
        del os.environ["FAIL_DIR"]
    seen = [json.loads(ln) for ln in (tmp_path / "ctx").read_text().splitlines()]
    assert [(t, i, g, a) for t, i, g, _, a in seen] == [("a", "a", 1, 1), ("b", "b", 1, 1)]
    assert seen[0][3] < seen[1][3]  # the fencing tokens: larger for the later claim


@pytest.mark.parametrize("problem", ["missing file", "damaged file", "other limit"])
def test_a_store_that_cannot_be_used_ends_the_pool_with_exit_3(tmp_path: Path,
                                                               problem: str) -> None:
    url = f"sqlite:///{tmp_path}/tasks.db"
    limit = "2"
    if problem != "missing file":
        _store(tmp_path, {"a": []})
    if problem == "damaged file":
        (tmp_path / "tasks.db").write_bytes(b"this is not a database" * 100)
    if problem == "other limit":
        limit = "3"
    out = _run([url, "--workers", "2", "--max-concurrency", limit, "--exit-when-idle"],
               tmp_path)
    assert out.returncode == 3, out.stderr
    says = {"missing file": "no SQLite store at", "damaged file": "is damaged",
            "other limit": "created with max_concurrency=2"}[problem]
    assert says in out.stderr and "Traceback" not in out.stderr
    assert "stopping the pool" in out.stderr


def test_a_wrong_postgresql_database_fails_at_once_with_the_servers_message(
        tmp_path: Path, pg_url: str) -> None:
    wrong = pg_url.rsplit("/", 1)[0] + "/no_such_db"
    out = _run([wrong, "--max-concurrency", "1", "--give-up", "600"], tmp_path)
    assert out.returncode == 3, out.stderr
    assert 'database "no_such_db" does not exist' in out.stderr


def test_a_function_given_with_fn_that_cannot_be_imported_is_a_usage_error(
        tmp_path: Path) -> None:
    out = _run(["sqlite://", "--max-concurrency", "1", "--fn", "no_such_mod:run"], tmp_path)
    assert out.returncode == 2 and "cannot be imported" in out.stderr


def test_an_error_escaping_the_worker_loop_is_one_line_and_exit_4(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from schedcheck.impl.durable import worker

    def broken(*_: object, **__: object) -> None:
        raise KeyError("a bug in the loop")

    monkeypatch.setattr(worker, "run_worker", broken)
    monkeypatch.setattr(worker.signal, "signal", lambda *_: None)  # leave pytest's handlers
    assert worker.main(["sqlite://", "--max-concurrency", "1"]) == 4
    err = capsys.readouterr().err
    assert "stopped by an unexpected error: KeyError: 'a bug in the loop'" in err
    assert "Traceback" not in err


def test_a_death_is_described_with_its_cause() -> None:
    from schedcheck.impl.durable.supervisor import describe_exit
    assert describe_exit(-9) == "killed by SIGKILL"
    assert describe_exit(4).startswith("exit code 4 (an unexpected error")
    assert describe_exit(7) == "exit code 7 (os._exit or sys.exit outside a task?)"
