"""schedcheck practice / grade: a known-good answer turns every item green, the interview
texts' own answers get exactly the items they miss, each catalogued mistake fails the item
of the text it comes from, and the commands write, grade and exit as documented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from schedcheck import impl
from schedcheck.cli import main
from schedcheck.practice.grading import (
    BLOCKED,
    FAIL,
    NOT_ATTEMPTED,
    NOT_IMPLEMENTED,
    PASS,
    TALK,
    render_card,
)
from schedcheck.practice.items import grade, items_for
from schedcheck.practice.seed_answers import SeedScheduler, SeedWheel
from schedcheck.practice.seed_map import load_seed_map
from schedcheck.practice.skeleton import write_practice
from schedcheck.zoo.catalogue import get

ROOT = Path(__file__).resolve().parents[2]


class SeedShapedImplWheel:
    """The bundled wheel behind the interview text's names: schedule(task, deadline)."""

    def __init__(self, tick_duration: int, wheel_size: int, executor: Any = None,
                 max_catchup_ticks: int | None = None) -> None:
        self._w = impl.HashedTimingWheel(tick_duration, wheel_size, executor=executor,
                                         max_catchup_ticks=max_catchup_ticks)

    def schedule(self, task: Any, deadline: int) -> Any:
        return self._w.schedule(deadline, task)

    def schedule_after(self, delay: int, task: Any) -> Any:
        return self._w.schedule_after(delay, task)

    def cancel(self, handle: Any) -> bool:
        return self._w.cancel(handle)

    def advance(self, now: int) -> list[Any]:
        return self._w.advance(now)


@pytest.mark.parametrize(("system", "cls", "seed_shaped"), [
    ("scheduler", impl.Scheduler, False),
    ("wheel", impl.HashedTimingWheel, False),
    ("wheel", impl.HierarchicalTimingWheel, False),
    ("wheel", SeedShapedImplWheel, True),
])
def test_a_known_good_answer_holds_every_graded_item(system: str, cls: Any,
                                                     seed_shaped: bool) -> None:
    card = grade(system, cls, seed_shaped=seed_shaped, cost=False)
    graded = [r for r in card.results if r.item.check is not None and not r.item.cost]
    assert graded and all(r.status == PASS for r in graded), render_card(card)


def test_the_wheel_texts_pseudocode_misses_the_due_tick_refusals_cancels_answer_and_polish(
        ) -> None:
    card = grade("wheel", SeedWheel, seed_shaped=True, cost=False)
    # W-M7: its advance() submits unguarded, so a refused submission escapes advance()
    assert card.failed == ["W-T1", "W-M7", "W-F3", "W-polish-1", "W-polish-2", "W-polish-3",
                           "W-polish-4", "W-polish-5"], render_card(card)
    text = render_card(card)
    # the first thing a learner reads is an interview point, with its hint and program
    assert "W-T1" in text.split("W-polish-1")[0]
    assert "the text's formula" in text
    # its program reduced by the suites' delta debugging: the constructor, one timer, the
    # advance that shows it late (the item's own program has over a dozen steps)
    t1 = next(r for r in card.results if r.item.id == "W-T1").miss
    assert t1 is not None and len(t1.steps) <= 4, t1
    assert t1.steps[0].startswith("w = YourWheel(") and t1.steps[-1].endswith("# <- here"), t1


def test_the_scheduler_texts_answer_misses_only_argument_hygiene() -> None:
    card = grade("scheduler", SeedScheduler, seed_shaped=True, cost=False)
    assert card.failed == ["S-polish-1", "S-polish-3", "S-polish-4", "S-polish-5"], \
        render_card(card)
    # its ready() takes no limit, as in the text: a limit is given by lowering its
    # max_concurrency for one call, and a negative limit cannot be given at all
    statuses = {r.item.id: r.status for r in card.results}
    assert statuses["S-M7"] == PASS and statuses["S-polish-2"] == NOT_ATTEMPTED


