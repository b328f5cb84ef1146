"""The lease suite: a durable scheduler and the lease model (``schedcheck.model.leases``) in
lockstep, with time passing (specs/durable.md L1..L8). ``factory(max_concurrency,
lease_seconds, clock, max_attempts)`` builds the target; ``clock`` is a callable the machine
moves forward (the target must read time only through it). Rules: a started graph over six ids,
claims by three workers, time passing by steps around the lease length, renewals, reports with
the claim's own token, with no token and with a forged one (the fencing rule), failures retried
with a backoff and per-task ``max_attempts``, completions with a result (L8), cancels (the
requested cancel a reclaim confirms), resubmits, ``close()``. After every step: ``info()`` of
every id (the four contract fields, ``error``, ``attempts``, ``token``, ``expires``,
``not_before``, ``result``), then the model's and the target's ``check_invariants()`` (for the
durable scheduler, its SQL invariant queries). Every reply is compared; a difference is an
``AssertionError`` naming the call, both answers and the rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import hypothesis
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from schedcheck.model.leases import LeasedScheduler
from schedcheck.profiles import unshrunk_settings
from schedcheck.targets import adapt

__all__ = ["LeaseFactory", "ManualClock", "make_lease_machine", "run_lease_suite"]

IDS = ("a", "b", "c", "d", "e", "f")
LeaseFactory = Callable[[int, float, Callable[[], float], int], Any]


class ManualClock:
    """Time that moves only when the machine says so."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Held:
    """A claim a worker holds: its generation and fencing token."""

    task_id: str
    generation: int
    token: int


def _norm(value: Any) -> Any:
    """Replies as plain data: enums by name, claims/renewals/replies as tuples."""
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if hasattr(value, "outcome"):
        out = (adapt.norm_name(value.outcome), adapt.norm_name(value.state))
        return (*out, value.expires) if hasattr(value, "expires") else out
    if hasattr(value, "token") and hasattr(value, "generation"):
        return (value.task_id, int(value.generation), int(value.token), float(value.expires))
    return value


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", _norm(fn(*args, **kwargs))
    except Exception as exc:  # compared by class name, as the scheduler suite does
        return "raised", adapt.error_name(exc)


