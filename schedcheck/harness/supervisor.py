"""The target in a child process the checker can kill: a fork server in the manner of AFL's.

A check never runs foreign code in a process it cannot stop. :func:`run_supervised` forks a
child (its own process group) that runs one function -- the whole search, or one candidate
program of a reduction -- while the parent watches it:

* before and after every call of the target the child marks, in a page of memory shared with
  the parent, when the call began, its time limit and the target method's name
  (:func:`entering` / :func:`left`: two stores, no system call, so supervision costs little
  per call); the parent reads the page every :data:`POLL_SECONDS`;
* the child reports on a pipe what the parent needs to tell the story of a call that never
  comes back (:func:`send`): an example starts, each step's line as the recorder writes it,
  the clause the call is compared for, each atomic operation of the program; and what the
  user sees (status lines, progress counts);
* the function's return value comes back pickled on the same pipe. The parent reads the pipe
  in batches (at most every :data:`READ_SECONDS`, from a pipe of :data:`PIPE_BYTES`): waking
  for each message would cost both processes a switch per step.

The parent ends the child's whole process group (``SIGKILL``: no thread, no grandchild left)
when a call does not return within its limit, when the stage runs past its deadline, or
after the child dies -- an exit status, a signal such as ``SIGSEGV``, the memory limit
(``RLIMIT_DATA`` in the child). Nothing is ever raised into the target's frames: the child is
simply stopped. :class:`Outcome` says how it ended, with the messages of the example under
way.

Generic on purpose: the child may hold any target (a Python object, or a proxy that talks to
a process of another language); what it reports is the same.
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import gc
import mmap
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "DEFAULT_MEMORY_MIB",
    "POLL_SECONDS",
    "Outcome",
    "active",
    "answered",
    "call_limit",
    "entering",
    "example_ended",
    "example_started",
    "in_example",
    "left",
    "memory_limit_bytes",
    "run_supervised",
    "send",
    "set_call_limit",
    "shorten",
]

#: How often the parent looks at the child's call page (seconds).
POLL_SECONDS = 0.02
#: The parent reads the child's messages at most this often (seconds) ...
READ_SECONDS = 0.005
#: ... from a pipe this large (bytes; Linux's default largest pipe an unprivileged process
#: may ask for), so that a child sending fast rarely waits for the parent.
PIPE_BYTES = 1 << 20
#: The child's memory limit by default: how far (MiB) its address space may grow past its
#: size when it starts.
DEFAULT_MEMORY_MIB = 4096

# The shared page: when the current outermost call began (0.0: none under way), its limit
# in seconds, then the called method's name (length-prefixed, at most 120 bytes).
_HEAD = struct.Struct("dd")
_NAME_AT = _HEAD.size
_NAME_MAX = 120


class _Child:
    """The child side: set in the child right after the fork."""

    page: mmap.mmap | None = None
    out: int = -1
    depth: int = 0
    limit: float = 0.0
    #: shorter limits of methods that misbehaved in an earlier child (name -> seconds)
    limits: ClassVar[dict[str, float]] = {}
    answered: ClassVar[set[str]] = set()  #: which of ``limits`` returned in this child
    threads: int = 1  #: threads when the child started
    in_example: bool = False
    memory_mib: int = DEFAULT_MEMORY_MIB


def active() -> bool:
    """Whether this process is a supervised child."""
    return _Child.page is not None


def send(*message: Any) -> None:
    """Report ``message`` (a tuple of picklable values) to the parent; no-op unsupervised."""
    if _Child.out < 0:
        return
    try:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a value that cannot cross: the parent hears that it is missing
        data = pickle.dumps(("lost", str(message[0])))
    _write_all(_Child.out, struct.pack("!I", len(data)) + data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def example_started() -> None:
    """An example (one machine run) starts: later steps belong to it."""
    _Child.in_example = True
    send("example")


def example_ended() -> None:
    """The example ended: a later call is the check's own (a probe), not one of its steps."""
    _Child.in_example = False
    send("example_end")


def in_example() -> bool:
    """Whether an example is under way in this child."""
    return _Child.in_example


def entering(name: str) -> bool:
    """A call of the target (method ``name``) starts: marked on the shared page when it is
    the outermost one. Returns whether it was (pass that to :func:`left`)."""
    page = _Child.page
    if page is None or _Child.depth:
        _Child.depth += 1
        return False
    _Child.depth = 1
    raw = name.encode("utf-8", "replace")[:_NAME_MAX]
    page[_NAME_AT:_NAME_AT + 1 + len(raw)] = bytes((len(raw),)) + raw
    _HEAD.pack_into(page, 0, time.monotonic(), _Child.limits.get(name, _Child.limit))
    return True


def answered(name: str) -> None:
    """A call of ``name`` returned: the parent hears it once per child, and only for a method
    that misbehaved in an earlier child (:func:`shorten`)."""
    if name in _Child.limits and name not in _Child.answered:
        _Child.answered.add(name)
        send("answered", name)