@pytest.mark.parametrize(("mutant", "item"), [
    ("sched-no-generation-check", "S-M4"), ("sched-failure-as-success", "S-M5"),
    ("sched-boolean-cycle", "S-M3"), ("sched-forced-cancel", "S-M6"),
    ("sched-limit-skips-max-concurrency", "S-M7"), ("sched-one-shot-toposort", "S-M1"),
    ("sched-retry-reuses-failed", "S-M8"), ("sched-double-release", "S-T3"),
    ("sched-stale-edges-on-resubmit", "S-T5"), ("sched-blocked-cause-overwritten", "S-T4"),
    ("wheel-wall-clock", "W-M1"), ("wheel-forgotten-rounds", "W-M2"),
    ("wheel-fires-not-yet-due", "W-M3"), ("wheel-drops-not-yet-due", "W-M3"),
    ("wheel-inline-callbacks", "W-M5"), ("wheel-missed-ticks-ignored", "W-M7"),
])
def test_a_catalogued_mistake_fails_the_item_it_comes_from(mutant: str, item: str) -> None:
    m = get(mutant)
    card = grade(m.system, m.factory, cost=False)
    assert item in card.failed, render_card(card)
    result = next(r for r in card.results if r.item.id == item)
    assert result.miss is not None and result.miss.steps[-1].endswith("# <- here")
    assert len(result.miss.steps) <= 12  # shrunk: the constructor and the essential calls


def test_graded_items_are_the_texts_items_of_three_sections() -> None:
    seed = {it.id: it for it in load_seed_map()}
    for system, prefix in (("scheduler", "S"), ("wheel", "W")):
        items = items_for(system)
        ids = [it.id for it in items]
        assert len(ids) == len(set(ids))
        for it in items:
            if it.section == "polish":
                assert it.id.startswith(f"{prefix}-polish-")
            else:
                assert seed[it.id].section.id == f"{prefix}-{it.section}"
        wanted = {i for i, s in seed.items()
                  if s.section.id in (f"{prefix}-T", f"{prefix}-M", f"{prefix}-F")}
        assert wanted == {i for i in ids if "polish" not in i}


def test_the_card_shows_the_texts_headings_and_a_talk_item_its_words() -> None:
    card = grade("scheduler", impl.Scheduler, cost=False)
    text = render_card(card)
    for heading in ("What the interviewer tests (Hal yang diuji oleh pewawancara)",
                    "Common mistakes (Kesalahan umum)",
                    "Follow-up questions (Pertanyaan lanjutan)"):
        assert heading in text
    talk = next(r for r in card.results if r.item.id == "S-F1")
    assert talk.status == TALK
    assert "«Graphs too large for memory: persist task metadata and edges" in text


@pytest.mark.parametrize("system", ["scheduler", "wheel"])
def test_the_untouched_skeleton_fails_every_item_without_crashing(
        system: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["practice", system, str(tmp_path / "p")]) == 0
    module, cls = ("scheduler", "Scheduler") if system == "scheduler" else ("wheel", "TimingWheel")
    assert main(["grade", f"{tmp_path}/p/{module}.py:{cls}", "--no-cost"]) == 1
    out = capsys.readouterr().out
    assert "NotImplementedError" in out and " 0 held" in out.replace("\n0 held", " 0 held")
    assert "Traceback" not in out and "[FAIL]" not in out  # a card of items to do
    todo = [line for line in out.splitlines() if line.lstrip().startswith("[todo]")]
    runnable = [it for it in items_for(system) if it.check is not None and not it.cost]
    assert len(todo) == len(runnable)
    assert main(["practice", system, str(tmp_path / "p")]) == 2  # never overwrites


class _HalfWheel:
    """A half-filled skeleton: everything but cancel() works."""

    def __init__(self, tick: int, wheel_size: int, **options: Any) -> None:
        self._w = impl.HashedTimingWheel(tick, wheel_size, **options)

    def schedule(self, deadline: int, callback: Any) -> Any:
        return self._w.schedule(deadline, callback)

    def schedule_after(self, delay: int, callback: Any) -> Any:
        return self._w.schedule_after(delay, callback)

    def cancel(self, handle: Any) -> bool:
        raise NotImplementedError

    def advance(self, now: int) -> list[Any]:
        return self._w.advance(now)


def test_a_half_filled_answer_gets_its_unfilled_items_marked_and_the_rest_graded() -> None:
    card = grade("wheel", _HalfWheel, cost=False)
    statuses = {r.item.id: r.status for r in card.results}
    for item in ("W-T3", "W-M4", "W-F3", "W-polish-1", "W-polish-2"):  # they need cancel()
        assert statuses[item] == NOT_IMPLEMENTED, render_card(card)
    for item in ("W-T1", "W-T2", "W-M2", "W-M3", "W-M5", "W-M7", "W-F4"):
        assert statuses[item] == PASS, render_card(card)
    assert not card.failed


