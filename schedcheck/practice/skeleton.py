"""``schedcheck practice scheduler|wheel DIR``: a skeleton to fill in, its tests, a guide.

Five files are written (an existing file is never overwritten):

* ``scheduler.py`` / ``wheel.py`` -- the class with the contract's interface, a docstring per
  method saying what it must do, and ``NotImplementedError`` bodies;
* ``test_scheduler.py`` / ``test_wheel.py`` -- one pytest test per graded item;
* ``QUESTION.md`` -- the interview text in English, and ``QUESTION.id.txt`` -- the Indonesian
  original it was translated from;
* ``GUIDE.md`` -- how to work through it, item by item. Every path it names is either in the
  folder itself or absolute (the installed rules), so it reads the same wherever the folder is.
"""

from __future__ import annotations

from pathlib import Path

from schedcheck import systems
from schedcheck.practice.interview import interview_text, rules_path, seed_map_path

__all__ = ["write_practice"]

_SCHEDULER = '''"""Your dependency-aware task scheduler. Fill in every method; run `pytest` here, or
`schedcheck grade scheduler.py:Scheduler` for the card. The question: QUESTION.md; the steps:
GUIDE.md (both beside this file)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

from schedcheck.contract import (  # noqa: F401 -- the vocabulary you will need
    Cause,
    Claim,
    ClosedError,
    ConflictError,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    TaskInfo,
    TaskState,
    UnknownDependencyError,
    UnknownTaskError,
)


class Scheduler:
    def __init__(self, max_concurrency: int) -> None:
        """At most max_concurrency tasks RUNNING at once (an int >= 0)."""
        raise NotImplementedError

    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (),
               fn: Callable[..., Any] | None = None) -> int:
        """A task (or a new generation of one) that needs every dep to SUCCEED first.
        Returns its generation: 1, then +1 per resubmit. Resubmitting a RUNNING task raises
        ConflictError. A dead dependency (FAILED/BLOCKED/CANCELLED) makes it BLOCKED."""
        raise NotImplementedError

    def start(self) -> None:
        """Validate the graph before anything runs: UnknownDependencyError for a dep never
        submitted, CycleError(cycle=[a, ..., a]) for a cycle. Changes nothing if it raises."""
        raise NotImplementedError

    def ready(self, limit: int | None = None) -> list[Claim]:
        """Claim READY tasks in submission order, at most max_concurrency - running (and at
        most limit); each becomes RUNNING at once. NotStartedError before start()."""
        raise NotImplementedError

    def complete(self, task_id: Hashable, generation: int) -> Reply:
        """RUNNING -> SUCCEEDED (APPLIED); each PENDING dependent loses one outstanding dep.
        An old generation is STALE, a repeat DUPLICATE, anything else REJECTED."""
        raise NotImplementedError

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> Reply:
        """RUNNING -> FAILED (CANCELLED if a cancel was requested); every PENDING/READY task
        downstream becomes BLOCKED with cause ("failed", task_id, generation)."""
        raise NotImplementedError

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        """PENDING/READY -> CANCELLED (dependents BLOCKED); RUNNING -> only REQUESTED: the
        function decides (complete() still wins, fail() confirms the cancel)."""
        raise NotImplementedError

    def cancel_requested(self, task_id: Hashable, generation: int) -> bool:
        """What a running function polls: True iff generation is the current one and a
        cancel was answered REQUESTED while it ran (it stays True after it ends).
        UnknownTaskError for an id never submitted; TypeError for a bool generation."""
        raise NotImplementedError

    def close(self) -> list[Any]:
        """Refuse new submits (ClosedError), stop claiming, cancel PENDING/READY tasks with
        cause ("shutdown", ...); return their ids in submission order."""
        raise NotImplementedError

    def info(self, task_id: Hashable) -> TaskInfo:
        """TaskInfo(task_id, generation, state, cause) of the current generation;
        UnknownTaskError for an id never submitted."""
        raise NotImplementedError
'''

