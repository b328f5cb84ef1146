"""What the exercise notebooks (``notebooks/``) call: grade one section of an answer, try a
call without stopping the notebook, require an error, show a z3 row and a zoo
counterexample's picture, and draw measured costs on log-log axes.

Every function here is a thin layer over the toolkit (``schedcheck.practice`` grading,
``schedcheck prove``, the zoo, the report's pictures); nothing is graded differently in a
notebook than by ``schedcheck grade``.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from schedcheck.practice.grading import FAIL, NOT_IMPLEMENTED, PASS, Card, render_card
from schedcheck.practice.items import grade, guess_system

__all__ = ["attempt", "check", "loglog", "raised", "timed", "z3_rows", "zoo_picture"]

#: sections of a card, by the letter the seed map uses
SECTIONS = ("T", "M", "F", "polish")


def check(answer: Any, section: str | None = None, *, system: str | None = None,
          seed_shaped: bool = False, show: bool = True) -> Card:
    """Grade ``answer`` (a class) item by item and print the card of ``section`` ("T", "M",
    "F", "polish"; None: every section). An untouched skeleton gets one line per item rather
    than a screen of NotImplementedError. Returns the card of the section."""
    if section is not None and section not in SECTIONS:
        raise ValueError(f"section must be one of {', '.join(SECTIONS)} or None, "
                         f"got {section!r}")
    system = system or guess_system(answer)
    if system is None:
        raise TypeError(f"{answer!r} is neither a scheduler (submit, ready) nor a wheel "
                        "(schedule, advance); pass system='scheduler' or 'wheel'")
    full = grade(system, answer, seed_shaped=seed_shaped, cost=False,
                 name=getattr(answer, "__name__", "answer"))
    card = Card(full.system, full.target,
                [r for r in full.results if section is None or r.item.section == section])
    if show:
        graded = [r for r in card.results if r.status in (PASS, FAIL, NOT_IMPLEMENTED)]
        if graded and all(r.status == NOT_IMPLEMENTED for r in graded):
            print(f"{card.target}: not attempted yet -- every method raises "
                  "NotImplementedError. The items of this section:")
            for r in card.results:
                print(f"  {r.item.id:<12} {r.item.title}")
        else:
            print(render_card(card))
    return card


def attempt(call: Callable[[], Any]) -> Any:
    """``call()``, or a one-line note of what it raised (the notebook goes on)."""
    try:
        return call()
    except Exception as exc:  # a learner's half-written class: say what happened, go on
        print(f"raised {type(exc).__name__}: {exc}")
        return None


def raised(expected: type[BaseException] | tuple[type[BaseException], ...],
           call: Callable[[], Any]) -> BaseException:
    """The exception ``call()`` raised, which must be an ``expected`` one: AssertionError
    when it returns normally (an error that is never raised is a finding, not a pass)."""
    try:
        value = call()
    except expected as exc:
        return exc
    raise AssertionError(f"expected {expected!r} to be raised; the call returned {value!r}")


def z3_rows(*names: str) -> list[Any]:
    """Check the named rows of ``schedcheck prove`` now and print them as it does (without
    the solver's seconds, so that a stored notebook does not change from run to run)."""
    from schedcheck.specs.prove import _bound, run_all

    results = run_all(only=list(names))
    missing = set(names) - {r.name for r in results}
    if missing:
        raise ValueError(f"no such row in schedcheck prove: {sorted(missing)}")
    width = max(len(r.name) for r in results)
    print(f"{'lemma':<{width}}  {'kind':<8}  {'status':<10}  {'bound':<12}  says")
    for r in results:
        print(f"{r.name:<{width}}  {r.kind:<8}  {r.status:<10}  {_bound(r):<12}  {r.says}")
    for r in results:
        if r.counterexample and (r.kind == "mutation" or not r.ok):
            print(f"\n== {r.name}: {r.status}\n{r.counterexample}")
    if not all(r.ok for r in results):
        raise AssertionError(f"not as expected: {[r.name for r in results if not r.ok]}")
    return results


def zoo_picture(name: str, picture: str = "lanes", *, examples: int = 20,
                shrink: bool | None = None) -> Any:
    """Run the zoo entry ``name`` (fixed seed), print its shrunk steps and return the
    counterexample's picture as a PNG image for the notebook. ``shrink`` defaults to the
    environment: ``SCHEDCHECK_NOTEBOOK_SHRINK=0`` (the tests' fast run) skips shrinking."""
    from IPython.display import Image

    from schedcheck.report.render import pictures
    from schedcheck.zoo.catalogue import get
    from schedcheck.zoo.run import run_mutant

    if shrink is None:
        shrink = os.environ.get("SCHEDCHECK_NOTEBOOK_SHRINK", "1") != "0"
    row = run_mutant(get(name), examples=examples, shrink=shrink)
    cx = row.result.counterexample if row.result is not None else None
    if cx is None:
        raise AssertionError(f"zoo entry {name} was not caught in {examples} examples")
    print(f"{name}: caught by {cx.clause} -- {cx.message.splitlines()[0]}")
    print("\n".join(["  " + cx.setup, *("  " + s.code for s in cx.steps)]))
    graphs = pictures(cx)
    return Image(graphs.get(picture, graphs["lanes"]).pipe(format="png"))  # type: ignore[no-untyped-call]


def timed(run: Callable[[], Any], repeat: int = 3) -> float:
    """The best CPU seconds of ``run()`` over ``repeat`` runs, collector on, each from a
    fresh ``gc.collect()`` (the benchmarks' rules)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


def loglog(sizes: Sequence[int], series: dict[str, Sequence[float]], *, xlabel: str,
           ylabel: str, title: str) -> Any:
    """A log-log plot of each series against ``sizes`` with a slope-1 guide (linear
    growth) through the first series' first point, as a PNG image for the notebook."""
    import io

    from IPython.display import Image
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4), dpi=80)
    ax = fig.subplots()
    for label, values in series.items():
        ax.loglog(sizes, values, marker="o", label=label)
    first = next(iter(series.values()))
    ax.loglog(sizes, [first[0] * n / sizes[0] for n in sizes], linestyle=":", color="grey",
              label="linear growth")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend()
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", metadata={"Software": None})  # no version stamp
    return Image(png.getvalue())  # type: ignore[no-untyped-call]
