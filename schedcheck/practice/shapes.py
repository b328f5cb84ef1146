"""The two shapes an answer may have: the contract's, or the interview text's own.

*Contract-shaped* classes are used as they are (``cls(max_concurrency)``,
``cls(tick, wheel_size, **options)``, the methods of ``specs/*.md``).

*Seed-shaped* classes use the names and signatures of the interview text, and an adapter
presents them with the contract's interface:

* scheduler -- ``TaskScheduler(max_concurrency)``; ``submit(task_id, deps, fn)``; ``start()``
  or ``freeze()`` (the model answer "freezes the graph first") before ``ready()``; ``ready()``
  (a ``limit`` is passed only if ``ready`` takes an argument: without one, an item that needs
  it is "not attempted"); ``complete(task_id, generation)``, ``fail(task_id, generation)``,
  ``cancel(task_id)``; ``close()`` when present; the state of a task from ``info(task_id)``,
  ``state(task_id)`` or ``status(task_id)`` (an object with ``.state``, a tuple ``(task_id,
  generation, state, cause)``, or a state name). Outcomes and states may be in any case;
  ``ok`` stands for APPLIED and ``conflict`` (the text's answer to a late callback) for STALE;
* wheel -- ``TimingWheel(tick_duration, wheel_size[, executor])``; ``schedule(task,
  deadline)`` and ``schedule_after(task, delay)`` (callback first, as in the text's
  pseudocode, when the first parameter is named like one) returning a handle;
  ``cancel(handle)``; ``advance(now)``, which may return nothing and hand the due callbacks to
  ``executor.submit`` as the text does -- the adapter maps them back to their handles;
  ``pending()`` from the adapter's own books when the class has none.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from schedcheck.practice.grading import NotAttempted

__all__ = ["looks_seed_shaped", "seed_shaped_scheduler", "seed_shaped_wheel"]

#: the interview text's names of outcomes, as the contract's
_OUTCOMES = {"OK": "APPLIED", "SUCCESS": "APPLIED", "DONE": "APPLIED", "CONFLICT": "STALE"}

#: first-parameter names that mean "the callback comes first" in a seed-shaped schedule()
_CALLBACK_FIRST = {"task", "callback", "cb", "fn", "func", "node", "action"}


def _arity(fn: Any) -> int:
    """Positional parameters ``fn`` accepts (bound methods: without self); a large number
    for ``*args``."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 99
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 99
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def _reply(got: Any) -> Any:
    """A reply ``(outcome, state)`` in the text's words, as the contract's names."""
    if isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], str):
        outcome = got[0].upper()
        return (_OUTCOMES.get(outcome, outcome), str(got[1]).upper())
    return got


#: what a seed-shaped scheduler may call its concurrency limit
_LIMIT_NAMES = ("max_concurrency", "maxConcurrency", "limit", "capacity")


