"""Guards against the target: a time limit per call and a memory ceiling per run.

A target that hangs, or that allocates memory in proportion to a delay, must end the run
with a verdict, not stall it or take the machine down:

* :func:`call_limited` -- ``fn(*args)`` with a wall-clock limit: the call runs on a step
  thread (one per guarded block, so a target sees one calling thread) while the caller waits
  with a timeout. Past the limit the *caller* raises :class:`StepTimeout` in its own frame --
  no signal that could land in a garbage-collector callback or a ``finally`` of the target
  and be swallowed -- and the hung call is abandoned on its (daemon) thread; the next call
  gets a fresh step thread. ``observe`` turns the timeout into the error name ``Hang[...]``:
  a verdict against the call that hung. Only calls from the main thread are guarded (the
  concurrent rounds drive their own threads); elsewhere the call is plain. Nothing is raised
  into the abandoned thread: it stays where it hung (a daemon thread). ``schedcheck check``
  therefore runs the target in a supervised child (``schedcheck.harness.supervisor``), where
  :func:`call_limited` runs the call right on the calling thread and marks it for the parent,
  which stops the whole child at a hang, a crash or an exit; an operation that misbehaved
  there is then :func:`set_aside` in the next child (:class:`SetAside`: the example is
  rejected, never a verdict).
* :func:`memory_ceiling` -- while active, the process's address space may grow by at most
  ``extra`` bytes (``RLIMIT_AS``), so a runaway allocation raises ``MemoryError`` in the
  target instead of waking the kernel's out-of-memory killer. The previous limit comes back
  on exit.

Both are active only inside :func:`guarded` (the suites' driver enters it); elsewhere calls
are not touched. The limit is generous (:data:`STEP_SECONDS`): it catches hangs, it never
judges speed.
"""

from __future__ import annotations

import _thread
import contextlib
import logging
import queue
import sys
import threading
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from hypothesis.errors import UnsatisfiedAssumption

from schedcheck.harness import supervisor

__all__ = [
    "SELF_LIMITED",
    "STEP_SECONDS",
    "TARGET_RECURSION_LIMIT",
    "SetAside",
    "StepTimeout",
    "call_limited",
    "guarded",
    "memory_ceiling",
    "methods_aside",
    "no_logging",
    "on_step_thread",
    "plain_attribute",
    "self_limited",
    "set_aside",
    "step_aside",
    "step_limit",
    "step_seconds",
    "timeouts",
]

#: The longest a single call of the target may take before it counts as a hang.
STEP_SECONDS = 10.0
#: The recursion limit a guarded call of the target runs under: Python's default, as outside
#: the checker (Hypothesis raises the limit while its tests run, which would let a recursion a
#: few thousand deep pass here and fail in production).
TARGET_RECURSION_LIMIT = 1000
#: How much the address space may grow during a guarded run (bytes).
MEMORY_HEADROOM = 4 << 30

_state = {"seconds": 0.0, "timeouts": 0}
_default = {"seconds": STEP_SECONDS}


def step_seconds() -> float:
    """The step time limit :func:`guarded` uses (``STEP_SECONDS`` unless :func:`step_limit`)."""
    return _default["seconds"]


@contextlib.contextmanager
def step_limit(seconds: float | None) -> Iterator[None]:
    """Within the block, guarded runs allow ``seconds`` per call (None: unchanged)."""
    if seconds is None:
        yield
        return
    if seconds <= 0:
        raise ValueError(f"a step time limit must be positive, not {seconds!r}")
    previous = _default["seconds"]
    _default["seconds"] = seconds
    try:
        yield
    finally:
        _default["seconds"] = previous


class StepTimeout(BaseException):
    """A call of the target did not return within the step time limit."""


class SetAside(UnsatisfiedAssumption):
    """A call of an operation that misbehaved in an earlier supervised child (it hung,
    crashed or exited): not made again; the example under way is rejected."""


#: the target methods not called again in this (supervised) process: see :func:`set_aside`
_set_aside: set[str] = set()


#: clauses whose counterexample a misbehaving call already is (in a supervised child):
#: their divergences are set aside as keep-going grading sets aside a broken clause's
clauses_aside: set[str] = set()


#: the target methods not called again outside an example (the check's own probes)
_probes_aside: set[str] = set()


#: the atomic steps not made again in this (supervised) process, name -> descriptions
#: (``Op.describe()``): each made a call misbehave in an earlier child
_steps_aside: dict[str, set[str]] = {}


