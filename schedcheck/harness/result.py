"""What a suite run hands to the toolkit: verdicts per clause and the shrunk counterexample.

The suites (``scheduler_suite.py``, ``wheel_suite.py``, the concurrent rounds) *produce* these;
the report card, the replay script, the pictures and ``report.json`` *consume* them. Keep this
module free of Hypothesis and of any target: it is plain data, JSON-serialisable through
:meth:`RunResult.to_json`.

Verdicts (never "held" for a clause that was not exercised):

* ``held``          -- exercised at least once, never broken;
* ``broken``        -- a counterexample broke it;
* ``not supported`` -- the target lacks the optional part the clause needs;
* ``not exercised`` -- no step reached it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from schedcheck.harness.clauses import Clause, clauses_for

HELD = "held"
BROKEN = "broken"
NOT_SUPPORTED = "not supported"
NOT_EXERCISED = "not exercised"
UNKNOWN = "unknown"  # a search (linearizability, z3) that ran out of budget


@dataclass
class Step:
    """One call of a counterexample, in the order it ran.

    ``code`` is one Python statement against the target object named ``target`` (for example
    ``claim_0 = target.ready(limit=2)``); the replay script runs these lines in order.
    ``expected`` / ``actual`` are the *normalised* replies (``schedcheck.adapt``) of the model
    and the target, as ``repr`` strings; ``check`` is a Python expression that is true iff the
    target behaved as the model did at this step (the replay script asserts it), or ``None``
    where nothing is compared.
    """

    index: int
    code: str
    words: str  #: the step in plain words: "worker 1 claims up to 2 tasks"
    expected: str = ""
    actual: str = ""
    diverged: bool = False
    thread: str | None = None  #: the worker/thread lane, for pictures ("w1", "tick")
    clause: str | None = None  #: the clause id this step exercises/broke (see clauses.py)
    check: str | None = None


@dataclass
class Counterexample:
    """The shrunk failing run."""

    system: str  #: "scheduler" or "wheel"
    clause: str  #: the clause id that broke
    message: str  #: what went wrong, in one paragraph (the story)
    steps: list[Step]
    setup: str  #: the constructor line, e.g. "target = factory(2)"
    seed: int | None = None
    schedule: list[int] | None = None  #: thread switching decisions, when threads were involved
    #: pictures' raw material, system specific. Scheduler: {"model": {task: {...}}, "impl": ...,
    #: "edges": [[dep, task], ...]}; wheel: {"tick": k, "wheel_size": W, "timers": [...],
    #: "timeline": [...]}; cycles: {"cycle": [...]}; deadlocks: {"wait_for": [[a, b], ...]}.
    snapshot: dict[str, Any] = field(default_factory=dict)
    hypothesis_program: str = ""  #: Hypothesis's own printed program, verbatim

    @property
    def divergence(self) -> Step | None:
        for step in self.steps:
            if step.diverged:
                return step
        return None


@dataclass
class ClauseStat:
    clause: Clause
    exercised: int = 0  #: steps that exercised the clause
    broken: bool = False
    supported: bool = True
    verdict_override: str | None = None  #: e.g. UNKNOWN from a search out of budget

    @property
    def verdict(self) -> str:
        if self.verdict_override:
            return self.verdict_override
        if not self.supported:
            return NOT_SUPPORTED
        if self.broken:
            return BROKEN
        if self.exercised == 0:
            return NOT_EXERCISED
        return HELD


@dataclass
class RunResult:
    """The outcome of running one suite against one target."""

    system: str
    target: str  #: as the user gave it
    examples: int = 0
    steps: int = 0
    seconds: float = 0.0
    seed: int | None = None
    stats: dict[str, ClauseStat] = field(default_factory=dict)
    counterexample: Counterexample | None = None
    unsupported: list[str] = field(default_factory=list)  #: optional parts the target lacks
    notes: list[str] = field(default_factory=list)

    @classmethod
    def fresh(cls, system: str, target: str) -> RunResult:
        return cls(
            system=system,
            target=target,
            stats={c.id: ClauseStat(c) for c in clauses_for(system)},
        )

    def exercise(self, clause_id: str, n: int = 1) -> None:
        self.stats[clause_id].exercised += n

    def break_(self, clause_id: str) -> None:
        self.stats[clause_id].broken = True

    def unsupported_clause(self, clause_id: str) -> None:
        self.stats[clause_id].supported = False

    @property
    def ok(self) -> bool:
        return self.counterexample is None and not any(
            s.verdict == BROKEN for s in self.stats.values()
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "target": self.target,
            "ok": self.ok,
            "examples": self.examples,
            "steps": self.steps,
            "seconds": round(self.seconds, 3),
            "seed": self.seed,
            "unsupported": self.unsupported,
            "notes": self.notes,
            "clauses": [
                {
                    "id": s.clause.id,
                    "title": s.clause.title,
                    "source": s.clause.source,
                    "verdict": s.verdict,
                    "exercised": s.exercised,
                }
                for s in self.stats.values()
            ],
            "counterexample": (
                dataclasses.asdict(self.counterexample) if self.counterexample else None
            ),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, default=repr)
