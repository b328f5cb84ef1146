"""Which graded item owns a divergence of the scheduler: the rules :func:`disagreement`
(``schedcheck.practice.scheduler_items``) applies to the step where the learner's class and
the model first differ, so that each miss is shown under the item whose rule it broke.

The rules look at the call, the model's state of the tasks just before it and its reply: an
expected error belongs to the item about that error (``S-polish-*``, a ConflictError to
``S-T5``, a CycleError to ``S-M3``); a stale callback to ``S-M4``; a duplicate to ``S-T6``; a
cancel of a RUNNING task or a fail after a requested cancel to ``S-M6``; a claim of a task
whose dependency is dead to ``S-M5``, of one claimed before to ``S-F7``; a BLOCKED state
that differs to ``S-T4`` (``S-M5`` when the dependent was treated as released, ``S-F4`` for an
unrelated branch of a cancel); a new version's first state to ``S-T1``; a retry to
``S-M8``; the release of dependents to ``S-T3``. ``"A|B"`` names two items either of which
may own it (the one that found it, else A). A new task refused after start() is a
difference the interview text allows (``CAPABILITY``).
"""

from __future__ import annotations

from typing import Any

from schedcheck.practice.grading import CAPABILITY
from schedcheck.targets.adapt import error_name, norm_claims, norm_reply

__all__ = ["Context", "generation_owner", "reply_owner", "state_owner"]

Step = tuple[str, tuple[Any, ...]]


class Context:
    """One step's calls and the model's state just before it, for the ownership rules."""

    def __init__(self, step: Step, mine: tuple[str, Any], theirs: tuple[str, Any],
                 pre: dict[Any, Any], requested: dict[Any, bool], started: bool,
                 model: Any, resubmitted: set[Any],
                 dropped: dict[Any, set[Any]] | None = None) -> None:
        self.resubmitted = resubmitted  #: ids submitted again earlier in the program
        #: id -> the dependencies a resubmit of it dropped (edges it no longer has)
        self.dropped = dropped or {}
        self.step, self.mine, self.theirs = step, mine, theirs
        self.pre, self.requested, self.started, self.model = pre, requested, started, model
        self.call = step[0]
        self.task = step[1][0] if step[1] else None

    def pre_state(self, task: Any) -> str:
        info = self.pre.get(task)
        return "" if info is None else str(info.state.name)

    def downstream(self, root: Any) -> set[Any]:
        """Tasks that reach ``root`` through required dependencies (its dependents, all
        the way down), by the model's edges."""
        out: set[Any] = set()
        frontier = [root]
        while frontier:
            x = frontier.pop()
            for t in self.model.task_ids():
                if x in self.model.deps_of(t) and t not in out:
                    out.add(t)
                    frontier.append(t)
        return out


#: the item whose rule an expected error belongs to
_ERROR_OWNER = {"NotStartedError": "S-polish-4", "UnknownDependencyError": "S-polish-4",
                "ClosedError": "S-polish-4", "ConflictError": "S-T5", "CycleError": "S-M3",
                "UnknownTaskError": "S-polish-3", "TypeError": "S-polish-1",
                "ValueError": "S-polish-2"}


#: the polish item owning an error raised under another name
_POLISH_OWNER = {"UnknownTaskError": "S-polish-3", "TypeError": "S-polish-1",
                 "ValueError": "S-polish-2"}


def reply_owner(ctx: Context, msg: str) -> str:
    """The item owning a reply that differs from the model's (the module docstring's
    ownership rules)."""
    call, mine, theirs = ctx.call, ctx.mine, ctx.theirs
    if mine[0] == "raises":
        name = error_name(mine[1])
        if ctx.call == "ready" and name in ("TypeError", "ValueError"):
            return "S-polish-2"
        if theirs[0] == "raises" and name != "CycleError":  # the error's name differs
            return _POLISH_OWNER.get(name, "S-polish-4")
        return _ERROR_OWNER.get(name, "S-T1")
    if theirs[0] == "raises":
        if call in ("submit", "submit_opt") and ctx.started and ctx.task not in ctx.pre:
            return (f"{CAPABILITY}refuses a new task id after start() -- the text allows "
                    "this (only new versions once running), so this item's program cannot run")
        if call == "submit_opt":
            return "S-F2"
        if call == "add_dependency":
            return "S-F3"
        if call in ("submit",):
            return _resubmit_owner(ctx)
        if call in ("fail", "cancel"):
            return "S-M1"
        return {"start": "S-M3", "ready": "S-T5", "complete": "S-T3"}.get(call, "S-T1")
    if call == "start":
        return "S-M3"
    if call == "ready":
        return _claim_owner(ctx)
    if call == "close":
        return "S-polish-4"
    if call == "add_dependency":
        return "S-F3"
    if call in ("submit", "submit_opt"):
        return _resubmit_owner(ctx)
    want_o = norm_reply(mine[1])[0]
    pre = ctx.pre_state(ctx.task)
    if want_o == "STALE":
        return "S-M4"
    if call == "cancel" and pre == "RUNNING":
        return "S-M6"
    if call == "fail" and pre == "RUNNING" and ctx.requested.get(ctx.task):
        return "S-M6"
    if want_o == "DUPLICATE" or (want_o == "REJECTED" and call != "cancel"):
        return "S-T6"
    if call in ("fail", "cancel"):
        return "S-M1" if want_o == "APPLIED" else "S-T6"
    return "S-T3"


