"""Test configuration: one fixed Hypothesis profile for the whole test session, and every test
draws from its seed alone.

* **The profile is pinned** (``TEST_PROFILE``), whatever ``CI`` or ``SCHEDCHECK_PROFILE`` say:
  a test's verdict must not depend on the machine that runs it. Several tests search for a
  rare mistake with a fixed seed and the profile's example and step counts (directly, or
  through ``schedcheck.pipeline`` and the CLI, whose defaults read ``SCHEDCHECK_PROFILE``), so
  a smaller profile would miss it and a larger one would run for minutes. The variable is set
  in this process's environment so that the CLI runs in child processes use the same profile.
  The loaded profile is also derandomized and keeps no example database: without ``CI``,
  Hypothesis would otherwise draw a fresh random seed per run and replay failures saved by
  earlier runs first, and with ``CI`` it does neither. The CI markers themselves are dropped
  from the environment for child processes, so that a child's Hypothesis is the same in both.
  Long searches with larger budgets are ``nightly`` tests, with their budgets written in them.
* **Draws from the seed alone** (``profiles.seed_only_draws``): Hypothesis otherwise mixes
  constants of every module the process has imported into its draws, so a test that pins a
  seed to reach a rare case would draw one thing alone and another in a whole run."""

import os
from collections.abc import Iterator

import hypothesis
import pytest

from schedcheck import profiles

#: The schedcheck profile of every test run (what CI has always run).
TEST_PROFILE = "ci"
#: Variables by which Hypothesis recognises a CI machine (and then loads its own ``ci`` profile).
CI_MARKERS = ("CI", "TF_BUILD", "GITHUB_ACTIONS", "CODEBUILD_BUILD_ID", "BUILDKITE", "CIRCLECI",
              "GITLAB_CI")

os.environ["SCHEDCHECK_PROFILE"] = TEST_PROFILE
for _marker in CI_MARKERS:
    os.environ.pop(_marker, None)
profiles.register()
hypothesis.settings.register_profile(
    "schedcheck-tests", parent=hypothesis.settings.get_profile(TEST_PROFILE),
    derandomize=True, database=None)
hypothesis.settings.load_profile("schedcheck-tests")


@pytest.fixture(autouse=True)
def _draws_from_the_seed_alone() -> Iterator[None]:
    with profiles.seed_only_draws():
        yield
