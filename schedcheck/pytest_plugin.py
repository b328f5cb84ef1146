"""``pytest --schedcheck-scheduler TARGET`` / ``--schedcheck-wheel TARGET``: the suites without a
test file.

Installed with schedcheck (a ``pytest11`` entry point), so every pytest run sees the options::

    pytest --schedcheck-scheduler mine.py:Scheduler
    pytest --schedcheck-wheel mypkg.timers:Wheel --schedcheck-tolerance
    pytest --schedcheck-scheduler mine.py:Scheduler --schedcheck-db redis://ci-cache:6379/0

TARGET is what ``schedcheck check`` takes (``schedcheck.targets``). Each option adds the
classes of ``schedcheck.pytest_api`` (``TestScheduler``/``TestWheel``: the Hypothesis
state-machine test and the scaling clause); when no file or directory is named on the command
line, only they are collected. Both options may be repeated. ``--schedcheck-db`` makes
Hypothesis's example database (of every test in the run) a directory or, for a URL
``redis://...``, ``hypothesis.extra.redis.RedisExampleDatabase``;
``--schedcheck-replay-only`` runs only the examples already in it (no new ones), which is
how ``schedcheck fuzz`` writes the report of what a campaign found.

Without these options the plugin adds nothing and imports nothing beyond this module.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

OPTIONS = {"scheduler": "schedcheck_scheduler", "wheel": "schedcheck_wheel"}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("schedcheck", "schedcheck: the differential suites")
    for system, dest in OPTIONS.items():
        constructor = ("cls(max_concurrency)" if system == "scheduler"
                       else "cls(tick, wheel_size, **options)")
        group.addoption(f"--schedcheck-{system}", dest=dest, action="append", default=[],
                        metavar="TARGET",
                        help=f"run the {system} suite against TARGET (module:attr or "
                             f"path/to/file.py:attr, called as {constructor}); repeatable")
    group.addoption("--schedcheck-tolerance", action="store_true",
                    help="wheels: check only never early/twice/after cancel/lost, not the "
                         "contract's due ticks")
    group.addoption("--schedcheck-db", metavar="DIR|redis://HOST:PORT/N",
                    help="Hypothesis's example database for this run: a directory, or a "
                         "Redis server shared by many machines")
    group.addoption("--schedcheck-replay-only", action="store_true",
                    help="run only the examples saved in the database (no new ones)")
    group.addoption("--schedcheck-check-search", action="store_true",
                    help="with --schedcheck-db: search as `schedcheck check` does (its phases, "
                         "both levels, from --hypothesis-seed) and keep what it finds in the "
                         "database, instead of Hypothesis's own search")


def _targets(config: pytest.Config) -> list[tuple[str, str]]:
    return [(system, spec) for system, dest in OPTIONS.items()
            for spec in config.getoption(dest) or ()]


@pytest.hookimpl(trylast=True)  # after Hypothesis's plugin has loaded --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    db = config.getoption("schedcheck_db")
    replay_only = config.getoption("schedcheck_replay_only")
    if db or replay_only:
        from schedcheck.fuzz import load_database_profile

        try:
            load_database_profile(db, replay_only=replay_only)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from exc
    detection = sys.modules.get("hypofuzz.detection")
    if getattr(detection, "_in_hypofuzz_run", False):  # `hypothesis fuzz` collecting
        from schedcheck.fuzz_workers import hypofuzz_compat

        hypofuzz_compat()
    if _targets(config) and config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = []  # only the suites: not the tests of the current directory


class _Suites(pytest.Module):
    """A module that exists only in memory: the suite classes of the targets given."""

    suites: types.ModuleType

    def _getobj(self) -> Any:
        return self.suites


@pytest.hookimpl(tryfirst=True)  # before Hypothesis marks its tests and -k/-m deselect
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    targets = _targets(config)
    if not targets:
        return
    from schedcheck import pytest_api
    from schedcheck.fuzz_workers import MODULE, class_names
    from schedcheck.targets import TargetError, load_target

    module = types.ModuleType("schedcheck_targets", "the suites of --schedcheck-* targets")
    tolerance = bool(config.getoption("schedcheck_tolerance"))
    labels = class_names([system for system, _ in targets])
    for (system, spec), label in zip(targets, labels):
        try:
            if spec.startswith("exec:"):  # a child process speaking specs/protocol.md
                from schedcheck.targets.exec import exec_factory

                factory: Any = exec_factory(spec[len("exec:"):], system)
            else:
                factory = load_target(spec).factory
        except TargetError as exc:
            raise pytest.UsageError(f"--schedcheck-{system}: {exc}") from exc
        if system == "wheel":
            suite = pytest_api.wheel_suite(factory, tolerance=tolerance, name=spec)
        else:
            suite = pytest_api.scheduler_suite(factory, name=spec)
        suite.__name__ = suite.__qualname__ = label
        suite.__doc__ = f"schedcheck's {system} suite against {spec}"
        setattr(module, label, suite)
    node = _Suites.from_parent(session, path=Path(config.rootpath) / MODULE)
    node.suites = module
    items[:0] = [item for item in session.genitems(node)]