class _SchedulerAdapter:
    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._generation: dict[Any, int] = {}  # the current generation, from submit()
        self._requested: set[tuple[Any, int]] = set()  # cancels answered REQUESTED

    def __getattr__(self, name: str) -> Any:  # add_dependency, retry, metrics, ...
        return getattr(self._inner, name)

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kw: Any) -> Any:
        generation = self._inner.submit(task_id, deps, fn, **kw)
        if isinstance(generation, int):
            self._generation[task_id] = generation
        return generation

    def cancel_requested(self, task_id: Any, generation: int) -> bool:
        """The class's own, else from the adapter's books: a cancel of that generation was
        answered REQUESTED (the text's cooperative cancel, which the function polls)."""
        own = getattr(self._inner, "cancel_requested", None)
        if callable(own):
            return bool(own(task_id, generation))
        self.info(task_id)  # an unknown id raises as info() does
        return (task_id, generation) in self._requested

    def start(self) -> None:
        for name in ("start", "freeze"):
            start = getattr(self._inner, name, None)
            if callable(start):
                start()
                return

    def ready(self, limit: int | None = None) -> Any:
        if limit is None:
            return self._inner.ready()
        if _arity(self._inner.ready) >= 1:
            return self._inner.ready(limit)
        name = next((n for n in _LIMIT_NAMES if isinstance(getattr(self._inner, n, None), int)
                     and not isinstance(getattr(self._inner, n), bool)), None)
        if name is None or isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise NotAttempted("ready() takes no limit (the text's ready() hands out every "
                               "free slot), so this item's program cannot run")
        # the text's ready() hands out max_concurrency - running: lower the limit for the
        # one call so that it hands out at most `limit` more
        full = getattr(self._inner, name)
        running = self._running()
        if running is None:
            raise NotAttempted("ready() takes no limit, so this item's program cannot run")
        setattr(self._inner, name, min(full, running + limit))
        try:
            return self._inner.ready()
        finally:
            setattr(self._inner, name, full)

    def _running(self) -> int | None:
        """How many tasks are RUNNING, read through info() (None if a state cannot be read)."""
        try:
            return sum(1 for t in self._generation
                       if str(_state_of(self.info(t))).upper().endswith("RUNNING"))
        except Exception:
            return None

    def complete(self, task_id: Any, generation: Any) -> Any:
        return _reply(self._inner.complete(task_id, generation))

    def fail(self, task_id: Any, generation: Any, error: Any = None) -> Any:
        return _reply(self._inner.fail(task_id, generation))

    def cancel(self, task_id: Any, generation: int | None = None) -> Any:
        if generation is not None and _arity(self._inner.cancel) >= 2:
            got = _reply(self._inner.cancel(task_id, generation))
        else:
            got = _reply(self._inner.cancel(task_id))
        if isinstance(got, tuple) and got and got[0] == "REQUESTED":
            current = self._generation.get(task_id)
            if current is not None and generation in (None, current):
                self._requested.add((task_id, current))
        return got

    def close(self) -> Any:
        close = getattr(self._inner, "close", None)
        return close() if callable(close) else None

    def info(self, task_id: Any) -> Any:
        for name in ("info", "state", "status", "get_state"):
            fn = getattr(self._inner, name, None)
            if callable(fn):
                got = fn(task_id)
                if hasattr(got, "state") or isinstance(got, tuple):
                    return got
                return SimpleNamespace(state=got, generation=None, cause=None)
        raise TypeError("a seed-shaped scheduler needs info(task_id), state(task_id) or "
                        "status(task_id) so that its states can be compared")


def _state_of(info: Any) -> Any:
    state = getattr(info, "state", None)
    if state is None and isinstance(info, tuple):
        state = info[2] if len(info) > 2 else info[0]
    return getattr(state, "name", state)


def seed_shaped_scheduler(cls: Callable[..., Any]) -> Callable[[int], Any]:
    """A factory with the contract's interface over a scheduler written in the text's names."""
    return lambda max_concurrency: _SchedulerAdapter(cls(max_concurrency))


class _Capture:
    """The executor a seed-shaped wheel gets: it keeps what ``advance`` submits. Where the
    grader's executor refuses submissions (``admit`` raises), this one refuses the same ones,
    so that the wheel itself meets the refusal; a refused callback still fired."""

    def __init__(self, outer: Any = None) -> None:
        self.submitted: list[Callable[[], Any]] = []  #: accepted, to hand to the grader's
        self.fired: list[Callable[[], Any]] = []  #: every submission, refused ones included
        self._admit = getattr(outer, "admit", None)

    def submit(self, fn: Callable[[], Any]) -> None:
        self.fired.append(fn)
        if self._admit is not None:
            self._admit()
        self.submitted.append(fn)


