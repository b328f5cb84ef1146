"""The checker's side of the process protocol (``specs/protocol.md``): the child process.

A :class:`Session` is one child process serving every instance of a factory
(``schedcheck.targets.exec_instances.ExecTarget``): ``factory(...)`` sends ``new`` with a fresh
instance id, never a new process. The child is read with
``select`` and a time limit, synchronously, in the calling thread. A child that does not
reply in time, exits, or writes anything but a protocol line is killed (its whole process
group) and the call raises :class:`ExecFault`, whose ``verdict`` (``Hang[...]``,
``Crash[...]``, ``ProtocolError[...]``) is the name a suite reports; the next instance starts a
fresh child, and the instances of the one that failed raise the same fault again.

Also here: how Python values travel (:func:`enc`, :func:`enc_ids`, :func:`fn_name`) and the
exceptions a reply's error becomes (:func:`remote_error`).

Standard library only: every ``replay.py`` of an ``--exec`` target carries a copy of this module
(and of ``exec_instances``) and drives the recorded steps through it.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import select
import shlex
import signal
import subprocess
import tempfile
import threading
from typing import Any

__all__ = ["PROTOCOL_VERSION", "ExecFault", "Session", "enc", "enc_ids", "fn_name", "opaque",
           "remote_error"]

PROTOCOL_VERSION = 1
#: Seconds a child may take to start and answer ``hello`` (a JVM compiling a source file).
START_SECONDS = 60.0
#: Lines of the child's stderr quoted with a crash or a protocol error.
STDERR_TAIL = 6


class ExecFault(Exception):
    """The child hung, crashed or broke the protocol; ``verdict`` is how the call reads."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  #: "Hang", "Crash" or "ProtocolError"
        self.message = message

    @property
    def schedcheck_verdict(self) -> str:
        return f"{self.kind}[{self.message}]"


_ERROR_CLASSES: dict[str, type[Exception]] = {}


def remote_error(name: str, message: str, fields: dict[str, Any]) -> Exception:
    """An exception named ``name`` (TypeError/ValueError/KeyError are the builtins' own
    subclasses), with ``fields`` as attributes and ``message`` as its text."""
    klass = _ERROR_CLASSES.get(name)
    if klass is None:
        base: type[Exception] = {"TypeError": TypeError, "ValueError": ValueError,
                                 "UnknownTaskError": KeyError,
                                 "NotImplementedError": NotImplementedError}.get(name, Exception)
        klass = type(name if name.isidentifier() else "RemoteError", (base,),
                     {"__str__": lambda self: self.message, "__module__": "exec_target"})
        _ERROR_CLASSES[name] = klass
    exc = klass(message)
    exc.message = message  # type: ignore[attr-defined]
    for key, value in fields.items():
        if key not in ("name", "message") and isinstance(key, str) and key.isidentifier():
            setattr(exc, key, value)
    return exc


# --------------------------------------------------------------------------------------------
# The child process
# --------------------------------------------------------------------------------------------


try:
    import resource as _resource
except ImportError:  # not a POSIX system: no ceiling to lift
    _resource = None  # type: ignore[assignment]


def _unlimited() -> None:
    """In the child, between fork and exec: no address-space ceiling inherited from a guarded
    check (a JVM reserves far more than it uses). Imports nothing and takes no lock (the
    module is imported at the top), as code run there must."""
    if _resource is None:
        return
    try:
        _soft, hard = _resource.getrlimit(_resource.RLIMIT_AS)
        _resource.setrlimit(_resource.RLIMIT_AS, (hard, hard))
    except (ValueError, OSError):
        pass


