"""The checker's side of the process protocol (``specs/protocol.md``): the target's instances.

:class:`ExecTarget` (``ExecTarget("node shim.js impl.js Wheel", "wheel")``) is a factory whose
instances look to a suite exactly like a Python target: the contract's methods (only those the
child's handshake lists, so the optional ones are probed as for a class), handles and claims as
small Python objects carrying the child's opaque ids, errors raised as exceptions named like
the contract's (so ``schedcheck.targets.adapt.error_name`` matches them). A handle's ``fired``
and ``cancelled`` are the record of the child's answers (an ``advance`` that returned it, a
``cancel`` that returned True).

Standard library only, as ``exec_client`` (every ``replay.py`` of an ``--exec`` target carries
a copy of both).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from schedcheck.targets.exec_client import (
    ExecFault,
    Session,
    enc,
    enc_ids,
    fn_name,
    opaque,
    remote_error,
)

__all__ = ["Claim", "ExecHandle", "ExecTarget", "Reply", "TaskInfo", "close_all"]

#: Queries (no side effect) a child may answer in advance, with the reply to any other call
#: (``specs/protocol.md``, "Answers in advance").
_QUERIES = frozenset({"pending", "lag_ticks", "callback_errors", "info"})
_UNANSWERED = object()

_OPTIONAL_METHODS = {
    "scheduler": ("retry", "add_dependency", "ready_pairs", "complete_many"),
    "wheel": ("lag_ticks", "callback_errors"),
}

def _id(value: Any) -> Any:
    """A task id as the child gave it, hashable: an array (which the protocol does not allow
    as an id) becomes a tuple, so that it is reported as a wrong id, never crashes a set."""
    if isinstance(value, list):
        return tuple(_id(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _id(v)) for k, v in value.items()))
    return value


class Reply(NamedTuple):
    outcome: str
    state: str


class Claim(NamedTuple):
    task_id: Any
    generation: Any
    fn: Any = None
    claim: Any = None


class TaskInfo:
    """``info()``'s value: the contract's fields as attributes."""

    __slots__ = ("cause", "error", "generation", "optional_failed", "state", "task_id")

    def __init__(self, value: dict[str, Any]) -> None:
        self.task_id = _id(value.get("task_id"))
        self.generation = value.get("generation")
        self.state = value.get("state")
        cause = value.get("cause")
        if isinstance(cause, dict):  # {"kind", "task_id", "generation"}
            cause = [cause.get("kind"), cause.get("task_id"), cause.get("generation")]
        self.cause = tuple(_id(c) for c in cause) if isinstance(cause, list) else _id(cause)
        self.error = value.get("error")
        failed = value.get("optional_failed")
        self.optional_failed = frozenset(map(_id, failed)) if isinstance(failed, list) else failed

    def __repr__(self) -> str:
        return (f"TaskInfo(task_id={self.task_id!r}, generation={self.generation!r}, "
                f"state={self.state!r}, cause={self.cause!r})")


class ExecHandle:
    """A timer handle: the child's id, and the checker's record of the child's answers."""

    __slots__ = ("__weakref__", "callback", "cancelled", "deadline", "fired", "id", "instance")

    def __init__(self, instance: int, ident: Any, deadline: Any, callback: Any) -> None:
        self.instance, self.id, self.deadline, self.callback = instance, ident, deadline, callback
        self.fired = False
        self.cancelled = False

    def __repr__(self) -> str:
        return f"<handle {self.id!r} of instance {self.instance}>"