def set_aside(methods: Iterable[str], clauses: Iterable[str] = (),
              probes: Iterable[str] = (), steps: Iterable[tuple[str, str]] = ()) -> None:
    """Calls of these target methods raise :class:`SetAside` from now on in this process,
    divergences of ``clauses`` are no counterexample, calls of ``probes`` made outside
    an example (the check probing the target's capabilities) raise :class:`SetAside` -- a
    refusal there -- and so do the atomic ``steps`` (name and description of an ``Op``):
    the same step with other arguments is still made."""
    _set_aside.update(methods)
    clauses_aside.update(clauses)
    _probes_aside.update(probes)
    for name, described in steps:
        _steps_aside.setdefault(name, set()).add(described)


def step_aside(name: str, describe: Callable[[], str]) -> None:
    """:class:`SetAside` if the atomic step ``name`` (``describe()``: its description, asked
    for only when some step is set aside) was set aside in this process."""
    aside = _steps_aside.get(name)
    if aside and (described := describe()) in aside:
        raise SetAside(f"{described} misbehaved in an earlier run: not made again")


def methods_aside() -> frozenset[str]:
    """The target methods :func:`set_aside` in this process."""
    return frozenset(_set_aside)


def timeouts() -> int:
    """How many calls the step time limit has interrupted in this process so far (each one
    waited out the whole limit)."""
    return int(_state["timeouts"])


class _Step:
    """One call handed to the step thread."""

    __slots__ = ("args", "done", "error", "fn", "kwargs", "value")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.done = _thread.allocate_lock()  # held until the call returns (cheaper than Event)
        self.done.acquire()
        self.value: Any = None
        self.error: BaseException | None = None


class _StepThread:
    """A daemon thread that runs the guarded calls one at a time, in order."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Step | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="schedcheck-step", daemon=True)
        self.thread.start()
        _step_threads.add(self.thread.ident or 0)

    def _run(self) -> None:
        try:
            while True:
                job = self.jobs.get()
                if job is None:
                    return
                try:
                    job.value = job.fn(*job.args, **job.kwargs)
                except BaseException as exc:  # handed to the caller as it is
                    job.error = exc
                finally:
                    job.done.release()
                    del job
        except StepTimeout:
            return

    def stop(self) -> None:
        self.jobs.put(None)


_worker: dict[str, _StepThread | None] = {"step": None}
#: Types whose calls (``obj(...)``, ``obj.method(...)``) keep their own time limit and run
#: no code of the target in this process -- the ``--exec`` proxies: called directly, with no
#: hand-off to the step thread.
SELF_LIMITED: set[type] = set()
#: every step thread's ident: a callback that ran on one ran inside a call of the target
_step_threads: set[int] = set()


def _quiet_unraisable(unraisable: Any) -> None:
    """While guarded: the StepTimeout that stops an abandoned call is not reported when it
    lands where Python cannot raise it (a garbage-collector callback, say)."""
    if isinstance(unraisable.exc_value, StepTimeout):
        return
    _previous_hook["hook"](unraisable)


_previous_hook: dict[str, Any] = {"hook": sys.unraisablehook}


def on_step_thread(ident: int) -> bool:
    """Whether the thread ``ident`` is (or was) a step thread, i.e. runs target calls."""
    return ident in _step_threads


_PLAIN = (types.MemberDescriptorType, types.GetSetDescriptorType)
_plain_cache: dict[tuple[type, str], bool] = {}


def _plain(klass: type, name: object) -> bool:
    """Whether reading attribute ``name`` of a ``klass`` instance runs no Python code of the
    target: a slot or an instance attribute, no property, no ``__getattr(ibute)__``."""
    if not isinstance(name, str):
        return False
    key = (klass, name)
    known = _plain_cache.get(key)
    if known is not None:
        return known
    getattribute: Any = klass.__getattribute__
    plain = getattribute is object.__getattribute__
    for base in klass.__mro__:
        if name in base.__dict__:
            found = base.__dict__[name]
            plain = plain and (isinstance(found, _PLAIN) or not hasattr(type(found), "__get__"))
            break
    else:
        plain = plain and not hasattr(klass, "__getattr__")
    _plain_cache[key] = plain
    return plain


def self_limited(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` (a callable or a bound method) keeps its own time limit and runs no code
    of the target in this process (:data:`SELF_LIMITED`): it needs no step thread."""
    return type(fn) in SELF_LIMITED or type(getattr(fn, "__self__", None)) in SELF_LIMITED


def plain_attribute(obj: object, name: str) -> bool:
    """Whether reading ``obj.name`` runs no code of the target (a slot or a stored attribute):
    such a read needs no step thread."""
    return _plain(type(obj), name)


