"""Test doubles of the wheel suite: recording executors, named callbacks, and the Part 3 probe.

These are importable on their own so that a replayed counterexample can rebuild the exact
setting of the suite (``Counterexample.snapshot["preamble"]`` holds the lines):

* :class:`RecordingExecutor` -- ``submit(fn)`` records ``fn`` (and the submitting thread) and
  returns a ``concurrent.futures.Future``; nothing runs until :meth:`RecordingExecutor.run_pending`,
  which runs the queue in order on a fresh worker thread (never the thread that calls
  ``advance``) and joins it. Its ``policy`` decides rejections: ``"accept"``, ``"reject"``
  (every submission raises ``RuntimeError``) or ``"flaky"`` (every second submission raises).
  A wheel may wrap the callback itself (the model does) or submit it raw and watch the
  future: both see the callback's exception.
* :class:`Callback` -- a named callable (``cb_0``) that logs each call (name and thread) and
  raises ``RuntimeError`` when made with ``raises=True``.
* :func:`probe` -- which optional parts a target supports (contract Part 3): a constructor
  argument iff ``factory(tick, wheel_size, **{arg: value})`` does not raise ``TypeError``; a
  method iff the attribute exists.

No locks beyond one per executor (its queue and counters are touched by the advancing thread
and read by the harness thread).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from schedcheck.harness import guard
from schedcheck.targets.adapters import CancelStyle, WheelCapabilities, capabilities_of

__all__ = [
    "EXECUTOR_POLICIES",
    "CallLog",
    "Callback",
    "RecordingExecutor",
    "Support",
    "make_callback",
    "probe",
]

#: The executor policies the suite draws from (None = no executor at all).
EXECUTOR_POLICIES: tuple[str, ...] = ("accept", "reject", "flaky")

#: Optional constructor arguments (Part 3) and a harmless legal value to probe each with.
OPTIONAL_ARGS: tuple[str, ...] = ("start", "max_catchup_ticks", "max_pending", "executor")
#: Optional methods (Part 3).
OPTIONAL_METHODS: tuple[str, ...] = ("lag_ticks", "callback_errors")
#: The methods every wheel has (specs/wheel.md section 3); without one the target is unusable.
REQUIRED_METHODS: tuple[str, ...] = ("schedule", "schedule_after", "cancel", "advance", "pending")


class CallLog:
    """The calls of a group of callbacks, in order: ``(name, thread ident)``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: list[tuple[str, int]] = []

    def add(self, name: str) -> None:
        with self._lock:
            self.calls.append((name, threading.get_ident()))

    def since(self, start: int) -> list[tuple[str, int]]:
        with self._lock:
            return list(self.calls[start:])

    def __len__(self) -> int:
        with self._lock:
            return len(self.calls)


class Callback:
    """A named timer callback: logs each call, raises ``RuntimeError`` iff ``raises``."""

    __slots__ = ("log", "name", "raises")

    def __init__(self, name: str, raises: bool = False, log: CallLog | None = None) -> None:
        self.name = name
        self.raises = raises
        self.log = log if log is not None else CallLog()

    def __call__(self) -> None:
        self.log.add(self.name)
        if self.raises:
            raise RuntimeError(f"{self.name} raises on purpose (a schedcheck test callback)")

    def __repr__(self) -> str:
        return self.name

    def __deepcopy__(self, memo: dict[int, Any]) -> Callback:
        """A callback is an identity (its log is the harness's), not part of a target's
        state: a copy of a target calls the same callbacks."""
        return self


def make_callback(name: str, raises: bool = False, log: CallLog | None = None) -> Callback:
    """``cb_3 = make_callback("cb_3", raises=True)`` -- the replay script's spelling."""
    return Callback(name, raises, log)


class RecordingExecutor:
    """``submit(fn)`` records; :meth:`run_pending` runs later, on a worker thread."""

    def __init__(self, policy: str = "accept") -> None:
        if policy not in EXECUTOR_POLICIES:
            raise ValueError(f"policy must be one of {EXECUTOR_POLICIES}, got {policy!r}")
        self.policy = policy
        self._lock = threading.Lock()
        #: every submission attempt, rejected ones included: (fn, submitting thread ident)
        self.submitted: list[tuple[Callable[[], Any], int]] = []
        self.rejected = 0  #: submissions that raised (the policy's rejections)
        self.ran = 0  #: fns run by run_pending
        self._queue: list[tuple[Callable[[], Any], Future[Any]]] = []

    def accepts(self, index: int) -> bool:
        """Whether submission number ``index`` (0-based, over this executor's life) is taken."""
        if self.policy == "reject":
            return False
        if self.policy == "flaky":
            return index % 2 == 0
        return True

    def submit(self, fn: Callable[[], Any], /) -> Future[Any]:
        with self._lock:
            index = len(self.submitted)
            self.submitted.append((fn, threading.get_ident()))
            if not self.accepts(index):
                self.rejected += 1
                raise RuntimeError(
                    f"executor rejected submission #{index} (policy {self.policy!r}): "
                    "overloaded on purpose by schedcheck"
                )
            future: Future[Any] = Future()
            self._queue.append((fn, future))
            return future

    def queued(self) -> int:
        with self._lock:
            return len(self._queue)

    def run_pending(self) -> int:
        """Run every queued fn in submission order on one fresh worker thread; return how many."""
        with self._lock:
            batch, self._queue = self._queue, []

        def work() -> None:
            for fn, future in batch:
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    value = fn()
                except BaseException as exc:  # the future carries it, as a real executor's
                    future.set_exception(exc)
                else:
                    future.set_result(value)

        worker = threading.Thread(target=work, name="schedcheck-executor", daemon=True)
        worker.start()
        worker.join()
        with self._lock:
            self.ran += len(batch)
        return len(batch)


