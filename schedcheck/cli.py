"""The ``schedcheck`` command (contract Part 3): check, prove, zoo, verify.

::

    schedcheck check scheduler TARGET [--level core|contract] [--examples N] [--seed S]
                                      [--profile P] [--threads] [--no-shrink] [--no-cost]
                                      [--tolerance] [--step-seconds S] [--out DIR] [--json]
    schedcheck check wheel TARGET ...
    schedcheck prove [...]          # the z3 lemmas (schedcheck.specs.prove, its own options)
    schedcheck zoo [--examples N] [--seed S] [--only NAME ...] [--system S] [--shrink] [--json]
    schedcheck verify [--out DIR] [--examples N] [--zoo-examples N] [--seed S]
                      [--skip suites|threads|prove|zoo ...] [--zoo-only NAME ...]
                      [--no-shrink] [--json]

``check`` always runs with a seed (a random one when ``--seed`` is not given) and prints it in
the "search again" command, so that every report can be reproduced. It grades the core level,
then the contract level (``--level`` picks one; ``schedcheck.levels``), each keeping going
after a counterexample so that every broken clause gets its own (``schedcheck.keep_going``),
then (unless ``--no-cost``) the scaling clause, then with ``--threads`` the concurrent rounds
and, when the build has it, real-thread stress. Every call of the target has a time limit
(``--step-seconds``): a hang is a verdict.

Exit status: 0 every property held (every mutant killed, every lemma proved); 1 a
counterexample was found (a mutant survived, a lemma failed); 2 the target or the arguments are
unusable -- the message shows the target as given and the accepted forms -- or a part of
schedcheck the command needs is not in this build (never reported as a pass).

Output: progress (examples, steps, failures so far) on stderr with rich while a suite runs,
only when stderr is a terminal; the report card on stdout; with ``--json`` stdout carries only
the machine-readable report. The ``--out`` folder is described in ``schedcheck.report.writer``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from schedcheck import systems
from schedcheck.contract import SchedcheckInternalError
from schedcheck.targets import TargetError, load_target

__all__ = ["main"]

EXIT_OK, EXIT_FOUND, EXIT_UNUSABLE = 0, 1, 2

ProgressFn = Callable[[int, int, int], None]


def _err_console() -> Console:
    return Console(stderr=True, highlight=False)


@contextmanager
def progress_display(label: str, total: int | None, enabled: bool) -> Iterator[ProgressFn | None]:
    """A rich progress line ``examples n/N · steps s · failures f`` while the block runs, or
    nothing (``None``) when ``enabled`` is false (not a terminal, or ``--json``)."""
    if not enabled:
        yield None
        return
    console = _err_console()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(),
               TextColumn("examples {task.completed:.0f}/{task.total:.0f}"),
               TextColumn("steps {task.fields[steps]}"),
               TextColumn("failures [red]{task.fields[failures]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=total or 100, steps=0, failures=0)

        def update(examples: int, steps: int, failures: int) -> None:
            if total is not None and examples > total:
                bar.update(task, total=examples)
            bar.update(task, completed=examples, steps=steps, failures=failures)

        yield update


def _profile_examples(profile: str | None, examples: int | None) -> int | None:
    if examples is not None:
        return examples
    try:
        from schedcheck import profiles

        name = profile or profiles.default_profile()
        value = profiles.PROFILES[name]["max_examples"]
        return int(value) if isinstance(value, int) else None
    except (KeyError, ValueError):
        return None


def _unusable(message: str) -> int:
    _err_console().print(f"[bold red]schedcheck:[/] {message}", markup=True, highlight=False,
                         soft_wrap=True)
    return EXIT_UNUSABLE


# ---------------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    from schedcheck import pipeline
    from schedcheck.report.card import card_table, card_text
    from schedcheck.report.writer import check_command, fresh_out_dir, report_json, write_run

    system = systems.get(args.system)
    if args.tolerance and not system.has_tolerance:
        with_tolerance = ", ".join(f"{s.name}s" for s in systems.SYSTEMS.values()
                                   if s.has_tolerance)
        return _unusable(f"--tolerance applies to {with_tolerance} only: the {system.name} has "
                         "no due ticks")
    try:
        target = load_target(args.target)
    except TargetError as exc:
        return _unusable(str(exc))
    # the core level needs fewer methods than the contract level; --level contract needs all
    needs = None if args.level == "contract" else system.core_operations or None
    why = pipeline.probe_construct(system, target.factory, operations=needs)
    if why is not None:
        hint = (" (the core level needs only "
                f"{', '.join(system.core_operations)}: try --level core)"
                if args.level == "contract" and pipeline.probe_construct(
                    system, target.factory, operations=system.core_operations) is None else "")
        return _unusable(f"target {args.target!r} is unusable: {why}{hint}")
    show_progress = not args.json and sys.stderr.isatty()
    # Always a seed, so that the report's "search again" command reproduces this very run.
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    logs = pipeline.LogCapture()
    try:
        with logs:
            result = pipeline.check(
                system, target.factory, target_name=args.target, examples=args.examples,
                seed=seed, profile=args.profile, shrink=not args.no_shrink,
                tolerance=args.tolerance, cost=not args.no_cost, rounds=args.threads,
                stress=args.threads, total=_profile_examples(args.profile, args.examples),
                bar=lambda label, total: progress_display(label, total, show_progress),
                status=_status_printer(show_progress), levels=True, level=args.level,
                step_seconds=args.step_seconds)
    except pipeline.Unusable as exc:
        return _unusable(f"target {args.target!r} is unusable: {exc}")
    except SchedcheckInternalError as exc:
        return _unusable(f"internal error -- a bug in schedcheck, not in the target: {exc}")
    if result.seed is None:
        result.seed = seed
    out = Path(args.out) if args.out else fresh_out_dir(system.name)
    out.mkdir(parents=True, exist_ok=True)
    logged = logs.write(out / "log.txt")
    if logged:
        result.notes.append(f"{logs.count} log records (target and model) are in log.txt; "
                            "the suite provokes executor rejections on purpose")
    written = write_run(result, out, target_spec=args.target, cwd=os.getcwd(),
                        command=check_command(result, args.target))
    if logged:
        written.files.insert(0, out / "log.txt")
    if args.json:
        data = report_json(result, command=check_command(result, args.target),
                           files=[written.rel(p) for p in written.files],
                           extra={"out": str(out)})
        sys.stdout.write(json.dumps(data, indent=2, default=repr) + "\n")
    else:
        console = Console(highlight=False)
        if console.is_terminal:
            console.print(card_table(result))
        else:
            sys.stdout.write(card_text(result) + "\n")
        for note in result.notes:
            sys.stdout.write(f"note: {note}\n")
        from schedcheck.report.steps import steps_text

        for cx in result.all_counterexamples():
            pictures = written.pictures_of.get(cx.clause, written.pictures)
            sys.stdout.write("\n" + steps_text(
                cx, target=args.target, command=check_command(result, args.target),
                pictures=[str(p) for p in pictures if p.suffix == ".svg"]))
        sys.stdout.write(f"\nwritten to {out}/: "
                         + ", ".join(written.rel(p) for p in written.files) + "\n")
    return EXIT_OK if result.ok else EXIT_FOUND


# ---------------------------------------------------------------------------------------------
# prove, zoo, verify
# ---------------------------------------------------------------------------------------------


def cmd_prove(args: argparse.Namespace) -> int:
    return run_prove(list(args.rest))


def run_prove(argv: list[str]) -> int:
    """``schedcheck prove ARGS`` -> ``schedcheck.specs.prove.main(ARGS)`` (its own options:
    ``--timeout-ms``, ``--only``, ``--json``, ``--plain``, ``--help``)."""
    from schedcheck.specs.prove import main as prove_main

    status = prove_main(argv)
    return int(status or 0)


def cmd_zoo(args: argparse.Namespace) -> int:
    from schedcheck.report.kill_matrix import kill_matrix_table, kill_matrix_text, zoo_json
    from schedcheck.zoo.run import run_zoo

    show_progress = not args.json and sys.stderr.isatty()
    try:
        rows = run_zoo(only=args.only or None, system=args.system, examples=args.examples,
                       seed=args.seed, status=_status_printer(show_progress),
                       shrink=args.shrink)
    except KeyError as exc:
        return _unusable(str(exc.args[0]) if exc.args else str(exc))
    except SchedcheckInternalError as exc:
        return _unusable(f"internal error -- a bug in schedcheck: {exc}")
    if not rows:
        return _unusable("no mutant is of that system among the ones named; "
                         "`schedcheck zoo --json` lists them all")
    if args.json:
        sys.stdout.write(json.dumps(zoo_json(rows), indent=2, default=repr) + "\n")
    else:
        console = Console(highlight=False)
        if console.is_terminal:
            console.print(kill_matrix_table(rows))
        else:
            sys.stdout.write(kill_matrix_text(rows) + "\n")
    return EXIT_OK if all(r.killed for r in rows) else EXIT_FOUND


def _status_printer(enabled: bool) -> Callable[[str], None] | None:
    if not enabled:
        return None
    console = _err_console()

    def status(line: str) -> None:
        console.print(f"[dim]{line}[/]", highlight=False)

    return status


def cmd_verify(args: argparse.Namespace) -> int:
    from schedcheck.verify import run_verify

    show_progress = not args.json and sys.stderr.isatty()
    try:
        report = run_verify(Path(args.out), examples=args.examples,
                            zoo_examples=args.zoo_examples, seed=args.seed,
                            status=_status_printer(show_progress),
                            progress_factory=(lambda label, total: progress_display(
                                label, total, show_progress)),
                            skip=set(args.skip or ()), zoo_only=args.zoo_only,
                            shrink_showcase=not args.no_shrink)
    except KeyError as exc:
        return _unusable(str(exc.args[0]) if exc.args else str(exc))
    except SchedcheckInternalError as exc:
        return _unusable(f"internal error -- a bug in schedcheck: {exc}")
    if args.json:
        sys.stdout.write(json.dumps(report.to_json(), indent=2, default=repr) + "\n")
    else:
        report.print(Console(highlight=False))
    return EXIT_OK if report.ok else EXIT_FOUND


# ---------------------------------------------------------------------------------------------
# argument parsing
# ---------------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with the usage, as argparse does
        self.print_usage(sys.stderr)
        self.exit(EXIT_UNUSABLE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="schedcheck", description=(
        "Check a dependency-aware scheduler or a timing wheel against the schedcheck contract."),
        epilog="exit status: 0 every property held, 1 a counterexample was found, "
               "2 the target or the arguments are unusable")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser("check", help="run the differential suite against TARGET",
                           description="TARGET is module:attr (importable from the current "
                                       "directory) or path/to/file.py:attr")
    check.add_argument("system", choices=systems.names())
    check.add_argument("target", metavar="TARGET")
    check.add_argument("--examples", type=int, metavar="N", help="examples (machine runs)")
    check.add_argument("--seed", type=int, metavar="S", help="fix Hypothesis's randomness")
    check.add_argument("--profile", choices=("ci", "dev", "thorough"),
                       help="Hypothesis profile (default: SCHEDCHECK_PROFILE, else dev)")
    check.add_argument("--threads", action="store_true",
                       help="also run the concurrent rounds (linearizability)")
    check.add_argument("--no-shrink", action="store_true",
                       help="report the first counterexample found, unshrunk (fast, longer)")
    check.add_argument("--tolerance", action="store_true",
                       help="wheels: check never early/twice/after cancel/lost instead of the "
                            "contract's exact due ticks, and list the timers that differ")
    check.add_argument("--level", choices=("core", "contract"),
                       help="grade one level only: core (what every correct design holds) "
                            "or contract (the full rules of specs/); default: both, core "
                            "first")
    check.add_argument("--step-seconds", type=float, metavar="S", default=None,
                       help="the longest one call of the target may take before it counts "
                            "as a hang (default 10)")
    check.add_argument("--no-cost", action="store_true",
                       help="skip the scaling clause (*-COST: a timed run at n and 8n)")
    check.add_argument("--out", metavar="DIR",
                       help="folder for the report (default: ./schedcheck-out-SYSTEM-TIME)")
    check.add_argument("--json", action="store_true", help="print report.json on stdout")
    check.set_defaults(run=cmd_check)

    prove = sub.add_parser("prove", help="the z3 lemmas of specs/")
    prove.add_argument("rest", nargs=argparse.REMAINDER, help="passed to schedcheck.specs.prove")
    prove.set_defaults(run=cmd_prove)

    zoo = sub.add_parser("zoo", help="run every catalogued mistake; print the kill matrix")
    zoo.add_argument("--examples", type=int, metavar="N",
                     help="examples per mutant (the search stops at the first kill)")
    zoo.add_argument("--seed", type=int, metavar="S")
    zoo.add_argument("--only", nargs="+", metavar="NAME", help="only these mutants")
    zoo.add_argument("--system", choices=systems.names(), help="only this system")
    zoo.add_argument("--shrink", action="store_true",
                     help="shrink each kill to a minimal counterexample (slower)")
    zoo.add_argument("--json", action="store_true", help="print the kill matrix as JSON")
    zoo.set_defaults(run=cmd_zoo)

    verify = sub.add_parser("verify", help="everything on the bundled implementations, "
                                           "with an index.html report")
    verify.add_argument("--out", metavar="DIR", default="schedcheck-report")
    verify.add_argument("--examples", type=int, metavar="N", help="examples per suite")
    verify.add_argument("--zoo-examples", type=int, metavar="N", default=None,
                        help="examples per mutant")
    verify.add_argument("--seed", type=int, metavar="S")
    verify.add_argument("--skip", nargs="+", choices=("suites", "threads", "prove", "zoo"),
                        help="leave parts out (they are reported as skipped, not passed)")
    verify.add_argument("--no-shrink", action="store_true",
                        help="picture the zoo's first counterexamples as found (faster)")
    verify.add_argument("--zoo-only", nargs="+", metavar="NAME",
                        help="only these zoo entries (the rest are reported as skipped)")
    verify.add_argument("--json", action="store_true")
    verify.set_defaults(run=cmd_verify)
    from schedcheck.practice.commands import add_commands

    add_commands(sub)  # practice, grade
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    raw = list(argv) if argv is not None else sys.argv[1:]
    if raw[:1] == ["prove"]:  # every option after `prove` belongs to specs.prove
        return run_prove(raw[1:])
    parser = build_parser()
    args = parser.parse_args(raw)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except KeyboardInterrupt:
        _err_console().print("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