class _CrashingWheel(_HalfWheel):
    """advance() answers something that is not a list of handles."""

    def cancel(self, handle: Any) -> bool:
        return self._w.cancel(handle)

    def advance(self, now: int) -> Any:
        self._w.advance(now)
        return 42


def test_an_item_the_class_crashes_is_failed_with_what_it_raised() -> None:
    card = grade("wheel", _CrashingWheel, cost=False)
    assert card.failed, render_card(card)
    text = render_card(card)
    assert "TypeError" in text and "Traceback" not in text


def test_a_skeleton_filled_with_a_good_answer_passes_its_own_pytest_file(tmp_path: Path) -> None:
    write_practice("wheel", tmp_path)
    (tmp_path / "wheel.py").write_text(
        "from schedcheck.impl import HashedTimingWheel as TimingWheel  # noqa: F401\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path / "test_wheel.py")], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    graded = [it for it in items_for("wheel") if it.check is not None and not it.cost]
    assert f"{len(graded)} passed" in done.stdout


def test_grade_exits_0_for_a_good_answer_and_2_for_an_unusable_target(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "schedcheck.impl:Scheduler", "--no-cost"]) == 0
    assert "0 failed" in capsys.readouterr().out
    assert main(["grade", "schedcheck.impl:NoSuchThing"]) == 2
    assert "accepted forms" in capsys.readouterr().err
    assert main(["grade", "schedcheck.contract:require_int"]) == 2
    assert "--system" in capsys.readouterr().err


def test_a_failed_item_on_the_card_is_graded_independently_of_the_others() -> None:
    card = grade("wheel", get("wheel-inline-callbacks").factory, cost=False)
    statuses = {r.item.id: r.status for r in card.results}
    # shown once, under the item that owns it; the other executor item is blocked by it
    assert statuses["W-M5"] == FAIL and statuses["W-T4"] == BLOCKED
    assert "blocked by W-M5" in next(r.note for r in card.results if r.item.id == "W-T4")
    assert statuses["W-M2"] == PASS and statuses["W-F4"] == PASS


def test_a_skeleton_graded_then_filled_in_is_graded_afresh(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a learner does in one session (a notebook, a REPL): grade, fill in, grade again."""
    write_practice("wheel", tmp_path)
    target = f"{tmp_path}/wheel.py:TimingWheel"
    assert main(["grade", target, "--no-cost"]) == 1
    (tmp_path / "wheel.py").write_text(
        "from schedcheck.impl import HashedTimingWheel as TimingWheel  # noqa: F401\n")
    capsys.readouterr()
    assert main(["grade", target, "--no-cost"]) == 0
    assert " 0 failed" in capsys.readouterr().out.replace("\n0 failed", " 0 failed")


@pytest.mark.parametrize("system", ["scheduler", "wheel"])
def test_the_skeleton_has_every_method_check_calls(system: str, tmp_path: Path) -> None:
    import ast

    from schedcheck import systems

    write_practice(system, tmp_path)
    module = systems.get(system).answer_target.split(":")[0]
    tree = ast.parse((tmp_path / module).read_text())
    methods = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert set(systems.get(system).operations) <= methods


def test_grade_names_the_seed_shaped_mode_for_an_answer_in_the_texts_names(
        capsys: pytest.CaptureFixture[str]) -> None:
    target = "schedcheck.practice.seed_answers:SeedWheel"
    main(["grade", target, "--no-cost"])
    assert "grade it with --seed-shaped" in capsys.readouterr().out
    assert main(["grade", target, "--no-cost", "--seed-shaped"]) == 1
    out = capsys.readouterr().out
    assert "--seed-shaped" not in out and "Traceback" not in out


def test_parts_a_class_declares_it_lacks_leave_their_items_not_attempted() -> None:
    from schedcheck.targets.adapters import WheelCapabilities

    class NoChecks(impl.HashedTimingWheel):
        capabilities = WheelCapabilities(validates_args=False, cancel="none")

    card = grade("wheel", NoChecks, cost=False)
    statuses = {r.item.id: r.status for r in card.results}
    for item in ("W-polish-1", "W-polish-3", "W-polish-4", "W-F3", "W-polish-2"):
        assert statuses[item] == NOT_ATTEMPTED, render_card(card)
    assert statuses["W-T1"] == statuses["W-M2"] == PASS
    assert "declares it lacks argument checks" in render_card(card)
