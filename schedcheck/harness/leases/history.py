"""The history checker of the crash tests (a Jepsen-style lease-queue workload): the events the
worker processes recorded (``claim``, ``renew``, ``report-begin``, ``report``; see
``schedcheck.impl.durable.worker``) and the store's final states, judged against
specs/durable.md:

* **H1 at least once** -- every task ran: it has a claim, and the store says SUCCEEDED;
* **H2 nothing lost** -- every submitted task ended SUCCEEDED, exactly one report of it was
  APPLIED (or the worker died between the commit and its record: then the store's SUCCEEDED
  stands for it), and no APPLIED report names a claim that does not exist;
* **H3 one live claim** -- two claims of one task never overlap in time: a claim is live from
  its start (the store's clock at the claim) until its last recorded expiry; the next claim
  must start after that (it can only be a reclaim), with a larger generation and token;
* **H4 fenced** -- no report is APPLIED for a claim when a later claim of the same task had
  already started before the report was sent.

``check_history`` returns the violations (empty: the history is valid); each names its rule,
the task and the events.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Claimed", "Violation", "check_history", "read_history"]


@dataclass(frozen=True)
class Violation:
    rule: str
    task: Any
    story: str

    def __str__(self) -> str:
        return f"{self.rule} {self.task!r}: {self.story}"


@dataclass
class Claimed:
    """One claim and what became of it."""

    task: Any
    gen: int
    token: int
    start: float
    expires: float
    pid: int
    reports: list[dict[str, Any]] = field(default_factory=list)
    begins: list[float] = field(default_factory=list)


def read_history(paths: Iterable[str]) -> list[dict[str, Any]]:
    """Every event line of the files (a torn last line, which O_APPEND writes never leave, would
    be reported by json as an error)."""
    out: list[dict[str, Any]] = []
    for path in paths:
        with open(path) as fh:
            out += [json.loads(line) for line in fh if line.strip()]
    return out


def _key(task: Any) -> Any:
    return tuple(task) if isinstance(task, list) else task


def check_history(events: Iterable[Mapping[str, Any]], final: Mapping[Any, str]) -> list[Violation]:
    """Judge ``events`` against ``final`` (task id -> its final state in the store)."""
    claims: dict[tuple[Any, int, int], Claimed] = {}
    bad: list[Violation] = []
    for e in events:
        task = _key(e["task"])
        k = (task, int(e["gen"]), int(e["token"]))
        if e["ev"] == "claim":
            if k in claims:
                bad.append(Violation("H3", task, f"generation {k[1]} token {k[2]} was claimed "
                                                 "twice"))
            claims[k] = Claimed(task, k[1], k[2], float(e["start"]), float(e["expires"]),
                                int(e["pid"]))
        elif k not in claims:
            if e["ev"] == "report" and e["outcome"] == "APPLIED":
                bad.append(Violation("H2", task, f"an APPLIED report of g{k[1]} token {k[2]} "
                                                 "that no claim handed out"))
        elif e["ev"] == "renew":
            claims[k].expires = max(claims[k].expires, float(e["expires"]))
        elif e["ev"] == "report-begin":
            claims[k].begins.append(float(e["t"]))
        elif e["ev"] == "report":
            claims[k].reports.append(dict(e))
    by_task: dict[Any, list[Claimed]] = defaultdict(list)
    for c in claims.values():
        by_task[c.task].append(c)
    for task, state in final.items():
        mine = sorted(by_task.get(task, []), key=lambda c: (c.start, c.gen))
        if not mine:
            bad.append(Violation("H1", task, f"never claimed (final state {state})"))
        if state != "SUCCEEDED":
            bad.append(Violation("H2", task, f"ended {state}, not SUCCEEDED"))
        applied = [c for c in mine for r in c.reports if r["outcome"] == "APPLIED"]
        if len(applied) > 1:
            bad.append(Violation("H2", task, "two reports APPLIED: " + ", ".join(
                f"g{c.gen} by pid {c.pid}" for c in applied)))
        if state == "SUCCEEDED" and not applied and not any(
                len(c.begins) > len(c.reports) for c in mine):
            bad.append(Violation("H2", task, "SUCCEEDED in the store, but no report was APPLIED "
                                             "and none was cut short by a crash"))
        for a, b in itertools.pairwise(mine):
            if not (b.gen > a.gen and b.token > a.token):
                bad.append(Violation("H3", task, f"claim g{b.gen} token {b.token} after "
                                                 f"g{a.gen} token {a.token}: not larger"))
            if b.start < a.expires:
                bad.append(Violation("H3", task, f"g{b.gen} (pid {b.pid}) claimed at "
                                                 f"{b.start:.3f} while g{a.gen} (pid {a.pid}) "
                                                 f"held its lease until {a.expires:.3f}"))
        for c in mine:
            later = [b for b in mine if b.gen > c.gen]
            for r, begin in zip(c.reports, c.begins):
                if r["outcome"] == "APPLIED" and any(b.start < begin for b in later):
                    bad.append(Violation("H4", task, f"pid {c.pid}'s report of g{c.gen} was "
                                                     "APPLIED after a later claim had started"))
    for task in by_task:
        if task not in final:
            bad.append(Violation("H2", task, "claimed but not in the store"))
    return bad
