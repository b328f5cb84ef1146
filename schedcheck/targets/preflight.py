"""What is settled about a target before any run: whether it builds and has the methods a
level calls (:func:`probe_construct`), whether it is checked at the core level only
(:func:`core_only`), and the capture of the log records a run provokes (:class:`LogCapture`).
``schedcheck.pipeline`` re-exports all three.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedcheck.systems import System, get

__all__ = ["LogCapture", "core_only", "probe_construct", "system_of"]


def system_of(system: System | str) -> System:
    """The :class:`System` named ``system`` (or ``system`` itself)."""
    return system if isinstance(system, System) else get(system)


def core_only(system: System | str, factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` is checked at the core level only outside ``check``'s graded levels
    (the pytest API, the plugin, ``fuzz``): a scheduler adapter (it declares its
    capabilities: the contract level stops at its first design difference), or a target with
    the core level's methods and not all of the contract's."""
    from schedcheck.targets.adapters import SchedulerCapabilities, capabilities_of

    entry = system_of(system)
    if entry.run_core is None:
        return False
    if isinstance(capabilities_of(factory), SchedulerCapabilities):
        return True
    return (probe_construct(entry, factory) is not None
            and probe_construct(entry, factory, operations=entry.core_operations) is None)


def probe_construct(system: System | str, factory: Callable[..., Any], *,
                    operations: tuple[str, ...] | None = None) -> str | None:
    """``None`` if ``factory`` builds with ordinary arguments and has ``operations`` (default:
    every method the contract suite calls; the core level's for an adapter, which declares
    its capabilities), else why not (one sentence)."""
    from schedcheck.targets.adapters import capabilities_of

    entry = system_of(system)
    if operations is None and capabilities_of(factory) is not None and entry.core_operations:
        operations = entry.core_operations
    shown = f"cls({', '.join(map(str, entry.probe_args))})"
    try:
        obj = factory(*entry.probe_args)
    except Exception as exc:
        return (f"calling it as {shown} raised {type(exc).__name__}: {exc} -- a {entry.name} "
                f"target must be callable as {entry.constructor}")
    needed = operations or entry.operations
    missing = [m for m in needed if not callable(getattr(obj, m, None))]
    if missing:
        return (f"{shown} returned a {type(obj).__name__} without the required "
                f"method{'s' if len(missing) > 1 else ''} "
                f"{', '.join(m + '()' for m in missing)}; a {entry.name} target needs "
                f"{', '.join(m + '()' for m in needed)} (specs/{entry.name}.md "
                "section 3), add the missing ones or wrap it with schedcheck.targets.adapters")
    return None


class LogCapture(logging.Handler):
    """Collects the log records of a run (targets and the model log rejected executor
    submissions on purpose) instead of letting them interleave with the report on stderr.
    Use as a context manager; ``lines`` holds the formatted records."""

    def __init__(self, limit: int = 2000) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self.count = 0
        self.limit = limit
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if len(self.lines) < self.limit:
            self.lines.append(self.format(record))

    def __enter__(self) -> LogCapture:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeHandler(self)

    def write(self, path: Path) -> bool:
        """Write the records to ``path`` if there were any; True iff written."""
        if not self.count:
            return False
        more = self.count - len(self.lines)
        tail = [f"... and {more} more records"] if more > 0 else []
        path.write_text("\n".join([*self.lines, *tail]) + "\n", encoding="utf-8")
        return True
