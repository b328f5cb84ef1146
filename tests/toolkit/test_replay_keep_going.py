"""The replay of a counterexample found while other clauses were set aside (keep going), and
of a divergence in an error's fields, fails at the step the card prints.

Each target is the reference model with one or two mistakes, written here; each program is
run as the suite runs it (``minimize.replay``) and its ``replay.py`` by a plain ``python3
-I`` from the folder it was written to."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any

from schedcheck.model import Scheduler as ModelScheduler

from schedcheck import contract
from schedcheck.harness import minimize
from schedcheck.harness.program import Op
from schedcheck.harness.result import Counterexample, RunResult
from schedcheck.report.replay import replay_script
from schedcheck.report.replay_check import replay_python
from schedcheck.systems import get


class GenerationBlindFail(ModelScheduler):
    """fail() never compares the generation: a late worker of an old attempt fails the
    current one."""

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> contract.Reply:
        return super().fail(task_id, self.info(task_id).generation, error)


class AlsoDuplicateApplied(GenerationBlindFail):
    """... and a second complete() of a finished run says APPLIED."""

    def complete(self, task_id: Hashable, generation: int) -> contract.Reply:
        reply = super().complete(task_id, generation)
        if reply.outcome is contract.Outcome.DUPLICATE:
            return contract.Reply(contract.Outcome.APPLIED, reply.state)
        return reply


class FirstMissingOnly(ModelScheduler):
    """After start(), an unknown dependency error names only the first missing id."""

    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (), fn: Any = None,
               **kw: Any) -> int:
        try:
            return super().submit(task_id, deps, fn, **kw)
        except contract.UnknownDependencyError as exc:
            raise contract.UnknownDependencyError(exc.task_id, list(exc.missing)[:1]) from None


def _report(kind: str, tid: str, gen: int) -> Op:
    return Op("_callback", (kind, tid, gen),
              {"thread": "w1", "error": None, "late": False,
               "words": f"worker 1: {kind} {tid!r} generation {gen}"})


def _submit(tid: str, *deps: str) -> Op:
    return Op("_submit", (tid, deps, None), {})


def _run(target: type, ops: list[Op], aside: frozenset[str] = frozenset()
         ) -> Counterexample | None:
    machine = get("scheduler").make_machine(
        target, result=RunResult.fresh("scheduler", target.__name__))
    machine.set_aside = aside  # as a keep-going run sets it
    cx, _ = minimize._in_test_context(lambda: minimize.replay(machine, ops))
    return cx


def _replays_at_its_step(cx: Counterexample, target: type, tmp_path: Path) -> None:
    at = cx.divergence
    assert at is not None
    script = tmp_path / "replay.py"
    script.write_text(replay_script(cx, f"{__name__}:{target.__name__}", str(Path.cwd())),
                      encoding="utf-8")
    done = subprocess.run([replay_python(), "-I", script.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    failed = re.findall(r"^AssertionError: step (-?\d+) ", done.stderr, re.MULTILINE)
    assert failed == [str(at.index)], (at.index, done.stdout, done.stderr[-2000:])
    # and on a correct implementation (the reference model), the same steps pass
    fixed = subprocess.run([replay_python(), "-I", script.name, "--target", CORRECT],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           check=False)
    assert fixed.returncode == 0 and "did not reproduce" in fixed.stdout, fixed.stderr[-2000:]


#: a correct scheduler, for ``replay.py --target``
CORRECT = "schedcheck.model:Scheduler"


STALE_FAIL = [Op("_build", (2,), {}), _submit("a"), _submit("c"), Op("start", (), {}),
              Op("_ready", ("w1", None), {}), _report("fail", "a", 0)]


def test_a_step_that_differed_on_a_set_aside_clause_is_not_compared_in_the_replay(
        tmp_path: Path) -> None:
    first = _run(AlsoDuplicateApplied, STALE_FAIL)
    assert first is not None and first.divergence is not None
    assert first.divergence.index == len(first.steps) - 1  # the late fail() itself
    # keep going: that clause set aside, the duplicate complete() breaks another, later
    ops = [*STALE_FAIL, _report("complete", "c", 1), _report("complete", "c", 1)]
    later = _run(AlsoDuplicateApplied, ops, frozenset({first.clause}))
    assert later is not None and later.clause != first.clause
    assert later.divergence is not None and later.divergence.index > first.divergence.index
    assert any(st.aside == first.clause for st in later.steps), later.steps
    _replays_at_its_step(later, AlsoDuplicateApplied, tmp_path)


def test_steps_after_a_set_aside_step_compare_nothing_so_a_correct_target_passes(
        tmp_path: Path) -> None:
    """After the stale fail() is set aside, the model follows the target: 'a' FAILED, so its
    resubmit starts generation 2 there, where a correct scheduler (still running 'a') refuses
    it. The replay compares nothing after the set-aside step but the diverging step's own
    breach, so it still fails on the target and passes on a correct one."""
    first = _run(AlsoDuplicateApplied, STALE_FAIL)
    assert first is not None
    ops = [*STALE_FAIL, _submit("a"), _report("complete", "c", 1), _report("complete", "c", 1)]
    later = _run(AlsoDuplicateApplied, ops, frozenset({first.clause}))
    assert later is not None and later.clause != first.clause
    resubmit = next(st for st in later.steps if "submit 'a'" in st.words and st.index > 3)
    assert resubmit.check, "the resubmit was compared with the model in the run"
    _replays_at_its_step(later, AlsoDuplicateApplied, tmp_path)


def test_a_root_seen_to_fail_through_the_targets_state_is_known_to_have_ended() -> None:
    first = _run(GenerationBlindFail, [*STALE_FAIL[:2], _submit("b", "a"), *STALE_FAIL[3:]])
    assert first is not None
    # 'b' is BLOCKED by 'a' g1, which failed (the target's state, adopted); resubmitting 'a'
    # leaves 'b' BLOCKED by a generation that did end: no invariant is broken
    ops = [*STALE_FAIL[:2], _submit("b", "a"), *STALE_FAIL[3:], _submit("a"),
           Op("_ready", ("w1", None), {})]
    assert _run(GenerationBlindFail, ops, frozenset({first.clause})) is None


def test_an_error_with_other_fields_replays_as_that_error(tmp_path: Path) -> None:
    ops = [Op("_build", (1,), {}), Op("start", (), {}), _submit("a", "b", "c")]
    cx = _run(FirstMissingOnly, ops)
    assert cx is not None and cx.divergence is not None
    assert "missing=['b']" in cx.divergence.actual, cx.divergence
    _replays_at_its_step(cx, FirstMissingOnly, tmp_path)


def test_a_race_replay_of_a_target_without_schedcheck_finds_the_controller(
        tmp_path: Path) -> None:
    """A race's replay drives the recorded schedule with schedcheck's controller: it must be
    importable under ``python3 -I`` even when the target is a file outside any checkout of
    schedcheck that imports only the standard library (loading it never needed the check's
    folders)."""
    from schedcheck.harness.result import Step

    (tmp_path / "answer.py").write_text("class Scheduler:\n    pass\n", encoding="utf-8")
    step = Step(0, "controller = run_case.__module__", "replay the round under the same "
                "schedule", expected="'linearizable'", actual="'schedcheck.concurrency.cases'",
                diverged=True, clause="S-LIN",
                observed="_raised is None and controller == 'schedcheck.concurrency.cases'")
    cx = Counterexample(system="scheduler", clause="S-LIN", message="not linearizable",
                        steps=[step],
                        setup="from schedcheck.concurrency.hunt import Case, run_case  # factory")
    script = tmp_path / "replay.py"
    script.write_text(replay_script(cx, f"{tmp_path / 'answer.py'}:Scheduler", str(tmp_path)),
                      encoding="utf-8")
    done = subprocess.run([replay_python(), "-I", script.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert re.findall(r"^AssertionError: step (-?\d+) ", done.stderr, re.MULTILINE) == ["0"], (
        done.stderr[-1500:])