@dataclass
class Support:
    """The optional parts a target supports (contract Part 3) and its capabilities
    (``schedcheck.targets.adapters.WheelCapabilities``: declared by the target, else probed)."""

    args: frozenset[str] = field(default_factory=frozenset)  #: accepted constructor arguments
    methods: frozenset[str] = field(default_factory=frozenset)  #: existing optional methods
    caps: WheelCapabilities = field(default_factory=WheelCapabilities)
    declared: bool = False  #: the target declared its capabilities (else: probed)

    @property
    def missing(self) -> list[str]:
        return [a for a in OPTIONAL_ARGS if a not in self.args] + [
            m for m in OPTIONAL_METHODS if m not in self.methods
        ]


class TargetUnusable(ValueError):
    """The target cannot even be built with legal arguments (the CLI's exit status 2)."""


def probe(factory: Callable[..., Any]) -> Support:
    """Which optional arguments and methods ``factory``'s wheels support (contract Part 3)."""
    try:
        plain = factory(1, 1)
    except Exception as exc:
        raise TargetUnusable(
            f"the target cannot be built as factory(1, 1): {type(exc).__name__}: {exc}; "
            "a wheel class or factory is called as cls(tick, wheel_size, **options)"
        ) from exc
    lacking = [m for m in REQUIRED_METHODS if not callable(getattr(plain, m, None))]
    if lacking:
        raise TargetUnusable(
            f"the target's wheels have no {', '.join(m + '()' for m in lacking)}; a wheel "
            f"needs {', '.join(m + '()' for m in REQUIRED_METHODS)} (specs/wheel.md section 3)"
        )
    values: dict[str, Callable[[], object]] = {
        "start": lambda: 0,
        "max_catchup_ticks": lambda: 1,
        "max_pending": lambda: 1,
        "executor": RecordingExecutor,
    }
    args = set()
    for name in OPTIONAL_ARGS:
        try:
            factory(1, 1, **{name: values[name]()})
        except TypeError:
            continue
        except Exception as exc:
            raise TargetUnusable(
                f"factory(1, 1, {name}=...) raised {type(exc).__name__}: {exc}; an optional "
                "argument must either be accepted or refused with TypeError"
            ) from exc
        args.add(name)
    methods = {m for m in OPTIONAL_METHODS if callable(getattr(plain, m, None))}
    declared = capabilities_of(factory)
    if isinstance(declared, WheelCapabilities):
        caps, is_declared = declared, True
    else:
        caps, is_declared = probe_capabilities(factory), False
    return Support(args=frozenset(args), methods=frozenset(methods), caps=caps,
                   declared=is_declared)


#: Horizons tried by the probe, longest first (time units past the last now).
_HORIZONS: tuple[int, ...] = (2**40, 2**32, 2**24, 2**20, 2**16, 2**12, 2**8)


def _try(fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """(True, value) or (False, exception) -- a hang counts as a refusal."""
    try:
        return True, guard.call_limited(fn, *args)
    except guard.StepTimeout as exc:
        return False, exc
    except Exception as exc:
        return False, exc


def probe_capabilities(factory: Callable[..., Any]) -> WheelCapabilities:
    """What a target that declares nothing does where designs differ, tried on fresh wheels
    (``factory(1, 8)``) under the suite's guards: its horizon (the longest of
    :data:`_HORIZONS` it schedules without an error), and whether cancelling a fired timer
    returns False, raises or returns None. Argument checks are not probed: a target that
    declares nothing is held to them (W6), since accepting a bool deadline is a mistake of
    an answer far more often than a design; a library that does not check its arguments
    declares ``WheelCapabilities(validates_args=False)``."""
    def noop() -> None:
        return None

    with guard.guarded():
        horizon: int | None = None
        for delay in _HORIZONS:
            ok, _ = _try(lambda d: factory(1, 8).schedule(d, noop), delay)
            if ok:
                horizon = None if delay == _HORIZONS[0] else delay
                break
        else:
            horizon = 0
        ok, wheel = _try(factory, 1, 8)
        cancel: CancelStyle = "bool"
        if ok:
            made, handle = _try(wheel.schedule, 1, noop)
            if made:
                _try(wheel.advance, 2)
                done, value = _try(wheel.cancel, handle)
                cancel = "raises" if not done else "none" if value is None else "bool"
    return WheelCapabilities(max_delay=horizon, cancel=cancel)
