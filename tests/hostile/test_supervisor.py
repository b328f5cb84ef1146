"""The supervised child on its own: how each way of ending reads, and what it leaves."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from schedcheck.harness import guard, supervisor
from schedcheck.harness.supervisor import run_supervised
from tests.hostile.targets import BEHAVIOURS
from tests.hostile.test_verdicts import children


def _call(kind: str) -> object:
    """A function that calls the misbehaviour as a marked call of the target."""
    def run() -> object:
        return guard.call_limited(BEHAVIOURS[kind])
    return run


def test_a_value_comes_back_and_the_child_is_gone() -> None:
    got = run_supervised(lambda: {"answer": 42}, step_seconds=1.0)
    assert (got.kind, got.value) == ("returned", {"answer": 42})
    assert children() == []


def test_what_the_function_raises_comes_back_as_text() -> None:
    def fails() -> None:
        raise ValueError("no such task")

    got = run_supervised(fails, step_seconds=1.0)
    assert got.kind == "returned" and got.error == "ValueError: no such task"
    assert isinstance(got.value, ValueError)


@pytest.mark.parametrize(("kind", "ends", "code"), [
    ("spin", "hung", 0), ("lock", "hung", 0), ("exit", "exited", 0),
    ("segfault", "signal", int(signal.SIGSEGV))])
def test_a_call_that_does_not_come_back_names_its_method(kind: str, ends: str,
                                                         code: int) -> None:
    before = threading.active_count()
    got = run_supervised(_call(kind), step_seconds=0.5)
    assert (got.kind, got.code) == (ends, code)
    assert got.method == f"_{kind}"
    assert got.misbehaved
    assert children() == [] and threading.active_count() == before


def test_a_hang_is_found_within_the_step_limit_and_a_poll() -> None:
    got = run_supervised(_call("spin"), step_seconds=0.3)
    assert got.kind == "hung"
    assert 0.3 <= got.seconds < 0.3 + 5.0  # the poll, the kill and the fork, on a busy machine


def test_runaway_memory_stops_at_the_limit_and_the_checker_lives() -> None:
    def grows() -> int:
        hog = []
        while True:
            hog.append(bytearray(1 << 20))

    got = run_supervised(grows, step_seconds=30.0, memory_mib=64)
    assert got.kind == "memory"
    assert got.describe(30.0, 64) == "went past the memory limit of 64 MiB"


def test_messages_of_the_example_under_way_reach_the_parent() -> None:
    heard: list[tuple[object, ...]] = []

    def run() -> None:
        supervisor.send("example")
        supervisor.send("step", "target = factory(1)", 0, "target.submit('a')", "submit", None,
                        None)
        guard.call_limited(BEHAVIOURS["spin"])

    got = run_supervised(run, step_seconds=0.3, on_message=heard.append)
    assert got.kind == "hung"
    assert [m[0] for m in got.example] == ["example", "step"]
    assert heard == got.example  # each forwarded as it arrived


def test_a_deadline_stops_a_child_that_is_not_in_a_call() -> None:
    import time

    got = run_supervised(lambda: time.sleep(60), step_seconds=1.0,
                         deadline=lambda: time.monotonic() - 1.0)
    assert got.kind == "overtime"
    assert os.getpid() > 0 and children() == []


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_a_child_dies_with_its_parent() -> None:
    """The parent itself killed (SIGKILL: none of its handlers run) takes the child along:
    a child forks a grandchild supervisor that forks the target, then the middle one is
    killed; the target's process must be gone."""
    import time

    def middle() -> int:
        def target() -> None:
            time.sleep(60)

        pid = os.fork()
        if pid == 0:  # the middle process: supervises a sleeping target, then is killed
            run_supervised(target, step_seconds=60.0)
            os._exit(0)
        children = Path(f"/proc/{pid}/task/{pid}/children")
        grandchildren: list[int] = []
        for _ in range(1000):  # until the middle one has forked its target (bounded: 10 s)
            grandchildren = [int(p) for p in children.read_text().split()]
            if grandchildren:
                break
            time.sleep(0.01)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        for _ in range(1000):  # the parent-death signal is delivered at once; bounded: 10 s
            if not any(_alive(g) for g in grandchildren):
                break
            time.sleep(0.01)
        return sum(_alive(g) for g in grandchildren) + 100 * (not grandchildren)

    got = run_supervised(middle, step_seconds=30.0)
    assert (got.kind, got.value) == ("returned", 0)


def test_a_method_that_misbehaved_before_gets_its_shorter_limit_in_the_next_child() -> None:
    def run() -> None:
        supervisor.shorten({"_spin": 0.2})
        guard.call_limited(BEHAVIOURS["spin"])

    got = run_supervised(run, step_seconds=30.0)
    assert (got.kind, got.method, got.limit) == ("hung", "_spin", 0.2)
    other = run_supervised(_call("spin"), step_seconds=0.3)  # a fresh child: its own limit
    assert (other.kind, other.limit) == ("hung", 0.3)


def test_a_step_set_aside_is_not_made_again_and_the_same_method_still_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis.errors import UnsatisfiedAssumption

    monkeypatch.setattr(guard, "_steps_aside", {})
    asked: list[str] = []

    def described(text: str) -> object:
        return lambda: asked.append(text) or text

    guard.step_aside("_submit", described("_submit('a', ('a',), None)"))
    assert asked == []  # nothing set aside: no step is even described
    guard.set_aside((), steps=[("_submit", "_submit('a', ('a',), None)")])
    with pytest.raises(UnsatisfiedAssumption, match="not made again"):
        guard.step_aside("_submit", described("_submit('a', ('a',), None)"))
    guard.step_aside("_submit", described("_submit('b', ('a',), None)"))  # other arguments
    guard.step_aside("_ready", described("_ready('w1', None)"))  # another step: not described
    assert asked == ["_submit('a', ('a',), None)", "_submit('b', ('a',), None)"]
