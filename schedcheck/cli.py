"""The ``schedcheck`` command (contract Part 3): check, prove, zoo, verify.

::

    schedcheck check scheduler TARGET [--level core|contract] [--budget SECONDS | --examples N]
                                      [--first]
                                      [--seed S] [--profile P] [--threads] [--no-shrink]
                                      [--no-cost] [--tolerance] [--step-seconds S] [--out DIR]
                                      [--json]
    schedcheck check wheel TARGET ...
    schedcheck prove [...]          # the z3 lemmas (schedcheck.specs.prove, its own options)
    schedcheck zoo [--examples N] [--seed S] [--only NAME ...] [--system S] [--shrink] [--json]
    schedcheck verify [--out DIR] [--examples N] [--zoo-examples N] [--seed S]
                      [--skip suites|threads|prove|zoo ...] [--zoo-only NAME ...]
                      [--no-shrink] [--json]

``check`` always runs with a seed (a random one when ``--seed`` is not given) and prints it in
the "search again" command, so that every report can be reproduced. It grades the core level,
then the contract level (``--level`` picks one; ``schedcheck.levels``), each keeping going
after a counterexample so that every broken clause gets its own (``schedcheck.keep_going``);
with ``--budget SECONDS`` it instead runs the differential suite as a budgeted search
(``schedcheck.harness.search``) that stops at the first counterexample and minimises it. Then
(unless ``--no-cost``) the scaling clause, then with ``--threads`` the concurrent rounds and,
when the build has it, real-thread stress. The target runs in a supervised child process
(``schedcheck.supervised``): every call has a time limit (``--step-seconds``) and the child a
memory limit (``--memory-limit``); a hang, a crash or an exit is a verdict.

Exit status: 0 every property held (every mutant killed, every lemma proved); 1 a
counterexample was found (a mutant survived, a lemma failed); 2 the target or the arguments are
unusable -- the message shows the target as given and the accepted forms -- or a part of
schedcheck the command needs is not in this build (never reported as a pass).

Output: progress on stderr -- a line as each stage starts, a rich bar (examples, steps,
failures so far, elapsed) while a suite runs on a terminal, and, whenever nothing was printed
for 3 s, a ``still running: ...`` line naming the stage, its counts, its elapsed time and budget
(``schedcheck.progress``; plain lines when stderr is not a terminal) -- the report card on
stdout; with ``--json`` stdout carries only the machine-readable report. The ``--out`` folder
is described in ``schedcheck.report.writer``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from schedcheck import systems
from schedcheck.console import (
    err_console,
    heartbeat,
    status_printer,
)
from schedcheck.contract import SchedcheckInternalError
from schedcheck.harness.result import RunResult
from schedcheck.harness.supervisor import DEFAULT_MEMORY_MIB
from schedcheck.levels import DEFAULT_BUDGET
from schedcheck.targets import TargetError, load_target

__all__ = ["main"]

EXIT_OK, EXIT_FOUND, EXIT_UNUSABLE = 0, 1, 2




def _unusable(message: str) -> int:
    err_console().print(f"[bold red]schedcheck:[/] {message}", markup=True, highlight=False,
                         soft_wrap=True)
    return EXIT_UNUSABLE


# ---------------------------------------------------------------------------------------------
# check
# ---------------------------------------------------------------------------------------------


def _budget(args: argparse.Namespace) -> float | None:
    """The time budget of ``check``: ``--budget``, else the default unless ``--examples``."""
    if args.budget is not None:
        return float(args.budget)
    return None if args.examples is not None else DEFAULT_BUDGET


def _again(result: RunResult, args: argparse.Namespace) -> str:
    """The command that searches again the same way (same seed, budget or examples)."""
    cmd = f"schedcheck check {result.system} {_shown(args)}"
    if result.seed is not None:
        cmd += f" --seed {result.seed}"
    if args.level:
        cmd += f" --level {args.level}"
    if args.examples is not None:
        cmd += f" --examples {args.examples}"
    elif args.budget is not None:
        cmd += f" --budget {args.budget:g}"
    if args.step_seconds is not None:
        cmd += f" --step-seconds {args.step_seconds:g}"
    if args.memory_limit != DEFAULT_MEMORY_MIB:
        cmd += f" --memory-limit {args.memory_limit}"
    switches = (("--first", args.first), ("--tolerance", args.tolerance),
                ("--threads", args.threads), ("--no-shrink", args.no_shrink),
                ("--no-cost", args.no_cost))
    cmd += "".join(f" {flag}" for flag, on in switches if on)
    if getattr(args, "db", None):
        import shlex

        cmd += f" --db {shlex.quote(args.db)}"
    return cmd


def _shown(args: argparse.Namespace) -> str:
    """The target as the command line gave it: TARGET, or ``--exec 'COMMAND'``."""
    if getattr(args, "exec", None):
        import shlex

        return f"--exec {shlex.quote(args.exec)}"
    return str(args.target)


def _load(args: argparse.Namespace, system: str) -> Any:
    """The target of ``check``: ``load_target(TARGET)``, or the child process of ``--exec``
    (``schedcheck.targets.exec``); :class:`TargetError` when unusable."""
    if args.exec is None:
        return load_target(args.target)
    from schedcheck.targets.exec import exec_factory, exec_spec
    from schedcheck.targets.load import Target

    factory = exec_factory(args.exec, system)
    return Target(spec=exec_spec(args.exec), kind="exec", location=os.getcwd(), attr="",
                  factory=factory)


def cmd_check(args: argparse.Namespace) -> int:
    system = systems.get(args.system)
    if args.tolerance and not system.has_tolerance:
        with_tolerance = ", ".join(f"{s.name}s" for s in systems.SYSTEMS.values()
                                   if s.has_tolerance)
        return _unusable(f"--tolerance applies to {with_tolerance} only: the {system.name} has "
                         "no due ticks")
    if (args.exec is None) == (args.target is None):
        return _unusable("give either TARGET or --exec 'COMMAND', not "
                         + ("both" if args.exec else "neither"))
    try:
        target = _load(args, system.name)
    except TargetError as exc:
        if args.exec:
            from rich.markup import escape

            return _unusable(escape(f"{_shown(args)}: {exc.reason}"))
        return _unusable(str(exc))
    try:
        return _check_loaded(args, system, target)
    finally:
        if args.exec is not None:
            from schedcheck.targets.exec import close_all

            close_all()


def _check_loaded(args: argparse.Namespace, system: systems.System, target: Any) -> int:
    from schedcheck import pipeline
    from schedcheck.report.card import card_table, card_text
    from schedcheck.report.writer import fresh_out_dir, report_json, write_run

    shown = _shown(args)
    # the core level needs fewer methods than the contract level; --level contract needs all
    needs = system.operations if args.level == "contract" else system.core_operations or None
    why = pipeline.probe_construct(system, target.factory, operations=needs)
    if why is not None:
        hint = (" (the core level needs only "
                f"{', '.join(m + '()' for m in system.core_operations)}: try --level core)"
                if args.level == "contract" and pipeline.probe_construct(
                    system, target.factory, operations=system.core_operations) is None else "")
        return _unusable(f"target {shown} is unusable: {why}{hint}")
    show_progress = not args.json and sys.stderr.isatty()
    say = status_printer(show_progress)
    say(f"check {system.name} {shown}")
    # Always a seed, so that the report's "search again" command reproduces this very run.
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    logs = pipeline.LogCapture()
    budget = _budget(args)
    try:
        import functools

        from schedcheck import fuzz, supervised

        with logs, heartbeat(say, show_progress, budget=budget) as ticker:
            result = supervised.check(
                system, target.factory, target_name=shown, examples=args.examples,
                seed=seed, profile=args.profile, shrink=not args.no_shrink,
                budget=budget, memory_mib=args.memory_limit, stage_limit=ticker.limit,
                tolerance=args.tolerance, cost=not args.no_cost, rounds=args.threads,
                stress=args.threads, total=args.examples,
                bar=ticker.bar, status=ticker.say, levels=True, level=args.level,
                first=args.first, step_seconds=args.step_seconds, database=args.db,
                replay_saved=None if args.db is None else functools.partial(
                    fuzz.replay_saved, system.name, target.factory, shown, args.db,
                    tolerance=args.tolerance))
    except pipeline.Unusable as exc:
        return _unusable(f"target {shown} is unusable: {exc}")
    except SchedcheckInternalError as exc:
        return _unusable(f"internal error -- a bug in schedcheck, not in the target: {exc}")
    except Exception as exc:  # a crash of the checker is never exit 1 ("counterexample")
        import traceback

        where = traceback.extract_tb(exc.__traceback__)[-1]
        return _unusable(f"internal error -- a bug in schedcheck, not in the target: "
                         f"{type(exc).__name__}: {exc} (at {Path(where.filename).name}:"
                         f"{where.lineno}); please report it with this command line")
    if result.seed is None:
        result.seed = seed
    if args.db is not None and not result.ok:
        from schedcheck import saved

        result.notes.append(saved.keep(args.db, system.name, target.factory, result,
                                       tolerance=args.tolerance))
    out = Path(args.out) if args.out else fresh_out_dir(system.name)
    out.mkdir(parents=True, exist_ok=True)
    logged = logs.write(out / "log.txt")
    if logged:
        result.notes.append(f"{logs.count} log records (target and model) are in log.txt; "
                            "the suite provokes executor rejections on purpose")
    again = _again(result, args)
    if result.counterexample is not None:  # each replay.py is run once: never a silence
        say(f"writing the report to {out}/ (each replay.py is run once to verify it)")
    written = write_run(result, out, target_spec=target.spec, cwd=os.getcwd(), command=again)
    if logged:
        written.files.insert(0, out / "log.txt")
    if args.json:
        data = report_json(result, command=again,
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
                cx, target=shown, command=again,
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
    from schedcheck.pipeline import LogCapture
    from schedcheck.report.kill_matrix import kill_matrix_table, kill_matrix_text, zoo_json
    from schedcheck.zoo.run import run_zoo

    terminal = not args.json and sys.stderr.isatty()
    logs = LogCapture()
    try:
        with logs, heartbeat(status_printer(terminal), terminal) as ticker:
            rows = run_zoo(only=args.only or None, system=args.system, examples=args.examples,
                           seed=args.seed, status=ticker.say, each=ticker.detail,
                           shrink=args.shrink, bar=ticker.bar)
    except KeyError as exc:
        return _unusable(str(exc.args[0]) if exc.args else str(exc))
    except SchedcheckInternalError as exc:
        return _unusable(f"internal error -- a bug in schedcheck: {exc}")
    if not rows:
        return _unusable("no mutant is of that system among the ones named; "
                         "`schedcheck zoo --json` lists them all")
    note = None
    if logs.count:
        log_path = Path(args.log) if args.log else _temp_log("schedcheck-zoo-")
        logs.write(log_path)
        note = _log_note(logs, log_path, "mutants and model")
    if args.json:
        sys.stdout.write(json.dumps(zoo_json(rows), indent=2, default=repr) + "\n")
    else:
        console = Console(highlight=False)
        if console.is_terminal:
            console.print(kill_matrix_table(rows))
        else:
            sys.stdout.write(kill_matrix_text(rows) + "\n")
    if note:  # on stderr: the kill matrix (or the JSON) stays the whole of stdout
        sys.stderr.write(f"note: {note}\n")
    return EXIT_OK if all(r.killed for r in rows) else EXIT_FOUND


def _temp_log(prefix: str) -> Path:
    import tempfile

    handle, name = tempfile.mkstemp(prefix=prefix, suffix=".log")
    os.close(handle)
    return Path(name)


def _log_note(logs: Any, where: Path, what: str) -> str:
    return (f"{logs.count} log records ({what}) are in {where}; the suites provoke executor "
            "rejections and raising callbacks on purpose")


def cmd_verify(args: argparse.Namespace) -> int:
    show_progress = not args.json and sys.stderr.isatty()
    say = status_printer(show_progress)
    from schedcheck.verify import run_verify, unusable_execs

    why = unusable_execs(args.exec)  # before anything runs: nothing is lost
    if why:
        return _unusable(why)
    skipped = f" (skipping {', '.join(args.skip)})" if args.skip else ""
    execs = (f" and {len(args.exec)} implementation{'s' if len(args.exec) > 1 else ''} "
             "given by --exec" if args.exec else "")
    say(f"verify: suites, concurrent rounds, z3 lemmas and zoo on the bundled "
        f"implementations{execs}{skipped}; report -> {args.out}/index.html")
    try:
        with heartbeat(say, show_progress) as ticker:
            report = run_verify(Path(args.out), examples=args.examples,
                                zoo_examples=args.zoo_examples, seed=args.seed,
                                status=ticker.say, detail=ticker.detail,
                                progress_factory=ticker.bar,
                                skip=set(args.skip or ()), zoo_only=args.zoo_only,
                                shrink_showcase=not args.no_shrink,
                                execs=[(systems.get(s).name, c) for s, c in args.exec])
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


def positive_float(text: str) -> float:
    """An argparse type: a number of seconds > 0 (``--budget 0`` is an error, exit status 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an int >= 1 (``--examples 0`` is an error, exit status 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


_EXIT_STATUS = ("exit status: 0 every property held, 1 a counterexample was found, "
                "2 the target or the arguments are unusable")
_SEED_HELP = ("fix the random search: the same seed replays the same examples "
              "(default: %s)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="schedcheck", description=(
        "Check a dependency-aware scheduler or a timing wheel against the schedcheck contract."),
        epilog=_EXIT_STATUS)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND")

    check = sub.add_parser(
        "check", help="run the differential suite against TARGET",
        description="Run the differential suite of SYSTEM against TARGET (model and target in "
                    "lockstep, every reply compared), then the scaling clause and, with "
                    "--threads, the concurrent rounds. TARGET is module:attr (importable from "
                    "the current directory) or path/to/file.py:attr.",
        epilog=_EXIT_STATUS)
    check.add_argument("system", choices=systems.names(), help="which contract to check")
    check.add_argument("target", metavar="TARGET", nargs="?",
                       help="module:attr or path/to/file.py:attr, called as the system's "
                            "constructor")
    check.add_argument("--exec", metavar="COMMAND", default=None,
                       help="instead of TARGET: a command that serves the implementation over "
                            "specs/protocol.md (any language; e.g. \"node shim.js wheel.js "
                            "Wheel\")")
    check.add_argument("--budget", type=positive_float, metavar="SECONDS",
                       help="seconds the levels' search may spend, shared by the levels and "
                            f"their keep-going rounds (default: {DEFAULT_BUDGET:g}; the scaling "
                            "clause and --threads come on top)")
    check.add_argument("--first", action="store_true",
                       help="stop at the first counterexample (a quick check on every commit); "
                            "by default the check keeps going to grade every other clause")
    check.add_argument("--examples", type=positive_int, metavar="N",
                       help="examples (machine runs) per search round instead of a time "
                            "budget, >= 1: the verdict then depends on the seed alone")
    check.add_argument("--seed", type=int, metavar="S",
                       help=_SEED_HELP % "a random one, printed in the report")
    check.add_argument("--profile", choices=("ci", "dev", "thorough"),
                       help="Hypothesis profile (default: SCHEDCHECK_PROFILE, else dev)")
    check.add_argument("--threads", action="store_true",
                       help="also run the concurrent rounds (linearizability)")
    check.add_argument("--no-shrink", action="store_true",
                       help="report the first counterexample found, not minimised")
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
    check.add_argument("--memory-limit", type=positive_int, metavar="MIB",
                       default=DEFAULT_MEMORY_MIB,
                       help="how far (MiB) the process that runs the target may grow before "
                            "the call under way counts as runaway memory (default "
                            f"{DEFAULT_MEMORY_MIB})")
    check.add_argument("--no-cost", action="store_true",
                       help="skip the scaling clause (*-COST: a timed run at n and 8n)")
    check.add_argument("--db", metavar="DIR|redis://HOST:PORT/N", default=None,
                       help="an example database (the pytest API saves in "
                            ".hypothesis/examples; fuzz's --db): what it holds for this "
                            "target is replayed first, and a saved failure that fails again "
                            "is reported beside the search's; the search's counterexamples "
                            "are kept there for the next check, test or campaign")
    check.add_argument("--out", metavar="DIR",
                       help="folder for the report: steps, replay.py, pictures, report.json "
                            "(default: ./schedcheck-out-SYSTEM-TIME)")
    check.add_argument("--json", action="store_true", help="print report.json on stdout")
    check.set_defaults(run=cmd_check)

    prove = sub.add_parser(
        "prove", help="the z3 lemmas of specs/", add_help=False,
        description="Prove the z3 lemmas of specs/ and refute the interview texts' common "
                    "mistakes; `schedcheck prove --help` lists its own options.")
    prove.add_argument("rest", nargs=argparse.REMAINDER,
                       help="options of schedcheck.specs.prove (--timeout-ms, --only, --json, "
                            "--plain, --quiet)")
    prove.set_defaults(run=cmd_prove)

    zoo = sub.add_parser(
        "zoo", help="run every catalogued mistake; print the kill matrix",
        description="Run every catalogued mistake (mutant) of the interview texts against the "
                    "check meant to catch it and print the kill matrix: which clause killed "
                    "it, whether that is the expected one, examples and seconds to the kill. "
                    "The log records the mutants provoke go to a log file, named in one line.",
        epilog="exit status: 0 every mutant was killed, 1 a mutant survived, "
               "2 the arguments are unusable")
    zoo.add_argument("--examples", type=positive_int, metavar="N",
                     help="examples per mutant, >= 1 (the search stops at the first kill)")
    zoo.add_argument("--seed", type=int, metavar="S",
                     help=_SEED_HELP % "0, the same kills every run")
    zoo.add_argument("--only", nargs="+", metavar="NAME",
                     help="only these mutants (`schedcheck zoo --json` lists every name)")
    zoo.add_argument("--system", choices=systems.names(), help="only this system's mutants")
    zoo.add_argument("--shrink", action="store_true",
                     help="shrink each kill to a minimal counterexample (slower)")
    zoo.add_argument("--log", metavar="FILE",
                     help="where the log records go (default: a new file in the temporary "
                          "folder)")
    zoo.add_argument("--json", action="store_true", help="print the kill matrix as JSON")
    zoo.set_defaults(run=cmd_zoo)

    verify = sub.add_parser(
        "verify", help="everything on the bundled implementations, "
                       "with an index.html report",
        description="Check the bundled implementations end to end: the differential suites, "
                    "the scaling clauses and the concurrent rounds of every system, the "
                    "exhaustive small concurrent scenarios, the z3 lemmas and the zoo; print a "
                    "report card per system and the kill matrix, and write a report folder "
                    "with index.html. What `scripts/main` runs.",
        epilog="exit status: 0 every clause held, every lemma was proved and every mutant "
               "was killed; 1 otherwise; 2 the arguments are unusable")
    verify.add_argument("--out", metavar="DIR", default="schedcheck-report",
                        help="folder for index.html, report.json, log.txt and one sub-folder "
                             "per run (default: %(default)s)")
    verify.add_argument("--examples", type=positive_int, metavar="N",
                        help="examples per suite, >= 1 (default: the profile's)")
    verify.add_argument("--zoo-examples", type=positive_int, metavar="N", default=None,
                        help="examples per mutant, >= 1")
    verify.add_argument("--seed", type=int, metavar="S",
                        help=_SEED_HELP % "random for the suites, 0 for the zoo")
    verify.add_argument("--skip", nargs="+", choices=("suites", "threads", "prove", "zoo"),
                        help="leave parts out (they are reported as skipped, not passed)")
    verify.add_argument("--no-shrink", action="store_true",
                        help="picture the zoo's first counterexamples as found (faster)")
    verify.add_argument("--zoo-only", nargs="+", metavar="NAME",
                        help="only these zoo entries (the rest are reported as skipped)")
    verify.add_argument("--exec", nargs=2, action="append", default=[],
                        metavar=("SYSTEM", "COMMAND"),
                        help="also check an implementation in another language, started by "
                             "COMMAND and speaking the process protocol (specs/protocol.md), "
                             "as `check SYSTEM --exec COMMAND` does (no thread rounds); "
                             "repeatable")
    verify.add_argument("--json", action="store_true",
                        help="print report.json on stdout instead of the cards")
    verify.set_defaults(run=cmd_verify)
    from schedcheck.fuzz import add_command as add_fuzz

    add_fuzz(sub)  # fuzz: campaigns on many cores and machines (schedcheck.fuzz)
    from schedcheck.practice.commands import add_commands

    add_commands(sub)  # practice, grade
    return parser


def _pin_hash_seed() -> None:
    """Run the command again, once, with ``PYTHONHASHSEED=0`` when str hashes are random: a
    target that walks a set of string ids then behaves the same in the search, in the
    reduction and in each ``replay.py`` written (which runs itself under the same seed)."""
    from schedcheck.report.replay_runtime import current_hash_seed

    if current_hash_seed() is not None or sys.flags.ignore_environment:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-c", "import sys; sys.argv[0] = 'schedcheck'; "
                               "from schedcheck.cli import main; sys.exit(main())",
                               *sys.argv[1:]], {**os.environ, "PYTHONHASHSEED": "0"})


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the command line itself (not a call from Python)
        _pin_hash_seed()
    raw = list(argv) if argv is not None else sys.argv[1:]
    if raw[:1] == ["prove"]:  # every option after `prove` belongs to specs.prove
        return run_prove(raw[1:])
    parser = build_parser()
    args = parser.parse_args(raw)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except KeyboardInterrupt:
        err_console().print("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
