"""The report card's rows: every clause a suite can exercise or break.

Ids are stable (they appear in ``report.json``, the zoo's kill matrix and the tests):

* ``S1``..``S9`` -- the scheduler contract's rules 1-9 (specs/scheduler.md);
* ``S-INV``, ``S-CLAIM-ONCE`` ... -- the scheduler invariants checked after every step;
* ``S-X-...`` -- the seed's follow-up extensions (optional for third parties);
* ``S-T1``..``S-T6`` -- the points of the scheduler seed's "what the interviewer tests";
* ``W1``..``W6``, ``W-INV-...``, ``W-T1``..``W-T4`` -- the same for the timing wheel;
* ``*-COST`` -- the scaling clauses (a cost ratio at n and 8n in one run);
* ``*-LIN`` -- linearizability of concurrent rounds.

Each id is also a module constant spelled with ``_`` for ``-`` (``S_COST == "S-COST"``),
declared on the same line as its row: code names clauses by these constants, so a mistyped
id is an ``ImportError``/``AttributeError`` when the module loads, not a ``KeyError`` when a
counterexample is replayed. Adding a clause is one line here (and the check that exercises
it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Clause:
    id: str
    title: str  #: one line, what must hold
    source: str  #: "contract rule 4", "seed: what the interviewer tests", "invariant"
    optional: bool = False  #: an extension a third party may lack ("not supported")


_SCHEDULER: list[Clause] = []
_WHEEL: list[Clause] = []


def _sched(clause_id: str, title: str, source: str, *, optional: bool = False) -> str:
    _SCHEDULER.append(Clause(clause_id, title, source, optional))
    return clause_id


def _wheel(clause_id: str, title: str, source: str, *, optional: bool = False) -> str:
    _WHEEL.append(Clause(clause_id, title, source, optional))
    return clause_id


# One line per clause: the constant (the id with "-" as "_") and the row of the report card.
# Code names a clause by its constant, so a mistyped id fails when the module is imported.

S1 = _sched("S1", "submit: argument types; new generation BLOCKED/READY/PENDING from its deps", "contract rule 1")
S2 = _sched("S2", "start(): unknown dependencies, then cycles ([a, ..., a], real edges); failed start changes nothing", "contract rule 2")
S3 = _sched("S3", "ready(): READY tasks in submission sequence, made RUNNING at once, never over max_concurrency", "contract rule 3")
S4 = _sched("S4", "complete(): STALE/APPLIED/DUPLICATE/REJECTED; releases direct PENDING dependents once", "contract rule 4")
S5 = _sched("S5", "fail(): FAILED (or CANCELLED after a request); blocks reachable PENDING/READY with the root cause", "contract rule 5")
S6 = _sched("S6", "cancel(): PENDING/READY cancelled and dependents blocked; RUNNING only requested (cooperative)", "contract rule 6")
S7 = _sched("S7", "resubmit: new generation, old edges removed first, validated after start, ConflictError if RUNNING", "contract rule 7")
S8 = _sched("S8", "close(): cancels PENDING/READY with cause shutdown, in submission sequence; ready() then []", "contract rule 8")
S9 = _sched("S9", "errors: precedence of rule 9, UnknownTaskError, and errors never change state", "contract rule 9")
S_INV = _sched("S-INV", "no current PENDING/READY generation has a dead dependency; BLOCKED carries a FAILED/CANCELLED root", "invariant")
S_CLAIM_ONCE = _sched("S-CLAIM-ONCE", "each (id, generation) is claimed at most once; running <= max_concurrency", "invariant")
S_CLAIM_DEPS = _sched("S-CLAIM-DEPS", "a claimed task had every dependency SUCCEEDED when claimed", "invariant")
S_TERMINAL = _sched("S-TERMINAL", "a terminal generation never leaves its state", "invariant")
S_ORACLE_CYCLE = _sched("S-ORACLE-CYCLE", "networkx agrees whether the graph has a cycle; .cycle is a real simple cycle", "oracle")
S_ORACLE_TOPO = _sched("S-ORACLE-TOPO", "unbounded, all succeed: ready() batches equal graphlib's get_ready() batches", "oracle")
S_X_RETRY = _sched("S-X-RETRY", "retry(cascade): resubmits the dead task and its BLOCKED subtree in one step", "extension", optional=True)
S_X_OPTIONAL = _sched("S-X-OPTIONAL", "optional edges: READY once optional deps are terminal in any state", "extension", optional=True)
S_X_ADDDEP = _sched("S-X-ADDDEP", "add_dependency: only while PENDING or before start; cycles and dead deps handled", "extension", optional=True)
S_T1 = _sched("S-T1", "distinguishes pending, ready, running, succeeded, failed, blocked and cancelled", "seed: what the interviewer tests")
S_T2 = _sched("S-T2", "keeps indegree and reverse adjacency instead of rescanning every task", "seed: what the interviewer tests")
S_T3 = _sched("S-T3", "releases only the affected dependents when a dependency completes", "seed: what the interviewer tests")
S_T4 = _sched("S-T4", "defines cycle, failure and cancellation propagation", "seed: what the interviewer tests")
S_T5 = _sched("S-T5", "bounds workers, one claim per task version, handles duplicate submits", "seed: what the interviewer tests")
S_T6 = _sched("S-T6", "survives adversarial interleavings (late and duplicate callbacks, concurrent ready())", "seed: what the interviewer tests")
S_COST = _sched("S-COST", "the cost of a whole run grows linearly: n and 8n tasks in one run", "contract: costs")
S_LIN = _sched("S-LIN", "concurrent rounds are linearizable against the model", "concurrency")

W1 = _wheel("W1", "advance(): ticks cursor..now//tick in order, max_catchup_ticks budget, lag_ticks(), earlier now is ValueError", "contract rule 1")
W2 = _wheel("W2", "due tick = max(ceil(deadline/tick), cursor): never early, at most one tick late when keeping up", "contract rule 2")
W3 = _wheel("W3", "fired handles in due-tick order, ties in schedule order; executor gets each callback once, off-thread", "contract rule 3")
W4 = _wheel("W4", "exactly one of: cancel returns True, or the handle fires once", "contract rule 4")
W5 = _wheel("W5", "max_pending: WheelFullError, never silent loss", "contract rule 5")
W6 = _wheel("W6", "errors never change state; malformed arguments are TypeError/ValueError", "contract rule 6")
W_INV_EARLY = _wheel("W-INV-EARLY", "no timer fires before its deadline", "invariant")
W_INV_ONCE = _wheel("W-INV-ONCE", "no timer fires twice; a cancelled timer never fires", "invariant")
W_INV_LATE = _wheel("W-INV-LATE", "keeping up, every timer fires within one tick of its deadline", "invariant")
W_INV_PENDING = _wheel("W-INV-PENDING", "pending() counts exactly the live timers", "invariant")
W_T1 = _wheel("W-T1", "relates tick, bucket count, covered span and deadline exactly", "seed: what the interviewer evaluates")
W_T2 = _wheel("W-T2", "handles rotations, the current bucket's not-yet-due timers, late ticks, no early firing", "seed: what the interviewer evaluates")
W_T3 = _wheel("W-T3", "cancellation is cheap and a cancelled node can never run", "seed: what the interviewer evaluates")
W_T4 = _wheel("W-T4", "thread safety, callback isolation, clock choice and overload behaviour", "seed: what the interviewer evaluates")
W_MEM = _wheel("W-MEM", "after every call the wheel holds at most 2 x pending timer entries (cancelled shells included)", "contract: costs")
W_COST = _wheel("W-COST", "a tick costs O(1 + its bucket), schedule and cancel O(1): n and 8n timers parked elsewhere, in one run", "contract: costs")
W_LIN = _wheel("W-LIN", "concurrent rounds are linearizable against the model", "concurrency")

#: The rules each point of a seed's "what the interviewer tests" rests on: a point is broken
#: wherever one of its rules is (it is never "held" beside them), with that rule's
#: counterexample.
SEED_RULES: dict[str, tuple[str, ...]] = {
    S_T1: (S_INV, S_TERMINAL),
    S_T2: (S_COST,),
    S_T3: (S4,),
    S_T4: (S2, S5, S6, S_ORACLE_CYCLE),
    S_T5: (S3, S_CLAIM_ONCE, S7),
    S_T6: (S_LIN,),
    W_T1: (W2,),
    W_T2: (W1, W_INV_EARLY, W_INV_LATE),
    W_T3: (W4,),
    W_T4: (W3, W5, W_LIN),
}

SCHEDULER_CLAUSES: tuple[Clause, ...] = tuple(_SCHEDULER)
WHEEL_CLAUSES: tuple[Clause, ...] = tuple(_WHEEL)
#: The clause table of each system, by the system's name.
CLAUSE_TABLES: dict[str, tuple[Clause, ...]] = {
    "scheduler": SCHEDULER_CLAUSES,
    "wheel": WHEEL_CLAUSES,
}
_BY_ID: dict[str, Clause] = {c.id: c for c in SCHEDULER_CLAUSES + WHEEL_CLAUSES}


def _check_constants() -> None:
    """Every row has its constant, spelled as its id: ``S-COST`` is ``S_COST``."""
    names = globals()
    for c in _BY_ID.values():
        if names.get(c.id.replace("-", "_")) != c.id:
            raise ImportError(f"clause {c.id!r} has no constant {c.id.replace('-', '_')} "
                              "in schedcheck.harness.clauses; declare it as NAME = _sched(...)")
    if len(_BY_ID) != len(SCHEDULER_CLAUSES) + len(WHEEL_CLAUSES):
        raise ImportError("two clauses of schedcheck.harness.clauses share an id")


_check_constants()


def clauses_for(system: str) -> tuple[Clause, ...]:
    try:
        return CLAUSE_TABLES[system]
    except KeyError:
        raise ValueError(f"unknown system {system!r}; expected one of "
                         f"{', '.join(map(repr, CLAUSE_TABLES))}") from None


def clause(clause_id: str) -> Clause:
    try:
        return _BY_ID[clause_id]
    except KeyError:
        raise KeyError(f"no clause {clause_id!r}; the ids are in "
                       "schedcheck.harness.clauses") from None
