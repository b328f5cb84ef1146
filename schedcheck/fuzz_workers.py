"""The workers of a ``schedcheck fuzz`` campaign: ``python -m schedcheck.fuzz ENGINE --
PYTEST_ARGS`` (:func:`worker_main`). Each engine runs the suite's pytest test of the target
(``schedcheck.pytest_plugin``) with the campaign's database, until a run finds a failure:

* ``check`` -- ``schedcheck check``'s search (``--schedcheck-check-search``), a new seed each
  round; what it finds is kept in the database (``schedcheck.saved``);
* ``hypofuzz`` -- HypoFuzz's coverage-guided worker, in this process, without its hub;
* ``hypothesis`` -- the suite's Hypothesis search again and again.

Each prints a status line now and then (``STATUS_PREFIX key=value ...``), which the campaign
sums (``schedcheck.fuzz.tried_text``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ENGINES", "FOUND", "MODULE", "NOTHING", "STATUS_PREFIX", "STATUS_SECONDS",
           "UNUSABLE", "class_names", "hypofuzz_compat", "suite_node_ids", "worker_main"]

ENGINES = ("check", "hypofuzz", "hypothesis")
#: exit statuses of a pytest run and of a worker
FOUND, NOTHING, UNUSABLE = 1, 0, 2
POLL_SECONDS = 0.25
#: the in-memory module of the pytest plugin's suites: the start of every node id
MODULE = "schedcheck-targets"
#: How often a campaign prints what its workers tried so far (seconds).
STATUS_SECONDS = 2.5
#: The line a worker prints to its log now and then: ``STATUS_PREFIX key=value ...``.
STATUS_PREFIX = "schedcheck-fuzz-status"


def _status_line(**counts: int) -> None:
    sys.stdout.write(STATUS_PREFIX + "".join(f" {k}={v}" for k, v in counts.items()) + "\n")
    sys.stdout.flush()


def class_names(systems: list[str]) -> list[str]:
    """The class name of each target's suite, in order: TestScheduler, TestScheduler2 ..."""
    counts: dict[str, int] = {}
    names = []
    for system in systems:
        counts[system] = counts.get(system, 0) + 1
        names.append(f"Test{system.capitalize()}" + (str(counts[system])
                                                     if counts[system] > 1 else ""))
    return names


def suite_node_ids(args: list[str]) -> list[str]:
    """The node ids of the suites' Hypothesis tests that pytest ``args`` collect."""
    systems = [a.removeprefix("--schedcheck-") for a in args
               if a in ("--schedcheck-scheduler", "--schedcheck-wheel")]
    return [f"{MODULE}::{name}::test_behaves_like_the_model" for name in class_names(systems)]


def hypofuzz_compat() -> None:
    """Let HypoFuzz 25.11 run on a Hypothesis that no longer has the explain phase's
    ``slice_comments`` on a finished test case (HypoFuzz copies them onto the replay of a
    shrunk failure, and without them its worker dies before saving the failure). Adds the
    attribute, empty, to Hypothesis's ``ConjectureResult`` when it is missing."""
    from hypothesis.internal.conjecture.data import ConjectureResult

    if not hasattr(ConjectureResult, "slice_comments"):
        ConjectureResult.slice_comments = {}  # type: ignore[attr-defined]


def _hypofuzz_worker(pytest_args: list[str]) -> int:
    """HypoFuzz's worker on the collected suite tests, in this process, without its hub (which
    takes a worker that has not reported within a minute for one with nothing to do). Exits
    FOUND once a failure is found and its shrunk form is in the database."""
    from hypofuzz import detection
    from hypofuzz.hypofuzz import FuzzWorker

    detection._in_hypofuzz_run = True
    hypofuzz_compat()
    nodeids = suite_node_ids(pytest_args)  # the worker collects them itself
    if not nodeids:
        return UNUSABLE
    state: dict[str, Any] = {
        "hub_state": {"nodeids": nodeids},
        "worker_state": {"nodeids": {}, "current_lifetime": 0.0, "expected_lifetime": 0.0,
                         "valid_nodeids": []},
    }
    worker = FuzzWorker(pytest_args=pytest_args, shared_state=state)

    def watch() -> None:
        reported = time.monotonic()
        while True:
            time.sleep(POLL_SECONDS)
            if time.monotonic() - reported >= STATUS_SECONDS / 2:
                reported = time.monotonic()
                _hypofuzz_status(list(worker.targets.values()))
            for target in list(worker.targets.values()):
                # fetch() waits for HypoFuzz's background writes
                if target.has_found_failure and list(
                        target.database._db.fetch(target.database_key)):
                    sys.stdout.write(f"failure found and saved: {target.nodeid}\n")
                    sys.stdout.flush()
                    os._exit(FOUND)

    threading.Thread(target=watch, daemon=True).start()
    worker.start()  # runs until the process exits
    return NOTHING


def _hypofuzz_status(targets: list[Any]) -> None:
    """One status line: the inputs HypoFuzz ran, its distinct behaviours and its coverage
    fingerprints, summed over the targets (its provider's counters; skipped when this
    HypoFuzz lacks them)."""
    examples = behaviours = fingerprints = 0
    for target in targets:
        provider = getattr(target, "provider", None)
        corpus = getattr(provider, "corpus", None)
        try:
            examples += int(getattr(provider, "ninputs", 0) or 0)
            if corpus is not None:
                behaviours += len(corpus.behavior_counts)
                fingerprints += len(corpus.fingerprints)
        except (AttributeError, TypeError):
            continue
    _status_line(examples=examples, behaviours=behaviours, fingerprints=fingerprints)


def _rounds(pytest_args: list[str], more: Callable[[], list[str]],
            env: dict[str, str] | None = None) -> int:
    """The suite under pytest round after round (``pytest_args`` and ``more()`` for each round)
    until a round fails: FOUND for a failure, UNUSABLE when pytest itself could not run."""
    runs = 0
    while True:
        code = subprocess.run([sys.executable, "-m", "pytest", *pytest_args, *more()], env=env,
                              check=False).returncode
        runs += 1
        _status_line(runs=runs)
        if code != NOTHING:
            return FOUND if code == FOUND else UNUSABLE


def _hypothesis_worker(pytest_args: list[str]) -> int:
    """The suite's own Hypothesis search, each round replaying the database first, then
    generating new examples (profile ``thorough`` unless ``SCHEDCHECK_PROFILE`` says)."""
    env = {**os.environ, "SCHEDCHECK_PROFILE": os.environ.get("SCHEDCHECK_PROFILE", "thorough")}
    return _rounds(pytest_args, list, env)


def _check_worker(pytest_args: list[str]) -> int:
    """``schedcheck check``'s search (``--schedcheck-check-search``), each round from a new seed:
    a round replays what the database keeps first, and keeps there what it finds
    (``schedcheck.saved``)."""
    import random

    return _rounds(pytest_args, lambda: ["--schedcheck-check-search",
                                         f"--hypothesis-seed={random.randrange(1 << 32)}"])


def worker_main(argv: Sequence[str]) -> int:
    """``python -m schedcheck.fuzz ENGINE -- PYTEST_ARGS``: one worker of a campaign."""
    args = list(argv)
    if len(args) < 2 or args[0] not in ENGINES or args[1] != "--":
        sys.stderr.write(f"usage: python -m schedcheck.fuzz {{{','.join(ENGINES)}}} -- "
                         "PYTEST_ARGS\n")
        return UNUSABLE
    run = {"check": _check_worker, "hypofuzz": _hypofuzz_worker,
           "hypothesis": _hypothesis_worker}[args[0]]
    return run(args[2:])
