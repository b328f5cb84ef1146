"""The machinery shared by the lemma files: one lemma = one z3 query with an expected answer.

A :class:`Lemma` builds a :class:`Query` -- hypotheses and a claim. ``prove`` asks z3 whether
``hypotheses and not claim`` is satisfiable:

* kind ``"lemma"`` / ``"bmc"``: ``unsat`` means the claim holds for every value (``proved``);
  ``sat`` is a bug in the rule or the encoding (``UNEXPECTED: refuted``, with the model);
* kind ``"mutation"``: the claim is an invariant and the hypotheses use a *mutated* rule from
  the seeds' list of common mistakes. ``sat`` is what we want: z3's model is printed as a
  readable counterexample, then :attr:`Lemma.replay` rebuilds it with real calls on the
  executable model (``schedcheck.model``) with the mutated step applied by a mutated subclass.
  If the replay confirms the break the status is ``refuted``; if the model cannot reach the
  situation the status is ``invariant too weak`` (the encoding found a state that is not
  reachable, which is a weakness of the spec, not a bug of the mutant). ``unsat`` means the
  mutant survived: ``UNEXPECTED: proved``.

A query may be a *list* of sub-queries (one per transition, per size N): a lemma is proved
when every sub-query is ``unsat``, a mutation is refuted by the first ``sat`` one.

Every solver call gets ``timeout_ms``; ``unknown`` (a timeout, or z3 giving up on non-linear
arithmetic) is reported as ``unknown`` and fails the run, never as proved.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import z3

__all__ = [
    "PROVED",
    "REFUTED",
    "TOO_WEAK",
    "UNKNOWN",
    "Lemma",
    "LemmaResult",
    "Query",
    "Replay",
    "ceil_div",
    "check_lemma",
    "floor_div",
    "z3_max",
]

PROVED = "proved"
REFUTED = "refuted"
UNKNOWN = "unknown"
TOO_WEAK = "invariant too weak"


@dataclass
class LemmaResult:
    """One row of ``schedcheck prove`` (also rendered by the toolkit's HTML report)."""

    name: str
    kind: str  #: "lemma" | "mutation" | "bmc"
    system: str  #: "wheel" | "scheduler"
    says: str  #: one line: what the lemma claims (or which mistake the mutation makes)
    status: str  #: "proved" | "refuted" | "unknown" | "invariant too weak" | "UNEXPECTED: ..."
    seconds: float
    counterexample: str | None = None  #: readable state + step (+ the model replay)
    bounded_n: int | None = None  #: tasks in the encoding when not proved for every N
    why_bounded: str | None = None
    queries: int = 0  #: solver calls made

    @property
    def ok(self) -> bool:
        """True iff this row is what a correct specification expects."""
        if self.kind == "mutation":
            return self.status == REFUTED
        return self.status == PROVED

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Query:
    """``hypotheses`` and ``claim``; ``describe(model)`` turns a z3 model into readable text."""

    hypotheses: list[Any]
    claim: Any
    describe: Callable[[z3.ModelRef], str] | None = None
    label: str = ""  #: which sub-query ("complete, N=3")
    #: free data for the replay (the symbolic trace, the variables to read back)
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Replay:
    """What the executable model did with a counterexample."""

    confirmed: bool  #: the invariant really fails in the model under the mutated step
    story: str  #: the calls made and what was observed


@dataclass(frozen=True)
class Lemma:
    name: str
    kind: str  #: "lemma" | "mutation" | "bmc"
    system: str
    says: str
    build: Callable[[], Iterable[Query]]
    #: mutations only: rebuild the counterexample in schedcheck.model
    replay: Callable[[z3.ModelRef, Query], Replay] | None = None
    bounded_n: int | None = None
    why_bounded: str | None = None


def floor_div(a: Any, b: Any) -> Any:
    """Python's ``a // b`` for ``b >= 1``: SMT-LIB ``div`` is floor division for a positive
    divisor, so the same expression is right on ints and on z3 terms."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return a / b


def ceil_div(a: Any, b: Any) -> Any:
    """``ceil(a / b) == -(-a // b)`` (specs/wheel.md section 1), ints or z3 terms."""
    return -floor_div(-a, b)


def z3_max(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return z3.If(a >= b, a, b)


def _solve(q: Query, timeout_ms: int) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
    s = z3.Solver()
    s.set(timeout=timeout_ms)
    s.add(*q.hypotheses)
    s.add(z3.Not(q.claim))
    r = s.check()
    return r, (s.model() if r == z3.sat else None)


def _default_describe(m: z3.ModelRef) -> str:
    pairs = sorted((d.name(), m[d]) for d in m.decls() if d.arity() == 0)
    return ", ".join(f"{k} = {v}" for k, v in pairs if not k.startswith("div0"))


#: hypotheses already found satisfiable (many rows share one transition's hypotheses)
_SATISFIABLE: dict[int, list[Any]] = {}


def _vacuous(hyps: list[Any], timeout_ms: int) -> bool:
    conj = z3.And(*hyps) if hyps else z3.BoolVal(True)
    seen = _SATISFIABLE.setdefault(conj.hash(), [])
    if any(conj.eq(other) for other in seen):
        return False
    s = z3.Solver()
    s.set(timeout=timeout_ms)
    s.add(conj)
    r = s.check()
    if r == z3.sat:
        seen.append(conj)
    return bool(r == z3.unsat)


def check_lemma(lemma: Lemma, timeout_ms: int) -> LemmaResult:
    """Run every sub-query of ``lemma`` and decide its status (see the module docstring)."""
    t0 = time.perf_counter()
    n = 0
    status = PROVED
    cex: str | None = None
    try:
        queries = lemma.build()
    except Exception as exc:  # an encoding error is a bug of schedcheck, shown as such
        return LemmaResult(lemma.name, lemma.kind, lemma.system, lemma.says,
                           f"UNEXPECTED: encoding raised {type(exc).__name__}: {exc}",
                           time.perf_counter() - t0, None, lemma.bounded_n, lemma.why_bounded)
    found_sat = False
    if lemma.kind != "mutation":
        queries = list(queries)
        for q in queries:  # vacuity: a proof from contradictory hypotheses proves nothing
            n += 1
            if _vacuous(q.hypotheses, timeout_ms):
                return LemmaResult(lemma.name, lemma.kind, lemma.system, lemma.says,
                                   f"UNEXPECTED: vacuous (hypotheses of {q.label or 'the query'}"
                                   " contradict each other)", round(time.perf_counter() - t0, 4),
                                   None, lemma.bounded_n, lemma.why_bounded, n)
    for q in queries:
        n += 1
        r, model = _solve(q, timeout_ms)
        if r == z3.unknown:
            status = UNKNOWN
            cex = f"{q.label}: z3 answered unknown within {timeout_ms} ms"
            if lemma.kind != "mutation":
                break
            continue
        if r == z3.sat:
            assert model is not None
            found_sat = True
            text = (q.describe or _default_describe)(model)
            head = f"[{q.label}] " if q.label else ""
            cex = head + text
            if lemma.kind == "mutation":
                if lemma.replay is None:
                    status = REFUTED
                else:
                    try:
                        rep = lemma.replay(model, q)
                    except Exception as exc:
                        rep = Replay(False, f"replay raised {type(exc).__name__}: {exc}")
                    cex += "\n-- replayed in schedcheck.model --\n" + rep.story
                    status = REFUTED if rep.confirmed else TOO_WEAK
            else:
                status = "UNEXPECTED: refuted"
            break
    if lemma.kind == "mutation" and not found_sat and status != UNKNOWN:
        status = "UNEXPECTED: proved (the mutation survived every query)"
    return LemmaResult(lemma.name, lemma.kind, lemma.system, lemma.says, status,
                       round(time.perf_counter() - t0, 4), cex, lemma.bounded_n,
                       lemma.why_bounded, n)
