"""The production scheduler answers every call exactly as the model does, on seeded random
programs (a cheap, deterministic companion of the Hypothesis suite in schedcheck.harness):
the same replies, the same errors (by contract name), the same snapshot() after every call,
and both check_invariants() after every call. Programs mostly build acyclic graphs so that
start() succeeds and the run reaches complete/fail/cancel/retry."""

from __future__ import annotations

import random
from typing import Any

import pytest

from schedcheck import impl, model
from schedcheck.targets.adapt import error_name

IDS = list("abcdefg")
OPS = ["submit"] * 5 + ["start", "ready", "ready", "complete", "complete", "fail", "cancel",
                        "cancel", "close", "info", "retry", "add", "cancel_requested", "old"]


def _call(rng: random.Random, claims: list[tuple[Any, int]]) -> tuple[str, tuple[Any, ...],
                                                                   dict[str, Any]] | None:
    op = rng.choice(OPS)
    if op == "submit":
        tid = rng.choice(IDS)
        pool = IDS[:IDS.index(tid)] if rng.random() < 0.9 else IDS
        deps = rng.sample(pool, min(len(pool), rng.randint(0, 3)))
        if deps and rng.random() < 0.2:
            deps.append(deps[0])  # a repeat
        opt = [x for x in rng.sample(IDS, rng.randint(0, 2))
               if x not in deps and (x < tid or rng.random() < 0.1)] if rng.random() < 0.3 else []
        return ("submit", (tid, deps), {"optional": opt} if opt else {})
    if op == "start":
        return ("start", (), {})
    if op == "ready":
        return ("ready", (rng.choice([None, 0, 1, 2]),), {})
    if op in ("complete", "fail"):
        if claims and rng.random() < 0.8:
            return (op, rng.choice(claims), {})
        return (op, (rng.choice(IDS), rng.randint(1, 3)), {})
    if op == "old":
        return ("complete", (rng.choice(IDS), rng.randint(0, 4)), {})
    if op == "cancel":
        return ("cancel", (rng.choice(IDS), rng.choice([None, 1, 2, 3])), {})
    if op == "close":
        return ("close", (), {}) if rng.random() < 0.3 else None
    if op == "info":
        return ("info", (rng.choice(IDS),), {})
    if op == "retry":
        return ("retry", (rng.choice(IDS), rng.random() < 0.7), {})
    if op == "add":
        return ("add_dependency", (rng.choice(IDS), rng.choice(IDS)), {})
    return ("cancel_requested", (rng.choice(IDS), rng.randint(1, 3)), {})


def _observe(s: Any, name: str, args: tuple[Any, ...], kw: dict[str, Any]) -> tuple[Any, ...]:
    try:
        r = getattr(s, name)(*args, **kw)
    except AssertionError:
        raise
    except Exception as exc:
        return ("raises", error_name(exc), getattr(exc, "cycle", None) is not None)
    if name == "ready":
        return ("ok", [tuple(c[:2]) for c in r])
    if name == "info":
        return ("ok", tuple(r), r.error, r.optional_failed)
    return ("ok", r)


def program_agrees(seed: int, steps: int = 150) -> None:
    rng = random.Random(seed)
    m = model.Scheduler(rng.choice([0, 1, 2, 3, 10]))
    i = impl.Scheduler(m.max_concurrency)
    claims: list[tuple[Any, int]] = []
    story: list[str] = [f"s = Scheduler({m.max_concurrency})"]
    for _ in range(steps):
        call = _call(rng, claims)
        if call is None:
            continue
        name, args, kw = call
        want, got = _observe(m, name, args, kw), _observe(i, name, args, kw)
        story.append(f"s.{name}(*{args!r}, **{kw!r})  # model {want!r}")
        assert got == want, "\n".join([*story, f"# impl answered {got!r}"])
        assert i.snapshot() == m.snapshot(), "\n".join([*story, "# snapshots differ"])
        m.check_invariants()
        i.check_invariants()
        if name == "ready" and want[0] == "ok":
            claims.extend(want[1])


@pytest.mark.parametrize("block", range(8))
def test_impl_and_model_agree_on_seeded_random_programs(block: int) -> None:
    for seed in range(block * 50, block * 50 + 50):
        program_agrees(seed)
