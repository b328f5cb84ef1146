"""The trace of a suite run: one :class:`~schedcheck.harness.result.Step` per call, in order.

Code lines read ``name = target.method(k=v)`` with plain words beside them; results get names
such as ``claim_0`` or ``h_1`` (:meth:`Recorder.fresh_name`) that later lines reuse (wrap them
in :class:`~schedcheck.harness.outcomes.Ref` so they print as the name, not as a value).
Re-exported by ``schedcheck.harness.common``.
"""

from __future__ import annotations

from schedcheck.harness import supervisor
from schedcheck.harness.result import Step

__all__ = ["Recorder"]




class Recorder:
    """The steps of one run, in order, with fresh result names per prefix."""

    def __init__(self, setup: str = "") -> None:
        self.setup = setup
        self.steps: list[Step] = []
        self._counters: dict[str, int] = {}

    def fresh_name(self, prefix: str) -> str:
        """``claim_0``, ``claim_1``, ... (one counter per prefix, like Hypothesis's bundles)."""
        n = self._counters.get(prefix, 0)
        self._counters[prefix] = n + 1
        return f"{prefix}_{n}"

    def add(
        self,
        code: str,
        words: str,
        *,
        thread: str | None = None,
        clause: str | None = None,
        expected: str = "",
        actual: str = "",
        check: str | None = None,
    ) -> Step:
        step = Step(
            index=len(self.steps),
            code=code,
            words=words,
            expected=expected,
            actual=actual,
            thread=thread,
            clause=clause,
            check=check,
        )
        self.steps.append(step)
        if supervisor.active():  # the parent tells the story if the next call never returns
            supervisor.send("step", self.setup, step.index, code, words, thread, clause)
        return step

    def program(self) -> str:
        """The run as text: the setup line, then one line per step; the diverging line carries
        a comment with both replies."""
        lines = [self.setup] if self.setup else []
        for step in self.steps:
            line = step.code
            if step.thread:
                line = f"{line}  # [{step.thread}]"
            if step.diverged:
                line = f"{line}  # <-- DIVERGES: model {step.expected}, target {step.actual}"
            lines.append(line)
        return "\n".join(lines)

    def __len__(self) -> int:
        return len(self.steps)
