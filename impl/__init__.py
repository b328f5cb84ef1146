"""The production implementations: what you would ship (see each module's opening comment)."""

from schedcheck.impl.driver import WheelTimer
from schedcheck.impl.hashed_wheel import HashedTimingWheel
from schedcheck.impl.hierarchical_wheel import HierarchicalTimingWheel
from schedcheck.impl.runner import Runner, run
from schedcheck.impl.scheduler import Scheduler

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
