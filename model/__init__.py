"""The reference models: the contract as executable Python (specs/scheduler.md, specs/wheel.md).

Small and obviously correct, slow on purpose; each rule cites its number in the contract.
Their state is cheap to copy (``copy.deepcopy``/``snapshot()``) and compares with ``==``.
"""

from schedcheck.model.scheduler import Scheduler
from schedcheck.model.wheel import Handle, TimingWheel

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
    "Handle",
    "NotStartedError",
    "Outcome",
    "Reply",
    "Scheduler",
    "SchedulerError",
    "TaskInfo",
    "TaskState",
    "TimingWheel",
    "UnknownDependencyError",
    "UnknownTaskError",
    "WheelFullError",
]