def _resubmit_owner(ctx: Context) -> str:
    pre = ctx.pre_state(ctx.task)
    if pre in ("FAILED", "CANCELLED", "BLOCKED"):
        return "S-M8"
    return "S-T5" if pre else "S-T1"


def _claim_owner(ctx: Context) -> str:
    want = [c[0] for c in norm_claims(ctx.mine[1])]
    try:
        got = [c[0] for c in norm_claims(ctx.theirs[1])]
    except (TypeError, IndexError):
        got = list(ctx.theirs[1] or [])
    for task in got:
        if task in want:
            continue
        pre = ctx.pre_state(task)
        if pre == "RUNNING" or pre in ("SUCCEEDED", "FAILED", "CANCELLED"):
            return "S-F7"
        if pre == "BLOCKED" or any(ctx.pre_state(d) in ("FAILED", "BLOCKED", "CANCELLED")
                                   for d in ctx.model.deps_of(task)):
            return "S-M5"
        if pre == "PENDING":
            return "S-T3"
    if len(got) > len(want) and len(ctx.step[1]) > 0:
        return "S-M7"
    return "S-T5"


def state_owner(ctx: Context, task: Any, got: str, want: str) -> str:
    """The item owning a task state that differs from the model's after ``ctx.step``."""
    call, pre = ctx.call, ctx.pre_state(task)
    if call in ("submit", "submit_opt") and task == ctx.task:
        if ctx.call == "submit_opt":
            return "S-F2"
        if "BLOCKED" in (got, want):  # a new version's first state: dead dependency or not
            return "S-T1"
        return "S-M8" if pre in ("FAILED", "CANCELLED", "BLOCKED") else "S-T1"
    if call == "add_dependency":
        return "S-F3"
    if ctx.mine[0] == "ok" and call in ("complete", "fail", "cancel"):
        outcome = norm_reply(ctx.mine[1])[0]
        if outcome == "STALE":
            return "S-M4"
        if outcome == "DUPLICATE":
            return "S-T3|S-T6" if task != ctx.task else "S-T6"
    if task == ctx.task and call in ("fail", "cancel", "complete"):
        if ctx.requested.get(task) or (call == "cancel" and pre == "RUNNING"):
            return "S-M6"
        return "S-M1" if call in ("fail", "cancel") else "S-T3"
    if call == "submit_opt" or (call == "ready" and ctx.model.optional_of(task)):
        return "S-F2"
    if call in ("complete", "fail", "cancel") and ctx.task in ctx.dropped.get(task, ()):
        return "S-T5"  # a report reached the task through an edge its resubmit dropped
    if call == "submit" and ctx.task in ctx.resubmitted and task != ctx.task:
        return "S-T5"  # a new version changed what its dependents wait for
    if want == "BLOCKED" or got == "BLOCKED":
        if call == "cancel" and task not in ctx.downstream(ctx.task):
            return "S-F4"
        if want == "BLOCKED" and got in ("READY", "RUNNING", "SUCCEEDED"):
            return "S-M5"  # a dead dependency treated as success
        if want == "BLOCKED" and got == "PENDING" and call in ("fail", "cancel"):
            return "S-T4|S-M1"  # fail()/cancel() never reached the dependents
        return "S-T4"
    if task in ctx.resubmitted or ctx.task in ctx.resubmitted:
        return "S-T5|S-T3"  # the edges of a resubmitted task
    if call == "ready":
        return _claim_owner(ctx)
    if call in ("submit", "submit_opt"):
        return "S-T5"
    return "S-T3"


def generation_owner(ctx: Context, task: Any) -> str:
    if ctx.call in ("submit", "submit_opt") and task == ctx.task:
        return _resubmit_owner(ctx)
    return "S-T5"
