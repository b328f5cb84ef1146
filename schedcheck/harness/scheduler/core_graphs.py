"""What the scheduler's core level draws (``scheduler.core``): a graph over a few ids --
sometimes with a back edge, sometimes a wide fan-out and fan-in or a deep chain -- and the
order it is submitted in."""

from __future__ import annotations

import random
import zlib
from typing import Any

from hypothesis import strategies as st

__all__ = ["DEEP", "DEEP_WAVES", "IDS", "WIDE", "graphs", "show_graph", "submission_order"]

IDS = ("a", "b", "c", "d", "e", "f")
#: The width of a wide graph's fan-out and fan-in (submitted in one step).
WIDE = 128
#: The depth of a deep chain: a walk that recurses once a task dies of the recursion limit
#: (Python's default is 1,000 frames).
DEEP = 2000
#: How many waves of claims one drain of a deep chain goes.
DEEP_WAVES = 16


@st.composite
def graphs(draw: st.DrawFn) -> dict[str, tuple[str, ...]]:
    """A graph over the first 1..6 ids, each task depending on earlier ones; one time in
    four an extra edge to any task (a cycle, a self-loop, or just a later dependency). One
    time in 32 a wide graph or a deep chain instead: ``a`` fans out to WIDE tasks, which all
    fan in to ``f``, or a chain DEEP tasks deep -- real schedulers meet widths and depths
    that no task-by-task program reaches."""
    if draw(st.integers(0, 31)) == 0:
        if draw(st.booleans()):  # drawn only here: every other example draws as before
            # submitted from the far end, each task before its dependency: a walk from
            # the first task submitted goes DEEP tasks deep
            chain = [f"c{i:04}" for i in range(DEEP)]
            return {tid: tuple(chain[i - 1:i]) for i, tid in reversed(list(enumerate(chain)))}
        wide = [f"w{i:03}" for i in range(WIDE)]
        return {"a": (), **{w: ("a",) for w in wide}, "f": tuple(wide)}
    ids = IDS[:draw(st.integers(1, len(IDS)))]
    graph = {tid: tuple(draw(st.lists(st.sampled_from(ids[:i]), max_size=3, unique=True)))
             if i else () for i, tid in enumerate(ids)}
    if draw(st.integers(0, 3)) == 0:
        tid, dep = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        graph[tid] = tuple(dict.fromkeys((*graph[tid], dep)))
    return graph


def show_graph(deps: dict[Any, tuple[Any, ...]], most: int = 12) -> str:
    """A graph as a card shows it: whole when small, else its first tasks and a count."""
    if len(deps) <= most:
        return repr(deps)
    head = ", ".join(f"{k!r}: {v!r}" for k, v in list(deps.items())[:most])
    return f"{{{head}, ... {len(deps) - most:,} more tasks}}"


def submission_order(graph: dict[str, tuple[str, ...]]) -> list[str]:
    """The order a drawn graph is submitted in: every other graph in id order (each task
    after its dependencies), the others shuffled -- a dependent before its dependencies, a
    cycle's outsider first, as real code submits. Derived from the graph itself, with no
    draw of its own, so that every other draw of an example stays as it was."""
    order = list(graph)
    if len(order) >= DEEP:  # a deep chain: submitted from its far end, as drawn
        return order
    key = zlib.crc32(repr(sorted(graph.items())).encode())
    if key % 2:
        random.Random(key).shuffle(order)
    return order
