"""``--exec "COMMAND ..."``: a target in any language, as a child process speaking
``specs/protocol.md``.

:func:`exec_factory` returns the factory a suite drives (``schedcheck.targets.exec_instances``'
:class:`~schedcheck.targets.exec_client.ExecTarget`) with the check's step time limit and the
capabilities the child declares in its handshake, or raises :class:`~schedcheck.targets.load.
TargetError` when the command cannot serve as a target (it does not start, or its handshake
fails): the command line's exit status 2, never a counterexample.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from schedcheck.harness import guard
from schedcheck.targets.adapters import SchedulerCapabilities, WheelCapabilities
from schedcheck.targets.exec_client import ExecFault
from schedcheck.targets.exec_instances import ExecTarget, close_all
from schedcheck.targets.load import TargetError

__all__ = ["EXEC_PREFIX", "ExecTarget", "close_all", "exec_factory", "exec_spec",
           "is_exec_spec"]

#: How an exec target is named where a target spec is expected (reports, replay.py).
EXEC_PREFIX = "exec:"
#: The share of the step time limit the child has to reply: the proxy's own verdict (with the
#: child's stderr and a fresh child for the next example) comes before the guard's.
_SHARE = 0.8


def exec_spec(command: str) -> str:
    return EXEC_PREFIX + command


def is_exec_spec(spec: str) -> bool:
    return spec.startswith(EXEC_PREFIX)


def _limit() -> float:
    return max(0.05, guard.step_seconds() * _SHARE)


def _capabilities(system: str, declared: dict[str, Any]) -> Any:
    klass: Any = WheelCapabilities if system == "wheel" else SchedulerCapabilities
    names = {f.name for f in dataclasses.fields(klass)}
    unknown = sorted(set(declared) - names)
    if unknown:
        raise ValueError(f"unknown capabilities {unknown} (a {system} declares "
                         f"{', '.join(sorted(names))})")
    return klass(**declared)


def exec_factory(command: str, system: str, *, cwd: str | None = None) -> ExecTarget:
    """The factory of ``system`` instances served by ``command`` (started in ``cwd``, default
    the current folder); :class:`TargetError` when it cannot serve."""
    spec = exec_spec(command)
    try:
        factory = ExecTarget(command, system, cwd=cwd or os.getcwd(), limit=_limit)
    except FileNotFoundError as exc:
        raise TargetError(spec, f"cannot start {command!r}: {exc.strerror}: "
                                f"{exc.filename!r}") from None
    except (OSError, ValueError) as exc:
        raise TargetError(spec, f"cannot start {command!r}: {exc}") from None
    except ExecFault as exc:
        raise TargetError(spec, f"{command!r} did not complete the handshake of "
                                f"specs/protocol.md: {exc.schedcheck_verdict}") from None
    except Exception as exc:  # an error reply to hello
        raise TargetError(spec, f"{command!r} refused the handshake: "
                                f"{type(exc).__name__}: {exc}") from None
    # the proxies read the child with their own time limit: no step thread in between
    guard.SELF_LIMITED.update((type(factory), factory.instance_class))
    if factory.declared:
        try:
            factory.capabilities = _capabilities(system, factory.declared)  # type: ignore[attr-defined]
        except (TypeError, ValueError) as exc:
            raise TargetError(spec, f"the handshake's capabilities are unusable: {exc}") from None
    return factory
