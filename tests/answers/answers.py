"""The answers of this folder and their known mistakes, as data.

Each mistake names the ``grade`` item that owns it (``item``), a pattern the message of the
miss shown under that item must match (``shows``: it is *this* mistake, not another one the
item also owns), the ``check`` clauses any of which may report it (``clauses``), a line
saying what it is, and (``also``) other items whose subject it breaks too -- forgetting the
remaining rounds also fires a not-yet-due node in the bucket under the cursor.
``tests/answers/test_answers.py`` asserts that ``grade`` and one ``check`` run report the
listed mistakes under their owners and fail nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    item: str  #: the grade item that owns it
    shows: str  #: a regex the miss under ``item`` matches
    clauses: tuple[str, ...]  #: check clauses that own it (any one reporting it counts)
    what: str
    #: other grade items whose subject this mistake breaks as well (they may fail too)
    also: tuple[str, ...] = ()
    #: False: no fixed program of grade can show it (grade measures no memory); check only
    graded: bool = True


@dataclass(frozen=True)
class Answer:
    name: str
    system: str
    target: str  #: module:Class under tests/answers
    seed_shaped: bool
    mistakes: tuple[Mistake, ...]


ANSWERS: tuple[Answer, ...] = (
    Answer("strong-scheduler", "scheduler", "tests.answers.strong_scheduler:Scheduler", False, (
        Mistake("S-M6", r"cancel.*answered REQUESTED RUNNING; the model answers DUPLICATE",
                ("S6",), "a second cancel of a RUNNING task answers REQUESTED again"),
        Mistake("S-M3", r"dependency of the next", ("S2", "S-ORACLE-CYCLE"),
                "the cycle path runs from dependent to dependency (reversed)"),
    )),
    Answer("strong-wheel", "wheel", "tests.answers.strong_wheel:TimingWheel", False, (
        Mistake("W-T1", r"deadline already passed|past", ("W2", "W-INV-LATE"),
                "a deadline in the past goes to bucket ceil(deadline/tick) % W, not the cursor"),
        Mistake("W-M2", r"rotation|before its deadline|early", ("W2", "W-INV-EARLY"),
                "rounds are (due - cursor - 1) // W: a whole number of rotations fires early",
                ("W-M3",)),
    )),
    Answer("plan-scheduler", "scheduler", "tests.answers.plan_scheduler:TaskScheduler", True, (
        Mistake("S-polish-5", r"ValueError", ("S9",),
                "the constructor takes max_concurrency=-1 (no ValueError)"),
        Mistake("S-T1", r"PENDING|READY; the model says BLOCKED", ("S1", "S-INV"),
                "a new version on a dead dependency is left PENDING/READY, not BLOCKED"),
        Mistake("S-M3", r"dependency of the next", ("S2", "S-ORACLE-CYCLE"),
                "the cycle path runs from dependent to dependency (reversed)"),
        Mistake("S-polish-4", r"NotStartedError", ("S3", "S9"),
                "ready() before freeze() returns [] instead of NotStartedError"),
        Mistake("S-M6", r"fail.*FAILED; the model answers APPLIED CANCELLED|CANCELLED",
                ("S5",), "fail() after a requested cancel ends FAILED, not CANCELLED"),
        Mistake("S-M6", r"cancel.*REQUESTED RUNNING; the model answers DUPLICATE", ("S6",),
                "a second cancel of a RUNNING task answers REQUESTED again"),
        Mistake("S-T4", r"RUNNING", ("S5", "S6", "S-TERMINAL"),
                "blocking propagates into RUNNING tasks"),
        Mistake("S-T4", r"root", ("S5", "S6", "S-INV"),
                "a transitively blocked task names its parent ('blocked'), not the root"),
        Mistake("S-polish-4", r"ConflictError", ("S7", "S9"),
                "resubmitting a RUNNING task raises the text's own Conflict, not ConflictError"),
        Mistake("S-polish-3", r"UnknownTaskError", ("S9",),
                "an unknown id raises a bare KeyError, not UnknownTaskError"),
        Mistake("S-polish-1", r"TypeError", ("S9", "S4"),
                "a bool generation is accepted (True == 1)"),
        Mistake("S-T5", r"READY; the model says PENDING", ("S1", "S-INV", "S-CLAIM-DEPS"),
                "a new version of a SUCCEEDED task leaves its READY dependents READY (they no "
                "longer wait for it)"),
    )),
    Answer("plan-wheel", "wheel", "tests.answers.plan_wheel:TimingWheel", True, (
        Mistake("W-polish-5", r"ValueError", ("W6",),
                "the constructor takes tick=0 (no ValueError)"),
        Mistake("W-T1", r"the model fires", ("W2",),
                "the due tick counts ceil((deadline - now) / tick) from the current tick"),
        Mistake("W-F3", r"cancel\(h\d\) returned None", ("W4",),
                "cancel answers nothing (None), so the caller cannot tell"),
        Mistake("W-F3", r"\.cancelled", ("W4", "W-INV-ONCE"),
                "cancel of a fired timer marks its handle cancelled (fired and cancelled both "
                "read True)"),
        Mistake("W-polish-4", r"TypeError", ("W6",),
                "a non-callable callback or a bool deadline is accepted"),
        Mistake("W-polish-3", r"ValueError", ("W1", "W6"),
                "advance() back in time is accepted"),
        Mistake("W-polish-1", r"TypeError", ("W6",),
                "cancel() of something not a handle raises AttributeError"),
        Mistake("W-polish-2", r"False", ("W4", "W6"),
                "cancel() of another wheel's handle cancels that wheel's timer"),
        Mistake("W-M7", r"refused a submission", ("W3",),
                "advance() submits unguarded: a submission the executor refuses escapes it, "
                "and the rest of the window is lost"),
    )),
    Answer("newcomer-wheel", "wheel", "tests.answers.newcomer_wheel:TimingWheel", False, (
        Mistake("W-polish-5", r"ValueError", ("W6",),
                "the constructor takes tick=0 (no ValueError)"),
        Mistake("W-T1", r"the model fires", ("W2", "W-INV-LATE"),
                "a deadline at the current tick waits for the next tick"),
        Mistake("W-M5", r"inside advance|on the tick thread", ("W3",),
                "callbacks run inline inside advance(), executor or not"),
        Mistake("W-M2", r"before its deadline|early|rotation", ("W2", "W-INV-EARLY"),
                "no remaining rounds: a timer a rotation away fires on the first visit",
                also=("W-M3",)),
        Mistake("W-M7", r"missed|lost|late", ("W1", "W2", "W-INV-LATE"),
                "advance processes only the tick of now: missed ticks are skipped"),
        Mistake("W-F3", r"returned None", ("W4",),
                "cancel answers nothing (None)"),
        Mistake("W-T3", r"", ("W-MEM",),
                "cancel only sets the flag: the timer stays in its bucket until the cursor "
                "takes it, so cancelled timers pile up", graded=False),
        Mistake("W-polish-2", r"False", ("W4", "W6"),
                "cancel() of another wheel's handle cancels that wheel's timer"),
    )),
)