class _WheelAdapter:
    def __init__(self, cls: Callable[..., Any], tick: int, size: int, **opts: Any) -> None:
        self._outer = opts.pop("executor", None)
        self._capture = _Capture(self._outer)
        try:
            params = inspect.signature(cls).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        kwargs: dict[str, Any] = {}
        for name, value in opts.items():
            if name not in params:
                raise TypeError(f"the seed-shaped wheel takes no {name}=")
            kwargs[name] = value
        if "executor" in params:
            kwargs["executor"] = self._capture
        self._inner = cls(tick, size, **kwargs)
        self._callback_first = _first_param(self._inner.schedule) in _CALLBACK_FIRST
        # the timers neither fired nor cancelled (and only those: the adapter holds no timer
        # longer than the wheel must, or it would count against the wheel's memory bound)
        self._by_callback: dict[int, tuple[Any, Any]] = {}  # id(callback) -> (it, handle)
        self._callback_of: dict[int, int] = {}  # id(handle) -> id(its callback)
        if not callable(getattr(self._inner, "schedule_after", None)):
            self.schedule_after = None  # type: ignore[assignment,method-assign]  # none

    def __getattr__(self, name: str) -> Any:  # schedule_after, pending, ...
        return getattr(self._inner, name)

    def _keep(self, handle: Any, callback: Any) -> Any:
        self._by_callback[id(callback)] = (callback, handle)
        self._callback_of[id(handle)] = id(callback)
        return handle

    def _drop(self, handle: Any) -> None:
        key = self._callback_of.pop(id(handle), None)
        if key is not None and self._by_callback.get(key, (None, None))[1] is handle:
            del self._by_callback[key]

    def schedule(self, deadline: Any, callback: Any) -> Any:
        handle = (self._inner.schedule(callback, deadline) if self._callback_first
                  else self._inner.schedule(deadline, callback))
        return self._keep(handle, callback)

    def schedule_after(self, delay: Any, callback: Any) -> Any:
        inner = self._inner.schedule_after
        first = _first_param(inner) in _CALLBACK_FIRST
        return self._keep(inner(callback, delay) if first else inner(delay, callback), callback)

    def cancel(self, handle: Any) -> Any:
        got = self._inner.cancel(handle)
        if got is not False:
            self._drop(handle)
        return got

    def advance(self, now: Any) -> list[Any]:
        try:
            returned = list(self._inner.advance(now) or [])
        finally:
            submitted, self._capture.submitted = self._capture.submitted, []
            every, self._capture.fired = self._capture.fired, []
        if self._outer is not None:
            for fn in submitted:
                self._outer.submit(fn)
        fired = returned or [self._by_callback.get(id(fn), (None, fn))[1] for fn in every]
        for handle in fired:
            self._drop(handle)
        return fired

    def pending(self) -> int:
        own = getattr(self._inner, "pending", None)
        return int(own()) if callable(own) else len(self._callback_of)


def _first_param(fn: Any) -> str:
    """The first parameter's name of a method (of a class or an instance), '' if none."""
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ""
    if names and names[0] == "self":
        names = names[1:]
    return names[0] if names else ""


def seed_shaped_wheel(cls: Callable[..., Any]) -> Callable[..., Any]:
    """A factory with the contract's interface over a wheel written in the text's names."""
    return lambda tick, size, **opts: _WheelAdapter(cls, tick, size, **opts)


def looks_seed_shaped(system: str, cls: Any) -> str:
    """Why ``cls`` looks written in the interview text's names ('' if it does not): a wheel
    whose ``schedule`` takes the callback first, a scheduler with ``freeze()`` and no
    ``start()``, or with ``state()``/``status()`` and no ``info()``."""
    if system == "wheel":
        first = _first_param(getattr(cls, "schedule", None))
        return f"its schedule() takes {first!r} first" if first in _CALLBACK_FIRST else ""
    if callable(getattr(cls, "freeze", None)) and not callable(getattr(cls, "start", None)):
        return "it has freeze() and no start()"
    if not callable(getattr(cls, "info", None)) and any(
            callable(getattr(cls, n, None)) for n in ("state", "status")):
        return "it has state()/status() and no info()"
    return ""
