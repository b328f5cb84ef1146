"""The "search again" command printed with every counterexample repeats every option that
changes what the check searches: a race found by --threads is searched again with --threads."""

from __future__ import annotations

from schedcheck.cli import _again, build_parser
from schedcheck.harness.result import RunResult


def test_search_again_repeats_the_options_of_the_run() -> None:
    args = build_parser().parse_args(
        ["check", "scheduler", "mine.py:Sched", "--threads", "--examples", "300",
         "--step-seconds", "2", "--no-shrink", "--no-cost", "--seed", "7"])
    result = RunResult.fresh("scheduler", "mine.py:Sched")
    result.seed = 7
    again = _again(result, args)
    assert again.startswith("schedcheck check scheduler mine.py:Sched --seed 7"), again
    for option in ("--threads", "--examples 300", "--step-seconds 2", "--no-shrink",
                   "--no-cost"):
        assert option in again, (option, again)
    plain = _again(result, build_parser().parse_args(["check", "scheduler", "mine.py:Sched"]))
    assert plain == "schedcheck check scheduler mine.py:Sched --seed 7", plain