class _Instance:
    """One instance in the child: ``new`` on construction, ``call`` per method."""

    keeps_every_timer = True  #: the wheel's entries live in another process (W-MEM)

    def __init__(self, owner: ExecTarget, args: tuple[Any, ...], options: dict[str, Any]) -> None:
        session = owner.session()
        self._owner = owner
        self._session = session
        self._fns: dict[str, Any] = {}
        self._handles: dict[Any, ExecHandle] = {}
        self._index_of: Any = None  # the advance info answers self._index was built from
        self._index: dict[tuple[type, Any], dict[str, Any]] = {}
        with session.lock:
            self._epoch = session.epoch
            session.next_instance += 1
            self._id = session.next_instance
            drop = [session.dropped.popleft() for _ in range(len(session.dropped))]
            message: dict[str, Any] = {"op": "new", "instance": self._id,
                                       "args": [enc(a) for a in args],
                                       "options": {k: enc(v) for k, v in options.items()}}
            if drop:
                message["drop"] = drop
            session.request(message, owner.limit())
        weakref.finalize(self, session.dropped.append, self._id)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        raise TypeError("an instance served by a child process cannot be copied (a copy here "
                        "would drive the same instance there)")

    def _call(self, method: str, *args: Any) -> Any:
        session = self._session
        with session.lock:
            if session.epoch != self._epoch or session.proc is None:
                fault = session.fault.get(self._epoch)
                raise fault or ExecFault("Crash", "the target process of this instance ended")
            message: dict[str, Any] = {"op": "call", "instance": self._id, "method": method,
                                       "args": list(args)}
            if method not in _QUERIES and self._owner.queries:
                message["queries"] = self._owner.queries
            return session.request(message, self._owner.limit())

    def _answered(self, query: str) -> Any:
        """What the child answered in advance for ``query`` with the last reply, if it was
        this instance's (``_UNANSWERED`` otherwise): a query changes nothing, and nothing was
        asked in between, so it is the answer the call would get."""
        after = self._session.after
        if after is None or after[0] != self._id:
            return _UNANSWERED
        return after[1].get(query, _UNANSWERED)

    def _fn(self, fn: Any) -> Any:
        if fn is None:
            return None
        if not callable(fn):
            return opaque(fn)
        name = fn_name(fn)
        self._fns[name] = fn
        return name


class SchedulerProxy(_Instance):
    """A scheduler in the child (``specs/scheduler.md`` section 3)."""

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kw: Any) -> Any:
        args = [enc(task_id), enc_ids(deps), self._fn(fn)]
        if "optional" in kw:
            if "optional" not in self._owner.features:
                raise TypeError("submit() got an unexpected keyword argument 'optional' (the "
                                "target does not declare the 'optional' feature)")
            args.append(enc_ids(kw.pop("optional")))
        if kw:
            raise TypeError(f"submit() got unexpected keyword arguments {sorted(kw)}")
        return self._call("submit", *args)

    def start(self) -> Any:
        return self._call("start")

    def _claims(self, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        out: list[Any] = []
        for c in value:
            if isinstance(c, dict) and "task_id" in c and "generation" in c:
                fn = self._fns.get(c["fn"]) if isinstance(c.get("fn"), str) else None
                out.append(Claim(_id(c["task_id"]), c["generation"], fn, c.get("claim")))
            elif isinstance(c, list) and len(c) >= 2:
                out.append(Claim(_id(c[0]), c[1]))
            else:
                self._session.shape_error("a claim is {\"task_id\", \"generation\"}", c)
        return out

    def ready(self, limit: Any = None) -> Any:
        return self._claims(self._call("ready", enc(limit)))

    def complete(self, task_id: Any, generation: Any) -> Any:
        return _reply(self._call("complete", enc(task_id), enc(generation)))

    def fail(self, task_id: Any, generation: Any, error: Any = None) -> Any:
        err = error if error is None or isinstance(error, str) else repr(error)
        return _reply(self._call("fail", enc(task_id), enc(generation), err))

    def cancel(self, task_id: Any, generation: Any = None) -> Any:
        return _reply(self._call("cancel", enc(task_id), enc(generation)))

    def cancel_requested(self, task_id: Any, generation: Any) -> Any:
        return self._call("cancel_requested", enc(task_id), enc(generation))

    def close(self) -> Any:
        value = self._call("close")
        return [_id(v) for v in value] if isinstance(value, list) else value

    def info(self, task_id: Any) -> Any:
        infos = self._answered("info")
        if infos is not _UNANSWERED and type(task_id) in (str, int) and isinstance(infos, list):
            entry = self._info_index(infos).get((type(task_id), task_id))
            if entry is not None:
                if "error" in entry and isinstance(entry["error"], dict):
                    err = entry["error"]
                    raise remote_error(str(err.get("name")), str(err.get("message", "")), err)
                got = entry.get("value")
                return TaskInfo(got) if isinstance(got, dict) else got
        value = self._call("info", enc(task_id))
        return TaskInfo(value) if isinstance(value, dict) else value

    def _info_index(self, infos: list[Any]) -> dict[tuple[type, Any], dict[str, Any]]:
        """The child's advance ``info`` answers by (type, id), the first for each id; built
        once per reply (the checker reads every task's state after every step)."""
        if self._index_of is not infos:
            index: dict[tuple[type, Any], dict[str, Any]] = {}
            for entry in infos:
                if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], dict) \
                        and type(entry[0]) in (str, int):
                    index.setdefault((type(entry[0]), entry[0]), entry[1])
            self._index_of, self._index = infos, index
        return self._index

    def retry(self, task_id: Any, cascade: Any = True) -> Any:
        value = self._call("retry", enc(task_id), enc(cascade))
        if isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 for p in value):
            return {_id(p[0]): p[1] for p in value}
        return value

    def add_dependency(self, task_id: Any, dep: Any) -> Any:
        return _reply(self._call("add_dependency", enc(task_id), enc(dep)))

    def ready_pairs(self, limit: Any = None) -> Any:
        value = self._call("ready_pairs", enc(limit))
        if isinstance(value, list):
            return [tuple(_id(x) for x in p) if isinstance(p, list) else p for p in value]
        return value

    def complete_many(self, claims: Iterable[Any]) -> Any:
        sent: list[Any] = []
        for c in claims:
            if hasattr(c, "task_id") and hasattr(c, "generation"):
                one = {"task_id": enc(c.task_id), "generation": enc(c.generation)}
                if getattr(c, "claim", None) is not None:
                    one["claim"] = c.claim
                sent.append(one)
            elif isinstance(c, (list, tuple)) and len(c) >= 2:
                sent.append({"task_id": enc(c[0]), "generation": enc(c[1])})
            else:
                sent.append(opaque(c))
        value = self._call("complete_many", sent)
        return [_reply(r) for r in value] if isinstance(value, list) else value


