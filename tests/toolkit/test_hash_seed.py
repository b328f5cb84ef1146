"""A target that walks a set of string ids behaves as the check saw it when its replay runs:
``schedcheck check`` runs under a fixed str hash seed, and each ``replay.py`` runs itself again
under that seed (with ``python3 -I`` the caller's ``PYTHONHASHSEED`` cannot reach it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from schedcheck.report.replay_check import replay_python
from schedcheck.targets.adapters import SchedulerAdapter, SchedulerCapabilities


class _SetDag:
    """Dependents in sets. Failing a task removes it and everything below it with a stack
    that skips what is already gone when it pushes, not when it pops: through a diamond, the
    far corner is removed twice (KeyError) if the set hands out the near one last."""

    def __init__(self) -> None:
        self.waiting: dict[str, set[str]] = {}
        self.below: dict[str, set[str]] = {}
        self.handed: set[str] = set()

    def add(self, task: str, deps: tuple[str, ...]) -> None:
        self.waiting[task] = set(deps)
        self.below.setdefault(task, set())
        for dep in deps:
            self.below.setdefault(dep, set()).add(task)

    def take(self) -> list[str]:
        out = sorted(t for t, deps in self.waiting.items() if not deps and t not in self.handed)
        self.handed.update(out)
        return out

    def done(self, task: str) -> None:
        del self.waiting[task]
        for child in self.below[task]:
            self.waiting[child].discard(task)

    def failed(self, task: str) -> None:
        stack = [task]
        while stack:
            gone = stack.pop()
            del self.waiting[gone]
            stack.extend(c for c in self.below[gone] if c in self.waiting)


class SetOrderCascade(SchedulerAdapter):
    capabilities = SchedulerCapabilities(
        generations=False, cancel=False, close=False, info=False, validates_args=False,
        unknown_deps=False, detects_cycles=False, claims_only=True)

    def build(self) -> None:
        self.inner = _SetDag()

    def add(self, task_id: str, deps: tuple[str, ...]) -> None:
        self.inner.add(task_id, deps)

    def start_graph(self) -> None:
        pass

    def take(self) -> list[str]:
        return self.inner.take()

    def finish(self, task_id: str) -> None:
        self.inner.done(task_id)

    def fail_task(self, task_id: str) -> None:
        self.inner.failed(task_id)


def test_a_set_order_bug_replays_under_the_checks_hash_seed(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "schedcheck.cli", "check", "scheduler",
                    f"{Path(__file__).relative_to(Path.cwd())}:SetOrderCascade",
                    "--level", "core", "--examples", "150", "--seed", "1", "--no-cost",
                    "--out", str(out)], env=env, capture_output=True, text=True, timeout=300,
                   check=False)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    found = [report["counterexample"], *report["other_counterexamples"]]
    assert report["counterexample"], report["notes"]
    for cx in found:
        assert cx["replay_check"].startswith("verified"), cx["replay_check"]
    for script in out.rglob("replay.py"):
        assert "HASH_SEED = '0'" in script.read_text(encoding="utf-8")
        printed = re.search(r"AssertionError at step (\d+)", script.read_text(encoding="utf-8"))
        assert printed is not None
        for caller_seed in ("1", "2", "random"):
            done = subprocess.run([replay_python(), "-I", script.name], cwd=script.parent,
                                  env={**env, "PYTHONHASHSEED": caller_seed},
                                  capture_output=True, text=True, timeout=120, check=False)
            failed = re.findall(r"^AssertionError: step (\d+) ", done.stderr, re.MULTILINE)
            assert failed == [printed.group(1)], (caller_seed, done.stdout, done.stderr[-800:])
