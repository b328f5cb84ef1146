"""Campaigns: a suite searched for a long time, by many processes and machines, sharing what
they find through Hypothesis's example database.

::

    schedcheck fuzz scheduler mine.py:Scheduler --workers 2 --budget 3600
    schedcheck fuzz wheel timers:Wheel --redis redis://cache.internal:6379/0 --workers 8

A campaign (:func:`run_campaign`) has three parts:

1. **replay first**: the suite runs only the examples already saved for this target (pytest with
   ``--schedcheck-replay-only``). A failure that another worker or machine found is reported
   at once, and the campaign stops there;
2. **the search**: ``workers`` processes (``schedcheck.fuzz_workers``, ``python -m
   schedcheck.fuzz``) search until one finds a failure or the budget runs out. The engine
   ``check`` (the default) runs ``schedcheck check``'s search round after round from new
   seeds, keeping its counterexamples as reduced programs (``schedcheck.saved``); ``hypofuzz``
   runs HypoFuzz's coverage-guided worker on the suite's state-machine test; ``hypothesis``
   runs the suite over and over with Hypothesis's own generator (profile ``thorough`` unless
   ``SCHEDCHECK_PROFILE`` says otherwise). All save in the shared database under the key the
   pytest API uses (``schedcheck.saved.database_key``), so a plain
   ``pytest --schedcheck-scheduler TARGET --schedcheck-db DB`` replays them too;
3. **the report**: the replay again, now writing steps, ``replay.py``, pictures and
   ``report.json`` (under ``OUT/report``) for what was found.

The database is a directory (``DirectoryBasedExampleDatabase``; default
``.hypothesis/examples``, Hypothesis's own, so plain ``pytest`` in the same folder replays what
a campaign found) or, for many machines, a Redis server (``hypothesis.extra.redis``). The logs
of the workers go to ``OUT/worker-N.log``. Exit status: 0 nothing found, 1 a counterexample
(its report written), 2 the target, the arguments or the database are unusable.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedcheck.fuzz_workers import (
    ENGINES,
    FOUND,
    NOTHING,
    POLL_SECONDS,
    STATUS_PREFIX,
    STATUS_SECONDS,
    UNUSABLE,
)
from schedcheck.saved import REDIS_SCHEMES, open_database

__all__ = [
    "ENGINES",
    "Campaign",
    "add_command",
    "default_engine",
    "load_database_profile",
    "open_database",
    "replay_saved",
    "run_campaign",
]

DEFAULT_DB = ".hypothesis/examples"


# ---------------------------------------------------------------------------------------------
# The database
# ---------------------------------------------------------------------------------------------


def load_database_profile(where: str | None, *, replay_only: bool = False) -> None:
    """Load a Hypothesis profile over the current one with the database at ``where`` and, with
    ``replay_only``, no generation of new examples (only the saved ones, then shrinking)."""
    import hypothesis

    changes: dict[str, Any] = {}
    if where:
        changes["database"] = open_database(where)
    if replay_only:
        keep = (hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.shrink)
        changes["phases"] = [p for p in hypothesis.settings().phases if p in keep]
    hypothesis.settings.register_profile("schedcheck-campaign",
                                         parent=hypothesis.settings(), **changes)
    hypothesis.settings.load_profile("schedcheck-campaign")


# ---------------------------------------------------------------------------------------------
# The campaign
# ---------------------------------------------------------------------------------------------


def default_engine() -> str:
    """``check``: the search of ``schedcheck check`` (its phases, both levels), from a new
    seed each round."""
    return "check"


@dataclass(frozen=True)
class Campaign:
    system: str  #: "scheduler" or "wheel"
    target: str  #: as given: module:attr or path/to/file.py:attr
    database: str = DEFAULT_DB  #: a directory, or a redis:// URL
    workers: int = 1
    budget: float | None = None  #: seconds of search; None: until a failure is found
    tolerance: bool = False
    engine: str = "check"
    out: Path = Path("schedcheck-fuzz")

    def pytest_args(self) -> list[str]:
        """What every pytest run of the campaign is given (workers, replays)."""
        return ["-p", "no:cacheprovider", f"--schedcheck-{self.system}", self.target,
                "--schedcheck-db", self.database, "-k", "test_behaves_like_the_model",
                *(["--schedcheck-tolerance"] if self.tolerance else [])]


def replay(campaign: Campaign, folder: str) -> tuple[int, str]:
    """The suite on the saved examples only: (FOUND, NOTHING -- none saved, or none fails any
    more -- or UNUSABLE; pytest's report). A counterexample's files go under
    ``out/folder``; the report is also kept in ``out/folder.log``."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *campaign.pytest_args(), "--schedcheck-replay-only",
         "-q", "--hypothesis-show-statistics", f"--basetemp={campaign.out / folder}"],
        capture_output=True, text=True, check=False)
    text = run.stdout + run.stderr
    (campaign.out / f"{folder}.log").write_text(text, encoding="utf-8")
    return (run.returncode if run.returncode in (FOUND, NOTHING) else UNUSABLE), text


