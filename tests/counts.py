"""How many examples a test of a *correct* implementation runs: a quarter of the pinned
profile's count in every run, the whole count nightly.

A correct implementation passes at any count, so the count only decides how much of the
search a run repeats. The main job (``schedcheck verify``) runs every bundled implementation
at the whole count of the ``ci`` profile on every run; the tests keep a quarter of it, enough
for every clause they assert "held" to be reached (each such test asserts it), and run the
whole count with ``-m nightly``. Tests that must *find* a mistake keep the counts their
seeds were chosen with."""

from __future__ import annotations

from typing import Any

import pytest

from schedcheck.profiles import suite_settings

#: the pinned profile's examples per state machine (tests/conftest.py pins the profile)
WHOLE = int(suite_settings().max_examples)
#: what every run spends on a correct implementation
QUARTER = max(WHOLE // 4, 25)


def quarter_and_whole(reason: str) -> Any:
    """``@quarter_and_whole("...")``: the test takes ``examples``, a quarter of the count in
    every run and the whole count nightly (``reason`` says why the whole count is long)."""
    return pytest.mark.parametrize(
        "examples", [QUARTER, pytest.param(WHOLE, marks=pytest.mark.nightly(reason=reason))],
        ids=["quarter", "whole"])