class LeaseMachine(RuleBasedStateMachine):
    """Model and target in lockstep; :func:`make_lease_machine` binds the factory."""

    factory: LeaseFactory
    held = Bundle("held")

    def __init__(self) -> None:
        super().__init__()
        self.clock = ManualClock()
        self.model: LeasedScheduler | None = None
        self.target: Any = None
        self.log: list[str] = []

    def same(self, what: str, op: str, *args: Any, **kwargs: Any) -> tuple[str, Any]:
        assert self.model is not None
        exp = _call(getattr(self.model, op), *args, **kwargs)
        act = _call(getattr(self.target, op), *args, **kwargs)
        self.log.append(f"{what}: {op}{args}{kwargs or ''} -> {exp}")
        assert exp == act, (f"after {len(self.log)} calls ({self.log[-6:]}), `{op}{args}` "
                            f"returned {act!r}; the lease model says {exp!r} (specs/durable.md)")
        return exp

    @initialize(target=held, mc=st.sampled_from((0, 1, 2, 2, 3, 3)),
                lease=st.sampled_from((5.0, 10.0)), attempts=st.sampled_from((1, 2, 3)),
                order=st.permutations(IDS),
                picks=st.lists(st.lists(st.integers(0, 5), max_size=1), min_size=len(IDS),
                               max_size=len(IDS)),
                most=st.lists(st.sampled_from((None, None, 1, 2, 4)), min_size=len(IDS),
                              max_size=len(IDS)))
    def build(self, mc: int, lease: float, attempts: int, order: list[str],
              picks: list[list[int]], most: list[int | None]) -> Any:
        self.model = LeasedScheduler(mc, lease, max_attempts=attempts, now=self.clock.now)
        self.target = type(self).factory(mc, lease, self.clock, attempts)
        for i, tid in enumerate(order):
            deps = list(dict.fromkeys(order[j % i] for j in picks[i])) if i else []
            own = {} if most[i] is None else {"max_attempts": most[i]}  # L8
            self.same("graph", "submit", tid, deps, **own)
        self.same("graph", "start")
        return multiple()

    @rule(seconds=st.sampled_from((0.5, 1.0, 3.0, 5.0, 6.0, 11.0)))
    def advance(self, seconds: float) -> None:
        """L6: time passes; nothing changes until the next call."""
        assert self.model is not None
        self.model.advance(seconds)
        self.clock.now = self.model.now
        self.log.append(f"time passes {seconds}s")

    @rule(target=held, limit=st.sampled_from((None, None, 0, 1, 2)))
    def ready(self, limit: int | None) -> Any:
        return self._ready(limit)

    def _ready(self, limit: int | None) -> Any:
        kind, got = self.same("claim", "ready", *(() if limit is None else (limit,)))
        if kind != "ok":
            return multiple()
        return multiple(*(Held(t, g, tok) for t, g, tok, _ in got))

    @rule(target=held, seconds=st.sampled_from((1.0, 5.0, 6.0, 11.0, 30.0)))
    def later_claim(self, seconds: float) -> Any:
        """Time passes, then a claim: the reclaim of whatever expired meanwhile (L4)."""
        self.advance(seconds)
        return self._ready(None)

    @rule(target=held, limit=st.sampled_from((1, 2, 3)),
          plan=st.lists(st.sampled_from(("complete", "complete", "forged", "no token",
                                         "fail", "retry", "retry", "result", "hold", "renew",
                                         "renew forged")),
                        min_size=3, max_size=3))
    def work(self, limit: int, plan: list[str]) -> Any:
        """A worker's round: claim, then act on each claim at once as ``plan`` says."""
        got = self._ready(limit)
        for claim, what in zip(got.values, plan):
            if what.startswith("renew"):
                self._renew(claim, forged=what.endswith("forged"))
            elif what != "hold":
                token = {"forged": "forged", "no token": "none"}.get(what, "own")
                op = what if what in ("fail", "retry", "result") else "complete"
                self._report(claim, op, token)
        return got

    @rule(claim=held, forged=st.booleans())
    def renew(self, claim: Held, forged: bool) -> None:
        self._renew(claim, forged=forged)

    def _renew(self, claim: Held, *, forged: bool) -> None:
        """L3 (a forged token: STALE, the lease is not extended)."""
        self.same("renew", "renew", claim.task_id, claim.generation,
                  claim.token + (1000 if forged else 0))

    @rule(claim=held, op=st.sampled_from(("complete", "complete", "fail", "retry", "result")),
          token=st.sampled_from(("own", "own", "none", "forged")))
    def report(self, claim: Held, op: str, token: str) -> None:
        self._report(claim, op, token)

    def _report(self, claim: Held, op: str, token: str) -> None:
        """A worker reports: with its token, with none (generation only), or with a token
        that is not its claim's (L5: STALE, never APPLIED). ``retry``: a failure the store
        retries after a backoff while attempts are left (L8); ``result``: a completion that
        reports a value."""
        kwargs: dict[str, Any] = {}
        if token != "none":
            kwargs["token"] = claim.token + (1000 if token == "forged" else 0)
        args: tuple[Any, ...] = (claim.task_id, claim.generation)
        if op == "retry":
            op, args, kwargs["retry"] = "fail", (*args, f"boom {claim.token}"), True
        elif op == "result":
            op, kwargs["result"] = "complete", {"value": claim.token}
        self.same("report", op, *args, **kwargs)

    @rule(tid=st.sampled_from(IDS), now=st.booleans())
    def cancel(self, tid: str, now: bool) -> None:
        """A cancel (one draw in two): of a RUNNING task it is a request a reclaim confirms."""
        if now:
            self.same("cancel", "cancel", tid)

    @rule(tid=st.sampled_from(IDS), deps=st.lists(st.sampled_from(IDS), max_size=2),
          now=st.sampled_from((False, False, True)), most=st.sampled_from((None, None, 2)))
    def resubmit(self, tid: str, deps: list[str], now: bool, most: int | None) -> None:
        """A resubmit (one draw in three: it resets the attempt count)."""
        if now:
            self.same("resubmit", "submit", tid, deps,
                      **({} if most is None else {"max_attempts": most}))

    @rule(now=st.sampled_from((False, False, False, True)))
    def close(self, now: bool) -> None:
        if now:
            self.same("close", "close")

    @invariant()
    def states_agree(self) -> None:
        if self.model is None:
            return
        for tid in IDS:
            exp = _call(self.model.info, tid)
            act = _call(self.target.info, tid)
            if exp[0] == "ok":
                m, t = self.model.info(tid), self.target.info(tid)
                exp = ("ok", (adapt.norm_info(m), m.error, m.attempts, m.token, m.expires,
                              m.not_before, m.result))
                act = ("ok", (adapt.norm_info(t), getattr(t, "error", None),
                              getattr(t, "attempts", None), getattr(t, "token", None),
                              getattr(t, "expires", None), getattr(t, "not_before", None),
                              getattr(t, "result", None))) if act[0] == "ok" else act
            assert exp == act, (f"after {self.log[-6:]}: info({tid!r}) is {act!r}; the lease "
                                f"model says {exp!r}")
        self.model.check_invariants()
        check = getattr(self.target, "check_invariants", None)
        if check is not None:
            check()

    def teardown(self) -> None:
        close = getattr(self.target, "disconnect", None)
        if close is not None:
            close()


def make_lease_machine(factory: LeaseFactory) -> type[LeaseMachine]:
    return type("LeaseMachine", (LeaseMachine,), {"factory": staticmethod(factory),
                                                  "__module__": __name__})


def run_lease_suite(factory: LeaseFactory, *, seed: int = 0, examples: int | None = None,
                    profile: str | None = None, shrink: bool = True) -> None:
    """Run the lease suite (the project's profile settings, a fixed seed); a difference is
    raised as ``AssertionError`` naming the calls before it (``shrink=False``: the first
    failing run, unshrunk)."""
    settings = hypothesis.settings(unshrunk_settings(examples, profile, shrink),
                                   database=None, report_multiple_bugs=False)
    machine = make_lease_machine(factory)
    machine._hypothesis_internal_use_seed = seed
    run_state_machine_as_test(machine, settings=settings)