def call_limited(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` on the step thread; :class:`StepTimeout` past the limit.

    The caller waits for the reply with a timeout, so a hang always ends with a
    ``StepTimeout`` raised right here (never swallowed); the call that hung is left on its
    thread, and the next call runs on a fresh one. In a supervised child the call runs
    right here, marked for the parent (which stops the child if it does not return)."""
    if supervisor.active() and threading.current_thread() is threading.main_thread():
        return _supervised_call(fn, args, kwargs)
    seconds = _state["seconds"]
    if not seconds or threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    if fn is getattr and len(args) == 2 and not kwargs and _plain(type(args[0]), args[1]):
        return getattr(*args)  # reading a stored attribute runs no code of the target
    if SELF_LIMITED and self_limited(fn):
        return fn(*args, **kwargs)  # it limits itself (a child process read with a timeout)
    worker = _worker["step"]
    if worker is None:
        worker = _worker["step"] = _StepThread()
    job = _Step(fn, args, kwargs)
    raised = _target_recursion_limit()
    worker.jobs.put(job)
    try:
        returned = job.done.acquire(timeout=seconds)
    finally:
        if raised is not None and sys.getrecursionlimit() == TARGET_RECURSION_LIMIT:
            sys.setrecursionlimit(raised)
    if not returned:
        _worker["step"] = None  # abandoned with the call that hung
        worker.stop()
        _state["timeouts"] += 1
        raise StepTimeout()
    if job.error is not None:
        error, job.error = job.error, None
        raise error
    return job.value


def _method_name(fn: Callable[..., Any], args: tuple[Any, ...]) -> str:
    if fn is getattr and len(args) >= 2 and isinstance(args[1], str):
        return args[1]
    return str(getattr(fn, "__name__", "") or type(fn).__name__)


def _supervised_call(fn: Callable[..., Any], args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> Any:
    name = _method_name(fn, args)
    if name in _set_aside or (name in _probes_aside and not supervisor.in_example()):
        raise SetAside(f"{name}() misbehaved in an earlier run: not called again")
    outermost = supervisor.entering(name)
    raised = _target_recursion_limit(_depth()) if outermost else None
    try:
        value = fn(*args, **kwargs)
        if outermost:
            supervisor.answered(name)
        return value
    finally:
        if raised is not None:
            sys.setrecursionlimit(raised)
        supervisor.left(outermost)
        if outermost and threading.active_count() > supervisor.thread_bound():
            supervisor.too_many_threads(name, threading.active_count())


def _depth() -> int:
    """How many frames the calling thread runs in (a supervised call runs on it)."""
    frame: types.FrameType | None = sys._getframe(1)
    depth = 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _target_recursion_limit(below: int = 0) -> int | None:
    """Lower the recursion limit to :data:`TARGET_RECURSION_LIMIT` frames above ``below`` (the
    frames the caller already runs in: 0 for a call on the fresh step thread, whose caller
    waits meanwhile); the limit it replaced, or None if unchanged."""
    limit = sys.getrecursionlimit()
    wanted = below + TARGET_RECURSION_LIMIT
    if limit <= wanted:
        return None
    try:
        sys.setrecursionlimit(wanted)
    except RecursionError:
        return None  # the caller itself runs deeper than that: leave the limit alone
    return limit


def _vm_size() -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@contextlib.contextmanager
def memory_ceiling(extra: int = MEMORY_HEADROOM) -> Iterator[None]:
    """Cap the address space at its current size plus ``extra`` bytes (where supported)."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no ceiling
        yield
        return
    size = _vm_size()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = None if size is None else size + extra
    if limit is None or (soft != resource.RLIM_INFINITY and soft <= limit):
        yield
        return
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def guarded(seconds: float | None = None, memory: bool = True) -> Iterator[None]:
    """Within the block, target calls made through :func:`call_limited` have a time limit
    (``seconds``, default :func:`step_seconds`) and the process a memory ceiling. Nested use
    keeps the outer settings."""
    seconds = seconds or step_seconds()
    if _state["seconds"] or threading.current_thread() is not threading.main_thread():
        yield
        return
    if supervisor.active():  # the parent times each call; the child's ceiling is set
        previous = supervisor.call_limit()
        supervisor.set_call_limit(seconds)
        _state["seconds"] = seconds
        try:
            yield
        finally:
            _state["seconds"] = 0.0
            supervisor.set_call_limit(previous)
        return
    _state["seconds"] = seconds
    _previous_hook["hook"], sys.unraisablehook = sys.unraisablehook, _quiet_unraisable
    try:
        with memory_ceiling() if memory else contextlib.nullcontext():
            yield
    finally:
        _state["seconds"] = 0.0
        sys.unraisablehook = _previous_hook["hook"]
        worker, _worker["step"] = _worker["step"], None
        if worker is not None:
            worker.stop()


@contextlib.contextmanager
def no_logging() -> Iterator[None]:
    """No log records while it lasts: the implementations log every callback error and every
    refused submission (thousands of lines in a search, a traceback in a card)."""
    disabled = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(disabled)
