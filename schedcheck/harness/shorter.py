"""A shorter counterexample than delta debugging can reach: the search run again with few steps.

Delta debugging (``minimize``) removes steps and simplifies arguments one at a time. Some
failing runs cannot get shorter that way: each step depends on the ones before it in a way
that no single change keeps -- a wheel that lags behind ``now`` reaches its broken bucket only
after a dozen advances, and a deadline written for that cursor misses when one advance goes; a
callback names the generation that five resubmits produced. A short program for the same
mistake usually exists all the same, and a search that may only take a few steps finds it
quickly when it does.

So when a reduced counterexample is still longer than :data:`SHORT` steps, the same machine
(the same target, model and checks) is searched again with at most 2, then 4, then 8 rule
steps per example, :data:`EXAMPLES` examples each, from a fixed seed, for at most
:data:`BUDGET_SECONDS`. The first run that breaks the *same* clause is reduced in turn, and the
shorter of the two counterexamples is the one shown. A failure of another clause found on the
way is not used: the counterexample must stay the one its clause reported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import hypothesis

from schedcheck import profiles
from schedcheck.harness import common
from schedcheck.harness.common import OutOfBudget, RunContext, SuiteMachine
from schedcheck.harness.program import Op
from schedcheck.harness.result import Counterexample, RunResult

__all__ = ["BUDGET_SECONDS", "EXAMPLES", "SHORT", "Found", "search_shorter"]

#: A reduced counterexample longer than this many steps is searched again.
SHORT = 6
#: The rule steps per example of each search, in order.
STEP_COUNTS = (2, 4, 8)
#: Examples per search.
EXAMPLES = 150
#: Seconds all the searches for one counterexample may take together.
BUDGET_SECONDS = 10.0


@dataclass
class Found:
    """A run of the shorter search that broke the clause: its counterexample and program."""

    counterexample: Counterexample
    program: list[Op]
    steps: int  #: the rule steps per example of the search that found it


def search_shorter(machine_class: type[SuiteMachine], clause: str, *, seed: int | None,
                   budget_seconds: float = BUDGET_SECONDS) -> Found | None:
    """The first run of a search with few steps per example that breaks ``clause`` on
    ``machine_class`` (see the module docstring), or None within the budget."""
    deadline = time.monotonic() + budget_seconds
    for steps in STEP_COUNTS:
        if time.monotonic() >= deadline:
            return None
        result = RunResult.fresh(machine_class.system, "")
        ctx = RunContext(result, None, deadline)
        settings = hypothesis.settings(
            profiles.suite_settings(), max_examples=EXAMPLES, stateful_step_count=steps,
            phases=[hypothesis.Phase.generate], database=None, deadline=None)
        try:
            common.run_suite(machine_class, result, settings, seed=(seed or 0) * 31 + steps,
                             context=ctx)
        except OutOfBudget:
            return None
        cx = result.counterexample
        if cx is not None and cx.clause == clause:
            program = ctx.final_program or ctx.last_program
            if program:
                return Found(cx, program, steps)
    return None
