"""The ``make`` fixture of the scheduler contract tests: each test body runs on the reference
model and on the production scheduler, and every scheduler it built is checked at teardown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from schedcheck import impl, model

Factory = Callable[..., Any]


@pytest.fixture(params=[model.Scheduler, impl.Scheduler], ids=["model", "impl"])
def make(request: pytest.FixtureRequest) -> Iterator[Factory]:
    built: list[Any] = []

    def factory(max_concurrency: int = 10) -> Any:
        s = request.param(max_concurrency)
        built.append(s)
        return s

    yield factory
    for s in built:
        s.check_invariants()
