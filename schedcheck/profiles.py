"""Hypothesis settings profiles, chosen by the ``SCHEDCHECK_PROFILE`` environment variable.

* ``ci``       -- the default when ``CI`` is set: >= 200 examples per state machine, bounded;
* ``dev``      -- the default otherwise: quick feedback while editing;
* ``thorough`` -- long runs before a release (``SCHEDCHECK_PROFILE=thorough``).

Standards never change between profiles: only how many examples and steps are tried.
``deadline=None`` everywhere: the harness drives a model *and* a target per step, so per-example
timing says nothing about the target.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

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
