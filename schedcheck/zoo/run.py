"""The kill matrix: every catalogued mistake, run against the check meant to catch it.

For each :class:`~schedcheck.zoo.catalogue.Mutant`, one stage of the check pipeline
(``schedcheck.pipeline.check``):

* ``kind == "sequential"`` -- the differential suite of its system, stopping at the first
  counterexample, unshrunk by default (a kill then costs a fraction of a second; shrinking a
  30-step program can take a minute); a survivor costs the full example budget;
* ``kind == "cost"`` -- the scaling clause at the system's ``zoo_cost_n``: killed iff the cost
  ratio is over the threshold;
* ``kind == "race"`` -- the concurrent rounds, the race hunt first (it finds each catalogued
  race in seconds; its round is reduced on the recorded schedule within a budget of its own,
  ``schedcheck.concurrency.reduce``), then -- only if the hunt found nothing -- the suite with
  the concurrent-round rule mixed in.

The rows are rendered by ``schedcheck.report.kill_matrix``.

A row records whether it was killed, the clause that caught it (the counterexample's clause, or
the first broken one), whether that is the clause the catalogue expected, the examples and the
seconds to the kill, and the run itself (its counterexample feeds ``index.html``'s pictures).
A harness bug (``SchedcheckInternalError``) propagates: it is never counted as a kill.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from schedcheck import pipeline, systems
from schedcheck.harness.result import BROKEN, RunResult
from schedcheck.progress import nested
from schedcheck.zoo.catalogue import Mutant, all_mutants

__all__ = ["KillRow", "run_mutant", "run_zoo"]

#: Examples per sequential mutant unless told otherwise. Most kills come in the first few
#: dozen examples; only a survivor pays the whole budget (about 30 s). Measured on the
#: hardest entry, sched-double-release: first failure at example 458 with seed 1 and none in
#: 600 with seed 0 -- the suite's search, not the zoo, decides; raise --examples to dig deeper.
DEFAULT_ZOO_EXAMPLES = 500
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
        return self.killed and self.clause is not None and self.mutant.expects(self.clause)

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
               shrink: bool = False, bar: pipeline.ProgressFactory | None = None) -> KillRow:
    """One row of the kill matrix. ``bar`` (a ``pipeline.ProgressFactory``) also gets the
    examples of each stage, for a progress line."""
    entry = systems.get(mutant.system)
    started = time.perf_counter()
    target = f"zoo:{mutant.name}"
    if mutant.kind == "cost":
        result = pipeline.check(entry, mutant.factory, target_name=target, suite=False,
                                cost_n=entry.zoo_cost_n)
        killed = not result.ok
        prefix = f"{entry.cost_clause}: "
        note = next((n[len(prefix):] for n in result.notes if n.startswith(prefix)), "")
        return KillRow(mutant, killed, entry.cost_clause if killed else None, 1,
                       time.perf_counter() - started, note=note)
    first_failure: list[int] = []

    def progress(done: int, steps: int, failures: int) -> None:
        if failures and not first_failure:
            first_failure.append(done)

    @contextmanager
    def counting(label: str, total: int | None) -> Iterator[pipeline.Progress]:
        with nested(bar, label, total) as outer:
            def both(done: int, steps: int, failures: int) -> None:
                progress(done, steps, failures)
                if outer is not None:
                    outer(done, steps, failures)

            yield both

    race = mutant.kind == "race"
    result = pipeline.check(entry, mutant.factory, target_name=target,
                            examples=examples or DEFAULT_ZOO_EXAMPLES,
                            seed=ZOO_SEED if seed is None else seed, shrink=shrink,
                            suite=not race, cost=False, rounds=race, bar=counting,
                            hunt_first=race)
    # examples to the kill: up to the first failing one (shrinking runs are not counted)
    to_kill = first_failure[0] if first_failure and not race else result.examples
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
    each: Callable[[str], None] | None = None,
    bar: pipeline.ProgressFactory | None = None,
) -> list[KillRow]:
    """Run the selected mutants in catalogue order. ``only`` names unknown to the catalogue
    raise ``KeyError`` with the known names. ``status`` gets one line as the zoo starts,
    ``each`` one line per mutant (``zoo 3/40: name (kind)``), ``bar`` the progress of each
    mutant's stages (see :func:`run_mutant`)."""
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
    if status is not None and mutants:
        status(f"zoo: {len(mutants)} mutants, each against the check meant to catch it")
    for i, mutant in enumerate(mutants, 1):
        if each is not None:
            each(f"zoo {i}/{len(mutants)}: {mutant.name} ({mutant.kind})")
        rows.append(run_mutant(mutant, examples=examples, seed=seed, shrink=shrink, bar=bar))
    return rows
