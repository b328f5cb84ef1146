"""Loading a *target*: the scheduler or wheel class (or factory) that ``schedcheck check`` runs.

Contract Part 3 accepts two forms, and nothing else:

* ``module:attr`` -- ``module`` importable from the current directory (the current directory is
  put first on ``sys.path``, as ``python -m`` does), ``attr`` a dotted attribute path;
* ``path/to/file.py:attr`` -- a Python file anywhere, loaded under a private module name so
  that it cannot shadow an installed module.

The attribute must be callable: it is called as ``cls(max_concurrency)`` or
``cls(tick, wheel_size, **options)``. Whatever goes wrong while loading (no colon, missing file,
syntax error, import error, missing attribute, not callable) raises :class:`TargetError`, whose
message shows the target as given, what happened, and the accepted forms; the command line turns
it into exit status 2 (the target is unusable -- never a counterexample).

The replay script (``schedcheck.report.replay``) carries its own copy of this loading logic so
that it runs with plain ``python`` and loads the target the same way.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ACCEPTED_FORMS", "Target", "TargetError", "load_target"]

ACCEPTED_FORMS = (
    "accepted forms:\n"
    "  module:attr            a module importable from the current directory, e.g. "
    "mysched:Scheduler\n"
    "  path/to/file.py:attr   a Python file, e.g. ./answers/scheduler.py:Scheduler\n"
    "bundled: schedcheck.impl:Scheduler, schedcheck.impl:HashedTimingWheel, "
    "schedcheck.impl:HierarchicalTimingWheel, schedcheck.model:Scheduler, "
    "schedcheck.model:TimingWheel"
)


class TargetError(Exception):
    """The target cannot be used: ``.target`` as given, ``.reason`` what happened."""

    def __init__(self, target: str, reason: str) -> None:
        self.target = target
        self.reason = reason
        super().__init__(target, reason)

    def __str__(self) -> str:
        return f"cannot load target {self.target!r}: {self.reason}\n{ACCEPTED_FORMS}"


@dataclass(frozen=True)
class Target:
    """A loaded target: the spec as given, how it was found, and the callable."""

    spec: str  #: as the user gave it
    kind: str  #: "module" or "file"
    location: str  #: the module name, or the absolute path of the file
    attr: str  #: the dotted attribute path
    factory: Callable[..., Any]

    @property
    def name(self) -> str:
        return getattr(self.factory, "__qualname__", None) or self.attr


def _split(spec: str) -> tuple[str, str]:
    if not isinstance(spec, str) or ":" not in spec:
        raise TargetError(str(spec), "expected WHERE:ATTRIBUTE with a colon")
    where, _, attr = spec.rpartition(":")
    # A Windows drive letter ("C:\\x.py:Cls") leaves a colon in `where`; rpartition keeps it.
    if not where or not attr:
        raise TargetError(spec, "both the module/file and the attribute must be given")
    if not all(part.isidentifier() for part in attr.split(".")):
        raise TargetError(spec, f"{attr!r} is not a (dotted) Python attribute name")
    return where, attr


def _short_traceback(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()


def _load_file(spec: str, where: str) -> Any:
    path = Path(where).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    if not path.exists():
        raise TargetError(spec, f"file {str(path)!r} does not exist")
    if not path.is_file():
        raise TargetError(spec, f"{str(path)!r} is not a file")
    path = path.resolve()
    # the path and the content: a file edited since it was loaded (a learner filling in a
    # skeleton, in one notebook or REPL session) is loaded afresh, not served from the cache
    digest = hashlib.sha1(str(path).encode() + b"\0" + path.read_bytes()).hexdigest()[:10]
    module_name = f"_schedcheck_target_{path.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise TargetError(spec, f"{str(path)!r} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    # The file's own directory is importable, so it may import its siblings.
    sys.path.insert(0, str(path.parent))
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[module_name]
        raise TargetError(spec, f"syntax error in {str(path)!r}: {_short_traceback(exc)}") from exc
    except Exception as exc:
        del sys.modules[module_name]
        raise TargetError(
            spec, f"importing {str(path)!r} raised {_short_traceback(exc)}"
        ) from exc
    finally:
        if sys.path and sys.path[0] == str(path.parent):
            del sys.path[0]
    return module


def _load_module(spec: str, where: str) -> Any:
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name and (where == exc.name or where.startswith(exc.name + ".")):
            raise TargetError(
                spec, f"no module named {where!r} (looked in {cwd!r} and sys.path)"
            ) from exc
        raise TargetError(spec, f"importing {where!r} raised {_short_traceback(exc)}") from exc
    except SyntaxError as exc:
        raise TargetError(
            spec, f"syntax error in module {where!r}: {_short_traceback(exc)}"
        ) from exc
    except Exception as exc:
        raise TargetError(spec, f"importing {where!r} raised {_short_traceback(exc)}") from exc


def load_target(spec: str) -> Target:
    """Load ``module:attr`` or ``path/to/file.py:attr``; :class:`TargetError` when unusable."""
    where, attr = _split(spec)
    is_file = where.endswith(".py") or "/" in where or os.sep in where
    module = _load_file(spec, where) if is_file else _load_module(spec, where)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            available = sorted(n for n in dir(obj) if not n.startswith("_"))[:12]
            raise TargetError(
                spec,
                f"{where!r} has no attribute {attr!r} "
                f"(it has: {', '.join(available) or 'nothing'})",
            ) from None
    if not callable(obj):
        raise TargetError(
            spec,
            f"{attr!r} is a {type(obj).__name__}, not a class or factory; it must be callable "
            "as cls(max_concurrency) or cls(tick, wheel_size, **options)",
        )
    location = str(Path(module.__file__).resolve()) if is_file and module.__file__ else where
    return Target(spec=spec, kind="file" if is_file else "module", location=location,
                  attr=attr, factory=obj)