def saved_failure(campaign: Campaign) -> Any:
    """Replay, in this process, what the database saved for the campaign's target (the key
    of :func:`schedcheck.pytest_api.suite_machine`), reduced as ``schedcheck check`` reduces;
    the RunResult, or None when nothing saved fails."""
    from schedcheck.targets import load_target

    if campaign.target.startswith("exec:"):  # an implementation in another process
        from schedcheck.targets.exec import exec_factory

        factory: Any = exec_factory(campaign.target[len("exec:"):], campaign.system)
    else:
        factory = load_target(campaign.target).factory
    return replay_saved(campaign.system, factory, campaign.target, campaign.database,
                        tolerance=campaign.tolerance)


def replay_saved(system: str, factory: Any, name: str, database: str, *,
                 tolerance: bool = False) -> Any:
    """Replay, in this process, what ``database`` saved for ``factory`` under the key every
    door shares (:func:`schedcheck.pytest_api.suite_machine`), reduced as ``schedcheck
    check`` reduces, then (when none of that fails) the programs check's search kept there
    (``schedcheck.saved``); the RunResult, or None when nothing saved fails."""
    import unittest

    import hypothesis
    from hypothesis.statistics import collector

    from schedcheck import pytest_api
    from schedcheck.harness.common import RunContext, run_suite
    from schedcheck.harness.minimize import reduce_found
    from schedcheck.harness.result import RunResult

    result = RunResult.fresh(system, name)
    machine = pytest_api.suite_machine(system, factory, name=name, tolerance=tolerance,
                                       result=result)
    keep = (hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.shrink)
    chosen = hypothesis.settings(pytest_api.suite_settings(), phases=keep,
                                 database=open_database(database))
    ctx = RunContext(result)
    try:
        run_suite(machine, result, chosen, keep_database=True, context=ctx)
    except unittest.SkipTest:  # nothing saved for this target
        result.counterexample = None
    if result.counterexample is None:  # then what check's search kept there
        from schedcheck import saved

        return saved.replay(chosen.database, system, factory, name, tolerance=tolerance)
    with collector.with_value(None):
        reduce_found(machine, result, ctx.final_program or ctx.last_program)
    return result


def write_report(campaign: Campaign, *, say: Callable[[str], None] = print) -> int:
    """``schedcheck check``'s report of the saved failure under ``campaign.out``: the card,
    each counterexample's steps, a verified ``replay.py``, the pictures, ``index.html`` and
    ``report.json``; printed as check prints it. FOUND, or NOTHING when nothing saved fails."""
    from schedcheck.report.card import card_text
    from schedcheck.report.steps import steps_text
    from schedcheck.report.writer import write_run

    result = saved_failure(campaign)
    if result is None:
        return NOTHING
    where = (f"--redis {campaign.database}" if campaign.database.startswith(REDIS_SCHEMES)
             else f"--db {campaign.database}")
    again = f"schedcheck fuzz {campaign.system} {campaign.target} {where}"
    written = write_run(result, campaign.out, target_spec=campaign.target, cwd=os.getcwd(),
                        command=again)
    sys.stdout.write(card_text(result) + "\n")
    for cx in result.all_counterexamples():
        sys.stdout.write("\n" + steps_text(cx, target=campaign.target) + "\n")
    sys.stdout.write(f"\nwritten to {campaign.out}/: "
                     + ", ".join(written.rel(f) for f in written.files) + "\n")
    say(f"the report: {campaign.out / 'index.html'}")
    return FOUND




def worker_status(log: Path) -> dict[str, int]:
    """The counts of the last status line in a worker's log ({} when there is none yet)."""
    try:
        with open(log, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 16_384))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return {}
    lines = [ln for ln in tail.splitlines() if ln.startswith(STATUS_PREFIX)]
    if not lines:
        return {}
    counts: dict[str, int] = {}
    for field in lines[-1].split()[1:]:
        key, _, value = field.partition("=")
        if value.isdigit():
            counts[key] = int(value)
    return counts