def _reply(value: Any) -> Any:
    """``["APPLIED", "SUCCEEDED"]`` or ``{"outcome", "state"}`` -> :class:`Reply`; anything
    else as it came (the suite reports it as a malformed reply)."""
    if isinstance(value, list) and len(value) == 2:
        return Reply(value[0], value[1])
    if isinstance(value, dict) and "outcome" in value and "state" in value:
        return Reply(value["outcome"], value["state"])
    return value


class WheelProxy(_Instance):
    """A timing wheel in the child (``specs/wheel.md`` section 3)."""

    def _handle(self, value: Any, callback: Any) -> ExecHandle:
        if not isinstance(value, dict) or "handle" not in value:
            self._session.shape_error("schedule must return {\"handle\": H, \"deadline\": D}",
                                      value)
        ident = value["handle"]
        if isinstance(ident, list):
            ident = tuple(ident)
        handle = ExecHandle(self._id, ident, value.get("deadline"), callback)
        self._handles[ident] = handle
        return handle

    def schedule(self, deadline: Any, callback: Any) -> ExecHandle:
        return self._handle(self._call("schedule", enc(deadline), self._fn(callback)), callback)

    def schedule_after(self, delay: Any, callback: Any) -> ExecHandle:
        return self._handle(self._call("schedule_after", enc(delay), self._fn(callback)),
                            callback)

    def cancel(self, handle: Any) -> Any:
        arg = ({"instance": handle.instance, "handle": handle.id}
               if isinstance(handle, ExecHandle) else opaque(handle))
        got = self._call("cancel", arg)
        if got is True and isinstance(handle, ExecHandle) and handle.instance == self._id:
            handle.cancelled = True
        return got

    def advance(self, now: Any) -> Any:
        value = self._call("advance", enc(now))
        if not isinstance(value, list):
            return value
        fired = []
        for ident in value:
            key = tuple(ident) if isinstance(ident, list) else ident
            handle = self._handles.get(key)
            if handle is None:  # an id no schedule returned: shown as such
                handle = ExecHandle(self._id, key, None, None)
            handle.fired = True
            fired.append(handle)
        return fired

    def pending(self) -> Any:
        got = self._answered("pending")
        return self._call("pending") if got is _UNANSWERED else got

    def lag_ticks(self) -> Any:
        got = self._answered("lag_ticks")
        return self._call("lag_ticks") if got is _UNANSWERED else got

    def callback_errors(self) -> Any:
        got = self._answered("callback_errors")
        return self._call("callback_errors") if got is _UNANSWERED else got


