"""The systems registry and the one check pipeline (suite -> cost -> rounds -> stress)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from schedcheck import pipeline, systems
from schedcheck.harness.clauses import S_COST, S_T2, W_COST
from schedcheck.harness.result import BROKEN, HELD, NOT_EXERCISED, RunResult
from schedcheck.targets import load_target
from schedcheck.zoo.catalogue import get


@pytest.mark.parametrize("entry", list(systems.SYSTEMS.values()), ids=systems.names())
def test_every_entry_names_clauses_of_its_own_table_and_bundles_usable_targets(
        entry: systems.System) -> None:
    ids = {c.id for c in entry.clauses}
    roles = (entry.cost_clause, entry.lin_clause, entry.interleaving_clause, *entry.cost_also)
    assert set(roles) <= ids
    assert all(cid.startswith(entry.short + "-") or cid[1:].isdigit() for cid in ids)
    for _folder, spec in entry.bundled:
        assert pipeline.probe_construct(entry, load_target(spec).factory) is None
    assert {m.system for m in entry.mutants()} == {entry.name}


def test_an_unknown_system_is_refused_with_the_known_names() -> None:
    with pytest.raises(ValueError, match="unknown system 'wheels'; expected one of 'scheduler'"):
        systems.get("wheels")


def test_probe_construct_says_how_the_target_must_be_called_and_what_it_lacks() -> None:
    def needs_three(a: int, b: int, c: int) -> object:
        return object()

    why = pipeline.probe_construct("wheel", needs_three)
    assert why is not None and "cls(1, 8) raised TypeError" in why
    assert "cls(tick, wheel_size, **options)" in why

    class Half:
        def __init__(self, max_concurrency: int) -> None:
            pass

        def submit(self) -> None:
            pass

    why = pipeline.probe_construct("scheduler", Half)
    assert why is not None and "without the required methods start(), ready()" in why


def test_tolerance_exists_only_where_the_registry_says_so() -> None:
    with pytest.raises(ValueError, match="tolerance mode does not exist for the scheduler"):
        pipeline.check("scheduler", object, tolerance=True, cost=False)


@pytest.mark.parametrize(("system", "ok", "verdict", "shared"), [
    ("scheduler", False, BROKEN, (S_COST, S_T2)),
    ("scheduler", True, HELD, (S_COST, S_T2)),
    ("wheel", False, BROKEN, (W_COST,)),
])
def test_the_cost_verdict_lands_on_the_cost_clause_and_the_clauses_sharing_it(
        system: str, ok: bool, verdict: str, shared: tuple[str, ...]) -> None:
    result = RunResult.fresh(system, "t")
    pipeline.fold_scaling(result, SimpleNamespace(ok=ok, verdict=verdict, text="ratio 1.1"))
    assert [result.stats[cid].verdict for cid in shared] == [verdict] * len(shared)
    assert result.notes == [f"{shared[0]}: ratio 1.1"]


def test_a_counterexample_stops_the_later_stages(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[str] = []

    def scaling(*args: Any, **kwargs: Any) -> Any:
        called.append("cost")
        raise AssertionError("the scaling clause ran after a counterexample")

    monkeypatch.setattr(pipeline, "run_scaling", scaling)
    said: list[str] = []
    mutant = get("sched-no-generation-check")
    result = pipeline.check("scheduler", mutant.factory, target_name="zoo", examples=200,
                            seed=0, shrink=False, cost=True, rounds=True, stress=True,
                            status=said.append)
    assert result.counterexample is not None and not result.ok
    assert called == [] and said == ["suite: scheduler zoo"]
    assert result.stats[S_COST].verdict == NOT_EXERCISED
