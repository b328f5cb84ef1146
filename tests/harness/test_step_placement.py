"""A wheel step's words say where its timer lands, worked out when the step runs: a reduced
program (smaller values, fewer steps before it) never keeps a label that is no longer true,
such as "negative delay" for a delay of 0."""

from __future__ import annotations

import re

import pytest

from schedcheck import pipeline
from schedcheck.harness.wheel.draws import HUGE, placement
from schedcheck.harness.wheel.ledger import Ledger
from schedcheck.zoo.catalogue import get


def _ledger(now: int, tick: int = 10, size: int = 4) -> Ledger:
    led = Ledger(tick, size, start=now, budget=None, max_pending=None)
    return led


@pytest.mark.parametrize(("value", "after", "words"), [
    (-5, True, "a negative delay: due at the next tick processed"),
    (0, True, "a zero delay"),
    (15, True, "within this rotation"),  # deadline 115: due tick 12, cursor 10
    (45, True, "one rotation away"),  # due tick 15: 5 ahead of a 4-bucket rotation
    (99, False, "a deadline already passed: due at the next tick processed"),
    (100, False, "within this rotation"),
    (190, False, "2 rotations away"),  # due tick 19: 9 ahead
    (100 + HUGE, False, "a huge deadline"),
    (True, False, "a malformed deadline"),
])
def test_placement_reads_the_value_against_the_wheels_state(value: object, after: bool,
                                                            words: str) -> None:
    assert placement(_ledger(100), value, after=after) == words


def test_the_steps_of_a_reduced_counterexample_say_what_is_true_of_them() -> None:
    checked = 0
    for name, seed in (("wheel-negative-modulo", 3), ("wheel-forgotten-rounds", 3),
                       ("wheel-absolute-rounds", 1)):
        result = pipeline.check("wheel", get(name).factory, target_name=name, examples=30,
                                seed=seed, cost=False, levels=True, first=True)
        for cx in result.all_counterexamples():
            for step in cx.steps:
                delay = re.match(r"schedule_after\((-?\d+)\) \((.*)\)$", step.words)
                if delay:
                    value, tag = int(delay.group(1)), delay.group(2)
                    assert ("negative" in tag) == (value < 0), step.words
                    assert ("zero" in tag) == (value == 0), step.words
                    checked += 1
                at = re.match(r"schedule a timer at (-?\d+) \((.*)\)$", step.words)
                if at:
                    assert at.group(2) in {
                        "a deadline already passed: due at the next tick processed",
                        "within this rotation", "one rotation away", "a huge deadline",
                    } or at.group(2).endswith("rotations away"), step.words
                    checked += 1
    assert checked > 0
