"""``schedcheck verify``: everything on the bundled implementations, and the report folder.

In order (parts the caller skips are listed as skipped, never as passed):

1. for every bundled target of every system (``System.bundled`` in ``schedcheck.systems``),
   the check pipeline (``schedcheck.pipeline.check``): the differential suite, the scaling
   clause (``*-COST``) and, unless ``threads`` is skipped, the concurrent rounds and
   real-thread stress (``*-LIN``); then each implementation in another language given as
   ``(system, command)`` (``verify --exec SYSTEM COMMAND``), through the process protocol
   (``specs/protocol.md``): the same pipeline without the thread rounds, which need the
   target in this process;
2. the exhaustive small concurrent scenarios (every schedule up to 2 preemptions);
3. the z3 lemmas (``schedcheck.specs.prove.run_all``);
4. the zoo (every catalogued mutant), whose counterexamples are written under ``zoo/<name>/``.

The folder (default ``./schedcheck-report``): ``index.html`` (self-contained, see
``schedcheck.report.html``), ``report.json`` (all of it, machine-readable), one sub-folder per
suite run (``scheduler-impl/`` ... as written by ``schedcheck check``) and ``zoo/``.
``ok`` -- the exit status 0 -- iff every clause held, every lemma was proved and every mutant
was killed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedcheck import pipeline, systems
from schedcheck.report.card import summary_line
from schedcheck.report.html import choose_showcase, index_html
from schedcheck.report.verify import SuiteRun, VerifyReport
from schedcheck.report.writer import write_run
from schedcheck.targets import load_target

__all__ = ["BUNDLED_RUNS", "run_verify", "unusable_execs"]

#: (folder, system, target) of the suite runs, from the registry.
BUNDLED_RUNS: tuple[tuple[str, str, str], ...] = tuple(
    (folder, s.name, spec) for s in systems.SYSTEMS.values() for folder, spec in s.bundled)


def run_verify(
    out: Path,
    *,
    examples: int | None = None,
    zoo_examples: int | None = None,
    seed: int | None = None,
    status: Callable[[str], None] | None = None,
    detail: Callable[[str], None] | None = None,
    progress_factory: pipeline.ProgressFactory | None = None,
    skip: set[str] | None = None,
    zoo_only: list[str] | None = None,
    shrink_showcase: bool = True,
    execs: list[tuple[str, str]] | None = None,
) -> VerifyReport:
    skip = skip or set()
    say = status or (lambda line: None)
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    report = VerifyReport(out)
    with pipeline.LogCapture() as logs:
        _run_parts(report, examples=examples, zoo_examples=zoo_examples, seed=seed, say=say,
                   detail=detail, bar=progress_factory, skip=skip, zoo_only=zoo_only,
                   shrink_showcase=shrink_showcase, execs=execs or [])
    if logs.write(out / "log.txt"):
        report.notes.append(f"{logs.count} log records (targets, model, mutants) are in "
                            "log.txt; the suites provoke executor rejections on purpose")
    report.seconds = time.perf_counter() - started
    (out / "index.html").write_text(index_html(report), encoding="utf-8")
    (out / "report.json").write_text(json.dumps(report.to_json(), indent=2, default=repr) + "\n",
                                     encoding="utf-8")
    return report


def _run_parts(report: VerifyReport, *, examples: int | None, zoo_examples: int | None,
               seed: int | None, say: Callable[[str], None],
               detail: Callable[[str], None] | None,
               bar: pipeline.ProgressFactory | None, skip: set[str],
               zoo_only: list[str] | None, shrink_showcase: bool = True,
               execs: list[tuple[str, str]]) -> None:
    if "suites" in skip:
        report.skipped.append("the differential suites")
    else:
        _run_suites(report, examples=examples, seed=seed, threads="threads" not in skip,
                    say=say, bar=bar)
        _run_execs(report, execs, examples=examples, seed=seed, say=say, bar=bar)
    if "threads" in skip:
        report.skipped.append("the concurrent rounds")
    else:
        from schedcheck.concurrency.explore import run_exhaustive

        say("exhaustive small concurrent scenarios (every schedule up to 2 preemptions)")
        report.scenarios = list(run_exhaustive())

    if "prove" in skip:
        report.skipped.append("the z3 lemmas")
    else:
        from schedcheck.specs.prove import run_all

        say("prove: the z3 lemmas")

        def lemma_done(row: Any) -> None:
            if detail is not None:
                detail(f"{row.status}: {row.name} ({row.seconds:.1f} s)")

        report.lemmas = list(run_all(progress=lemma_done))

    if "zoo" in skip:
        report.skipped.append("the zoo")
    else:
        _run_zoo(report, zoo_examples=zoo_examples, seed=seed, say=say, only=zoo_only,
                 shrink=shrink_showcase, each=detail, bar=bar)
        if zoo_only:
            report.skipped.append(f"zoo entries other than {', '.join(zoo_only)}")


def _run_zoo(report: VerifyReport, *, zoo_examples: int | None, seed: int | None,
             say: Callable[[str], None], only: list[str] | None = None,
             shrink: bool = True, each: Callable[[str], None] | None = None,
             bar: pipeline.ProgressFactory | None = None) -> None:
    """The zoo, unshrunk (fast kills); then the sequential showcase entries again as a
    budgeted search with delta debugging, so that the pictures on the page are of minimal
    counterexamples (a race's round is already reduced, on its recorded schedule)."""
    from schedcheck.zoo.run import run_zoo

    report.zoo = run_zoo(examples=zoo_examples, seed=seed, status=say, only=only, each=each,
                         bar=bar)
    for row in choose_showcase(report.zoo):
        report.showcase.append(row.mutant.name)
        if not shrink:
            continue
        if row.mutant.kind == "race":
            # Not run again: the race hunt reduced its round on the recorded schedule within a
            # budget of its own (the note on its card says how far); shrinking the whole
            # suite-with-rounds program again can take many minutes.
            continue
        say(f"zoo showcase: a minimal counterexample of {row.mutant.name} (a search of at "
            f"most {SHOWCASE_SECONDS:g} s, then delta debugging)")
        started = time.perf_counter()
        again = _showcase_search(row.mutant, seed=seed, bar=bar)
        spent = time.perf_counter() - started
        cx = again.counterexample if again is not None else None
        before = (row.result.counterexample
                  if row.result is not None and row.result.counterexample else None)
        shorter = cx is not None and (before is None or (
            cx.clause == before.clause and len(cx.steps) < len(before.steps)))
        if again is not None and cx is not None and shorter:
            again.notes.append(f"showcase: searched and minimised in {spent:.1f} s: "
                               f"{len(cx.steps)} steps (the zoo's kill had "
                               f"{len(before.steps) if before else '?'})")
            row.result = again
            row.clause = cx.clause
        elif row.result is not None:
            row.result.notes.append(
                f"showcase: the zoo's first counterexample as found (a {spent:.1f} s search "
                "found none shorter for the same clause)")
    for row in report.zoo:
        if row.result is not None and row.result.counterexample is not None:
            if row.mutant.kind == "sequential" and not any(
                    n.startswith(("showcase:", "minimized")) for n in row.result.notes):
                row.result.notes.append(
                    "not reduced: the zoo's first failing run as found (a fast kill); "
                    f"`schedcheck zoo --only {row.mutant.name} --shrink` reduces it")
            folder = report.out / "zoo" / row.mutant.name
            report.zoo_written[row.mutant.name] = write_run(
                row.result, folder, target_spec=f"zoo:{row.mutant.name}", cwd=str(Path.cwd()),
                command=f"schedcheck zoo --only {row.mutant.name}",
                with_pictures=row.mutant.name in report.showcase)


#: Real-thread stress per bundled target, seconds (checked between rounds; the text on the
#: card counts the operations and rounds it checked and says when this budget ended it). 8 s
#: keeps the whole main job, set-up included, under 5 minutes on 2 slow cores.
STRESS_SECONDS = 8.0
#: The search budget of one showcase entry (a sequential mutant; races are reduced inside
#: the zoo run, see ``schedcheck.concurrency.reduce``). The search stops at the first
#: counterexample, usually within seconds; its minimisation is bounded by its replays.
SHOWCASE_SECONDS = 20.0


def _showcase_search(mutant: Any, *, seed: int | None,
                     bar: pipeline.ProgressFactory | None) -> Any:
    """A budgeted search of a sequential mutant (``pipeline.run_search``: it stops at the
    first counterexample and minimises it by delta debugging, whose replays are bounded), or
    None when the mutant has no sequential suite to search."""
    from schedcheck.zoo.run import ZOO_SEED

    entry = systems.get(mutant.system)
    try:
        return pipeline.check(entry, mutant.factory, target_name=f"zoo:{mutant.name}",
                              search=True, budget=SHOWCASE_SECONDS, cost=False,
                              seed=ZOO_SEED if seed is None else seed, bar=bar)
    except pipeline.Unusable:
        return None


def _run_suites(report: VerifyReport, *, examples: int | None, seed: int | None, threads: bool,
                say: Callable[[str], None], bar: pipeline.ProgressFactory | None) -> None:
    for folder, system, spec in BUNDLED_RUNS:
        target = load_target(spec)
        result = pipeline.check(system, target.factory, target_name=spec, examples=examples,
                                seed=seed, rounds=threads, stress=threads, bar=bar, status=say,
                                stress_seconds=STRESS_SECONDS)
        say(summary_line(result))
        written = write_run(result, report.out / folder, target_spec=spec, cwd=str(Path.cwd()))
        report.suites.append(SuiteRun(folder, result, written))


def exec_folder(system: str, n: int, of: int) -> str:
    """The sub-folder of the ``n``-th (from 1) of ``of`` ``--exec`` targets of ``system``."""
    return f"{system}-exec" + (f"-{n}" if of > 1 else "")


def _run_execs(report: VerifyReport, execs: list[tuple[str, str]], *, examples: int | None,
               seed: int | None, say: Callable[[str], None],
               bar: pipeline.ProgressFactory | None) -> None:
    """Each ``(system, command)``: the target served by ``command`` over the process protocol,
    checked as ``schedcheck check SYSTEM --exec COMMAND`` checks it (its children shut down
    after)."""
    import shlex

    from schedcheck.targets.exec import close_all, exec_factory, exec_spec

    for system in {s for s, _ in execs}:
        mine = [command for s, command in execs if s == system]
        for n, command in enumerate(mine, 1):
            shown = f"--exec {shlex.quote(command)}"
            try:
                result = pipeline.check(system, exec_factory(command, system),
                                        target_name=shown, examples=examples, seed=seed,
                                        rounds=False, stress=False, bar=bar, status=say)
            finally:
                close_all()
            say(summary_line(result))
            folder = exec_folder(system, n, len(mine))
            written = write_run(result, report.out / folder, target_spec=exec_spec(command),
                                cwd=str(Path.cwd()))
            report.suites.append(SuiteRun(folder, result, written))


def unusable_execs(execs: list[tuple[str, str]]) -> str:
    """Why one of ``verify --exec SYSTEM COMMAND`` cannot be checked ("" when all can): an
    unknown system, a command that does not start or does not speak the protocol."""
    from rich.markup import escape

    from schedcheck.targets import TargetError
    from schedcheck.targets.exec import close_all, exec_factory

    for system, command in execs:
        if system not in systems.SYSTEMS:
            return f"--exec {system!r}: the system is one of {', '.join(systems.SYSTEMS)}"
        entry = systems.get(system)
        try:
            why = pipeline.probe_construct(entry, exec_factory(command, entry.name),
                                           operations=entry.core_operations or None)
        except TargetError as exc:
            why = exc.reason
        finally:
            close_all()
        if why:
            return escape(f"--exec {system} {command!r} is unusable: {why}")
    return ""
