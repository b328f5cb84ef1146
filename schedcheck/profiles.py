"""Hypothesis settings profiles, chosen by the ``SCHEDCHECK_PROFILE`` environment variable.

* ``ci``       -- the default when ``CI`` is set: >= 200 examples per state machine, bounded;
* ``dev``      -- the default otherwise: quick feedback while editing;
* ``thorough`` -- long runs before a release (``SCHEDCHECK_PROFILE=thorough``).

Standards never change between profiles: only how many examples and steps are tried.
``deadline=None`` everywhere: the harness drives a model *and* a target per step, so per-example
timing says nothing about the target.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, Phase, settings

PROFILES: dict[str, dict[str, Any]] = {
    "ci": {"max_examples": 200, "stateful_step_count": 40},
    "dev": {"max_examples": 60, "stateful_step_count": 30},
    "thorough": {"max_examples": 3000, "stateful_step_count": 80},
}

_COMMON: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "print_blob": True,
}

_registered = False


def register() -> None:
    """Register the three profiles with Hypothesis (idempotent)."""
    global _registered
    if _registered:
        return
    for name, values in PROFILES.items():
        settings.register_profile(name, **{**_COMMON, **values})
    _registered = True


def default_profile() -> str:
    name = os.environ.get("SCHEDCHECK_PROFILE")
    if name:
        if name not in PROFILES:
            raise ValueError(
                f"SCHEDCHECK_PROFILE={name!r} is not a profile; choose one of {sorted(PROFILES)}"
            )
        return name
    return "ci" if os.environ.get("CI") else "dev"


def load(name: str | None = None) -> settings:
    """Register the profiles, load ``name`` (or the default) and return its settings."""
    register()
    chosen = name or default_profile()
    settings.load_profile(chosen)
    return settings.get_profile(chosen)


def suite_settings(
    *, examples: int | None = None, profile: str | None = None
) -> settings:
    """The settings of ``profile`` (default: ``SCHEDCHECK_PROFILE``), ``examples`` overriding
    ``max_examples``. Does not change Hypothesis's loaded profile."""
    register()
    base = settings.get_profile(profile or default_profile())
    if examples is not None:
        base = settings(base, max_examples=examples)
    return base


def unshrunk_settings(examples: int | None, profile: str | None,
                      shrink: bool) -> settings:
    """:func:`suite_settings`, without the shrink (and explain) phases unless ``shrink``."""
    chosen = suite_settings(examples=examples, profile=profile)
    if shrink:
        return chosen
    skipped = (Phase.shrink, Phase.explain)
    return settings(chosen, phases=[p for p in chosen.phases if p not in skipped])


@contextlib.contextmanager
def seed_only_draws() -> Iterator[None]:
    """Within the block, what a seed draws does not depend on which modules the process has
    imported. Hypothesis mixes constants found in the source of every imported local module
    into its draws, so one seed draws differently in a test run alone, in a whole test run or
    in a worker that imported more modules first; within the block that set is empty (the
    seed and the settings alone decide). Where Hypothesis keeps no such set, nothing changes.
    For tests that pin a seed to reach a rare case."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another Hypothesis layout: nothing to set aside
        yield
        return
    collected = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if collected is None or cache is None:
        yield
        return
    empty = type(collected())()
    cache.clear()  # values mixed from the collected constants
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = collected
        cache.clear()
