"""``schedcheck verify``: everything on the bundled implementations, and the report folder.

In order (parts the caller skips are listed as skipped, never as passed):

1. for every bundled target of every system (``System.bundled`` in ``schedcheck.systems``),
   the check pipeline (``schedcheck.pipeline.check``): the differential suite, the scaling
   clause (``*-COST``) and, unless ``threads`` is skipped, the concurrent rounds and
   real-thread stress (``*-LIN``);
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from schedcheck import pipeline, systems
from schedcheck.progress import nested
from schedcheck.report.card import summary_line
from schedcheck.report.html import choose_showcase, index_html
from schedcheck.report.verify import SuiteRun, VerifyReport
from schedcheck.report.writer import write_run
from schedcheck.targets import load_target

__all__ = ["BUNDLED_RUNS", "run_verify"]

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
) -> VerifyReport:
    skip = skip or set()
    say = status or (lambda line: None)
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    report = VerifyReport(out)
    with pipeline.LogCapture() as logs:
        _run_parts(report, examples=examples, zoo_examples=zoo_examples, seed=seed, say=say,
                   detail=detail, bar=progress_factory, skip=skip, zoo_only=zoo_only,
                   shrink_showcase=shrink_showcase)
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
               zoo_only: list[str] | None, shrink_showcase: bool = True) -> None:
    if "suites" in skip:
        report.skipped.append("the differential suites")
    else:
        _run_suites(report, examples=examples, seed=seed, threads="threads" not in skip,
                    say=say, bar=bar)
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
    """The zoo, unshrunk (fast kills); then the showcase entries again with shrinking, so
    that the pictures on the page are of minimal counterexamples."""
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
        say(f"zoo showcase: shrinking the counterexample of {row.mutant.name} "
            f"(at most {SHOWCASE_SECONDS:g} s)")
        started = time.perf_counter()
        again = _bounded_shrink(row.mutant, examples=zoo_examples, seed=seed, bar=bar)
        spent = time.perf_counter() - started
        if again is None:
            row.note = (f"{row.note}; " if row.note else "") + (
                f"not shrunk: shrinking did not finish within {SHOWCASE_SECONDS:g} s, the "
                "picture is of the first counterexample found")
            if row.result is not None:
                row.result.notes.append(row.note)
        elif again.result is not None and again.result.counterexample is not None:
            before = (len(row.result.counterexample.steps)
                      if row.result is not None and row.result.counterexample else 0)
            row.result = again.result
            row.clause = again.clause
            row.result.notes.append(
                f"shrunk for {spent:.1f} s: {before} -> "
                f"{len(again.result.counterexample.steps)} steps")
    for row in report.zoo:
        if row.result is not None and row.result.counterexample is not None:
            folder = report.out / "zoo" / row.mutant.name
            report.zoo_written[row.mutant.name] = write_run(
                row.result, folder, target_spec=f"zoo:{row.mutant.name}", cwd=str(Path.cwd()),
                command=f"schedcheck zoo --only {row.mutant.name}",
                with_pictures=row.mutant.name in report.showcase)


#: Real-thread stress per bundled target, seconds (checked between rounds; the text on the
#: card counts the operations and rounds it checked and says when this budget ended it).
STRESS_SECONDS = 15.0
#: The longest one showcase entry's shrinking may take (a sequential mutant; races are
#: reduced inside the zoo run, see ``schedcheck.concurrency.reduce``).
SHOWCASE_SECONDS = 30.0


def _bounded_shrink(mutant: Any, *, examples: int | None, seed: int | None,
                    bar: pipeline.ProgressFactory | None,
                    seconds: float = SHOWCASE_SECONDS) -> Any:
    """``run_mutant(..., shrink=True)`` within ``seconds``, or None when it did not finish in
    time: Hypothesis's shrinker has no time budget of its own, so the progress callback (run
    after every machine run, shrinking included) ends the run with ``OutOfBudget`` once the
    budget is spent."""
    from schedcheck.harness.common import OutOfBudget
    from schedcheck.zoo.run import run_mutant

    deadline = time.monotonic() + seconds

    @contextmanager
    def bounded(label: str, total: int | None) -> Iterator[pipeline.Progress]:
        with nested(bar, f"{label} (shrinking)", total) as outer:
            def check(done: int, steps: int, failures: int) -> None:
                if outer is not None:
                    outer(done, steps, failures)
                if time.monotonic() > deadline:
                    raise OutOfBudget(f"showcase shrinking stopped after {seconds:g} s")

            yield check

    try:
        return run_mutant(mutant, examples=examples, seed=seed, shrink=True, bar=bounded)
    except OutOfBudget:
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
