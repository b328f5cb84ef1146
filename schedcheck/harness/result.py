"""What a suite run hands to the toolkit: verdicts per clause and the shrunk counterexample.

The suites (``scheduler/suite.py``, ``wheel/suite.py``, the concurrent rounds) *produce* these;
the report card, the replay script, the pictures and ``report.json`` *consume* them. Keep this
module free of Hypothesis and of any target: it is plain data, JSON-serialisable through
:meth:`RunResult.to_json`.

Verdicts (never "held" for a clause that was not exercised), each with a reason
(:attr:`ClauseStat.reason`):

* ``held``              -- exercised at least once, fully supported, never broken;
* ``broken``            -- it broke in at least one example (a counterexample of its own);
* ``partly exercised``  -- exercised, but the target lacks a part the clause needs (what is
  missing is the reason), so what was checked held but is not the whole clause;
* ``not supported``     -- the target lacks the part the clause needs; no step checked it;
* ``not reached``       -- no step reached it (the reason says why: no example drew it, the
  run stopped at its budget, the stage did not run).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any

from schedcheck.harness.clauses import SEED_RULES, Clause, clauses_for

HELD = "held"
BROKEN = "broken"
NOT_SUPPORTED = "not supported"
NOT_REACHED = "not reached"
NOT_EXERCISED = NOT_REACHED  # the earlier name of the same verdict
PARTLY = "partly exercised"
UNKNOWN = "unknown"  # a search (linearizability, z3) that ran out of budget
#: How the reasons of a clause no step reached begin.
_UNREACHED = ("not reached", "no step", "not run")
#: The reason on the card for a clause only the contract level checks.
CONTRACT_ONLY = "checked at the contract level only"


@dataclass
class Step:
    """One call of a counterexample, in the order it ran.

    ``code`` is one Python statement against the target object named ``target`` (for example
    ``claim_0 = target.ready(limit=2)``); the replay script runs these lines in order.
    ``expected`` / ``actual`` are the *normalised* replies (``schedcheck.targets.adapt``) of the
    model and the target, as ``repr`` strings; ``check`` is a Python expression that is true iff the
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
    #: a Python expression (same convention as ``check``) true iff the target did again what
    #: it did when this was found; on the diverging step the replay fails when it is true, for
    #: clauses that have no model reply to compare (invariants, oracles, tolerance mode)
    observed: str | None = None
    #: on the diverging step: an expression true iff what broke the clause happened again, for
    #: a breach the step's reply does not show (a callback on the wrong thread, say)
    again: str | None = None
    #: clauses set aside in this run (keep going) that differed from the model at this step:
    #: the run went on with the model following the target, so the replay compares nothing
    #: here (the clause's own counterexample is elsewhere)
    aside: str = ""
    #: on the diverging step: what differs, in words and without numbers, where the two
    #: replies alone do not tell mistakes apart ("not fired: its deadline had passed when it
    #: was scheduled"); it refines the kind of mistake (:func:`kind_of`)
    detail: str = ""


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
    #: what running the written replay.py showed (``schedcheck.report.replay_check``):
    #: "verified: fails at step N as shown", or what it did instead; "" until it ran
    replay_check: str = ""
    #: the step time limit the run had (a replay allows each step as long)
    step_seconds: float | None = None
    #: the failing run before delta debugging reduced it (kept to write beside a reduced
    #: replay that does not verify); not in report.json
    unreduced: Counterexample | None = field(default=None, repr=False)
    #: the kind of mistake within its clause: the diverging operation and the two outcomes
    #: (:func:`kind_of`), e.g. "fail: expected REJECTED, got DUPLICATE"
    kind: str = ""
    #: the folder of its files in a ``--out`` folder: the clause id, or ``S5-2`` for the
    #: second kind of mistake found in S5 ("" until keep-going grading names it)
    folder: str = ""
    #: the level whose search found it ("core", "contract"; "" outside ``levels.grade``)
    level: str = ""
    #: its atomic program (``program.Op``), pickled: what the example database keeps so that
    #: every door replays it first (``harness.saved``); b"" when it cannot be pickled. Not in
    #: report.json
    program: bytes = field(default=b"", repr=False)

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(dataclasses.replace(self, unreduced=None, program=b""))
        del data["unreduced"], data["program"]
        return data

    @property
    def divergence(self) -> Step | None:
        for step in self.steps:
            if step.diverged:
                return step
        return None


def _outcome(shown: str) -> str:
    """The outcome a step's normalised reply shows, in a word or two: the error's class
    (``raises RecursionError``), a reply's outcome (``STALE``), or "a value"."""
    shown = shown.strip()
    if not shown:
        return "nothing"
    raised = re.match(r"raises ([\w.]+(?:\[[^\]]*\])?)", shown)
    if raised:
        return "raises " + raised.group(1).split("[", 1)[0]
    quoted = re.match(r"\(?'([A-Z_]+)'", shown)
    return quoted.group(1) if quoted else "a value"


