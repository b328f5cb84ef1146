"""The kill matrix: every catalogued mistake, run against the check meant to catch it.

For each :class:`~schedcheck.zoo.catalogue.Mutant`:

* ``kind == "sequential"`` -- the differential suite of its system, stopping at the first
  counterexample, unshrunk by default (a kill then costs a fraction of a second; shrinking a
  30-step program can take a minute); a survivor costs the full example budget;
* ``kind == "cost"`` -- the scaling check (``check_*_scaling``): killed iff the cost ratio is
  over the threshold;
* ``kind == "race"`` -- the suite with the concurrent-round rule mixed in
  (``schedcheck.concurrency.concurrency_bases``; before that lands, the race hunt on its
  own); when neither is in this build the row says so and the mutant counts as NOT killed.

A row records whether it was killed, the clause that caught it (the counterexample's clause, or
the first broken one), whether that is the clause the catalogue expected, the examples and the
seconds to the kill, and the run itself (its counterexample feeds ``index.html``'s pictures).
A harness bug (``SchedcheckInternalError``) propagates: it is never counted as a kill.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from schedcheck.harness.result import BROKEN, RunResult
from schedcheck.zoo.catalogue import Mutant, all_mutants

__all__ = ["KillRow", "kill_matrix_table", "kill_matrix_text", "run_mutant", "run_zoo",
           "zoo_json"]

#: Examples per sequential mutant unless told otherwise. Most kills come in the first few
#: dozen examples; only a survivor pays the whole budget (about 30 s). Measured on the
#: hardest entry, sched-double-release: first failure at example 458 with seed 1 and none in
#: 600 with seed 0 -- the suite's search, not the zoo, decides; raise --examples to dig deeper.
DEFAULT_ZOO_EXAMPLES = 500
#: Size of the small run of a cost mutant's scaling check (the large one is 8x): the sizes of
#: tests/zoo's kill tests -- a quadratic mutant's large run stays short (the check gives up
#: once the ratio is surely over its threshold).
COST_N: dict[str, int] = {"scheduler": 1000, "wheel": 5000}
#: The zoo is deterministic by default (the same kills every run); ``--seed`` varies it.
ZOO_SEED = 0


@dataclass
class KillRow:
    mutant: Mutant
    killed: bool
    clause: str | None  #: the clause that caught it
    examples: int
    seconds: float
    result: RunResult | None = None
    note: str = ""  #: e.g. the scaling text, or why it could not run

    @property
    def expected(self) -> bool:
        return self.killed and self.clause == self.mutant.expected_clause

    def to_json(self) -> dict[str, Any]:
        m = self.mutant
        return {
            "mutant": m.name, "system": m.system, "kind": m.kind, "mistake": m.mistake,
            "source": m.source, "expected_clause": m.expected_clause, "killed": self.killed,
            "clause": self.clause, "as_expected": self.expected, "examples": self.examples,
            "seconds": round(self.seconds, 3), "note": self.note,
        }


def _caught_by(result: RunResult) -> str | None:
    if result.counterexample is not None:
        return result.counterexample.clause
    for cid, stat in result.stats.items():
        if stat.verdict == BROKEN:
            return cid
    return None


def run_mutant(mutant: Mutant, *, examples: int | None = None, seed: int | None = None,
               shrink: bool = False) -> KillRow:
    from schedcheck.report import runs

    started = time.perf_counter()
    target = f"zoo:{mutant.name}"
    if mutant.kind == "cost":
        try:
            scaling = runs.run_scaling_for(mutant.system, mutant.factory,
                                           n=COST_N[mutant.system])
        except runs.Unavailable as exc:
            return KillRow(mutant, False, None, 0, time.perf_counter() - started, note=str(exc))
        killed = not bool(getattr(scaling, "ok", True))
        cid = ("S-COST" if mutant.system == "scheduler" else "W-COST") if killed else None
        return KillRow(mutant, killed, cid, 1, time.perf_counter() - started,
                       note=str(getattr(scaling, "text", "")))
    if mutant.kind == "race":
        try:
            outcome = runs.run_rounds_for(mutant.system, mutant.factory, target_name=target,
                                          examples=examples or DEFAULT_ZOO_EXAMPLES,
                                          seed=ZOO_SEED if seed is None else seed,
                                          shrink=shrink)
        except runs.Unavailable as exc:
            return KillRow(mutant, False, None, 0, time.perf_counter() - started,
                           note=f"not run: {exc}")
        if isinstance(outcome, RunResult):
            return KillRow(mutant, not outcome.ok, _caught_by(outcome), outcome.examples,
                           time.perf_counter() - started, result=outcome)
        killed = getattr(outcome, "ok", True) is False
        return KillRow(mutant, killed, ("S-LIN" if mutant.system == "scheduler" else "W-LIN")
                       if killed else None, 0, time.perf_counter() - started,
                       note=str(getattr(outcome, "text", "")))
    first_failure: list[int] = []

    def progress(done: int, steps: int, failures: int) -> None:
        if failures and not first_failure:
            first_failure.append(done)

    result = runs.run_suite_for(mutant.system, mutant.factory, target_name=target,
                                examples=examples or DEFAULT_ZOO_EXAMPLES,
                                seed=ZOO_SEED if seed is None else seed, progress=progress,
                                shrink=shrink)
    # examples to the kill: up to the first failing one (shrinking runs are not counted)
    to_kill = first_failure[0] if first_failure else result.examples
    return KillRow(mutant, not result.ok, _caught_by(result), to_kill,
                   time.perf_counter() - started, result=result)


def run_zoo(
    *,
    only: Iterable[str] | None = None,
    system: str | None = None,
    examples: int | None = None,
    seed: int | None = None,
    status: Callable[[str], None] | None = None,
    shrink: bool = False,
) -> list[KillRow]:
    """Run the selected mutants in catalogue order. ``only`` names unknown to the catalogue
    raise ``KeyError`` with the known names."""
    mutants = all_mutants()
    if only is not None:
        wanted = list(only)
        known = {m.name for m in mutants}
        unknown = [n for n in wanted if n not in known]
        if unknown:
            raise KeyError(f"no mutant named {', '.join(map(repr, unknown))}; known: "
                           f"{', '.join(sorted(known))}")
        mutants = [m for m in mutants if m.name in wanted]
    if system is not None:
        mutants = [m for m in mutants if m.system == system]
    rows = []
    for i, mutant in enumerate(mutants, 1):
        if status is not None:
            status(f"zoo {i}/{len(mutants)}: {mutant.name} ({mutant.kind})")
        rows.append(run_mutant(mutant, examples=examples, seed=seed, shrink=shrink))
    return rows


def zoo_json(rows: list[KillRow]) -> dict[str, Any]:
    return {
        "ok": all(r.killed for r in rows),
        "killed": sum(r.killed for r in rows),
        "total": len(rows),
        "mutants": [r.to_json() for r in rows],
    }


def _verdict(row: KillRow) -> str:
    if not row.killed:
        return "SURVIVED"
    return "killed" if row.expected else f"killed (expected {row.mutant.expected_clause})"


def kill_matrix_table(rows: list[KillRow]) -> Table:
    table = Table(title="the zoo: every catalogued mistake and the check that catches it",
                  title_justify="left")
    for col in ("mutant", "the mistake", "verdict", "clause", "examples", "seconds"):
        table.add_column(col, no_wrap=col not in ("the mistake",),
                         justify="right" if col in ("examples", "seconds") else "left")
    for r in rows:
        style = "green" if r.expected else ("yellow" if r.killed else "bold red")
        table.add_row(r.mutant.name, r.mutant.mistake, Text(_verdict(r), style=style),
                      r.clause or "-", str(r.examples), f"{r.seconds:.1f}")
    killed = sum(r.killed for r in rows)
    table.caption = f"{killed}/{len(rows)} killed"
    return table


def kill_matrix_text(rows: list[KillRow]) -> str:
    """Plain text, one line per mutant; the mistake is the last column, in full."""
    lines = ["the zoo: every catalogued mistake and the check that catches it",
             f"  {'mutant':<34} {'verdict':<10} {'clause':<14} {'examples':>8} {'seconds':>8}"
             "  the mistake"]
    for r in rows:
        verdict = "killed" if r.killed else "SURVIVED"
        mistake = r.mutant.mistake
        lines.append(f"{'  ' if r.killed else '!!'}{r.mutant.name:<34} {verdict:<10} "
                     f"{(r.clause or '-'):<14} {r.examples:>8} {r.seconds:>8.1f}  {mistake}")
        if r.killed and not r.expected:
            lines.append(f"  {'':<34} (the catalogue expected {r.mutant.expected_clause})")
        if r.note and not r.killed:
            lines.append(f"  {'':<34} {r.note}")
    lines.append(f"{sum(r.killed for r in rows)}/{len(rows)} killed")
    return "\n".join(lines)
