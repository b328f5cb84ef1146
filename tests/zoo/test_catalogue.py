"""The catalogue's one way in: the ``mutant`` decorator and the clause constants."""

from __future__ import annotations

import importlib

import pytest

from schedcheck.harness import clauses
from schedcheck.zoo.catalogue import all_mutants, get
from schedcheck.zoo.mutant import mutant


def test_every_clause_has_its_constant_and_every_constant_its_row() -> None:
    for c in clauses.SCHEDULER_CLAUSES + clauses.WHEEL_CLAUSES:
        assert getattr(clauses, c.id.replace("-", "_")) == c.id
    assert clauses.S_COST == "S-COST" and clauses.W_INV_EARLY == "W-INV-EARLY"


def test_a_mistyped_clause_constant_fails_at_import() -> None:
    with pytest.raises(ImportError):
        exec("from schedcheck.harness.clauses import S_COSTS", {})


@pytest.mark.parametrize(("system", "clause", "kind", "says"), [
    ("scheduler", "S-COSTS", "sequential", "is not a scheduler clause"),
    ("scheduler", clauses.W2, "sequential", "is not a scheduler clause"),
    ("wheels", clauses.W2, "sequential", "unknown system 'wheels'"),
    ("wheel", clauses.W2, "races", "kind 'races' is not one of"),
])
def test_the_decorator_refuses_what_the_zoo_could_not_replay(
        system: str, clause: str, kind: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        mutant(name="x", system=system, clause=clause, kind=kind, mistake="m", source="s")


def test_the_catalogue_is_in_system_order_whatever_was_imported_first() -> None:
    importlib.import_module("schedcheck.zoo.race_mutants")
    names = [m.name for m in all_mutants()]
    systems = [m.system for m in all_mutants() if m.kind != "race"]
    assert systems == sorted(systems)  # every scheduler entry before every wheel entry
    races = [m.name for m in all_mutants() if m.kind == "race"]
    assert races and names[-len(races):] == races
    assert len(names) == len(set(names))
    assert get("wheel-wall-clock").expected_clause == clauses.W2
    with pytest.raises(KeyError, match="no mutant named 'nope'"):
        get("nope")
