"""Keep-going grading: after a counterexample, keep checking every other clause.

A differential run stops at its first counterexample, so a target with two independent bugs
shows one, and every clause behind it looks unreached. :func:`keep_going` runs a suite again
and again: each round sets aside the oracles of the clauses already broken
(``SuiteMachine.set_aside``: a divergence of one of them is no counterexample -- the machine
goes on from the target's own answers where the contract defines the resulting state --
the scheduler's contract level adopts the states the target reports, the wheel's tolerance
mode follows the target's firings -- else that example ends as invalid), so the next round
finds the next broken clause, shrunk on its own. It stops when a round finds nothing new, when
the time budget is spent, or at ``max_rounds`` if one is given; without one the rounds are
bounded by the clause table (each round sets aside a clause no earlier round did).

The merged result has one counterexample per broken clause (``RunResult.counterexamples``, in
the order found; ``counterexample`` is the first), and each clause's verdict and reason:
a clause that broke in any example of any round is broken (a round that did not shrink it
keeps the first failing run it saw); a clause counts as exercised (and so "held") only by
the checks of the last round -- the one run after the last set-aside, with every clause broken
so far out of the way -- so a clause an earlier round reached only on the way to a bug it then
stopped at is "not reached" unless the last round reaches it again; a clause no round reached
is "not reached", saying whether the rounds ran out.
"""

from __future__ import annotations

from collections.abc import Callable

from schedcheck.harness.result import NOT_REACHED, Counterexample, RunResult

__all__ = ["KINDS_PER_CLAUSE", "MAX_ROUNDS", "keep_going", "merge_rounds", "name_folders"]

#: Why a clause behind the first counterexample was not reached, when asked to stop there.
STOPPED_FIRST = "not reached: the check stopped at its first counterexample (--first)"
#: The most suite runs one level makes when asked for a cap (``max_rounds``); by default the
#: rounds go on while the budget lasts, bounded by the clause table.
MAX_ROUNDS = 6
#: The most kinds of mistake looked for in one clause: after a clause's first counterexample
#: the rounds set aside only that *kind* (its operation and outcomes, ``result.kind_of``) and
#: look for another kind in the clause, up to this many; then the whole clause is set aside.
KINDS_PER_CLAUSE = 3

Round = Callable[[frozenset[str]], RunResult]


def keep_going(run: Round, *, set_aside: frozenset[str] = frozenset(),
               max_rounds: int | None = None,
               spent: Callable[[], bool] = lambda: False, first: bool = False,
               kinds: int = KINDS_PER_CLAUSE) -> RunResult:
    """``run(set_aside)`` -> one round's RunResult, until a round finds no counterexample
    (or ``max_rounds`` when given, or ``spent()``: the time budget is used up; ``first``:
    after the first counterexample); the rounds merged by :func:`merge_rounds`. ``kinds``:
    how many kinds of mistake to look for in one clause (1: its first counterexample only)."""
    aside = set(set_aside)
    rounds: list[RunResult] = []
    found: dict[str, int] = {}
    while True:
        result = run(frozenset(aside))
        rounds.append(result)
        cx = result.counterexample  # a set-aside clause never makes one
        if cx is None:
            return merge_rounds(rounds, set_aside, out_of_rounds=False)
        # only the clause shrunk this round is set aside: any other seen broken on the way
        # is searched (and shrunk) by a later round; of that clause only this kind of
        # mistake, while fewer than KINDS_PER_CLAUSE kinds of it were found
        found[cx.clause] = found.get(cx.clause, 0) + 1
        if cx.kind and found[cx.clause] < kinds and not first:
            aside.add(f"{cx.clause}|{cx.kind}")
        else:
            aside.add(cx.clause)
        if first:
            return merge_rounds(rounds, set_aside, stopped=STOPPED_FIRST)
        if max_rounds is not None and len(rounds) >= max_rounds:
            return merge_rounds(rounds, set_aside, out_of_rounds=True)
        if spent():
            return merge_rounds(rounds, set_aside, out_of_time=True)


