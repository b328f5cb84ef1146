"""Thin adapters: check a real timer or dependency scheduler as it is.

A real implementation rarely has the contract's method names, and it often differs by design:
a maximum delay, a ``cancel`` that raises instead of returning False, no generations, no
``fail``. An adapter maps the names and *declares* those differences as capabilities; the
suites then treat whatever a target lacks as "not supported" for the clauses that need it --
never as a crash and never as a counterexample. Everything a suite compares still comes from
the real implementation: an adapter only translates.

A timer (any heap, wheel or event loop that calls a function when its time comes), in a few
lines -- the base class keeps the handles, ``pending()`` and ``schedule_after``::

    import sched
    from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities

    class Sched(WheelAdapter):
        capabilities = WheelCapabilities(cancel="raises", validates_args=False)

        def build(self, tick, wheel_size):
            self.clock = 0
            self.inner = sched.scheduler(lambda: self.clock, lambda _: None)

        def add(self, deadline, fire):      # call fire() when due; return a token
            return self.inner.enterabs(deadline, 0, fire)

        def remove(self, token):            # cancel the token
            self.inner.cancel(token)

        def run_until(self, now):           # advance the clock; fire what is due
            self.clock = now
            self.inner.run(blocking=False)

``schedcheck check wheel mymod.py:Sched --level core`` then checks it. A dependency scheduler
(``SchedulerAdapter``) maps ``add``/``start``/``take``/``finish`` the same way (see its
docstring). Without an adapter the capabilities are probed (``wheel.fixtures.probe``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

__all__ = [
    "AdaptedTimer",
    "SchedulerAdapter",
    "SchedulerCapabilities",
    "WheelAdapter",
    "WheelCapabilities",
    "capabilities_of",
]

CancelStyle = Literal["bool", "raises", "none", "missing"]
HandleStyle = Literal["checked", "self"]
ClaimOrder = Literal["submission", "any"]
CostClaim = Literal["constant", "linear"]
#: What a target declaring ``cost="linear"`` lacks, in words (the cost clause's reason).
LINEAR_COST = ("an O(1) cost per operation (declared cost='linear': a design that promises "
               "none; the cost clause is not claimed)")


@dataclass(frozen=True)
class WheelCapabilities:
    """What a timer implementation does where designs legitimately differ.

    * ``max_delay`` -- the horizon: the longest delay (time units past the last ``now``) it
      accepts, or ``None`` for unbounded. The suites never draw a deadline beyond it.
    * ``cancel`` -- what cancelling a timer that is no longer pending does: ``"bool"`` returns
      False (the contract), ``"raises"`` raises (any exception means "not cancelled"),
      ``"none"`` returns None whatever happened (the result is not compared, only the fate),
      ``"missing"``: timers cannot be cancelled at all.
    * ``handles`` -- ``"checked"``: cancelling another wheel's handle is refused (False or an
      exception) and leaves both wheels alone; ``"self"``: a handle cancels itself wherever it
      came from (cancelling a foreign handle is not supported).
    * ``validates_args`` -- whether malformed arguments (a bool or float deadline, an earlier
      ``now``) are refused with TypeError/ValueError. False: those clauses are not supported
      and the suites never send malformed arguments.
    * ``due_ticks`` -- whether timers fire at the contract's exact due tick (the hashed wheel's
      ``max(ceil(deadline / tick), cursor)``). False for heaps and event loops, which fire at
      the deadline itself: only the core level applies.
    * ``resolution`` -- the implementation's own granularity in time units (a wheel that
      counts whole seconds when a unit is a tenth of one: 10), or None for one tick. A timer
      may then fire up to ``resolution`` late (it must still never fire early).
    * ``counts_pending`` -- whether the implementation itself can say how many timers are
      pending (False: ``pending()`` comes from the adapter's books and is not checked).
    * ``early_by`` -- a declared bound, in time units, on how early a timer may fire by
      design (a bucket's expiry rounded down, timers "clustered" to fire together), or None:
      never early. Graded as a tolerance both ways: never earlier than ``deadline -
      early_by``, never later than ``early_by`` (or ``resolution``) past its due tick.
    * ``cost`` -- ``"constant"``: the contract's O(1) schedule/cancel/advance per timer;
      ``"linear"``: a design that promises no O(1) (a list of jobs scanned on each call):
      the cost clause is "not claimed", with that reason, and not measured.
    """

    max_delay: int | None = None
    cancel: CancelStyle = "bool"
    handles: HandleStyle = "checked"
    validates_args: bool = True
    due_ticks: bool = True
    counts_pending: bool = True
    resolution: int | None = None
    early_by: int | None = None
    cost: CostClaim = "constant"

    def missing(self) -> list[str]:
        """The contract parts these capabilities lack, in words (for "not supported")."""
        out = []
        if self.max_delay is not None:
            out.append(f"delays beyond {self.max_delay} (a bounded horizon)")
        if self.cancel == "missing":
            out.append("cancel()")
        elif self.cancel != "bool":
            out.append(f"cancel() returning False for a timer no longer pending "
                       f"(it {'raises' if self.cancel == 'raises' else 'returns None'})")
        if self.handles != "checked":
            out.append("refusing another wheel's handle (a handle cancels itself)")
        if not self.validates_args:
            out.append("TypeError/ValueError for malformed arguments")
        if not self.due_ticks:
            out.append("the contract's exact due ticks (fires at the deadline itself)")
        if not self.counts_pending:
            out.append("its own count of pending timers")
        if self.resolution is not None:
            out.append(f"firing within a tick (its granularity is {self.resolution} units)")
        if self.early_by is not None:
            out.append(f"never firing early (it may fire up to {self.early_by} units early)")
        if self.cost != "constant":
            out.append(LINEAR_COST)
        return out


@dataclass(frozen=True)
class SchedulerCapabilities:
    """What a dependency scheduler does where designs legitimately differ.

    * ``generations`` -- resubmitting a task starts a new, numbered run (False: one run per
      task; a resubmit is not supported).
    * ``fail`` / ``cancel`` / ``close`` -- whether those operations exist.
    * ``info`` -- whether each task's state can be read.
    * ``claim_order`` -- ``"submission"``: ready tasks are handed out in submission order;
      ``"any"``: in an order of the implementation's choosing.
    * ``validates_args`` -- whether malformed arguments are refused with TypeError/ValueError.
    * ``unknown_deps`` -- whether a dependency that was never submitted is an error (False:
      it becomes a task of its own, as graphlib does).
    * ``limit`` -- whether ``ready(limit)`` / a concurrency limit exists in the implementation
      (False: the adapter hands out at most the limit and keeps the rest).
    * ``cycle_error`` -- how a cycle is reported: an exception class, or a predicate on the
      exception. None: a class named like a cycle error (``CycleError``, ``GraphCycle``...),
      or any exception whose message says "cycle" (shown as "recognised by message").
    * ``detects_cycles`` -- False: a cycle is not detected at all (its tasks just never
      become ready, as in many workflow engines); the cycle clause is not supported.
    * ``claims_only`` -- reports (complete/fail) are sent only for tasks the target handed
      out, as its own driver does; a report for a task never claimed is not supported.
    * ``accepts_unclaimed_done`` -- a report of success for a task nobody ran is accepted
      by design and counts as that task having succeeded.
    * ``done_after_failed`` -- a success reported after a failure is accepted by design and
      replaces it (a retried task that succeeded).
    * ``reports_once`` -- its driver never reports a task twice: no duplicate report (and no
      late report of a run already reported) is sent; what a duplicate must not change is
      not supported.
    * ``cost`` -- ``"constant"``: the contract's costs (claims from a heap, a completion
      touching only its dependents); ``"linear"``: a design that promises no such bound (it
      rescans its tasks): the cost clause is "not claimed", with that reason, and not
      measured.
    """

    generations: bool = True
    fail: bool = True
    cancel: bool = True
    close: bool = True
    info: bool = True
    claim_order: ClaimOrder = "submission"
    validates_args: bool = True
    unknown_deps: bool = True
    limit: bool = True
    cycle_error: type[BaseException] | Callable[[BaseException], bool] | None = None
    detects_cycles: bool = True
    claims_only: bool = False
    accepts_unclaimed_done: bool = False
    done_after_failed: bool = False
    reports_once: bool = False
    cost: CostClaim = "constant"

    def missing(self) -> list[str]:
        out = [what for ok, what in (
            (self.generations, "generations (a resubmit starts a new run)"),
            (self.fail, "fail()"), (self.cancel, "cancel()"), (self.close, "close()"),
            (self.info, "info() (reading a task's state)"),
            (self.validates_args, "TypeError/ValueError for malformed arguments"),
            (self.unknown_deps, "UnknownDependencyError (an unknown dependency is a new task)"),
            (self.limit, "a concurrency limit of its own (the adapter holds the surplus)"),
        ) if not ok]
        if self.claim_order != "submission":
            out.append("claims in submission order (any order is accepted)")
        out += [what for bad, what in (
            (not self.detects_cycles, "cycle detection (a cycle's tasks never become ready)"),
            (self.claims_only, "reports for tasks it never handed out (never sent)"),
            (self.accepts_unclaimed_done, "refusing a success for a task nobody ran "
                                          "(it counts as done)"),
            (self.done_after_failed, "keeping a failure final (a later success replaces it)"),
            (self.reports_once, "duplicate reports (never sent: its driver reports each task "
                                "once)"),
            (self.cost != "constant", LINEAR_COST),
        ) if bad]
        return out

    def cycle_reported(self, exc: BaseException | None) -> str | None:
        """How ``exc`` reports a cycle: ``"declared"``, ``"by class"``, ``"by message"``, or
        None when it is not a cycle error."""
        if exc is None:
            return None
        declared = self.cycle_error
        if isinstance(declared, type):
            return "declared" if isinstance(exc, declared) else None
        if declared is not None:
            return "declared" if declared(exc) else None
        if any("cycle" in klass.__name__.lower() for klass in type(exc).__mro__):
            return "by class"
        return "by message" if "cycle" in str(exc).lower() else None


def capabilities_of(factory: Any) -> WheelCapabilities | SchedulerCapabilities | None:
    """The capabilities a target declares (a ``capabilities`` attribute), or None."""
    caps = getattr(factory, "capabilities", None)
    if isinstance(caps, (WheelCapabilities, SchedulerCapabilities)):
        return caps
    return None


# --------------------------------------------------------------------------------------------
# Timers
# --------------------------------------------------------------------------------------------


class AdaptedTimer:
    """The handle a :class:`WheelAdapter` returns: the contract's attributes over a token."""

    __slots__ = ("callback", "cancelled", "deadline", "fired", "owner", "token")

    def __init__(self, owner: WheelAdapter, deadline: int, callback: Callable[[], Any]) -> None:
        self.owner = owner
        self.deadline = deadline
        self.callback = callback
        self.fired = False
        self.cancelled = False
        self.token: Any = None

    def __repr__(self) -> str:
        state = "fired" if self.fired else "cancelled" if self.cancelled else "pending"
        return f"<timer deadline={self.deadline} {state}>"


class WheelAdapter:
    """Base of a timer adapter. Override :meth:`build`, :meth:`add`, :meth:`remove` and
    :meth:`run_until` (optionally :meth:`count`); set ``capabilities``.

    The suites build it as ``Adapter(tick, wheel_size)`` (it accepts no other option, so the
    optional ones are "not supported") and call the contract's ``schedule``,
    ``schedule_after``, ``cancel``, ``advance`` and ``pending``. ``add`` receives a function
    ``fire`` that the implementation must call when the timer is due; whatever it fired
    since the last ``advance`` (in the order fired) is what ``advance`` returns. The
    adapter never filters: a timer fired twice, or after a successful cancel, shows up as
    such.
    """

    capabilities: ClassVar[WheelCapabilities] = WheelCapabilities()

    def __init__(self, tick: int, wheel_size: int) -> None:
        self.tick = tick
        self.wheel_size = wheel_size
        self.last_now = 0
        self._fired: list[AdaptedTimer] = []
        self._live: set[int] = set()
        self.build(tick, wheel_size)

    # -- to override ------------------------------------------------------------------------

    def build(self, tick: int, wheel_size: int) -> None:
        """Create the implementation (store it on ``self``); time starts at 0."""
        raise NotImplementedError

    def add(self, deadline: int, fire: Callable[[], None]) -> Any:
        """Schedule ``fire`` at the absolute ``deadline``; return the implementation's token."""
        raise NotImplementedError

    def remove(self, token: Any) -> Any:
        """Cancel ``token`` (see ``WheelCapabilities.cancel`` for what it may return)."""
        raise NotImplementedError

    def run_until(self, now: int) -> None:
        """Move the implementation's clock to ``now`` and let it fire what is due."""
        raise NotImplementedError

    def count(self) -> int | None:
        """The implementation's own count of pending timers, or None when it has none."""
        return None

    # -- the contract's surface ---------------------------------------------------------------

    def schedule(self, deadline: int, callback: Callable[[], Any]) -> AdaptedTimer:
        timer = AdaptedTimer(self, deadline, callback)

        def fire() -> None:
            timer.fired = True
            self._live.discard(id(timer))
            self._fired.append(timer)

        timer.token = self.add(deadline, fire)
        if not timer.fired:
            self._live.add(id(timer))
        return timer

    def schedule_after(self, delay: int, callback: Callable[[], Any]) -> AdaptedTimer:
        return self.schedule(self.last_now + delay, callback)

    def cancel(self, handle: Any) -> bool:
        if not isinstance(handle, AdaptedTimer):
            raise TypeError(f"cancel() takes a timer handle, not {type(handle).__name__}")
        style = self.capabilities.cancel
        if handle.owner is not self and self.capabilities.handles == "checked":
            try:  # the implementation's own refusal of a token it does not hold
                got = self.remove(handle.token)
            except MemoryError:
                raise  # a crash, not a refusal
            except Exception:
                return False
            return got is True
        if style == "raises":
            try:
                self.remove(handle.token)
            except MemoryError:
                raise  # a crash, not a refusal
            except Exception:
                return False
            stopped = True
        elif style == "none":
            stopped = not handle.fired and not handle.cancelled
            self.remove(handle.token)
        else:
            stopped = self.remove(handle.token)
        if stopped is True:
            handle.cancelled = True
            self._live.discard(id(handle))
        return stopped

    def advance(self, now: int) -> list[AdaptedTimer]:
        self.run_until(now)
        self.last_now = max(self.last_now, now)
        fired, self._fired = self._fired, []
        return fired

    def pending(self) -> int:
        own = self.count()
        return len(self._live) if own is None else own


# --------------------------------------------------------------------------------------------
# Dependency schedulers
# --------------------------------------------------------------------------------------------


@dataclass
class _Run:
    task_id: Hashable
    deps: tuple[Hashable, ...]
    state: str = "PENDING"


@dataclass
class _Claim:
    task_id: Any
    generation: int
    fn: Any = None


class SchedulerAdapter:
    """Base of a dependency-scheduler adapter. Override :meth:`build`, :meth:`add`,
    :meth:`start_graph`, :meth:`take` and :meth:`finish` (and :meth:`fail_task`,
    :meth:`cancel_task` when the implementation has them); set ``capabilities``.

    The core suite builds it as ``Adapter(max_concurrency)`` and calls ``submit``, ``start``,
    ``ready``, ``complete`` (and ``fail``/``cancel`` when declared). Generation numbers are
    always 0 when ``capabilities.generations`` is False. ``take()`` returns the ids the
    implementation hands out now; when it has no limit of its own the adapter queues them
    and hands out at most the free slots (the queue is the adapter's, the order is the
    implementation's).

    What the adapter holds in its queue is READY for the suite and running for the
    implementation, so the base keeps the two apart: a report (``complete``/``fail``) of a
    held task is refused with ValueError and never reaches the implementation; a ``cancel``
    of a held task takes it out of the queue for good (the implementation gets the cancel
    and, when it has ``fail``, the failure that confirms it, as a worker would report a
    cancelled run), so it is never handed out afterwards.
    """

    capabilities: ClassVar[SchedulerCapabilities] = SchedulerCapabilities(
        generations=False, fail=False, cancel=False, close=False, info=False,
        claim_order="any", validates_args=False, unknown_deps=False, limit=False)

    def __init__(self, max_concurrency: int) -> None:
        self.max_concurrency = max_concurrency
        self._queue: list[Any] = []
        self._running: set[Any] = set()
        self._fns: dict[Any, Any] = {}
        self.build()

    # -- to override ------------------------------------------------------------------------

    def build(self) -> None:
        raise NotImplementedError

    def add(self, task_id: Hashable, deps: tuple[Hashable, ...]) -> None:
        raise NotImplementedError

    def start_graph(self) -> None:
        """Freeze the graph; raise the implementation's cycle error for a cycle."""
        raise NotImplementedError

    def take(self) -> Iterable[Any]:
        """The task ids the implementation hands out now (all that are ready)."""
        raise NotImplementedError

    def finish(self, task_id: Any) -> None:
        """Report ``task_id`` done (the implementation may raise for a duplicate)."""
        raise NotImplementedError

    def fail_task(self, task_id: Any) -> None:
        raise NotImplementedError

    def cancel_task(self, task_id: Any) -> None:
        raise NotImplementedError

    # -- the surface the core suite drives ------------------------------------------------------

    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (), fn: Any = None) -> None:
        self._fns[task_id] = fn
        self.add(task_id, tuple(deps))

    def start(self) -> None:
        self.start_graph()

    def ready(self, limit: int | None = None) -> list[_Claim]:
        self._queue.extend(t for t in self.take())
        free = self.max_concurrency - len(self._running)
        if limit is not None:
            free = min(free, limit)
        out, self._queue = self._queue[:max(free, 0)], self._queue[max(free, 0):]
        self._running.update(out)
        return [_Claim(t, 0, self._fns.get(t)) for t in out]

    def _held(self, task_id: Any) -> None:
        if task_id in self._queue:  # handed out by the implementation, not yet claimed
            raise ValueError(f"{task_id!r} was not claimed: ready() has not handed it out")

    def complete(self, task_id: Any, generation: int = 0) -> None:
        self._held(task_id)
        self._running.discard(task_id)
        self.finish(task_id)

    def fail(self, task_id: Any, generation: int = 0, error: Any = None) -> None:
        self._held(task_id)
        self._running.discard(task_id)
        self.fail_task(task_id)

    def cancel(self, task_id: Any) -> None:
        if task_id not in self._queue:
            self.cancel_task(task_id)
            return
        # held: READY for the suite, running for the implementation. The cancel is forwarded
        # (an implementation that refuses it leaves the task held, as it was); the task then
        # leaves the queue, and the implementation, which believes it is running, is told it
        # ended, as its worker would tell it
        self.cancel_task(task_id)
        self._queue.remove(task_id)
        if self.capabilities.fail:
            with contextlib.suppress(Exception):  # a report the suite did not make
                self.fail_task(task_id)

