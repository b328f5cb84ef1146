"""Table-driven bad input for the model and both wheels: the error class, its wording, and the
wheel's state before == after (rule 6: errors never change state)."""

from __future__ import annotations

from typing import Any

import pytest

from schedcheck import impl, model

WHEELS = [model.TimingWheel, impl.HashedTimingWheel, impl.HierarchicalTimingWheel]
IDS = ["model", "hashed", "hierarchical"]


def noop() -> None:
    pass


BAD_CONSTRUCTIONS: list[tuple[tuple[Any, ...], dict[str, Any], type[Exception], str]] = [
    ((0, 8), {}, ValueError, r"tick must be >= 1, got 0"),
    ((-5, 8), {}, ValueError, r"tick must be >= 1, got -5"),
    ((1.0, 8), {}, TypeError, r"tick must be an int, not float"),
    ((True, 8), {}, TypeError, r"tick must be an int, not bool"),
    (("1", 8), {}, TypeError, r"tick must be an int, not str"),
    ((1, 0), {}, ValueError, r"wheel_size must be >= 1, got 0"),
    ((1, -1), {}, ValueError, r"wheel_size must be >= 1"),
    ((1, 8.0), {}, TypeError, r"wheel_size must be an int, not float"),
    ((1, False), {}, TypeError, r"wheel_size must be an int, not bool"),
    ((1, 8), {"start": 0.5}, TypeError, r"start must be an int, not float"),
    ((1, 8), {"start": True}, TypeError, r"start must be an int, not bool"),
    ((1, 8), {"max_catchup_ticks": 0}, ValueError, r"max_catchup_ticks must be >= 1"),
    ((1, 8), {"max_catchup_ticks": True}, TypeError, r"max_catchup_ticks must be an int"),
    ((1, 8), {"max_pending": -1}, ValueError, r"max_pending must be >= 0"),
    ((1, 8), {"max_pending": 2.0}, TypeError, r"max_pending must be an int"),
    ((1, 8), {"executor": object()}, TypeError, r"executor must have a submit\(fn\) method"),
]


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
@pytest.mark.parametrize(("args", "kwargs", "exc", "match"), BAD_CONSTRUCTIONS)
def test_bad_constructor_arguments_are_refused(
    cls: Any, args: tuple[Any, ...], kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    with pytest.raises(exc, match=match):
        cls(*args, **kwargs)


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_huge_tick_and_wheel_sizes_are_legal_integers(cls: Any) -> None:
    w = cls(10**30, 1, start=-(10**40))
    h = w.schedule(10**40, noop)
    assert h.due_tick == 10**10
    assert w.advance(10**40) == [h]


BAD_CALLS: list[tuple[str, tuple[Any, ...], type[Exception], str]] = [
    ("schedule", (1.0, noop), TypeError, r"deadline must be an int, not float"),
    ("schedule", (float("nan"), noop), TypeError, r"deadline must be an int, not float \(nan\)"),
    ("schedule", (float("inf"), noop), TypeError, r"deadline must be an int, not float \(inf\)"),
    ("schedule", ("5", noop), TypeError, r"deadline must be an int, not str"),
    ("schedule", (True, noop), TypeError, r"deadline must be an int, not bool"),
    ("schedule", (None, noop), TypeError, r"deadline must be an int, not NoneType"),
    ("schedule", (5, None), TypeError, r"callback must be callable, not NoneType"),
    ("schedule", (5, "noop"), TypeError, r"callback must be callable, not str"),
    ("schedule_after", (0.5, noop), TypeError, r"delay must be an int, not float"),
    ("schedule_after", (float("-inf"), noop), TypeError, r"delay must be an int"),
    ("schedule_after", (False, noop), TypeError, r"delay must be an int, not bool"),
    ("schedule_after", (3, 42), TypeError, r"callback must be callable, not int"),
    ("advance", (True,), TypeError, r"now must be an int, not bool"),
    ("advance", (12.0,), TypeError, r"now must be an int, not float"),
    ("advance", ("20",), TypeError, r"now must be an int, not str"),
    ("advance", (9,), ValueError, r"advance\(9\) goes back in time: the last now was 10"),
    ("cancel", (None,), TypeError, r"cancel\(\) takes a Handle .*not NoneType"),
    ("cancel", (7,), TypeError, r"cancel\(\) takes a Handle .*not int"),
]


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
@pytest.mark.parametrize(("method", "args", "exc", "match"), BAD_CALLS)
def test_bad_calls_raise_and_change_nothing(
    cls: Any, method: str, args: tuple[Any, ...], exc: type[Exception], match: str
) -> None:
    w = cls(2, 4, max_catchup_ticks=2)
    w.schedule(3, noop)
    w.schedule(40, noop)
    w.advance(10)  # leaves a backlog: the state is not trivial
    before = (w.snapshot(), w.pending(), w.lag_ticks(), w.callback_errors())
    with pytest.raises(exc, match=match):
        getattr(w, method)(*args)
    assert (w.snapshot(), w.pending(), w.lag_ticks(), w.callback_errors()) == before
    w.check_invariants()


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_handles_have_no_public_constructor(cls: Any) -> None:
    handle_type = type(cls(1, 1).schedule(0, noop))
    with pytest.raises(TypeError, match="Handle has no public constructor"):
        handle_type()


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_handle_attributes_are_read_only(cls: Any) -> None:
    h = cls(1, 1).schedule(0, noop)
    for name in ("deadline", "callback", "cancelled", "fired"):
        with pytest.raises(AttributeError):
            setattr(h, name, 1)


def test_a_model_handle_given_to_an_impl_wheel_is_a_type_error() -> None:
    h = model.TimingWheel(1, 1).schedule(0, noop)
    with pytest.raises(TypeError, match="cancel\\(\\) takes a Handle"):
        impl.HashedTimingWheel(1, 1).cancel(h)