def tried_text(campaign: Campaign) -> str:
    """What the workers report having tried, summed: examples, distinct programs (HypoFuzz's
    behaviours) and coverage (HypoFuzz's branch fingerprints); suite runs for the hypothesis
    engine."""
    total: dict[str, int] = {}
    for log in sorted(campaign.out.glob("worker-*.log")):
        for key, value in worker_status(log).items():
            total[key] = total.get(key, 0) + value
    if not total:
        return "no worker has reported yet"
    names = {"examples": "examples", "behaviours": "distinct behaviours (programs)",
             "fingerprints": "coverage fingerprints", "runs": "suite runs"}
    text = ", ".join(f"{total[k]:,} {label}" for k, label in names.items() if total.get(k))
    if "behaviours" in total and not (total["behaviours"] or total["fingerprints"]):
        text = (text or "0 examples") + " (HypoFuzz has reported no coverage yet)"
    return text or "nothing yet"


def _stop(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run_campaign(campaign: Campaign, *, say: Callable[[str], None] = print) -> int:
    """Replay first, search, report (see the module docstring); the exit status."""
    campaign.out.mkdir(parents=True, exist_ok=True)
    say(f"campaign: {campaign.system} {campaign.target}, database {campaign.database}, "
        f"{campaign.workers} {campaign.engine} worker(s), budget "
        + (f"{campaign.budget:g} s" if campaign.budget is not None else "until a failure"))
    say("replaying the examples the database already holds for this target")
    first, text = replay(campaign, "report")
    if first == FOUND:
        say("the database already holds a failure of this target (found by another worker or "
            f"machine): replayed first; no search needed (pytest's log: "
            f"{campaign.out / 'report.log'})")
        return _report(campaign, say)
    if first == UNUSABLE:
        sys.stdout.write(text)
        say(f"the replay could not run (its report: {campaign.out / 'report.log'})")
        return UNUSABLE
    procs: list[subprocess.Popen[bytes]] = []
    started = time.monotonic()
    found = False
    try:
        for n in range(campaign.workers):
            log = open(campaign.out / f"worker-{n}.log", "wb")  # noqa: SIM115 (kept by Popen)
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "schedcheck.fuzz", campaign.engine, "--",
                 *campaign.pytest_args()],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
            log.close()
        say(f"searching with {campaign.workers} {campaign.engine} worker(s); what they tried "
            f"comes every {STATUS_SECONDS:g} s (their logs: {campaign.out}/worker-*.log)")
        last_status = started
        while True:
            codes = [p.poll() for p in procs]
            if FOUND in codes:
                found = True
                break
            if all(c is not None for c in codes):
                break
            if campaign.budget is not None and time.monotonic() - started > campaign.budget:
                break
            time.sleep(POLL_SECONDS)
            if time.monotonic() - last_status >= STATUS_SECONDS:
                last_status = time.monotonic()
                say(f"searching: {last_status - started:.0f} s"
                    + (f" of {campaign.budget:g} s" if campaign.budget is not None else "")
                    + f", {campaign.workers} worker(s): {tried_text(campaign)}")
    except KeyboardInterrupt:
        say("interrupted: stopping the workers, then the report of what was saved")
    finally:
        _stop(procs)
    codes = [p.returncode for p in procs]
    seconds = time.monotonic() - started
    if found:
        say(f"a worker found a failure after {seconds:.0f} s; its report:")
    elif any(c not in (FOUND, NOTHING, -signal.SIGTERM, -signal.SIGKILL) for c in codes):
        say(f"a worker stopped with status {codes}; see {campaign.out}/worker-*.log")
    else:
        say(f"no failure found in {seconds:.0f} s; tried {tried_text(campaign)}")
    say("the report: replaying what was saved")
    status, text = replay(campaign, "report")
    if status == FOUND:
        return _report(campaign, say)
    if status == UNUSABLE:
        sys.stdout.write(text)
    return status


def _report(campaign: Campaign, say: Callable[[str], None]) -> int:
    """check's report of the saved failure; FOUND even when the replay in this process does
    not fail again (a flaky target: pytest's log then has what it saw)."""
    if write_report(campaign, say=say) == NOTHING:
        say("the saved failure did not fail again when replayed for the report (a flaky "
            f"target?); pytest's log of the replay that failed: {campaign.out / 'report.log'}")
    return FOUND


# ---------------------------------------------------------------------------------------------
# schedcheck fuzz
# ---------------------------------------------------------------------------------------------


def _positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r}: give a number above 0")
        return value

    return parse


