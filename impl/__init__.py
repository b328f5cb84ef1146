"""The production implementations: what you would ship (see each module's opening comment)."""

from schedcheck.impl.scheduler.indegree import Scheduler
from schedcheck.impl.scheduler.runner import Runner, run
from schedcheck.impl.wheel.driver import WheelTimer
from schedcheck.impl.wheel.hashed import HashedTimingWheel
from schedcheck.impl.wheel.hierarchical import HierarchicalTimingWheel

from schedcheck.contract import (
    DEAD,
    TERMINAL,
    Cause,
    Claim,
    ClosedError,
    ConflictError,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    SchedulerError,
    TaskInfo,
    TaskState,
    UnknownDependencyError,
    UnknownTaskError,
    WheelFullError,
)

__all__ = [
    "DEAD",
    "TERMINAL",
    "Cause",
    "Claim",
    "ClosedError",
    "ConflictError",
    "CycleError",
    "HashedTimingWheel",
    "HierarchicalTimingWheel",
    "NotStartedError",
    "Outcome",
    "Reply",
    "Runner",
    "Scheduler",
    "SchedulerError",
    "TaskInfo",
    "TaskState",
    "UnknownDependencyError",
    "UnknownTaskError",
    "WheelFullError",
    "WheelTimer",
    "run",
]
