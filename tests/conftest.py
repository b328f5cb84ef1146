"""Test configuration: Hypothesis profiles come from schedcheck.profiles (SCHEDCHECK_PROFILE),
and every test draws from its seed alone (``profiles.seed_only_draws``): Hypothesis otherwise
mixes constants of every module the process has imported into its draws, so a test that pins
a seed to reach a rare case would draw one thing alone and another in a whole run."""

from collections.abc import Iterator

import pytest

from schedcheck import profiles

profiles.load()


@pytest.fixture(autouse=True)
def _draws_from_the_seed_alone() -> Iterator[None]:
    with profiles.seed_only_draws():
        yield
