"""The constructor's argument checks, graded as ``schedcheck check`` checks them: the same
malformed arguments (the suites' ``_construct_malformed`` cases), each answered as the
reference model answers it -- TypeError for a bool or a float where an int belongs, ValueError
for a value out of range. An option the class does not take is left out, as check leaves it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck.practice.grading import UNFILLED, Item, Miss
from schedcheck.targets.adapt import error_name

__all__ = ["CASES", "constructor_item"]

Case = tuple[tuple[Any, ...], dict[str, Any]]

#: The malformed constructions of each system, as the suites draw them.
CASES: dict[str, tuple[Case, ...]] = {
    "scheduler": (((-1,), {}), ((True,), {}), ((1.5,), {}), (("2",), {})),
    "wheel": (((0, 4), {}), ((True, 4), {}), ((4, 0), {}), ((4, 2.0), {}),
              ((4, 4), {"start": True}), ((4, 4), {"max_catchup_ticks": 0}),
              ((4, 4), {"max_pending": -1}), ((4, 4), {"max_pending": 1.0}),
              ((4, 4), {"max_catchup_ticks": 2.0})),
}

#: an ordinary value of each option, to see whether the class takes it at all
_ORDINARY = {"start": 0, "max_catchup_ticks": 1, "max_pending": 1}
_ORDINARY_ARGS = {"scheduler": (2,), "wheel": (4, 4)}


def _answer(make: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    try:
        make(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as exc:
        return error_name(exc)
    return "no error"


def _code(cls: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{cls}({', '.join(shown)})"


def _check(system: str) -> Callable[[Any], list[Miss]]:
    def check(factory: Any) -> list[Miss]:
        from schedcheck.model import Scheduler as ModelScheduler
        from schedcheck.model import TimingWheel as ModelWheel

        model = ModelScheduler if system == "scheduler" else ModelWheel
        cls = "YourScheduler" if system == "scheduler" else "YourWheel"
        ordinary = _ORDINARY_ARGS[system]
        for args, kwargs in CASES[system]:
            options = {k: _ORDINARY[k] for k in kwargs}
            if options:
                try:
                    factory(*ordinary, **options)
                except NotImplementedError as exc:
                    return [Miss((_code(cls, ordinary, options),),
                                 f"constructing it raised NotImplementedError: {exc}",
                                 UNFILLED)]
                except Exception:  # the class does not take the option: nothing to check
                    continue
            want = _answer(model, args, kwargs)
            try:
                got = _answer(factory, args, kwargs)
            except NotImplementedError as exc:
                return [Miss((_code(cls, args, kwargs) + "   # <- here",),
                             f"constructing it raised NotImplementedError: {exc}", UNFILLED)]
            if got != want:
                return [Miss((_code(cls, args, kwargs) + "   # <- here",),
                             f"the model gives {want}; yours {got}")]
        return []
    return check


def constructor_item(system: str, number: int) -> Item:
    """The item ``<S|W>-polish-<number>``: malformed constructor arguments refused as the
    contract says (what ``schedcheck check`` builds with them, grade builds with them too)."""
    prefix = "S" if system == "scheduler" else "W"
    what = ("max_concurrency: an int >= 0 (a bool, a float or a str is TypeError, -1 "
            "ValueError)" if system == "scheduler" else
            "tick and wheel_size: ints >= 1, options ints in range (a bool or a float is "
            "TypeError, 0 or -1 ValueError)")
    return Item(f"{prefix}-polish-{number}", "polish",
                "the constructor refuses malformed arguments as check does",
                f"validate the constructor's arguments before building anything: {what}",
                _check(system))
