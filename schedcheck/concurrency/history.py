"""A concurrent history: the invocation and response of every operation, in one total order.

Under the baton the order is exact (only one thread runs between switch points), so the event
index *is* real time. Under real threads (``stress.py``) each lane stamps invocation and
response with a shared counter taken under a real lock just before the call and just after it
returns -- a conservative order: an operation's interval only ever grows, so a history that is
linearizable in the recorded order is linearizable in the real one.

An operation whose lane never returned (a deadlock, an abort) has ``returned is None``: the
checker may linearize it anywhere after its invocation, with any response, or not at all.
"""

from __future__ import annotations

import _thread
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Operation:
    id: int
    lane: str
    call: Any  #: what the spec's ``apply`` consumes (and the report prints)
    invoked: int  #: event index of the invocation
    returned: int | None = None  #: event index of the response, None if it never returned
    response: Any = None  #: normalised: a value, or ("raise", "ErrorName")

    def describe(self) -> str:
        shown = "<no response>" if self.returned is None else repr(self.response)
        return f"{self.lane}: {self.call} -> {shown}"


@dataclass
class History:
    operations: list[Operation] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  #: free use by the checkers
    _clock: int = 0
    _lock: Any = field(default_factory=_thread.allocate_lock)

    def _tick(self) -> int:
        with self._lock:
            self._clock += 1
            return self._clock

    def invoke(self, lane: str, call: Any) -> Operation:
        at = self._tick()
        with self._lock:
            op = Operation(id=len(self.operations), lane=lane, call=call, invoked=at)
            self.operations.append(op)
        return op

    def respond(self, op: Operation, response: Any) -> None:
        op.response = response
        op.returned = self._tick()

    def events(self) -> list[tuple[int, str, Operation]]:
        """(time, "invoke"/"return", op), sorted by time."""
        out: list[tuple[int, str, Operation]] = []
        for op in self.operations:
            out.append((op.invoked, "invoke", op))
            if op.returned is not None:
                out.append((op.returned, "return", op))
        out.sort(key=lambda e: e[0])
        return out

    def describe(self) -> str:
        lines = []
        for op in sorted(self.operations, key=lambda o: o.invoked):
            end = "..." if op.returned is None else str(op.returned)
            lines.append(f"  [{op.invoked:>3}..{end:>3}] {op.describe()}")
        return "\n".join(lines)