# --------------------------------------------------------------------------------------------
# The factory
# --------------------------------------------------------------------------------------------

_SESSIONS: dict[tuple[str, str, str], Session] = {}
_SESSIONS_LOCK = threading.Lock()


class ExecTarget:
    """A factory of instances served by ``command`` (one child for all of them).

    ``limit`` returns the seconds a call may take (read at each call). The first call starts
    the child (:meth:`session`); ``methods``, ``features`` and ``declared`` come from its
    handshake.
    """

    #: its calls run in another process: steps counted here say nothing of its cost
    runs_elsewhere = True
    #: nor can its memory be walked from here (W-MEM: "not supported")
    keeps_every_timer = True

    def __init__(self, command: str, system: str, *, cwd: str | None = None,
                 limit: Callable[[], float] | None = None) -> None:
        if system not in _OPTIONAL_METHODS:
            raise ValueError(f"system must be 'scheduler' or 'wheel', not {system!r}")
        self.command, self.system = command, system
        self.cwd = os.path.abspath(cwd or os.getcwd())
        #: the child this target shares with every target of the same command, system and cwd
        self._key = (self.command, self.system, self.cwd)
        self.limit: Callable[[], float] = limit or (lambda: 10.0)
        self.__qualname__ = self.__name__ = f"exec:{command}"
        hello = self.session().hello
        self.implementation = str(hello.get("implementation") or command)
        methods = hello.get("methods")
        self.methods = frozenset(m for m in methods if isinstance(m, str)) if isinstance(
            methods, list) else frozenset()
        features = hello.get("features")
        self.features = frozenset(features) if isinstance(features, list) else frozenset()
        #: what each call asks the child to answer in advance (the queries it has)
        self.queries = [q for q in ("pending", "lag_ticks", "callback_errors", "info")
                        if q in self.methods]
        caps = hello.get("capabilities")
        self.declared: dict[str, Any] = caps if isinstance(caps, dict) else {}
        base: type[_Instance] = SchedulerProxy if system == "scheduler" else WheelProxy
        absent = {m: None for m in _OPTIONAL_METHODS[system] if m not in self.methods}
        self.instance_class: type[_Instance] = type(base.__name__, (base,), absent)

    def session(self) -> Session:
        with _SESSIONS_LOCK:
            session = _SESSIONS.get(self._key)
            if session is None:
                session = _SESSIONS[self._key] = Session(self.command, self.system, self.cwd)
        session.start()
        return session

    def close(self) -> None:
        """Shut this target's child down (the next instance starts a fresh one): nothing of
        the target is left running between the checks of a session."""
        with _SESSIONS_LOCK:
            session = _SESSIONS.pop(self._key, None)
        if session is not None:
            session.shutdown()

    def __call__(self, *args: Any, **options: Any) -> Any:
        if "executor" in options:
            raise TypeError("an --exec target takes no executor: callbacks stay on the "
                            "checker's side (specs/protocol.md)")
        return self.instance_class(self, args, options)

    def __repr__(self) -> str:
        return f"ExecTarget({self.command!r}, {self.system!r})"


def close_all() -> None:
    """Shut every child down (the end of a check, a replay)."""
    with _SESSIONS_LOCK:
        sessions = list(_SESSIONS.values())
        _SESSIONS.clear()
    for session in sessions:
        session.shutdown()
