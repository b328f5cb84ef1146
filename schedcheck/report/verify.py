"""``schedcheck verify``: everything on the bundled implementations, and the report folder.

In order (each part reported; a part missing from this build is "not available", never passed):

1. the differential suites: ``schedcheck.impl:Scheduler``, ``schedcheck.impl:HashedTimingWheel``,
   ``schedcheck.impl:HierarchicalTimingWheel``, each with its scaling clause (``*-COST``) and,
   when ``schedcheck.concurrency`` is in the build, the concurrent rounds (``*-LIN``);
2. the z3 lemmas (``schedcheck.specs.prove.run_all``), when present;
3. the zoo (every catalogued mutant), whose counterexamples are written under ``zoo/<name>/``.

The folder (default ``./schedcheck-report``): ``index.html`` (self-contained, see
``schedcheck.report.html``), ``report.json`` (all of it, machine-readable), one sub-folder per
suite run (``scheduler-impl/`` ... as written by ``schedcheck check``) and ``zoo/``.
``ok`` -- the exit status 0 -- iff every clause held, every lemma was proved and every mutant
was killed; parts the caller skipped are listed as skipped.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from schedcheck.harness.result import RunResult
from schedcheck.report import runs
from schedcheck.report.card import card_table, summary_line
from schedcheck.report.writer import Written, report_json, write_run
from schedcheck.targets import load_target

__all__ = ["BUNDLED_RUNS", "LEMMA_OK", "VerifyReport", "lemma_ok", "run_verify"]

#: (folder, system, target) of the suite runs.
BUNDLED_RUNS: tuple[tuple[str, str, str], ...] = (
    ("scheduler-impl", "scheduler", "schedcheck.impl:Scheduler"),
    ("wheel-hashed", "wheel", "schedcheck.impl:HashedTimingWheel"),
    ("wheel-hierarchical", "wheel", "schedcheck.impl:HierarchicalTimingWheel"),
)

#: What each kind of prove result must say to count as a success: a lemma or a bounded model
#: check is "proved" (a bound is stated in the table); a seeded mutation must be "refuted".
LEMMA_OK: dict[str, str] = {"lemma": "proved", "bmc": "proved", "mutation": "refuted"}


def lemma_ok(lem: Any) -> bool:
    kind = str(getattr(lem, "kind", "lemma")).lower()
    return str(getattr(lem, "status", "")).lower() == LEMMA_OK.get(kind, "proved")

ProgressFactory = Callable[[str, int | None], AbstractContextManager[Any]]


@dataclass
class SuiteRun:
    folder: str
    result: RunResult
    written: Written


@dataclass
class VerifyReport:
    out: Path
    suites: list[SuiteRun] = field(default_factory=list)
    lemmas: list[Any] | None = None
    scenarios: list[Any] | None = None  #: exhaustive small concurrent scenarios
    zoo: list[Any] | None = None
    zoo_written: dict[str, Written] = field(default_factory=dict)
    showcase: list[str] = field(default_factory=list)  #: zoo entries pictured on the page
    notes: list[str] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def lemmas_ok(self) -> bool:
        return all(lemma_ok(lem) for lem in self.lemmas or [])

    @property
    def zoo_ok(self) -> bool:
        return all(r.killed for r in self.zoo or [])

    @property
    def scenarios_ok(self) -> bool:
        return all(getattr(s, "violation", None) is None for s in self.scenarios or [])

    @property
    def ok(self) -> bool:
        return (all(s.result.ok for s in self.suites) and self.lemmas_ok and self.zoo_ok
                and self.scenarios_ok)

    def to_json(self) -> dict[str, Any]:
        from schedcheck.zoo.run import zoo_json

        return {
            "ok": self.ok,
            "seconds": round(self.seconds, 1),
            "suites": [report_json(s.result, files=[f"{s.folder}/{s.written.rel(p)}"
                                                     for p in s.written.files])
                       for s in self.suites],
            "lemmas": [_lemma_json(lem) for lem in self.lemmas] if self.lemmas is not None
            else None,
            "zoo": zoo_json(self.zoo) if self.zoo is not None else None,
            "scenarios": [_scenario_json(s) for s in self.scenarios]
            if self.scenarios is not None else None,
            "unavailable": self.unavailable,
            "skipped": self.skipped,
            "notes": self.notes,
        }

    def print(self, console: Console) -> None:
        """Cards, prove summary, kill matrix: rich tables on a terminal, else plain text
        (written straight to the console's file: no wrapping at 80 columns)."""
        from schedcheck.report.card import card_text
        from schedcheck.zoo.run import kill_matrix_table, kill_matrix_text

        plain = not console.is_terminal

        def say(line: str) -> None:
            if plain:
                console.file.write(line + "\n")
            else:
                console.print(line, markup=False, highlight=False)

        for s in self.suites:
            if plain:
                say(card_text(s.result))
            else:
                console.print(card_table(s.result))
            for note in s.result.notes:
                say(f"note: {note}")
        if self.lemmas is not None:
            say(f"prove: {sum(lemma_ok(lem) for lem in self.lemmas)}/{len(self.lemmas)} as "
                "expected (lemmas proved, mutations refuted)")
            for lem in self.lemmas:
                if not lemma_ok(lem):
                    say(f"  NOT AS EXPECTED {getattr(lem, 'name', lem)}: "
                        f"{getattr(lem, 'status', '?')}")
        if self.scenarios is not None:
            for sc in self.scenarios:
                say(f"exhaustive: {getattr(sc, 'text', sc)}")
        if self.zoo is not None:
            if plain:
                say(kill_matrix_text(self.zoo))
            else:
                console.print(kill_matrix_table(self.zoo))
        for line in self.unavailable:
            say(line)
        for line in self.skipped:
            say(f"skipped on request: {line}")
        for line in self.notes:
            say(f"note: {line}")
        say(f"{'OK' if self.ok else 'FAILED'}: report written to {self.out / 'index.html'} "
            f"({self.seconds:.0f}s)")


def _scenario_json(s: Any) -> dict[str, Any]:
    keys = ("name", "system", "words", "target", "bound", "schedules", "complete", "violation",
            "failing_schedule")
    return {k: getattr(s, k, None) for k in keys}


def _lemma_json(lem: Any) -> dict[str, Any]:
    keys = ("name", "kind", "system", "says", "status", "seconds", "counterexample",
            "bounded_n", "why_bounded")
    return {k: getattr(lem, k, None) for k in keys}


def _nullcontext_factory(label: str, total: int | None) -> AbstractContextManager[Any]:
    from contextlib import nullcontext

    return nullcontext(None)


def run_verify(
    out: Path,
    *,
    examples: int | None = None,
    zoo_examples: int | None = None,
    seed: int | None = None,
    status: Callable[[str], None] | None = None,
    progress_factory: ProgressFactory | None = None,
    skip: set[str] | None = None,
    zoo_only: list[str] | None = None,
    shrink_showcase: bool = True,
) -> VerifyReport:
    skip = skip or set()
    say = status or (lambda line: None)
    bar = progress_factory or _nullcontext_factory
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    report = VerifyReport(out)
    with runs.LogCapture() as logs:
        _run_parts(report, examples=examples, zoo_examples=zoo_examples, seed=seed, say=say,
                   bar=bar, skip=skip, zoo_only=zoo_only, shrink_showcase=shrink_showcase)
    if logs.write(out / "log.txt"):
        report.notes.append(f"{logs.count} log records (targets, model, mutants) are in "
                            "log.txt; the suites provoke executor rejections on purpose")
    report.seconds = time.perf_counter() - started
    from schedcheck.report.html import index_html

    (out / "index.html").write_text(index_html(report), encoding="utf-8")
    (out / "report.json").write_text(json.dumps(report.to_json(), indent=2, default=repr) + "\n",
                                     encoding="utf-8")
    return report


def _run_parts(report: VerifyReport, *, examples: int | None, zoo_examples: int | None,
               seed: int | None, say: Callable[[str], None], bar: ProgressFactory,
               skip: set[str], zoo_only: list[str] | None,
               shrink_showcase: bool = True) -> None:

    if "suites" in skip:
        report.skipped.append("the differential suites")
    else:
        _run_suites(report, examples=examples, seed=seed, threads="threads" not in skip,
                    say=say, bar=bar)
    if "threads" in skip:
        report.skipped.append("the concurrent rounds")
    else:
        say("exhaustive small concurrent scenarios (every schedule up to 2 preemptions)")
        try:
            report.scenarios = runs.run_exhaustive_scenarios()
        except runs.Unavailable as exc:
            _note_once(report, str(exc))

    if "prove" in skip:
        report.skipped.append("the z3 lemmas")
    else:
        say("prove: the z3 lemmas")
        try:
            prove = importlib.import_module("schedcheck.specs.prove")
            run_all = getattr(prove, "run_all", None)
            if callable(run_all):
                report.lemmas = list(run_all())
            else:
                report.unavailable.append("schedcheck prove is not available in this build "
                                          "(specs.prove has no run_all)")
        except ModuleNotFoundError as exc:
            if not (exc.name or "").startswith("schedcheck.specs"):
                raise
            report.unavailable.append("schedcheck prove is not available in this build "
                                      "(schedcheck.specs.prove is missing)")

    if "zoo" in skip:
        report.skipped.append("the zoo")
    else:

        _run_zoo(report, zoo_examples=zoo_examples, seed=seed, say=say, only=zoo_only,
                 shrink=shrink_showcase)
        if zoo_only:
            report.skipped.append(f"zoo entries other than {', '.join(zoo_only)}")


def _run_zoo(report: VerifyReport, *, zoo_examples: int | None, seed: int | None,
             say: Callable[[str], None], only: list[str] | None = None,
             shrink: bool = True) -> None:
    """The zoo, unshrunk (fast kills); then the showcase entries again with shrinking, so
    that the pictures on the page are of minimal counterexamples."""
    from schedcheck.report.html import choose_showcase
    from schedcheck.zoo.run import run_mutant, run_zoo

    report.zoo = run_zoo(examples=zoo_examples, seed=seed, status=say, only=only)
    if not report.zoo:
        report.unavailable.append("the zoo is not available in this build "
                                  "(the mutant catalogue is empty)")
    for row in choose_showcase(report.zoo):
        report.showcase.append(row.mutant.name)
        if not shrink:
            continue
        say(f"zoo showcase: shrinking the counterexample of {row.mutant.name}")
        again = run_mutant(row.mutant, examples=zoo_examples, seed=seed, shrink=True)
        if again.result is not None and again.result.counterexample is not None:
            row.result = again.result
            row.clause = again.clause
    for row in report.zoo:
        if row.result is not None and row.result.counterexample is not None:
            folder = report.out / "zoo" / row.mutant.name
            report.zoo_written[row.mutant.name] = write_run(
                row.result, folder, target_spec=f"zoo:{row.mutant.name}", cwd=str(Path.cwd()),
                command=f"schedcheck zoo --only {row.mutant.name}",
                with_pictures=row.mutant.name in report.showcase)


def _run_suites(report: VerifyReport, *, examples: int | None, seed: int | None, threads: bool,
                say: Callable[[str], None], bar: ProgressFactory) -> None:
    for folder, system, spec in BUNDLED_RUNS:
        target = load_target(spec)
        say(f"suite: {system} {spec}")
        try:
            with bar(f"{system} {spec}", examples) as progress:
                result = runs.run_suite_for(system, target.factory, target_name=spec,
                                            examples=examples, seed=seed, progress=progress)
        except runs.Unavailable as exc:
            report.unavailable.append(str(exc))
            continue
        try:
            runs.fold_scaling(result, runs.run_scaling_for(system, target.factory))
        except runs.Unavailable as exc:
            _note_once(report, str(exc))
        if threads and result.counterexample is None:
            say(f"concurrent rounds: {system} {spec}")
            try:
                with bar(f"{system} {spec} (concurrent rounds)", examples) as progress:
                    runs.fold_result(result, runs.run_rounds_for(
                        system, target.factory, target_name=spec, examples=examples, seed=seed,
                        progress=progress))
            except runs.Unavailable as exc:
                _note_once(report, str(exc))
        if threads and result.counterexample is None:
            say(f"real-thread stress: {system} {spec}")
            try:
                with bar(f"{system} {spec} (real threads)", None) as progress:
                    runs.fold_result(result, runs.run_threads_for(
                        system, target.factory, target_name=spec, seed=seed, progress=progress))
            except runs.Unavailable as exc:
                _note_once(report, str(exc))
        say(summary_line(result))
        written = write_run(result, report.out / folder, target_spec=spec, cwd=str(Path.cwd()))
        report.suites.append(SuiteRun(folder, result, written))


def _note_once(report: VerifyReport, line: str) -> None:
    if line not in report.unavailable:
        report.unavailable.append(line)