_WHEEL = '''"""Your hashed timing wheel. Fill in every method; run `pytest` here, or
`schedcheck grade wheel.py:TimingWheel` for the card. The question: QUESTION.md; the steps:
GUIDE.md (both beside this file)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck.contract import WheelFullError  # noqa: F401 -- for max_pending


class TimingWheel:
    def __init__(self, tick: int, wheel_size: int, *, start: int = 0,
                 max_catchup_ticks: int | None = None, max_pending: int | None = None,
                 executor: Any = None) -> None:
        """wheel_size buckets of tick time units; the cursor starts at start // tick.
        With an executor, fired callbacks go to executor.submit(fn), never run inline."""
        raise NotImplementedError

    def schedule(self, deadline: int, callback: Callable[[], Any]) -> Any:
        """A timer due at the first tick at or after deadline (the cursor if that tick has
        passed); returns a handle. Never fires before deadline. The handle has .deadline,
        .callback and the bools .fired (an advance returned it) and .cancelled (a cancel
        returned True), which are never both True. With max_pending, raise
        WheelFullError(pending, max_pending) when pending() >= max_pending."""
        raise NotImplementedError

    def schedule_after(self, delay: int, callback: Callable[[], Any]) -> Any:
        """schedule(last now + delay, callback): the wheel's own clock, never time.time()."""
        raise NotImplementedError

    def cancel(self, handle: Any) -> bool:
        """True iff this stopped a live timer (it will never fire); False after it fired,
        after a first cancel, or for another wheel's handle; TypeError for a non-handle."""
        raise NotImplementedError

    def advance(self, now: int) -> list[Any]:
        """Process every tick from the cursor to now // tick (at most max_catchup_ticks per
        call when set); return the fired handles by due tick, then schedule order.
        ValueError for a now below the last one."""
        raise NotImplementedError

    def pending(self) -> int:
        """Timers neither fired nor cancelled."""
        raise NotImplementedError
'''

_TEST = '''"""One test per graded item of the interview ({system}). `pytest -q` here; a failure
prints the item's hint and the shortest program that shows the mistake. An item whose
program meets another item's mistake first is skipped as "blocked by" that item."""

from __future__ import annotations

from functools import cache

import pytest

from schedcheck.practice.grading import BLOCKED, FAIL, NOT_IMPLEMENTED, Card, render_card
from schedcheck.practice.items import grade, items_for
from {module} import {cls}

GRADED = [it for it in items_for("{system}") if it.check is not None and not it.cost]


@cache
def _card() -> Card:
    return grade("{system}", {cls}, cost=False, name="{cls}")


@pytest.mark.parametrize("item", GRADED, ids=lambda it: it.id)
def test_item(item: object) -> None:
    card = _card()
    result = next(r for r in card.results if r.item is item)
    if result.status == BLOCKED:
        pytest.skip(result.note)
    shown = Card(card.system, card.target, [result])
    assert result.status not in (FAIL, NOT_IMPLEMENTED), render_card(shown)
'''

_GUIDE = '''# Practising the {system} question

1. Read the question: `QUESTION.md` in this folder (the interview text in English;
   `QUESTION.id.txt` is the Indonesian original it was translated from). The rules this
   project settled on where the text leaves a choice: {rules}. Every sentence of the text,
   numbered, with what verifies it: {seed_map}.
2. Fill in `{module}.py`, one method at a time. Each docstring says what the method must do.
3. Run `pytest -q` in this folder: one test per item of the text (`{prefix}-T*` what the
   interviewer tests, `{prefix}-M*` the common mistakes, `{prefix}-F*` follow-ups,
   `{prefix}-polish-*` argument hygiene). A failing item prints its hint and the shortest
   program that shows it.
4. For the whole card, with the text's headings: `schedcheck grade {module}.py:{cls}` (run in
   this folder). Written in the text's own names instead (e.g. `schedule(task, deadline)`)?
   Add `--seed-shaped`. Items marked `talk` are discussion points with no code to run; `--`
   are optional parts your class does not have (or differences the text allows); `todo` need
   a method that still raises NotImplementedError; `blkd` met another item's mistake first
   (fix that one: it is shown under its own item).
5. When every item holds, run the full differential suite (in this folder):
   `schedcheck check {system} {module}.py:{cls}`.
'''


#: The skeleton answer of each system (``schedcheck.systems`` names them).
_SKELETONS = {"scheduler": _SCHEDULER, "wheel": _WHEEL}


def _where(path: Path | None, otherwise: str) -> str:
    """An absolute path in backquotes, or the package resource's name when not on disk."""
    return f"`{path}`" if path is not None else otherwise


def write_practice(system: str, folder: str | Path) -> list[Path]:
    """Write the five files for ``system`` into ``folder`` (created if missing); returns
    their paths. Raises ``FileExistsError`` naming a file that is already there."""
    entry = systems.get(system)  # ValueError naming the systems for an unknown one
    out = Path(folder)
    module, cls, prefix = entry.name, entry.answer_class, entry.short
    files = {
        out / f"{module}.py": _SKELETONS[entry.name],
        out / f"test_{module}.py": _TEST.format(system=system, module=module, cls=cls),
        out / "QUESTION.md": interview_text(entry.name, "en"),
        out / "QUESTION.id.txt": interview_text(entry.name, "id"),
        out / "GUIDE.md": _GUIDE.format(system=system, module=module, cls=cls, prefix=prefix,
                                        rules=_where(rules_path(entry.name),
                                                     f"`{entry.name}.md` of schedcheck.specs"),
                                        seed_map=_where(seed_map_path(),
                                                        "`seed-map.md` of schedcheck.specs")),
    }
    for path in files:
        if path.exists():
            raise FileExistsError(f"{path} already exists; choose an empty folder or remove it")
    out.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)
