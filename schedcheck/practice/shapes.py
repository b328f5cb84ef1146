"""The two shapes an answer may have: the contract's, or the interview text's own.

*Contract-shaped* classes are used as they are (``cls(max_concurrency)``,
``cls(tick, wheel_size, **options)``, the methods of ``specs/*.md``).

*Seed-shaped* classes use the names and signatures of the interview text, and an adapter
presents them with the contract's interface:

* scheduler -- ``TaskScheduler(max_concurrency)``; ``submit(task_id, deps, fn)``; ``ready()``
  (a ``limit`` is passed only if ``ready`` takes an argument); ``complete(task_id,
  generation)``, ``fail(task_id, generation)``, ``cancel(task_id)``; ``start()`` and
  ``close()`` when present; the state of a task from ``info(task_id)``, ``state(task_id)`` or
  ``status(task_id)`` (an object with ``.state``, or a state name);
* wheel -- ``TimingWheel(tick_duration, wheel_size[, executor])``; ``schedule(task,
  deadline)`` (callback first, as in the text's pseudocode) returning a handle;
  ``cancel(handle)``; ``advance(now)``, which may return nothing and hand the due callbacks to
  ``executor.submit`` as the text does -- the adapter maps them back to their handles.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

__all__ = ["seed_shaped_scheduler", "seed_shaped_wheel"]

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


class _SchedulerAdapter:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:  # add_dependency, retry, metrics, ...
        return getattr(self._inner, name)

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kw: Any) -> Any:
        return self._inner.submit(task_id, deps, fn, **kw)

    def start(self) -> None:
        start = getattr(self._inner, "start", None)
        if callable(start):
            start()

    def ready(self, limit: int | None = None) -> Any:
        if limit is not None and _arity(self._inner.ready) >= 1:
            return self._inner.ready(limit)
        return self._inner.ready()

    def cancel(self, task_id: Any, generation: int | None = None) -> Any:
        if generation is not None and _arity(self._inner.cancel) >= 2:
            return self._inner.cancel(task_id, generation)
        return self._inner.cancel(task_id)

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


def seed_shaped_scheduler(cls: Callable[..., Any]) -> Callable[[int], Any]:
    """A factory with the contract's interface over a scheduler written in the text's names."""
    return lambda max_concurrency: _SchedulerAdapter(cls(max_concurrency))


class _Capture:
    """The executor a seed-shaped wheel gets: it keeps what ``advance`` submits."""

    def __init__(self) -> None:
        self.submitted: list[Callable[[], Any]] = []

    def submit(self, fn: Callable[[], Any]) -> None:
        self.submitted.append(fn)


class _WheelAdapter:
    def __init__(self, cls: Callable[..., Any], tick: int, size: int, **opts: Any) -> None:
        self._outer = opts.pop("executor", None)
        self._capture = _Capture()
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
        first = next(iter(inspect.signature(self._inner.schedule).parameters), "")
        self._callback_first = first in _CALLBACK_FIRST
        self._handle_of: dict[int, Any] = {}  # id(callback) -> handle
        self._callbacks: list[Any] = []  # keeps the ids above alive

    def __getattr__(self, name: str) -> Any:  # schedule_after, pending, ...
        return getattr(self._inner, name)

    def schedule(self, deadline: Any, callback: Any) -> Any:
        handle = (self._inner.schedule(callback, deadline) if self._callback_first
                  else self._inner.schedule(deadline, callback))
        self._handle_of[id(callback)] = handle
        self._callbacks.append(callback)
        return handle

    def cancel(self, handle: Any) -> Any:
        return self._inner.cancel(handle)

    def advance(self, now: Any) -> list[Any]:
        returned = list(self._inner.advance(now) or [])
        submitted, self._capture.submitted = self._capture.submitted, []
        if self._outer is not None:
            for fn in submitted:
                self._outer.submit(fn)
        return returned or [self._handle_of.get(id(fn), fn) for fn in submitted]


def seed_shaped_wheel(cls: Callable[..., Any]) -> Callable[..., Any]:
    """A factory with the contract's interface over a wheel written in the text's names."""
    return lambda tick, size, **opts: _WheelAdapter(cls, tick, size, **opts)