def kind_of(step: Step | None) -> str:
    """The kind of a divergence at ``step``: its operation and what each side did,
    ``"complete: expected STALE, got APPLIED"`` (numbers and ids left out, so the same
    mistake on other tasks is the same kind), refined by the step's :attr:`Step.detail`
    where the replies alone would not tell two mistakes apart."""
    if step is None:
        return ""
    call = step.code.split("=", 1)[-1] if "=" in step.code.split("(", 1)[0] else step.code
    method = call.split("(", 1)[0].strip().rsplit(".", 1)[-1] or "step"
    kind = f"{method}: expected {_outcome(step.expected)}, got {_outcome(step.actual)}"
    return f"{kind} ({step.detail})" if step.detail else kind


@dataclass
class ClauseStat:
    clause: Clause
    exercised: int = 0  #: steps that exercised the clause
    broken: bool = False
    supported: bool = True
    verdict_override: str | None = None  #: e.g. UNKNOWN from a search out of budget
    missing: str = ""  #: what the target lacks for this clause, in words ("" when unknown)
    why: str = ""  #: a reason set by the run (why not reached, which counterexample broke it)

    @property
    def verdict(self) -> str:
        if self.verdict_override:
            return self.verdict_override
        if self.broken:  # a clause that broke in any example is never anything else
            return BROKEN
        if not self.supported:
            return PARTLY if self.exercised else NOT_SUPPORTED
        if self.exercised == 0:
            return NOT_REACHED
        return HELD

    @property
    def reason(self) -> str:
        """Why this verdict, in a few words (the card's last column)."""
        verdict = self.verdict
        if self.why and not (verdict in (BROKEN, HELD) and self.why.startswith(_UNREACHED)):
            return self.why  # (a "not reached" why of one round never explains a verdict)
        if verdict == BROKEN:
            return "a counterexample broke it"
        lacks = f"the target lacks {self.missing}" if self.missing else "the target lacks a part"
        if verdict == PARTLY:
            return f"what was checked held ({self.exercised} checks), but {lacks}"
        if verdict == NOT_SUPPORTED:
            return lacks
        if verdict == NOT_REACHED:
            return "no step of the run reached it"
        if verdict == HELD:
            return f"held in {self.exercised} checks"
        return ""


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
    #: every broken clause's own counterexample, in the order found (``counterexample`` is
    #: the first); filled by keep-going grading (``schedcheck.keep_going``)
    counterexamples: list[Counterexample] = field(default_factory=list)
    #: clauses that broke in some example of a run that did not shrink them (clause -> the
    #: first failing run's trace): keep-going grading searches each of them again
    seen_broken: dict[str, Counterexample] = field(default_factory=dict)
    level: str = ""  #: "core" or "contract" for one level's run, "" otherwise
    #: the per-level runs of a graded check (core first); this result's stats merge them
    levels: list[RunResult] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)  #: optional parts the target lacks
    notes: list[str] = field(default_factory=list)
    #: the scaling clause's two runs (n, factor, the steps at each size, the ratio, the
    #: threshold), when it ran: a broken cost clause's counterexample
    cost_figures: dict[str, Any] = field(default_factory=dict)
    #: what the run told Hypothesis's statistics collector (a supervised child's run hands
    #: them to the pytest process, whose report shows them)
    hypothesis_statistics: list[Any] = field(default_factory=list)

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

    def unsupported_clause(self, clause_id: str, missing: str = "") -> None:
        stat = self.stats[clause_id]
        stat.supported = False
        if missing and not stat.missing:
            stat.missing = missing

    def all_counterexamples(self) -> list[Counterexample]:
        """Every counterexample of the run, one per broken clause, the first one first."""
        out = list(self.counterexamples)
        if self.counterexample is not None and self.counterexample not in out:
            out.insert(0, self.counterexample)
        return out

    def follow_seed_rules(self) -> None:
        """A seed's point (``S-T3``: releases only the affected dependents ...) is broken
        wherever a rule it rests on is (``clauses.SEED_RULES``), never "held" beside it;
        its reason names the rule, whose counterexample shows it."""
        for point, rules in SEED_RULES.items():
            stat = self.stats.get(point)
            if stat is None or stat.broken:
                continue
            broken = [r for r in rules if r in self.stats and self.stats[r].broken]
            if broken:
                stat.broken = True
                stat.why = (f"broken where its rule{'s' if len(broken) > 1 else ''} "
                            f"{', '.join(broken)} broke (that counterexample shows it)")

    def cost_broken(self) -> list[str]:
        """The cost clause, when its measured runs broke it ([] otherwise)."""
        cid = self.cost_figures.get("clause", "")
        return [cid] if cid in self.stats and self.stats[cid].verdict == BROKEN else []

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
                    "reason": s.reason,
                }
                for s in self.stats.values()
            ],
            # each level's verdicts are in the card's sections (report.json "card")
            "levels": [{"level": part.level, "ok": part.ok} for part in self.levels],
            # the broken clauses that have a folder of their own: each counterexample's,
            # and the cost clause's (its two runs' figures and the script that measures them)
            "broken": list(dict.fromkeys(
                [cx.clause for cx in self.all_counterexamples()] + list(self.cost_broken()))),
            "cost": self.cost_figures or None,
            # the other broken clauses' own counterexamples (the first is "counterexample")
            "other_counterexamples": [cx.to_json() for cx in self.all_counterexamples()[1:]],
            "counterexample": (
                self.counterexample.to_json() if self.counterexample else None
            ),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, default=repr)
