"""The budgeted search behind ``schedcheck check``: phases, swarm testing, then minimisation.

Instead of one Hypothesis run of a fixed number of examples, :func:`search` runs the suite's
machine in short *chunks* (a few examples each, each with its own seed derived from the
run's seed) until a time budget or an example budget is spent, or the first counterexample.
The chunks cycle through the phases, one round after another:

* **directed** -- short programs (:data:`SHORT_STEPS` steps) from a prepared starting state:
  for the scheduler each classic adversarial scenario of ``scheduler.scenarios`` in turn (the
  fixture builds the state; the program goes on from there), then short programs from the
  usual starts; for the wheel short programs from every drawn configuration;
* **swarm** -- each example enables a random subset of the rules (drawn at its start; every
  rule gets a precondition consulting it), so that rare interleavings of a few operations are
  not drowned by the common ones (Groce et al., "Swarm testing", ISSTA 2012);
* **long** -- long random programs (:data:`LONG_STEPS` steps) with every rule;
* **shapes** (the scheduler) -- the graphs real code meets (``scheduler.shapes``): shuffled
  submission orders, cycles closed behind a dependent or after start, deep chains, wide
  fan-in and fan-out, large random DAGs; each shape small first, then large (a chain of
  2,000 tasks, 500 dependents, 300 tasks), followed by a few rule steps.

The machines score rare states with ``hypothesis.target`` (resubmits, late and duplicate
callbacks, BLOCKED tasks; full wheels, long stalls, late cancels). A chunk runs Hypothesis's
generate phase only: its target phase (hill climbing on those scores) took about a third
of a wheel check's time (an interview answer's check: 14.3 s with it, 10.3 s without) and
found nothing the rules that build such states directly (``schedule_burst`` fills a wheel,
``long_pause`` stalls it) do not; the pytest API's own Hypothesis run keeps it. Hypothesis
does not shrink: the first failing run's atomic program (``program.py``) is reduced by delta
debugging (``minimize.py``), which replays model and target with steps and tasks removed.

The same seed and budget give the same chunks in the same order; a time budget decides only
how many chunks run.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from dataclasses import dataclass
from typing import Any

import hypothesis
from hypothesis import strategies as st
from hypothesis.stateful import initialize

from schedcheck import profiles
from schedcheck.harness import common, guard
from schedcheck.harness.common import OutOfBudget, Progress, RunContext, SuiteMachine
from schedcheck.harness.result import RunResult

__all__ = ["DEFAULT_BUDGET", "LONG_STEPS", "SHORT_STEPS", "Chunk", "explore", "plan", "run_phases",
           "scaled", "search", "swarm_machine", "weight"]

#: Seconds one search spends by default (it stops earlier at a counterexample).
DEFAULT_BUDGET = 25.0
#: The least a search is given (a keep-going round late in a level's budget still runs chunks).
MIN_BUDGET = 1.0
SHORT_STEPS = 6
SWARM_STEPS = 30
LONG_STEPS = 100
#: Rule steps after a large shape (each compares the states of hundreds of tasks).
SHAPE_STEPS = 2
#: The machines one chunk builds, per example it plays: in a keep-going round most examples of
#: some chunks end at a clause already set aside (rejected), and Hypothesis would otherwise
#: draw up to a thousand in their place -- a shape of hundreds of tasks each time.
REJECTED_PER_EXAMPLE = 10
_RULE_MARKER = "hypothesis_stateful_rule"


@dataclass(frozen=True)
class Chunk:
    """One Hypothesis run of the search: ``examples`` programs of up to ``steps`` steps."""

    phase: str  #: "directed", "swarm", "long" or "shapes"
    examples: int
    steps: int
    start_state: str | None = None  #: a classic scenario every program starts from
    large: bool = False  #: a large graph shape (seconds an example)


def plan(system: str, *, scenarios: bool = True) -> list[Chunk]:
    """The chunks of one round, in order (the search repeats rounds with fresh seeds);
    ``scenarios=False`` for a machine that cannot start from a scenario (the core level)."""
    chunks: list[Chunk] = []
    if system == "scheduler" and scenarios:
        from schedcheck.harness.scheduler.scenarios import SCENARIOS

        chunks += [Chunk("directed", 4, SHORT_STEPS, name) for name in SCENARIOS]
        chunks.append(Chunk("directed", 20, SHORT_STEPS))
    else:
        # 6 steps, not 20: 20-step programs found the zoo's wheel mistakes in fewer steps in
        # all (seeds 0-4: median 97 against 226) but minimised to up to 12 steps, not 8
        chunks.append(Chunk("directed", 20, SHORT_STEPS))
    chunks.append(Chunk("swarm", 25, SWARM_STEPS))
    chunks.append(Chunk("long", 8, LONG_STEPS))
    if system == "scheduler" and scenarios:
        # last in the round, so that the chunks before them keep their seeds; small first
        from schedcheck.harness.scheduler import shapes
        from schedcheck.harness.scheduler.scenarios import DIRECTED_ONLY

        chunks += _shape_chunks([s for s in shapes.SHAPES.values() if not s.late])
        # later additions come last too, for the same reason
        chunks += [Chunk("directed", 4, SHORT_STEPS, name) for name in DIRECTED_ONLY]
        chunks += _shape_chunks([s for s in shapes.SHAPES.values() if s.late])
    return chunks


def _shape_chunks(group: list[Any]) -> list[Chunk]:
    """The shapes of ``group`` (``scheduler.shapes.Shape``): each small, then each large."""
    from schedcheck.harness.scheduler import shapes

    return ([Chunk("shapes", s.small_examples, SHORT_STEPS, shapes.start_state(s.name, s.small))
             for s in group]
            + [Chunk("shapes", 1, SHAPE_STEPS, shapes.start_state(s.name, s.large), large=True)
               for s in group])


def weight(chunk: Chunk) -> int:
    """What a chunk costs in seed-only mode, in rule steps: its examples times its steps, and
    for a graph shape the calls it makes (about one per task) on top."""
    extra = 0
    if chunk.phase == "shapes" and chunk.start_state is not None:
        extra = int(chunk.start_state.rsplit(":", 1)[-1])
    return chunk.examples * (chunk.steps + extra)


def scaled(chunks: list[Chunk], steps: int) -> list[Chunk]:
    """The round of a search counted in examples (seed-only mode), given ``steps`` (the
    examples times the profile's steps per example): as it is when they cover a whole
    round, else every chunk shrunk in proportion (at least one example each) -- without the
    large shapes, which come only with a whole round -- so a small budget still visits every
    phase."""
    total = sum(weight(c) for c in chunks)
    if steps >= total:
        return chunks
    small = [c for c in chunks if not c.large]
    share = steps / sum(weight(c) for c in small)
    return [dataclasses.replace(c, examples=max(1, round(c.examples * share)))
            if share < 1 else c for c in small]


def swarm_machine(base: type[SuiteMachine]) -> type[SuiteMachine]:
    """``base`` with swarm testing: an initialize step draws the enabled rules (always one
    that has no precondition of its own, so some rule can run), and every rule gets a
    precondition that it is enabled."""
    rules: dict[str, Any] = {}
    for name, member in inspect.getmembers(base):
        rule = getattr(member, _RULE_MARKER, None)
        if rule is not None:
            rules[name] = (member, rule)
    names = sorted(rules)
    # a rule that can always run: no precondition, and no bundle it draws from (an empty
    # bundle makes Hypothesis skip the rule)
    free = [n for n in names
            if not rules[n][1].preconditions and not rules[n][1].bundles] or names
    namespace: dict[str, Any] = {"swarm_rules": frozenset(names),
                                 "__module__": base.__module__, "__qualname__": base.__qualname__}
    for name, (member, rule) in rules.items():
        def enabled(self: Any, _name: str = name) -> bool:
            return _name in self.swarm_rules

        def proxy(self: Any, *args: Any, _member: Any = member, **kwargs: Any) -> Any:
            return _member(self, *args, **kwargs)

        setattr(proxy, _RULE_MARKER,
                dataclasses.replace(rule, preconditions=(*rule.preconditions, enabled)))
        namespace[name] = proxy

    def choose_rules(self: Any, chosen: frozenset[str], keep: str) -> None:
        self.swarm_rules = frozenset(chosen) | {keep}
        hypothesis.event(f"swarm: {len(self.swarm_rules)} of {len(names)} rules")

    namespace["choose_rules"] = initialize(chosen=st.frozensets(st.sampled_from(names)),
                                           keep=st.sampled_from(free))(choose_rules)
    return type(base.__name__, (base,), namespace)


def _variant(base: type[SuiteMachine], chunk: Chunk,
             swarm: type[SuiteMachine] | None, salt: int = 0) -> type[SuiteMachine]:
    if chunk.phase == "swarm" and swarm is not None:
        return swarm
    if chunk.start_state is not None:
        return type(base.__name__, (base,), {"start_state": chunk.start_state,
                                             "shape_salt": salt,
                                             "__module__": base.__module__,
                                             "__qualname__": base.__qualname__})
    return base


def search(
    machine: type[SuiteMachine],
    result: RunResult,
    *,
    budget: float | None = DEFAULT_BUDGET,
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    progress: Progress | None = None,
    minimize: bool = True,
) -> RunResult:
    """Search ``machine`` (a suite machine bound to a target, e.g. ``System.make_machine``)
    until ``budget`` seconds or ``examples`` examples are spent (whichever comes first; None:
    no such limit, but at least one must be given) or a counterexample is found; fill and
    return ``result``. ``minimize=False`` keeps the first failing run as found."""
    if budget is None and examples is None:
        raise ValueError("search needs a time budget or an example budget (or both)")
    base = profiles.suite_settings(profile=profile)
    seed = 0 if seed is None else seed
    with guard.no_logging():
        return _search(machine, result, base=base, budget=budget, examples=examples,
                       seed=seed, progress=progress, minimize=minimize)


def explore(machine: type[SuiteMachine], result: RunResult, *, budget: float | None,
            examples: int | None, seed: int | None, profile: str | None,
            progress: Progress | None, shrink: bool, phased: bool = False) -> RunResult | None:
    """The search of ``machine`` through the phases (:func:`run_phases`; ``shrink``: minimise
    the counterexample by delta debugging) when a time ``budget`` is given, or ``examples``
    with ``phased`` (seed-only mode, as ``schedcheck check --examples N`` runs it), else None:
    the caller runs its fixed number of examples as one Hypothesis run (the suites' own
    functions, called with ``examples`` alone)."""
    if budget is None and not (phased and examples is not None):
        return None
    return run_phases(machine, result, budget=budget, examples=examples, seed=seed,
                      profile=profile, progress=progress, minimize=shrink)


def run_phases(machine: type[SuiteMachine], result: RunResult, *,
               examples: int | None = None, budget: float | None = None,
               seed: int | None = None, profile: str | None = None,
               progress: Progress | None = None, minimize: bool = True) -> RunResult:
    """The one search every mode runs: the phases of :func:`plan` (directed scenarios, swarm,
    long, shapes) on ``machine``, chunk after chunk, until ``examples`` examples (seed-only
    mode: the verdict is fixed by ``seed``) or ``budget`` seconds are spent, or the first
    counterexample, reduced unless ``minimize=False``. The same ``seed`` plays the same chunks
    in the same order in both modes, so a counterexample found within N examples is found
    again with ``examples=N``."""
    return search(machine, result, budget=None if budget is None else max(budget, MIN_BUDGET),
                  examples=examples, seed=seed, profile=profile, progress=progress,
                  minimize=minimize)


def _search(machine: type[SuiteMachine], result: RunResult, *, base: hypothesis.settings,
            budget: float | None, examples: int | None, seed: int,
            progress: Progress | None, minimize: bool) -> RunResult:
    clock = time.monotonic
    rounds = plan(machine.system, scenarios=hasattr(machine, "start_state"))
    # seed-only mode: N examples buy N times the profile's steps per example, spent on the
    # phases' chunks (short programs cost few steps, a large shape one step per task)
    step_budget = None
    if budget is None and examples is not None:
        step_budget = examples * max(int(base.stateful_step_count), 1)
        rounds = scaled(rounds, step_budget)
    charged = 0
    swarm = swarm_machine(machine)
    started = clock()
    deadline = None if budget is None else started + budget
    done = steps = 0
    by_phase: dict[str, int] = {}
    index = 0
    while True:
        if budget is not None and clock() - started >= budget:
            break
        if step_budget is not None:
            if charged >= step_budget:
                break
        elif examples is not None and done >= examples:
            break
        chunk = rounds[index % len(rounds)]
        count = (chunk.examples if examples is None or step_budget is not None
                 else min(chunk.examples, examples - done))
        settings = hypothesis.settings(
            base, max_examples=count, stateful_step_count=chunk.steps,
            phases=[hypothesis.Phase.generate])

        def chunk_progress(n: int, s: int, failures: int, _done: int = done,
                           _steps: int = steps) -> None:
            if progress is not None:
                progress(_done + n, _steps + s, failures)

        # a chunk ends after REJECTED_PER_EXAMPLE times its examples, rejected ones included
        ctx = RunContext(result, chunk_progress, deadline,
                         most=REJECTED_PER_EXAMPLE * max(count, 1))
        try:
            common.run_suite(_variant(machine, chunk, swarm, seed * 7919 + index), result,
                             settings, chunk_progress, seed=seed * 7919 + index, context=ctx)
        except OutOfBudget:  # the budget, or the chunk's machines, ran out inside the chunk
            if ctx.last is not None and result.counterexample is None:
                result.counterexample = ctx.last
                result.break_(ctx.last.clause)
            # the time budget spent: the loop ends; the chunk's machines: the next chunk
        done += ctx.examples
        steps += ctx.steps
        # a chunk is charged at most its weight: examples that stop at a clause already set
        # aside are rejected, and Hypothesis draws more in their place -- their steps must not
        # eat the phases after it (a keep-going round would then never leave the scenarios)
        charged += min(weight(chunk), ctx.steps + (weight(chunk) - chunk.examples * chunk.steps)
                       * ctx.examples // max(chunk.examples, 1))
        by_phase[chunk.phase] = by_phase.get(chunk.phase, 0) + ctx.examples
        result.examples, result.steps = done, steps
        index += 1
        if result.counterexample is not None:
            _found(machine, result, ctx, chunk, done, clock() - started, minimize)
            break
    result.seed = seed
    machine.after_run(result)
    if result.counterexample is None:
        phases = ", ".join(f"{k} {v}" for k, v in by_phase.items())
        result.notes.append(f"search: {done} examples in {clock() - started:.1f} s ({phases}), "
                            "no counterexample")
    return result


def _found(machine: type[SuiteMachine], result: RunResult, ctx: RunContext, chunk: Chunk,
           done: int, seconds: float, minimize: bool) -> None:
    from schedcheck.harness import minimize as reduce

    cx = result.counterexample
    assert cx is not None
    shaped = _shape_of(chunk)
    if shaped is not None:
        from schedcheck.harness.scheduler import shapes

        where = f"shapes phase, the shape '{shaped[0]}' of {shapes.sized(*shaped)}"
    else:
        where = f"{chunk.phase} phase" + (f" from the scenario '{chunk.start_state}'"
                                          if chunk.start_state else "")
    result.notes.append(f"search: found in the {where}, example {done}, after {seconds:.1f} s")
    program = ctx.final_program or ctx.last_program
    if not minimize:
        result.notes.append("not shrunk: the counterexample is the first failing run found, "
                            "not minimised")
        return
    reduce.reduce_found(machine, result, program)


def _shape_of(chunk: Chunk) -> tuple[str, int] | None:
    if chunk.phase != "shapes":
        return None
    from schedcheck.harness.scheduler import shapes

    return shapes.parse(chunk.start_state)
