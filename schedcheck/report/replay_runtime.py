"""The part of every ``replay.py`` that is not the counterexample: standard library only.

``schedcheck.report.replay`` copies this module's source (less its import of
``schedcheck.targets.adapt``, which the script copies as well) into each
script it writes, together with ``schedcheck.targets.adapt`` (how the check reads replies) and the
wheel's test doubles, so that a replay runs with any ``python3`` and imports nothing but the
target. Keep it that way: this module may import the standard library alone (a test checks).

* :func:`chosen_target` -- the target of the check, or the one ``--target SPEC`` names (the
  same steps on another implementation: a fixed one passes, printing "did not reproduce");
* :func:`load_target` -- ``module:attr`` (importable from the folder the check ran in),
  ``path/to/file.py:attr``, as ``schedcheck check`` loads it, or ``zoo:NAME`` (a mistake of
  schedcheck's own zoo, which needs schedcheck); when the target's own imports
  fail (a target that imports schedcheck, say, run by a ``python3`` that does not have it),
  the folders the checking interpreter imported from are added and the load is tried again;
* :class:`step_limit` -- the step time limit of the check: a step that does not return within
  it fails the replay with an ``AssertionError`` at that step, as the check's verdict did;
* :func:`cycle_named` -- the cycle a cycle error names (a wrong one is what the cycle oracle
  reports: a correct implementation raises too, naming a real cycle);
* :func:`differs` / :func:`reproduced` -- the messages of the two kinds of failing step: a
  reply that differs from the model's, and a step whose failing behaviour came back;
* :func:`current_hash_seed` / :func:`pin_hash_seed` -- the str hash seed of the check, and
  the replay run again once under it (a target that walks a set of string ids then takes the
  same order as when the check found the failure);
* :func:`entries_held` -- how many of the handles a wheel returned it still references (the
  walk the check's memory bound reads; ``schedcheck.harness.wheel.memory`` uses this one).
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import os
import signal
import site
import sys
import types
from collections.abc import Iterable
from types import FrameType, TracebackType
from typing import Any

# the replay defines these itself (its copy of schedcheck.targets.adapt, standard library only too)
from schedcheck.targets.adapt import (
    error_name,
    norm_claim,
    norm_claims,
    norm_info,
    norm_reply,
    shown_repr,
)

__all__ = ["MAX_WALK", "chosen_target", "current_hash_seed", "cycle_named", "differs",
           "end_at_once", "end_now", "ends_process",
           "entries_held", "load_target", "need_schedcheck", "pin_hash_seed", "reproduced",
           "same", "step_limit"]

#: Set in the environment of the replay's one re-run under the check's hash seed.
_PINNED = "SCHEDCHECK_REPLAY_HASH_SEED_PINNED"


def current_hash_seed() -> str | None:
    """This interpreter's str hash seed as ``PYTHONHASHSEED`` would set it, or None when it
    is random (not set, ``random``, or the environment ignored)."""
    if sys.flags.hash_randomization == 0:
        return "0"
    seed = None if sys.flags.ignore_environment else os.environ.get("PYTHONHASHSEED")
    return seed if seed and seed.isdigit() else None


def pin_hash_seed(seed: str | None) -> None:
    """Run this script again, once, with ``PYTHONHASHSEED=seed`` unless it already runs under
    it -- with the same isolation as ``python3 -I`` (no ``PYTHON*`` variable, no user site,
    no script folder first on the path). Only there does a set or dict of strings iterate in
    the order the check saw."""
    if seed is None or current_hash_seed() == seed or os.environ.get(_PINNED):
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update({"PYTHONHASHSEED": seed, _PINNED: "1"})
    flags = [flag for flag, on in (("-s", sys.flags.no_user_site),
                                   ("-P", getattr(sys.flags, "safe_path", False))) if on]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable,
              [sys.executable, *flags, os.path.abspath(sys.argv[0]), *sys.argv[1:]], env)


def chosen_target(target: str, checked_in: str,
                  argv: list[str] | None = None) -> tuple[str, str]:
    """The target to replay and the folder its spec is read from: the one the check ran on
    (from the folder the check ran in), or ``--target SPEC`` (from the current folder) -- the
    same steps against another implementation, to confirm a fix."""
    import argparse

    parser = argparse.ArgumentParser(
        description=f"Replay a schedcheck counterexample. Without --target it runs on the "
                    f"target the check found it on ({target}); it fails with an "
                    "AssertionError at the diverging step while the mistake is there and "
                    "prints 'did not reproduce' (exit 0) once it is gone.")
    parser.add_argument("--target", metavar="SPEC",
                        help="run the same steps on another implementation: "
                             "path/to/file.py:ATTR or module:ATTR (read from the current "
                             "folder, as schedcheck check reads it)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.target:
        if ":" not in args.target or not args.target.rpartition(":")[2]:
            parser.error(f"--target {args.target!r}: expected path/to/file.py:ATTR or "
                         "module:ATTR")
        return args.target, os.getcwd()
    return target, checked_in


def load_target(spec: str, checked_in: str, search_paths: list[str]) -> Any:
    """The object ``spec`` names, loaded the way ``schedcheck check`` loaded it: when its
    imports fail, the folders the checking python imported from are added after this
    python's own and the load is tried again, with every module the first try left behind
    forgotten (a folder beside the target named like a package it imports was taken for a
    namespace package there; with the package's install on the path, the package wins, as
    it did in the check)."""
    before = set(sys.modules)
    try:
        return _load(spec, checked_in)
    except ImportError:
        pass
    for name in set(sys.modules) - before:
        del sys.modules[name]
    importlib.invalidate_caches()
    for where in search_paths:
        site.addsitedir(where)  # also runs the .pth files there (an editable install)
    try:
        return _load(spec, checked_in)
    except ImportError as exc:
        raise SystemExit(
            f"replay.py needs {exc.name or 'a module'}, which this python ({sys.executable}) "
            "cannot import (the target imports it), nor the folders the check imported from: "
            "run it with the python the check ran with, where that module is installed") \
            from None


def need_schedcheck(search_paths: list[str]) -> None:
    """Make schedcheck importable (a race's replay drives the recorded schedule with its
    thread controller): from the folders the checking python imported from if need be."""
    try:
        importlib.import_module("schedcheck")
        return
    except ImportError:
        pass
    for where in search_paths:
        site.addsitedir(where)
    try:
        importlib.import_module("schedcheck")
    except ImportError:
        raise SystemExit(
            "this replay drives the recorded thread schedule with schedcheck's controller, "
            f"which this python ({sys.executable}) cannot import: run it with the python the "
            "check ran with") from None


def _load(spec: str, checked_in: str) -> Any:
    if spec.startswith("zoo:"):  # a catalogued mistake of schedcheck's zoo
        catalogue = importlib.import_module("schedcheck.zoo.catalogue")
        return catalogue.get(spec[len("zoo:"):]).factory
    where, _, attr = spec.rpartition(":")
    if where.endswith(".py") or "/" in where or os.sep in where:
        path = where if os.path.isabs(where) else os.path.join(checked_in, where)
        name = "_schedcheck_replay_target"
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise SystemExit(f"cannot load {path!r} as a Python module")
        module = importlib.util.module_from_spec(module_spec)
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in sys.path:
            sys.path.insert(0, folder)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    else:
        if checked_in not in sys.path:
            sys.path.insert(0, checked_in)
        module = importlib.import_module(where)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class _Hang(BaseException):
    """Raised by the alarm inside a step that ran past the limit (not an Exception, so the
    step's own ``except Exception`` does not take it)."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Hang()


class step_limit:
    """``with step_limit(index, words, seconds):`` -- the step fails with an AssertionError if
    it runs longer than ``seconds`` (where the platform has SIGALRM; elsewhere, no limit)."""

    def __init__(self, index: int, words: str, seconds: float) -> None:
        self.index, self.words, self.seconds = index, words, seconds
        self.armed = hasattr(signal, "setitimer") and seconds > 0

    def __enter__(self) -> step_limit:
        if self.armed:
            self.previous: Any = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        if kind is _Hang:
            raise AssertionError(
                f"step {self.index} ({self.words}): no reply within {self.seconds:g} s -- the "
                "call hangs, as it did when this counterexample was found") from None


def end_now(status: int = 0) -> None:
    """Leave at once with ``status``: a thread the target left running (not a daemon) does
    not keep the replay from ending. Also installed as the last word of an uncaught error
    (its traceback printed first, exit status 1)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _print_then_end(kind: type[BaseException], exc: BaseException,
                    tb: TracebackType | None) -> None:
    sys.__excepthook__(kind, exc, tb)
    end_now(1)


def end_at_once() -> None:
    """An uncaught error ends the replay at once, whatever threads the target started."""
    sys.excepthook = _print_then_end


#: The exit status of the copy that ran a step to its end (see :func:`ends_process`).
_STEP_RETURNED = 117


def ends_process(index: int, words: str, actual_then: str, code: str,
                 names: dict[str, Any]) -> None:
    """Run one step's ``code`` (in ``names``) in a forked copy of this process: a step that
    ended the check's process (a crash, an exit) fails the replay here with an
    AssertionError instead of taking the replay down; a step that returns lets the replay go
    on, running the step again here (where there is no fork, it runs here only)."""
    if not hasattr(os, "fork"):
        exec(code, names)
        return
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            import faulthandler

            faulthandler.disable()
            exec(code, names)
        except BaseException:
            pass
        os._exit(_STEP_RETURNED)
    try:
        _, status = os.waitpid(pid, 0)
    except BaseException:  # the step limit: the copy is stopped with the step
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _STEP_RETURNED:
        # the step ends no process any more: run it here too, so that what it returns and
        # what it changes are this replay's (the steps after it, and its own check, need them)
        exec(code, names)
        return
    how = (f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
           if os.WIFSIGNALED(status) else f"exited with status {os.WEXITSTATUS(status)}")
    raise AssertionError(f"step {index} ({words}): the process {how} during this step, as "
                         f"when this counterexample was found ({actual_then})")


def differs(index: int, words: str, expected: str, actual_then: str,
            raised: BaseException | None) -> str:
    """The message of a step whose reply is not the model's."""
    now = f"; this time it raised {error_name(raised)}: {raised}" if raised is not None else ""
    return (f"step {index} ({words}): the model expected {expected}; the implementation gave "
            f"{actual_then} when this was found{now}")


def reproduced(index: int, words: str, clause: str, story: str, actual_then: str) -> str:
    """The message of a step that did again what broke ``clause``."""
    return (f"step {index} ({words}): {clause} broken again -- {story} (the implementation "
            f"gave {actual_then}, as when this was found)")


def cycle_named(exc: BaseException | None) -> list[str] | None:
    """The ``.cycle`` a cycle error names, each id as its repr (as the check recorded it),
    or None when there is no error or it names none."""
    cycle = getattr(exc, "cycle", None)
    if exc is None or cycle is None:
        return None
    shown = list(cycle) if isinstance(cycle, (list, tuple)) else [cycle]
    return [repr(x) for x in shown]


def same(value: Any, expected: str) -> bool:
    """True iff ``value``, as is or read as the check reads replies, prints as ``expected``."""
    reads: tuple[Any, ...] = (lambda v: v, norm_reply, norm_claims, norm_info, norm_claim,
                              lambda v: [norm_reply(r) for r in v])  # a batch's replies
    for norm in reads:
        try:
            if shown_repr(norm(value)) == expected:
                return True
        except Exception:
            pass
    return False


#: Objects one walk of :func:`entries_held` may visit before it gives up.
MAX_WALK = 20_000

#: Referents never entered: code and namespaces, whose references are not the wheel's data.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.MethodType,
           types.BuiltinFunctionType, types.CodeType, types.FrameType)


def entries_held(wheel: Any, handles: Iterable[Any], *, skip: Iterable[Any] = ()) -> int | None:
    """How many of ``handles`` are reachable from ``wheel`` through its data -- its attributes
    and containers, never code, the handles' own references or the ``skip`` objects (the
    executor, the callbacks) -- or None if the walk met more than :data:`MAX_WALK` objects."""
    wanted = {id(h) for h in handles}
    stop = {id(x) for x in skip} | {id(wheel)}
    seen: set[int] = set(stop)
    found: set[int] = set()
    todo = [x for x in gc.get_referents(wheel) if not isinstance(x, type)]
    visited = 0
    while todo:
        obj = todo.pop()
        key = id(obj)
        if key in seen:
            continue
        seen.add(key)
        if key in wanted:
            found.add(key)
            continue  # a handle's own references are not the wheel's entries
        if isinstance(obj, _OPAQUE) or not gc.is_tracked(obj):
            continue
        visited += 1
        if visited > MAX_WALK:
            return None
        todo.extend(gc.get_referents(obj))
    return len(found)
