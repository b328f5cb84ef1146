"""Writing the ``--out`` folder of one ``schedcheck check`` run.

Always: ``report.json`` (``RunResult.to_json()`` plus the command, the files written and the
thread schedule), ``card.txt`` (the plain report card) and ``index.html`` (the card, then each
counterexample's steps, replay verdict and pictures: one page to open). On a counterexample also:
``steps.txt`` (plain words, model vs implementation side by side), ``replay.py`` (standalone),
and the pictures (``*.dot`` always, ``*.svg``/``*.png`` when ``dot`` exists). A graded check
that broke clauses (keep going: ``RunResult.counterexamples``) also writes one subfolder per
broken clause, named by its id (``W-INV-EARLY/``), with that clause's own ``steps.txt``,
``replay.py`` and pictures; the top-level files are the first counterexample's. A broken
cost clause gets its folder too (``schedcheck.report.cost``: the two runs' figures and
``measure.py``).

The default folder is fresh and named after the system and the time
(``schedcheck-out-scheduler-20260101-120000``, ``-2``, ``-3`` ... if taken), so a run never
overwrites an earlier one; an explicit ``--out`` is created if missing and its files replaced.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedcheck.harness import guard
from schedcheck.harness.result import Counterexample, RunResult
from schedcheck.report.card import card_data, card_text
from schedcheck.report.cost import write_cost
from schedcheck.report.page import check_html
from schedcheck.report.render import write_pictures
from schedcheck.report.replay import replay_script
from schedcheck.report.replay_check import ReplayCheck, check_replay
from schedcheck.report.steps import steps_text

__all__ = ["Written", "fresh_out_dir", "report_json", "write_run"]


@dataclass
class Written:
    out: Path
    files: list[Path] = field(default_factory=list)
    pictures: list[Path] = field(default_factory=list)
    #: each broken clause's own pictures (keep-going runs), by clause id
    pictures_of: dict[str, list[Path]] = field(default_factory=dict)

    def rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.out))
        except ValueError:
            return str(path)


def fresh_out_dir(system: str, base: Path | None = None) -> Path:
    base = base or Path.cwd()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = base / f"schedcheck-out-{system}-{stamp}"
    n = 2
    while candidate.exists():
        candidate = base / f"schedcheck-out-{system}-{stamp}-{n}"
        n += 1
    return candidate


def check_command(result: RunResult, target_spec: str) -> str:
    cmd = f"schedcheck check {result.system} {target_spec}"
    if result.seed is not None:
        cmd += f" --seed {result.seed}"
    if len(result.levels) == 1:
        cmd += f" --level {result.levels[0].level}"
    return cmd


def report_json(result: RunResult, *, command: str = "", files: list[str] | None = None,
                extra: dict[str, Any] | None = None) -> dict[str, Any]:
    data = result.to_json()
    # the verdicts as the card shows them, section by section (card.txt, index.html)
    data["card"] = card_data(result)
    data["command"] = command
    data["files"] = files or []
    cx = result.counterexample
    data["schedule"] = cx.schedule if cx else None
    if extra:
        data.update(extra)
    return data


def _write_counterexample(cx: Counterexample, folder: Path, written: Written, *,
                          target_spec: str, cwd: str, command: str,
                          with_pictures: bool) -> list[Path]:
    """``steps.txt``, ``replay.py`` and the pictures of ``cx`` in ``folder``; the pictures."""
    pictures = write_pictures(cx, folder) if with_pictures else []
    replay = folder / "replay.py"
    written.files += _write_replay(cx, replay, target_spec=target_spec, cwd=cwd,
                                   command=command)
    steps = folder / "steps.txt"
    steps.write_text(
        steps_text(cx, target=target_spec, command=command,
                   pictures=[written.rel(p) for p in pictures if p.suffix in (".svg", ".dot")]),
        encoding="utf-8",
    )
    written.files.append(steps)
    return pictures


#: replays already run, by their text (the first counterexample is written twice)
_checked: dict[str, ReplayCheck] = {}


def _write_replay(cx: Counterexample, replay: Path, *, target_spec: str, cwd: str,
                  command: str) -> list[Path]:
    """``replay.py``, run before it is shown (``replay_check``): its verdict goes on ``cx``.
    A reduced replay that does not verify gets the unreduced run beside it
    (``replay-unreduced.py``), checked the same way."""
    replay.write_text(replay_script(cx, target_spec, cwd, command=command), encoding="utf-8")
    files = [replay]
    diverging = cx.divergence
    text = replay.read_text(encoding="utf-8")
    verdict = _checked.get(text) or check_replay(
        replay, diverging.index if diverging else None,
        step_seconds=cx.step_seconds or guard.step_seconds(), steps=len(cx.steps))
    _checked[text] = verdict
    cx.replay_check = verdict.text
    if not verdict.verified and cx.unreduced is not None:
        full = cx.unreduced
        other = replay.with_name("replay-unreduced.py")
        other.write_text(replay_script(full, target_spec, cwd, filename=other.name,
                                       command=command), encoding="utf-8")
        files.append(other)
        at = full.divergence
        second = check_replay(other, at.index if at else None,
                              step_seconds=full.step_seconds or guard.step_seconds(),
                              steps=len(full.steps))
        cx.replay_check += (f"; the unreduced run ({len(full.steps)} steps) is in "
                            f"{other.name}, whose replay is {second.text}")
    return files


def write_run(result: RunResult, out: Path, *, target_spec: str, cwd: str,
              command: str | None = None, with_pictures: bool = True) -> Written:
    out.mkdir(parents=True, exist_ok=True)
    written = Written(out)
    command = command or check_command(result, target_spec)
    cx = result.counterexample
    if cx is not None:
        written.pictures = _write_counterexample(cx, out, written, target_spec=target_spec,
                                                 cwd=cwd, command=command,
                                                 with_pictures=with_pictures)
    written.files += written.pictures
    if result.counterexamples:
        for each in result.all_counterexamples():
            folder = out / (each.folder or each.clause)  # S5-2: a second kind of mistake
            folder.mkdir(exist_ok=True)
            pictures = _write_counterexample(each, folder, written, target_spec=target_spec,
                                             cwd=cwd, command=command,
                                             with_pictures=with_pictures)
            written.pictures_of[each.folder or each.clause] = pictures
            written.files += pictures
    cost_files = write_cost(result, out, target_spec=target_spec, cwd=cwd, command=command)
    written.files += cost_files
    # the card last: it shows what running each replay showed
    card = out / "card.txt"
    card.write_text(card_text(result) + "\n", encoding="utf-8")
    written.files.insert(0, card)
    page = out / "index.html"
    folders = {c.folder or c.clause: c.folder or c.clause for c in result.counterexamples}
    pictures_of = dict(written.pictures_of)
    if cx is not None and cx.clause not in folders:
        folders[cx.clause] = "."
        pictures_of[cx.clause] = written.pictures
    page.write_text(check_html(result, target_spec, pictures_of, folders,
                               cost=[written.rel(f) for f in cost_files]), encoding="utf-8")
    written.files.insert(1, page)
    report = out / "report.json"
    data = report_json(result, command=command,
                       files=[written.rel(p) for p in [*written.files, report]])
    report.write_text(json.dumps(data, indent=2, default=repr) + "\n", encoding="utf-8")
    written.files.append(report)
    return written