def cmd_fuzz(args: argparse.Namespace) -> int:
    from schedcheck import pipeline
    from schedcheck.targets import TargetError, load_target

    def unusable(message: str) -> int:
        sys.stderr.write(f"schedcheck: {message}\n")
        return UNUSABLE

    if args.tolerance and args.system != "wheel":
        return unusable("--tolerance applies to wheels only")
    if (args.exec is None) == (args.target is None):
        return unusable("give either TARGET or --exec 'COMMAND', not "
                        + ("both" if args.exec else "neither"))
    try:
        if args.exec is not None:  # a child process speaking specs/protocol.md
            from schedcheck.targets.exec import close_all, exec_factory, exec_spec

            factory: Any = exec_factory(args.exec, args.system)
            args.target = exec_spec(args.exec)
        else:
            factory = load_target(args.target).factory
    except TargetError as exc:
        return unusable(str(exc))
    why = pipeline.probe_construct(args.system, factory)
    if args.exec is not None:
        close_all()  # the workers start their own
    if why is not None:
        return unusable(f"target {args.target!r} is unusable: {why}")
    database = args.redis or args.db
    try:
        open_database(database)
    except ValueError as exc:
        return unusable(str(exc))
    engine = args.engine or default_engine()
    if engine == "hypofuzz" and importlib.util.find_spec("hypofuzz") is None:
        return unusable("the hypofuzz engine is not installed: pip install 'schedcheck[fuzz]', "
                        "or choose --engine hypothesis")
    campaign = Campaign(system=args.system, target=args.target, database=database,
                        workers=args.workers, budget=args.budget, tolerance=args.tolerance,
                        engine=engine, out=Path(args.out))

    def write(line: str) -> None:
        sys.stderr.write(f"{line}\n")
        sys.stderr.flush()

    from schedcheck.progress import Ticker

    with Ticker(write) as ticker:  # the replays run pytest: a line at least every 3 s
        return run_campaign(campaign, say=ticker.say)


def add_command(sub: Any) -> None:
    """Add ``fuzz`` to the ``schedcheck`` subparsers ``sub``."""
    fuzz = sub.add_parser(
        "fuzz", help="a long search of one target by many processes, sharing an example "
                     "database (a directory, or Redis for many machines)",
        description="Replays what the database already holds for TARGET, then searches with "
                    "WORKERS processes until one finds a counterexample or the budget runs "
                    "out, then writes the report of what was found. TARGET is module:attr or "
                    "path/to/file.py:attr.",
        epilog="exit status: 0 nothing found, 1 a counterexample (report under --out), "
               "2 the target, the arguments or the database are unusable")
    fuzz.add_argument("system", choices=("scheduler", "wheel"), help="which contract to check")
    fuzz.add_argument("target", metavar="TARGET", nargs="?",
                      help="module:attribute or path/to/file.py:attribute")
    fuzz.add_argument("--exec", metavar="COMMAND", default=None,
                      help="instead of TARGET: a command serving the implementation over "
                           "specs/protocol.md (any language)")
    fuzz.add_argument("--workers", type=_positive(int), default=1, metavar="N",
                      help="search processes on this machine (default: 1)")
    fuzz.add_argument("--db", default=DEFAULT_DB, metavar="DIR",
                      help=f"the example database, a directory (default: {DEFAULT_DB}, "
                           "Hypothesis's own, which plain pytest here replays)")
    fuzz.add_argument("--redis", metavar="URL",
                      help="share the database between machines: redis://HOST:PORT/N "
                           "(replaces --db)")
    fuzz.add_argument("--budget", type=_positive(float), metavar="SECONDS",
                      help="stop searching after this long (default: at the first failure)")
    fuzz.add_argument("--engine", choices=ENGINES,
                      help="check (the default: check's search, its phases and both levels, "
                           "round after round from new seeds), hypofuzz (coverage-guided "
                           "Hypothesis, pip install 'schedcheck[fuzz]') or hypothesis (the "
                           "suite's plain Hypothesis search again and again)")
    fuzz.add_argument("--tolerance", action="store_true",
                      help="wheels: check only never early/twice/after cancel/lost")
    fuzz.add_argument("--out", default="schedcheck-fuzz", metavar="DIR",
                      help="folder for the workers' logs and the report "
                           "(default: ./schedcheck-fuzz)")
    fuzz.set_defaults(run=cmd_fuzz)


if __name__ == "__main__":  # a worker of a campaign (``schedcheck.fuzz_workers``)
    from schedcheck.fuzz_workers import worker_main

    sys.exit(worker_main(sys.argv[1:]))
