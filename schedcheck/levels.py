"""Two levels of a check: the *core* every correct design must hold, then the *contract*.

* **core** -- what any correct timer or dependency scheduler holds, whatever its surface
  and its design choices (``System.core_clauses``, run by ``System.run_core``). Wheels: never
  early, never twice, never after a successful cancel, never lost, late by at most the
  documented bound, ``pending()`` right (the invariants, in tolerance mode). Schedulers: the
  ``harness.scheduler.core`` machine (claims only after the dependencies succeeded, never over
  the limit, never twice, a cycle iff networkx finds one, failures and cancels never release
  dependents, duplicate and late callbacks change nothing, nothing lost).
* **contract** -- the full rules of specs/ (``System.run_suite``). A target without the
  contract's surface (a scheduler without ``fail``/``cancel``/``close``/``info``, or whose
  ``fail`` raises NotImplementedError on an ordinary call: :func:`refused_operations`) gets
  every clause of this level "not supported", with what it lacks as the reason -- never a
  counterexample, never a crash.

:func:`grade` runs the chosen levels (both by default, core first), each with keep-going
grading (``schedcheck.keep_going``), and merges them into one RunResult: ``levels`` holds
each level's own result (the card prints one section per level); the result's own clause
table merges them -- a clause broken at either level is broken; a clause the contract level
could not check but the core level exercised is "partly exercised".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from schedcheck.harness import guard
from schedcheck.harness.result import CONTRACT_ONLY, NOT_REACHED, RunResult
from schedcheck.keep_going import KINDS_PER_CLAUSE, keep_going, name_folders
from schedcheck.systems import System

__all__ = ["CONTRACT", "CORE", "DEFAULT_BUDGET", "LEVELS", "contract_graded", "cost_not_claimed",
           "explain_stages", "grade", "missing_operations", "refused_operations"]

CORE, CONTRACT = "core", "contract"
LEVELS = (CORE, CONTRACT)
#: Seconds ``schedcheck check`` searches by default, both levels together (``--budget``).
DEFAULT_BUDGET = 25.0
#: The part of a time budget the level searched first spends when both levels run.
CONTRACT_SHARE = 0.6
CORE_SHARE = 0.4

Progress = Callable[[int, int, int], None]


def missing_operations(entry: System, factory: Callable[..., Any],
                       operations: tuple[str, ...]) -> list[str]:
    """The ``operations`` an ordinary ``factory(*probe_args)`` object lacks ([] if built and
    complete; a target that cannot be built is the caller's business)."""
    try:
        obj = factory(*entry.probe_args)
    except Exception:
        return []
    missing = [m for m in operations if not callable(getattr(obj, m, None))]
    return missing + [m for m in refused_operations(entry, factory, operations)
                      if m not in missing]


#: One ordinary call of each operation on a fresh target (after ``setup``): an operation
#: whose call raises NotImplementedError is refused -- the target has it in name only.
_PROBES: dict[str, tuple[Callable[[Any], Any], dict[str, Callable[[Any], Any]]]] = {
    "scheduler": (lambda t: (_call(t, "submit", "probe", ()), _call(t, "start")), {
        "complete": lambda t: _call(t, "complete", "probe", 1),
        "fail": lambda t: _call(t, "fail", "probe", 1),
        "cancel": lambda t: _call(t, "cancel", "probe"),
        "cancel_requested": lambda t: _call(t, "cancel_requested", "probe", 1),
        "close": lambda t: _call(t, "close"),
        "info": lambda t: _call(t, "info", "probe"),
    }),
    "wheel": (lambda t: _call(t, "schedule", 5, _no_op), {
        "schedule_after": lambda t: _call(t, "schedule_after", 5, _no_op),
        "cancel": lambda t: _call(t, "cancel", _call(t, "schedule", 7, _no_op)),
        "pending": lambda t: _call(t, "pending"),
    }),
}


def _call(target: Any, method: str, *args: Any) -> Any:
    """One call of the target's ``method`` under the step guard (limited, and marked for the
    supervisor: a probe that hangs or crashes is the supervised check's verdict)."""
    return guard.call_limited(getattr(target, method), *args)


def _no_op() -> None:
    return None


def refused_operations(entry: System, factory: Callable[..., Any],
                       operations: tuple[str, ...]) -> list[str]:
    """The ``operations`` a fresh ``factory(*probe_args)`` object refuses: one ordinary call
    raises NotImplementedError ("not supported", as a missing method is). Any other outcome,
    an error included, is the suite's business; so is a target whose setup calls fail."""
    setup, calls = _PROBES.get(entry.name, (None, {}))
    refused: list[str] = []
    for op in operations:
        call = calls.get(op)
        if call is None or setup is None:
            continue
        try:
            target = factory(*entry.probe_args)
            if not callable(getattr(target, op, None)):
                continue
            setup(target)
        except Exception:
            return refused  # the setup itself does not work: nothing to tell from here
        try:
            call(target)
        except guard.StepTimeout:
            continue  # a hang is the suite's business too
        except NotImplementedError:
            refused.append(op)
        except Exception:  # the suite judges every other answer
            continue
    return refused


def grade(
    entry: System,
    factory: Callable[..., Any],
    *,
    level: str | None = None,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    shrink: bool = True,
    tolerance: bool = False,
    progress: Progress | None = None,
    status: Callable[[str], None] | None = None,
    budget: float | None = None,
    first: bool = False,
    every_kind: bool | None = None,
) -> RunResult:
    """The chosen level (``"core"``, ``"contract"``, or both when None), keep-going graded,
    merged into one RunResult (see the module docstring).

    With a time ``budget`` (seconds) every round is the budgeted search
    (``harness.search``); the levels share the budget, and a level's keep-going rounds share
    its part (each round gets what is left of it); with ``examples`` alone (seed-only mode)
    every round runs the same phases, worth ``examples`` programs of the profile's steps.
    When both levels run and the target has the contract's surface, the contract level is
    searched first: its exact model shows a mistake at its first divergent reply and it
    checks every core clause too, so a mistake is found soonest; the core level then grades,
    with the rest of the budget, what any correct design holds. The card lists the core
    level first either way. ``first=True`` stops at the first counterexample (no keep-going
    rounds, no second level after one). ``every_kind``: past a clause's first
    counterexample, look for other kinds of mistake in it (up to
    ``keep_going.KINDS_PER_CLAUSE``); by default with a time budget only, whose rounds share
    the budget (a seed-only round costs its N examples each time)."""
    if level is not None and level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    say = status or (lambda line: None)
    kinds = KINDS_PER_CLAUSE if (budget is not None if every_kind is None else every_kind) \
        else 1
    name = target_name or str(getattr(factory, "__qualname__", ""))
    # seed-only mode (``examples`` without a budget) runs the same phases as a budget
    common: dict[str, Any] = {"target_name": name, "examples": examples, "seed": seed,
                              "profile": profile, "progress": progress, "shrink": shrink,
                              "phased": True}
    clock = time.monotonic
    started = clock()
    lacking = missing_operations(entry, factory, entry.operations)
    want_core = level in (None, CORE) and entry.run_core is not None
    want_contract = level in (None, CONTRACT)
    contract_first = want_contract and not lacking

    def share(part: float) -> Callable[[], float | None]:
        """What a round may spend: the level's part of the budget, less what it spent."""
        if budget is None:
            return lambda: None
        ends = clock() + budget * part if part < 1.0 else started + budget
        return lambda: ends - clock()

    parts: list[RunResult] = []

    def run_core_level(aside: frozenset[str], part: float) -> None:
        say(f"core level: {entry.name} {name}")
        run_core = entry.run_core
        assert run_core is not None
        left = share(part)

        def core_round(more: frozenset[str]) -> RunResult:
            return run_core(factory, set_aside=more, budget=left(), **common)

        parts.insert(0, _labelled(keep_going(core_round, set_aside=aside, spent=_spent(left),
                                             first=first, kinds=kinds), CORE, shrink))

    def run_contract_level(aside: frozenset[str], part: float) -> None:
        say(f"contract level: {entry.name} {name}")
        if lacking:
            parts.append(_unsupported(entry, factory, name, lacking))
            return
        options = {"tolerance": True} if tolerance else {}
        left = share(part)

        def contract_round(more: frozenset[str]) -> RunResult:
            return entry.run_suite(factory, set_aside=more, budget=left(), **options, **common)

        parts.append(_labelled(keep_going(contract_round, set_aside=aside, spent=_spent(left),
                                          first=first, kinds=kinds), CONTRACT, shrink))

    def broken() -> frozenset[str]:
        # what one level broke (and shrank) is not searched again at the other
        return frozenset(cx.clause for p in parts for cx in p.all_counterexamples())

    if contract_first and want_core:
        # the core level re-checks with its own, weaker oracles what the contract level
        # broke: a clause both break is a mistake by any design, not a design difference
        run_contract_level(frozenset(), CONTRACT_SHARE)
        if not (first and broken()):
            run_core_level(frozenset(), 1.0)
    else:
        if want_core:
            run_core_level(frozenset(), CORE_SHARE if want_contract and not lacking else 1.0)
        if want_contract and not (first and broken()):
            run_contract_level(broken(), 1.0)
    return merge_levels(entry, name, parts)


def _spent(left: Callable[[], float | None]) -> Callable[[], bool]:
    """Whether a level's budget is spent (never, without a budget)."""
    def spent() -> bool:
        rest = left()
        return rest is not None and rest <= 0
    return spent


def _labelled(result: RunResult, level: str, shrink: bool) -> RunResult:
    result.level = level
    for cx in result.all_counterexamples():
        cx.level = level
    if not shrink and result.counterexamples and not any(
            n.startswith("not shrunk") for n in result.notes):
        result.notes.append("not shrunk: each counterexample is the first failing run found, "
                            "not the smallest")
    return result


def _unsupported(entry: System, factory: Callable[..., Any], name: str,
                 lacking: list[str]) -> RunResult:
    """The contract level of a target without the contract's surface."""
    result = RunResult.fresh(entry.name, name)
    result.level = CONTRACT
    refused = refused_operations(entry, factory, tuple(lacking))
    absent = ", ".join(m + "()" for m in lacking if m not in refused)
    refusing = ", ".join(m + "()" for m in refused)
    parts = ([absent] if absent else []) + (
        [f"{refusing} (it raises NotImplementedError)"] if refused else [])
    missing = f"{', '.join(parts)} (the contract level calls {', '.join(entry.operations)})"
    lacks = "; ".join(([f"no {absent}"] if absent else [])
                      + ([f"{refusing} raising NotImplementedError"] if refused else []))
    for cid in result.stats:
        result.unsupported_clause(cid, missing)
    result.unsupported.append(f"the contract's {', '.join(m + '()' for m in lacking)}")
    result.notes.append(f"contract level not supported: the target has {lacks}; only the "
                        "core level applies")
    return result


def merge_levels(entry: System, name: str, parts: list[RunResult]) -> RunResult:
    """One RunResult over the levels' results (kept in ``levels``, core first)."""
    merged = RunResult.fresh(entry.name, name)
    merged.levels = parts
    contract = next((p for p in parts if p.level == CONTRACT), None)
    core = next((p for p in parts if p.level == CORE), None)
    contract_ran = contract is not None and contract.examples > 0
    for part in parts:
        merged.seed = part.seed if merged.seed is None else merged.seed
        merged.examples += part.examples
        merged.steps += part.steps
        merged.seconds += part.seconds
        merged.notes += [n if n.startswith(f"{part.level} level") else
                         f"{part.level} level: {n}" for n in part.notes]
        merged.unsupported += [u for u in part.unsupported if u not in merged.unsupported]
        merged.counterexamples += part.counterexamples
    for cid, stat in merged.stats.items():
        mine = [p.stats[cid] for p in parts]
        stat.exercised = sum(s.exercised for s in mine)
        stat.broken = any(s.broken for s in mine)
        # what the target lacks: the contract level's word, except for an invariant the core
        # level checks in full when the contract level could not run
        judge = stat
        if core is not None and cid in entry.core_clauses and (
                contract is None or (not contract_ran and stat.clause.source != "contract"
                                     and not stat.clause.source.startswith("contract "))):
            judge = core.stats[cid]
        elif contract is not None:
            judge = contract.stats[cid]
        elif core is not None:
            judge = core.stats[cid]
        stat.supported = judge.supported
        stat.missing = judge.missing
        stat.verdict_override = judge.verdict_override
        stat.why = next((s.why for s in mine if s.broken and s.why), "") or judge.why
        if contract is None and cid not in entry.core_clauses and not stat.broken:
            # the core level sets these oracles aside: what it counted was never judged
            stat.exercised, stat.supported, stat.verdict_override = 0, True, None
            stat.why = f"{CONTRACT_ONLY} (not run: --level core)"
        elif contract is None and cid not in entry.core_clauses:
            stat.why = stat.why or f"{CONTRACT_ONLY} (not run: --level core)"
    owner: dict[str, str] = {}
    unique = []
    for cx in merged.counterexamples:  # a clause broken at both levels: the core's, once
        level = next((p.level for p in parts if any(cx is c for c in p.counterexamples)), "")
        if owner.setdefault(cx.clause, level) == level:  # every kind the first level found
            unique.append(cx)
    merged.counterexamples = unique
    merged.counterexample = unique[0] if unique else None
    name_folders(merged)
    return merged


def cost_not_claimed(entry: System, factory: Callable[..., Any], result: RunResult) -> bool:
    """Whether ``factory`` declares ``cost="linear"`` (a design that promises no O(1)); its
    cost clause is then "not claimed" on ``result``, with that reason, and not measured."""
    from schedcheck.targets.adapters import LINEAR_COST, capabilities_of

    caps = capabilities_of(factory)
    if caps is None or getattr(caps, "cost", "constant") == "constant":
        return False
    stat = result.stats[entry.cost_clause]
    if not stat.broken:
        result.unsupported_clause(entry.cost_clause, LINEAR_COST)
        stat.why = ("not claimed: the target declares cost='linear', a design that promises "
                    "no O(1) per operation, so its costs are not measured")
    return True


def contract_graded(result: RunResult) -> bool:
    """Whether ``result`` (of :func:`grade`) ran the contract level on the whole surface."""
    return any(p.level == CONTRACT and p.examples > 0 for p in result.levels)


def explain_stages(entry: System, result: RunResult, *, cost: bool, rounds: bool) -> None:
    """Why the stage clauses (cost, concurrent rounds) were not reached, on the card."""
    if contract_graded(result):
        why_not = ""
    elif any(p.level == CONTRACT for p in result.levels):
        why_not = "not run: the contract level is not supported"
    else:
        why_not = f"{CONTRACT_ONLY} (not run: --level core)"
    for cid, asked, flag in ((entry.cost_clause, cost, "--no-cost given"),
                             (entry.lin_clause, rounds, "--threads not given"),
                             (entry.interleaving_clause, rounds, "--threads not given")):
        stat = result.stats[cid]
        if stat.verdict == NOT_REACHED:
            stat.why = why_not or ("not run: " + flag if not asked else stat.why)