def name_folders(result: RunResult) -> None:
    """Each counterexample's folder (its clause; ``S5-2``, ``S5-3`` for further kinds of
    mistake in S5) and each broken clause's reason: which counterexamples are its."""
    total = len(result.counterexamples)
    count: dict[str, int] = {}
    mine: dict[str, list[tuple[int, str]]] = {}
    for number, cx in enumerate(result.counterexamples, 1):
        count[cx.clause] = count.get(cx.clause, 0) + 1
        cx.folder = cx.clause if count[cx.clause] == 1 else f"{cx.clause}-{count[cx.clause]}"
        mine.setdefault(cx.clause, []).append((number, cx.folder))
    for cid, found in mine.items():
        stat = result.stats[cid]
        stat.broken = True
        if len(found) == 1:
            stat.why = f"counterexample {found[0][0]} of {total} (folder {found[0][1]}/)"
        else:
            stat.why = (f"counterexamples {', '.join(str(n) for n, _ in found)} of {total}, "
                        f"{len(found)} kinds of mistake (folders "
                        f"{', '.join(f + '/' for _, f in found)})")


def merge_rounds(rounds: list[RunResult], set_aside: frozenset[str] = frozenset(), *,
                 out_of_rounds: bool = False, out_of_time: bool = False,
                 stopped: str = "") -> RunResult:
    """One RunResult from the rounds of :func:`keep_going`: the clauses' exercise counts of
    the last round (run after the last set-aside), a clause broken if any round broke it, one
    counterexample per broken clause."""
    first = rounds[0]
    merged = RunResult.fresh(first.system, first.target)
    merged.seed = first.seed
    merged.level = first.level
    for part in rounds:
        merged.examples += part.examples
        merged.steps += part.steps
        merged.seconds += part.seconds
        for note in part.notes:
            if note not in merged.notes:
                merged.notes.append(note)
        for what in part.unsupported:
            if what not in merged.unsupported:
                merged.unsupported.append(what)
    last = rounds[-1]
    for cid, stat in merged.stats.items():
        stats = [part.stats[cid] for part in rounds]
        # exercised after the last set-aside: the last round's checks alone
        stat.exercised = last.stats[cid].exercised
        if len(rounds) > 1 and not stat.exercised and any(s.exercised for s in stats):
            stat.why = ("not reached after the last set-aside: only an earlier run, which "
                        "stopped at a clause broken since, reached it")
        stat.supported = all(s.supported for s in stats)
        stat.missing = next((s.missing for s in stats if s.missing), "")
        stat.why = stat.why or next((s.why for s in stats if s.why), "")
        stat.verdict_override = stats[-1].verdict_override
        stat.broken = any(s.broken for s in stats)
    shrunk: dict[str, Counterexample] = {}
    for part in rounds:  # each round's shrunk counterexample: a clause (or kind) not yet aside
        cx = part.counterexample
        if cx is not None and (cx.clause, cx.kind) not in {(c.clause, c.kind)
                                                          for c in merged.counterexamples}:
            shrunk.setdefault(cx.clause, cx)
            merged.counterexamples.append(cx)
    for part in rounds:  # broken in some example, never shrunk: its first failing run
        for cid, cx in part.seen_broken.items():
            if cid not in shrunk and cid not in set_aside:
                shrunk[cid] = cx
                cx.message += " (not shrunk: the rounds found it, but never shrank it)"
                merged.counterexamples.append(cx)
    merged.counterexamples = [cx for cx in merged.counterexamples
                              if cx.clause not in set_aside]
    merged.counterexample = merged.counterexamples[0] if merged.counterexamples else None
    name_folders(merged)
    several = sorted({cx.clause for cx in merged.counterexamples
                      if sum(c.clause == cx.clause for c in merged.counterexamples) > 1})
    if several:
        merged.notes.append(
            f"every mistake of a clause: past a clause's first counterexample the rounds "
            f"looked for other kinds of mistake in it (up to {KINDS_PER_CLAUSE} a clause); "
            + "; ".join(f"{cid}: " + ", ".join(repr(c.kind) for c in merged.counterexamples
                                               if c.clause == cid) for cid in several))
    if len(rounds) > 1:
        merged.notes.append(
            f"keep going: {len(rounds)} runs; each set aside the clauses already broken "
            f"({', '.join(dict.fromkeys(cx.clause for cx in merged.counterexamples))}) and "
            "checked the rest")
    for cid, stat in merged.stats.items():
        if stat.verdict == NOT_REACHED and not stat.why and cid not in set_aside:
            stat.why = (stopped if stopped else "not reached: the run stopped at its limit of "
                        f"{len(rounds)} rounds" if out_of_rounds else
                        "not reached: the time budget was spent after "
                        f"{len(rounds)} rounds (--budget gives more)" if out_of_time else
                        f"no step of {merged.examples} examples reached it")
    return merged
