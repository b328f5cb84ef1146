"""Keep-going grading and the verdicts, on hand-made rounds (no suite runs)."""

from __future__ import annotations

from schedcheck.harness.result import (
    BROKEN,
    HELD,
    NOT_REACHED,
    NOT_SUPPORTED,
    PARTLY,
    Counterexample,
    RunResult,
)
from schedcheck.keep_going import keep_going


def _cx(clause: str) -> Counterexample:
    return Counterexample(system="wheel", clause=clause, message=f"{clause} broke", steps=[],
                          setup="target = factory(1, 4)")


def _round(broken: str | None, *, seen: tuple[str, ...] = (), exercised: int = 5) -> RunResult:
    result = RunResult.fresh("wheel", "fake:Wheel")
    result.examples = 10
    for cid in ("W-INV-EARLY", "W-INV-ONCE", "W-INV-LATE"):
        result.exercise(cid, exercised)
    if broken is not None:
        result.counterexample = _cx(broken)
        result.break_(broken)
    for cid in seen:
        result.seen_broken[cid] = _cx(cid)
        result.break_(cid)
    return result


def test_each_round_sets_aside_the_clause_it_shrank_until_a_clean_round() -> None:
    asides: list[frozenset[str]] = []
    script = [_round("W-INV-EARLY", seen=("W-INV-EARLY", "W-INV-ONCE")),
              _round("W-INV-ONCE", seen=("W-INV-ONCE",), exercised=9), _round(None)]

    def run(aside: frozenset[str]) -> RunResult:
        asides.append(aside)
        return script[len(asides) - 1]

    merged = keep_going(run)
    assert asides == [frozenset(), {"W-INV-EARLY"}, {"W-INV-EARLY", "W-INV-ONCE"}]
    assert [cx.clause for cx in merged.all_counterexamples()] == ["W-INV-EARLY", "W-INV-ONCE"]
    assert merged.stats["W-INV-ONCE"].verdict == BROKEN
    assert "counterexample 2 of 2" in merged.stats["W-INV-ONCE"].reason
    assert merged.stats["W-INV-LATE"].verdict == HELD
    assert merged.stats["W-INV-LATE"].exercised == 5  # the last round's count
    assert not merged.ok


def test_a_clause_exercised_only_before_the_last_set_aside_is_not_held() -> None:
    early = _round("W-INV-EARLY")
    early.exercise("W-INV-PENDING", 4)  # reached only on the way to the first bug
    rounds = iter([early, _round(None)])
    merged = keep_going(lambda aside: next(rounds))
    stat = merged.stats["W-INV-PENDING"]
    assert stat.verdict == NOT_REACHED and "after the last set-aside" in stat.reason
    assert merged.stats["W-INV-LATE"].verdict == HELD  # the last round exercised it


def test_without_a_cap_the_rounds_go_on_until_a_clean_round() -> None:
    clauses = ["W-INV-EARLY", "W-INV-ONCE", "W-INV-LATE", "W-INV-PENDING", "W1", "W2", "W3"]
    script = [_round(c) for c in clauses] + [_round(None)]
    asides: list[frozenset[str]] = []

    def run(aside: frozenset[str]) -> RunResult:
        asides.append(aside)
        return script[len(asides) - 1]

    merged = keep_going(run)
    assert len(asides) == len(clauses) + 1  # more than the old cap of six rounds
    assert [cx.clause for cx in merged.all_counterexamples()] == clauses


def test_a_clause_broken_in_one_example_is_never_held_even_unshrunk() -> None:
    rounds = iter([_round(None, seen=("W-INV-LATE",))])
    merged = keep_going(lambda aside: next(rounds))
    assert merged.stats["W-INV-LATE"].verdict == BROKEN
    assert [cx.clause for cx in merged.all_counterexamples()] == ["W-INV-LATE"]
    assert "not shrunk" in merged.counterexample.message  # type: ignore[union-attr]


def test_out_of_rounds_leaves_the_rest_not_reached_saying_why() -> None:
    merged = keep_going(lambda aside: _round("W-INV-EARLY", exercised=0), max_rounds=1)
    stat = merged.stats["W-INV-PENDING"]
    assert stat.verdict == NOT_REACHED and "limit of 1 rounds" in stat.reason


def test_first_stops_after_the_first_counterexample_saying_why() -> None:
    calls: list[frozenset[str]] = []

    def run(aside: frozenset[str]) -> RunResult:
        calls.append(aside)
        return _round("W-INV-EARLY", exercised=0)

    merged = keep_going(run, first=True)
    assert len(calls) == 1 and merged.counterexample is not None
    assert "first counterexample" in merged.stats["W-INV-PENDING"].reason


def test_verdicts_partly_exercised_and_not_supported_carry_what_is_missing() -> None:
    result = RunResult.fresh("wheel", "fake:Wheel")
    result.unsupported_clause("W2", "exact due ticks")
    result.unsupported_clause("W1", "max_catchup_ticks")
    result.exercise("W1", 3)
    assert result.stats["W2"].verdict == NOT_SUPPORTED
    assert result.stats["W2"].reason == "the target lacks exact due ticks"
    assert result.stats["W1"].verdict == PARTLY and "max_catchup_ticks" in result.stats["W1"].reason
    result.break_("W1")
    assert result.stats["W1"].verdict == BROKEN  # broken wins over partly
