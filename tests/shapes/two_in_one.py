"""A scheduler with two mistakes in one clause (S5, fail()): keep-going grading must show
both, not only the first one found."""

from __future__ import annotations

from typing import Any

from schedcheck.impl import Scheduler

from schedcheck.contract import Outcome, Reply, TaskState


class TwoFailMistakes(Scheduler):
    """fail() of a SUCCEEDED task answers DUPLICATE (the contract: REJECTED), and fail() of a
    CANCELLED task answers REJECTED (the contract: DUPLICATE). Neither changes any state."""

    def fail(self, task_id: Any, generation: int, error: Any = None) -> Any:
        reply = super().fail(task_id, generation, error)
        try:
            current = self.info(task_id).generation == generation
        except Exception:
            return reply
        if current and reply.state is TaskState.SUCCEEDED and reply.outcome is Outcome.REJECTED:
            return Reply(Outcome.DUPLICATE, reply.state)
        if current and reply.state is TaskState.CANCELLED and reply.outcome is Outcome.DUPLICATE:
            return Reply(Outcome.REJECTED, reply.state)
        return reply
