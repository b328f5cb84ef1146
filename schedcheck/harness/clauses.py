"""The report card's rows: every clause a suite can exercise or break.

Ids are stable (they appear in ``report.json``, the zoo's kill matrix and the tests):

* ``S1``..``S9`` -- the scheduler contract's rules 1-9 (specs/scheduler.md);
* ``S-INV``, ``S-CLAIM-ONCE`` ... -- the scheduler invariants checked after every step;
* ``S-X-...`` -- the seed's follow-up extensions (optional for third parties);
* ``S-T1``..``S-T6`` -- the points of the scheduler seed's "what the interviewer tests";
* ``W1``..``W6``, ``W-INV-...``, ``W-T1``..``W-T4`` -- the same for the timing wheel;
* ``*-COST`` -- the scaling clauses (a cost ratio at n and 8n in one run);
* ``*-LIN`` -- linearizability of concurrent rounds (issue: concurrency).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Clause:
    id: str
    title: str  #: one line, what must hold
    source: str  #: "contract rule 4", "seed: what the interviewer tests", "invariant"
    optional: bool = False  #: an extension a third party may lack ("not supported")


SCHEDULER_CLAUSES: tuple[Clause, ...] = (
    Clause("S1", "submit: argument types; new generation BLOCKED/READY/PENDING from its deps", "contract rule 1"),
    Clause("S2", "start(): unknown dependencies, then cycles ([a, ..., a], real edges); failed start changes nothing", "contract rule 2"),
    Clause("S3", "ready(): READY tasks in submission sequence, made RUNNING at once, never over max_concurrency", "contract rule 3"),
    Clause("S4", "complete(): STALE/APPLIED/DUPLICATE/REJECTED; releases direct PENDING dependents once", "contract rule 4"),
    Clause("S5", "fail(): FAILED (or CANCELLED after a request); blocks reachable PENDING/READY with the root cause", "contract rule 5"),
    Clause("S6", "cancel(): PENDING/READY cancelled and dependents blocked; RUNNING only requested (cooperative)", "contract rule 6"),
    Clause("S7", "resubmit: new generation, old edges removed first, validated after start, ConflictError if RUNNING", "contract rule 7"),
    Clause("S8", "close(): cancels PENDING/READY with cause shutdown, in submission sequence; ready() then []", "contract rule 8"),
    Clause("S9", "errors: precedence of rule 9, UnknownTaskError, and errors never change state", "contract rule 9"),
    Clause("S-INV", "no current PENDING/READY generation has a dead dependency; BLOCKED carries a FAILED/CANCELLED root", "invariant"),
    Clause("S-CLAIM-ONCE", "each (id, generation) is claimed at most once; running <= max_concurrency", "invariant"),
    Clause("S-CLAIM-DEPS", "a claimed task had every dependency SUCCEEDED when claimed", "invariant"),
    Clause("S-TERMINAL", "a terminal generation never leaves its state", "invariant"),
    Clause("S-ORACLE-CYCLE", "networkx agrees whether the graph has a cycle; .cycle is a real simple cycle", "oracle"),
    Clause("S-ORACLE-TOPO", "unbounded, all succeed: ready() batches equal graphlib's get_ready() batches", "oracle"),
    Clause("S-X-RETRY", "retry(cascade): resubmits the dead task and its BLOCKED subtree in one step", "extension", optional=True),
    Clause("S-X-OPTIONAL", "optional edges: READY once optional deps are terminal in any state", "extension", optional=True),
    Clause("S-X-ADDDEP", "add_dependency: only while PENDING or before start; cycles and dead deps handled", "extension", optional=True),
    Clause("S-T1", "distinguishes pending, ready, running, succeeded, failed, blocked and cancelled", "seed: what the interviewer tests"),
    Clause("S-T2", "keeps indegree and reverse adjacency instead of rescanning every task", "seed: what the interviewer tests"),
    Clause("S-T3", "releases only the affected dependents when a dependency completes", "seed: what the interviewer tests"),
    Clause("S-T4", "defines cycle, failure and cancellation propagation", "seed: what the interviewer tests"),
    Clause("S-T5", "bounds workers, one claim per task version, handles duplicate submits", "seed: what the interviewer tests"),
    Clause("S-T6", "survives adversarial interleavings (late and duplicate callbacks, concurrent ready())", "seed: what the interviewer tests"),
    Clause("S-COST", "the cost of a whole run grows linearly: n and 8n tasks in one run", "contract: costs"),
    Clause("S-LIN", "concurrent rounds are linearizable against the model", "concurrency"),
)

WHEEL_CLAUSES: tuple[Clause, ...] = (
    Clause("W1", "advance(): ticks cursor..now//tick in order, max_catchup_ticks budget, lag_ticks(), earlier now is ValueError", "contract rule 1"),
    Clause("W2", "due tick = max(ceil(deadline/tick), cursor): never early, at most one tick late when keeping up", "contract rule 2"),
    Clause("W3", "fired handles in due-tick order, ties in schedule order; executor gets each callback once, off-thread", "contract rule 3"),
    Clause("W4", "exactly one of: cancel returns True, or the handle fires once", "contract rule 4"),
    Clause("W5", "max_pending: WheelFullError, never silent loss", "contract rule 5"),
    Clause("W6", "errors never change state; malformed arguments are TypeError/ValueError", "contract rule 6"),
    Clause("W-INV-EARLY", "no timer fires before its deadline", "invariant"),
    Clause("W-INV-ONCE", "no timer fires twice; a cancelled timer never fires", "invariant"),
    Clause("W-INV-LATE", "keeping up, every timer fires within one tick of its deadline", "invariant"),
    Clause("W-INV-PENDING", "pending() counts exactly the live timers", "invariant"),
    Clause("W-T1", "relates tick, bucket count, covered span and deadline exactly", "seed: what the interviewer evaluates"),
    Clause("W-T2", "handles rotations, the current bucket's not-yet-due timers, late ticks, no early firing", "seed: what the interviewer evaluates"),
    Clause("W-T3", "cancellation is cheap and a cancelled node can never run", "seed: what the interviewer evaluates"),
    Clause("W-T4", "thread safety, callback isolation, clock choice and overload behaviour", "seed: what the interviewer evaluates"),
    Clause("W-COST", "a tick costs O(1 + its bucket): n and 8n timers parked elsewhere, in one run", "contract: costs"),
    Clause("W-LIN", "concurrent rounds are linearizable against the model", "concurrency"),
)


def clauses_for(system: str) -> tuple[Clause, ...]:
    if system == "scheduler":
        return SCHEDULER_CLAUSES
    if system == "wheel":
        return WHEEL_CLAUSES
    raise ValueError(f"unknown system {system!r}; expected 'scheduler' or 'wheel'")


def clause(clause_id: str) -> Clause:
    for c in SCHEDULER_CLAUSES + WHEEL_CLAUSES:
        if c.id == clause_id:
            return c
    raise KeyError(clause_id)