class Session:
    """One child process speaking the protocol: start, handshake, request/reply, kill."""

    def __init__(self, command: str, system: str, cwd: str | None = None) -> None:
        self.command, self.system, self.cwd = command, system, cwd
        self.lock = threading.RLock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.hello: dict[str, Any] = {}
        self.epoch = 0  #: bumped at every (re)start: instances of an older epoch are dead
        self.fault: dict[int, ExecFault] = {}  #: the fault that ended each epoch
        self.next_id = 0
        self.next_instance = 0
        self.lines_read = 0
        self.dropped: collections.deque[int] = collections.deque()
        self._buffer = b""
        self._stderr: Any = None
        #: the answers the child gave in advance with the last reply (``queries``): the
        #: instance and its query -> value, valid until the next request
        self.after: tuple[Any, dict[str, Any]] | None = None

    # ---- process ------------------------------------------------------------------------

    def start(self) -> dict[str, Any]:
        """Start the child and shake hands; the handshake's value. ``OSError`` or
        :class:`ExecFault` when the command cannot serve as a target."""
        with self.lock:
            if self.proc is not None and self.proc.poll() is None:
                return self.hello
            argv = shlex.split(self.command)
            if not argv:
                raise OSError("the command is empty")
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 -- lives with the child
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, cwd=self.cwd, bufsize=0,
                                         start_new_session=True, preexec_fn=_unlimited)
            self.epoch += 1
            self.next_id, self.lines_read, self._buffer = 0, 0, b""
            self.dropped.clear()
            hello: Any = self.request({"op": "hello", "protocol": PROTOCOL_VERSION,
                                       "system": self.system}, START_SECONDS)
            if not isinstance(hello, dict):
                self._fault("ProtocolError", f"the handshake's value is {hello!r}, not an object")
            if hello.get("system") != self.system:
                self._fault("ProtocolError", f"the handshake says system {hello.get('system')!r}"
                            f"; this check asked for {self.system!r}")
            if hello.get("protocol") != PROTOCOL_VERSION:
                self._fault("ProtocolError", f"the handshake says protocol "
                            f"{hello.get('protocol')!r}; this checker speaks {PROTOCOL_VERSION}")
            self.hello = dict(hello)
            return self.hello

    def stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 4000))
            text = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [ln for ln in text.splitlines() if ln.strip()][-STDERR_TAIL:]
        return " | ".join(lines)

    def kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def shutdown(self) -> None:
        """The clean end: ``shutdown``, then end of file; killed if it lingers."""
        with self.lock:
            proc = self.proc
            if proc is None:
                return
            try:
                self.request({"op": "shutdown"}, 2.0)
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=2)
            except (ExecFault, OSError, subprocess.TimeoutExpired):
                pass
            self.kill()

    def _fault(self, kind: str, message: str) -> None:
        tail = self.stderr_tail() if kind != "Hang" else ""
        if tail:
            message += f"; its stderr ends: {tail}"
        fault = ExecFault(kind, message)
        self.fault[self.epoch] = fault
        self.kill()
        raise fault

    # ---- one request --------------------------------------------------------------------

    def request(self, message: dict[str, Any], seconds: float) -> Any:
        """Send ``message`` (an ``id`` is added) and return the reply's value; raise the
        error it names (:func:`remote_error`) or an :class:`ExecFault`."""
        with self.lock:
            proc = self.proc
            if proc is None or proc.stdin is None or proc.stdout is None:
                raise self.fault.get(self.epoch) or ExecFault("Crash", "the target process "
                                                              "is not running")
            ident = self.next_id
            self.next_id += 1
            message["id"] = ident
            self.after = None
            data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
            try:
                proc.stdin.write(data)
            except (BrokenPipeError, OSError):
                self._crashed()
            line = self._read_line(proc, seconds, message)
            return self._reply(ident, line, message.get("instance"))

    def _crashed(self) -> None:
        proc = self.proc
        status = proc.poll() if proc is not None else None
        if status is None and proc is not None:
            try:
                status = proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                status = None
        how = (f"exited with status {status}" if status is not None and status >= 0
               else f"was killed by signal {-status}" if status is not None
               else "closed its output")
        self._fault("Crash", f"the target process {how} before replying "
                             f"(after {self.lines_read} lines of output)")

    def _read_line(self, proc: subprocess.Popen[bytes], seconds: float,
                   message: dict[str, Any]) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], seconds)
            if not ready:
                queries = message.get("queries")
                also = (f" (to {message.get('method')} and the queries answered with it: "
                        f"{', '.join(queries)})" if queries else "")
                self._fault("Hang", f"no reply within {seconds:g} s{also}")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                if self._buffer:
                    self._fault("ProtocolError", f"line {self.lines_read + 1} of the "
                                f"target's output ends without a newline: "
                                f"{_quote(self._buffer)}")
                self._crashed()
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        self.lines_read += 1
        return line

    def _reply(self, ident: int, line: bytes, instance: Any = None) -> Any:
        where = f"line {self.lines_read} of the target's output"
        try:
            reply = json.loads(line)
        except ValueError:
            self._fault("ProtocolError", f"{where} is not JSON (stdout carries protocol "
                        f"lines only; log to stderr): {_quote(line)}")
        if not isinstance(reply, dict):
            self._fault("ProtocolError", f"{where} is not a JSON object: {_quote(line)}")
        if reply.get("id") != ident:
            self._fault("ProtocolError", f"{where} answers id {reply.get('id')!r}; the "
                        f"request waiting has id {ident}: {_quote(line)}")
        after = reply.get("after")
        if isinstance(after, dict):
            self.after = (instance, after)
        if "error" in reply:
            err = reply["error"]
            if not isinstance(err, dict) or not isinstance(err.get("name"), str):
                self._fault("ProtocolError", f"{where} has an error without a name: "
                            f"{_quote(line)}")
            raise remote_error(err["name"], str(err.get("message", "")), err)
        if "value" not in reply:
            self._fault("ProtocolError", f"{where} has neither 'value' nor 'error': "
                        f"{_quote(line)}")
        return reply["value"]

    def shape_error(self, what: str, value: Any) -> None:
        """A reply of the wrong shape (a handle without its id, say)."""
        self._fault("ProtocolError", f"line {self.lines_read} of the target's output: {what}, "
                    f"got {json.dumps(value)[:200]}")


def _quote(line: bytes) -> str:
    text = line.decode("utf-8", "replace")
    return repr(text if len(text) <= 200 else text[:197] + "...")


# --------------------------------------------------------------------------------------------
# Values: Python -> JSON
# --------------------------------------------------------------------------------------------


def opaque(value: Any) -> dict[str, str]:
    return {"$object": repr(value), "type": type(value).__name__}


def enc(value: Any) -> Any:
    """A Python value as the protocol carries it (``specs/protocol.md``, "Values")."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [enc(v) for v in value]
    return opaque(value)


def enc_ids(value: Any) -> Any:
    """``deps``: any iterable of ids but a string or bytes is sent as an array."""
    if value is None or isinstance(value, (str, bytes, dict)):
        return enc(value)
    try:
        return [enc(v) for v in value]
    except TypeError:
        return opaque(value)


def fn_name(fn: Any) -> str:
    for attr in ("name", "__name__"):
        name = getattr(fn, attr, None)
        if isinstance(name, str):
            return name
    return repr(fn)