def shorten(methods: dict[str, float]) -> None:
    """In this child, a call of each of ``methods`` may take at most its seconds (at most the
    step limit): a method that hung once needs no patience to be seen hanging again."""
    _Child.limits = dict(methods)


def left(outermost: bool) -> None:
    """The call marked by :func:`entering` returned (or raised)."""
    _Child.depth -= 1
    if outermost and _Child.page is not None:
        _HEAD.pack_into(_Child.page, 0, 0.0, 0.0)


#: How many more threads than it started with a child may have after a call of the target
#: returns: past it, the target leaves threads running (one per call, say), and the child
#: ends with that verdict before they exhaust the process.
STRAY_THREADS = 64


def thread_bound() -> int:
    """The most threads this child may have between calls of the target: at most
    :data:`STRAY_THREADS` more than at its start, and fewer under a small memory limit (each
    thread's stack takes 8 MiB of address space)."""
    return _Child.threads + min(STRAY_THREADS, max(4, _Child.memory_mib // 16))


def too_many_threads(method: str, count: int) -> None:
    """End this child: the call of ``method`` left ``count`` threads running."""
    send("threads", method, count)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(4)


def call_limit() -> float:
    """The time limit of each call of the target in this child (0.0: not a child)."""
    return _Child.limit


def set_call_limit(seconds: float) -> None:
    """The time limit of each later call of the target (in this child)."""
    _Child.limit = seconds


def memory_limit_bytes(mib: int) -> int | None:
    """The data-segment limit (``RLIMIT_DATA``: the private writable memory, heap and
    anonymous maps) of a child that may grow by ``mib`` MiB (None: not known here)."""
    size = _vm_data()
    return None if size is None else size + (mib << 20)


def _vm_data() -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@dataclass
class Outcome:
    """How a supervised child ended.

    ``kind``: ``"returned"`` (``value`` is what the function returned, or ``error`` the text
    of what it raised), ``"hung"`` (a call past its limit), ``"signal"`` (killed by signal
    ``code``), ``"exited"`` (it left with status ``code`` before returning), ``"memory"``
    (it died past the memory limit), ``"threads"`` (after a call, ``code`` threads were
    running: more than :data:`STRAY_THREADS` above the start), ``"overtime"`` (the stage ran
    past its deadline)."""

    kind: str
    value: Any = None
    error: str = ""
    code: int = 0
    #: the method under way when it did not come back ("" when none was)
    method: str = ""
    seconds: float = 0.0
    #: the messages since the last ("example",) message (the example under way)
    example: list[tuple[Any, ...]] = field(default_factory=list)
    #: the limit the call that hung had (its method's own when shortened: :func:`shorten`)
    limit: float = 0.0

    @property
    def misbehaved(self) -> bool:
        return self.kind in ("hung", "signal", "exited", "memory", "threads")

    def describe(self, step_seconds: float, memory_mib: int) -> str:
        """The misbehaviour in words, as a step's outcome reads it."""
        if self.kind == "hung":
            return f"did not return within {step_seconds:g} s"
        if self.kind == "overtime":
            return "was still running when the check's deadline came"
        if self.kind == "memory":
            return f"went past the memory limit of {memory_mib} MiB"
        if self.kind == "threads":
            return (f"returned, leaving threads that do not end ({self.code} threads "
                    "running, more than the check allows)")
        if self.kind == "signal":
            return f"the process was killed by {_signal_name(self.code)}"
        if self.kind == "exited":
            return f"the process exited with status {self.code} during the call"
        return self.error or self.kind


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run_supervised(
    fn: Callable[[], Any],
    *,
    step_seconds: float,
    deadline: Callable[[], float | None] | None = None,
    memory_mib: int = DEFAULT_MEMORY_MIB,
    on_message: Callable[[tuple[Any, ...]], None] | None = None,
) -> Outcome:
    """``fn()`` in a supervised child; how it ended (see :class:`Outcome`).

    ``step_seconds``: each call of the target (marked with :func:`entering`) may take this
    long; ``deadline()`` (on ``time.monotonic``, asked again at each look: a stage may have
    its own): the child is stopped there; ``memory_mib``:
    how far its address space may grow. Every message the child sends goes to
    ``on_message`` as it arrives (in the parent)."""
    page = mmap.mmap(-1, mmap.PAGESIZE)
    limit = memory_limit_bytes(memory_mib)
    read_fd, write_fd = os.pipe()
    with contextlib.suppress(AttributeError, OSError):  # Linux: room for READ_SECONDS of steps
        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    gc.freeze()  # the child's collections then skip (and do not copy) the parent's objects
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0:
            gc.unfreeze()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _Child.memory_mib = memory_mib
        _child_main(fn, page, write_fd, step_seconds, limit)
    os.close(write_fd)
    with contextlib.suppress(OSError):  # the child did it first (or is gone already)
        os.setpgid(pid, pid)
    previous = _stop_on_term()
    try:
        outcome = _watch(pid, read_fd, page, deadline, on_message)
    finally:
        _kill_group(pid)
        os.close(read_fd)
        page.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    outcome.seconds = time.monotonic() - started
    return outcome


def _child_main(fn: Callable[[], Any], page: mmap.mmap, out: int, step_seconds: float,
                limit: int | None) -> None:
    status = 0
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and kills us
        _die_with_parent()
        faulthandler.disable()  # a crash is the parent's verdict, not a dump on stderr
        if limit is not None:
            try:
                import resource

                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file per crash
                # RLIMIT_DATA, not RLIMIT_AS: the address space a thread's malloc arena
                # reserves (64 MiB each, never touched) is no runaway allocation
                _, hard = resource.getrlimit(resource.RLIMIT_DATA)
                if hard != resource.RLIM_INFINITY:
                    limit = min(limit, hard)
                resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
            except (ImportError, ValueError, OSError):
                pass
        _Child.page, _Child.out, _Child.depth = page, out, 0
        _Child.limit = step_seconds
        _Child.threads = threading.active_count()
        try:
            value = fn()
        except MemoryError:
            _Child.page = None
            send("memory")
            status = 3
        except BaseException as exc:  # handed to the parent as text
            _Child.page = None
            send("raised", _describe(exc), _picklable(exc))
        else:
            _Child.page = None
            try:
                send("returned", value)
            except MemoryError:
                send("memory")
                status = 3
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)  # no atexit, no join of a thread the target left running


def _die_with_parent() -> None:
    """Linux: the kernel kills this child when the parent dies, whatever kills the parent
    (``SIGKILL`` included, where no handler of the parent runs)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before that took hold
        os._exit(1)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _picklable(exc: BaseException) -> BaseException | None:
    try:
        pickle.dumps(exc)
    except Exception:
        return None
    return exc


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _stop_on_term() -> Any:
    """While a child runs, ``SIGTERM`` ends the parent through its ``finally`` blocks (which
    kill the child's group); the previous handler, or None where none can be set."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGTERM)
    if previous is not signal.SIG_DFL:
        return None  # someone else's handler: theirs to run
    signal.signal(signal.SIGTERM, _terminated)
    return previous


def _watch(pid: int, fd: int, page: mmap.mmap, deadline: Callable[[], float | None] | None,
           on_message: Callable[[tuple[Any, ...]], None] | None) -> Outcome:
    buffer = bytearray()
    example: list[tuple[Any, ...]] = []
    final: Outcome | None = None
    read_at = 0.0
    while True:
        # at most one read every READ_SECONDS: the child writes a message or two per step,
        # and waking for each would cost both processes a switch per step (the pipe, made
        # large, holds what comes meanwhile)
        pause = read_at + READ_SECONDS - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        ready, _, _ = select.select([fd], [], [], POLL_SECONDS)
        if ready:
            read_at = time.monotonic()
            chunk = os.read(fd, PIPE_BYTES)
            if not chunk:  # the child closed its end: it is exiting
                return final or _ended(pid, example, page)
            buffer += chunk
            for message in _messages(buffer):
                kind = message[0]
                if kind == "example":
                    example = []
                elif kind == "example_end":
                    example = []
                    continue
                elif kind == "returned":
                    final = Outcome("returned", value=message[1])
                    continue
                elif kind == "raised":
                    final = Outcome("returned", error=message[1], value=message[2])
                    continue
                elif kind == "memory":
                    final = Outcome("memory", method=_method(page), example=example)
                    continue
                elif kind == "threads":
                    final = Outcome("threads", method=message[1], code=message[2],
                                    example=example)
                    continue
                example.append(message)
                if on_message is not None:
                    on_message(message)
        if final is not None:
            continue
        now = time.monotonic()
        began, limit = _HEAD.unpack_from(page, 0)
        if began and limit and now - began > limit:
            return Outcome("hung", method=_method(page), example=example, limit=limit)
        ends = deadline() if deadline is not None else None
        if ends is not None and now > ends:
            return Outcome("overtime", method=_method(page), example=example)


def _messages(buffer: bytearray) -> list[tuple[Any, ...]]:
    """The whole messages at the head of ``buffer``, taken out of it."""
    out = []
    at = 0
    while len(buffer) - at >= 4:
        (size,) = struct.unpack_from("!I", buffer, at)
        if len(buffer) - at < 4 + size:
            break
        out.append(pickle.loads(buffer[at + 4:at + 4 + size]))
        at += 4 + size
    del buffer[:at]
    return out


def _method(page: mmap.mmap) -> str:
    size = page[_NAME_AT]
    return page[_NAME_AT + 1:_NAME_AT + 1 + size].decode("utf-8", "replace")


def _ended(pid: int, example: list[tuple[Any, ...]], page: mmap.mmap) -> Outcome:
    """The child closed the pipe without a result: how it died."""
    _, status = os.waitpid(pid, 0)
    method = _method(page) if _HEAD.unpack_from(page, 0)[0] else ""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return Outcome("signal", code=sig, method=method, example=example)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return Outcome("exited", code=code, method=method, example=example)


def _kill_group(pid: int) -> None:
    """Kill the child's process group (every process of it) and reap the child."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
