"""Graphviz pictures of a counterexample (DOT always; SVG and PNG when ``dot`` is installed).

Built from a :class:`~schedcheck.harness.result.Counterexample` alone -- its steps and the
system-specific ``snapshot`` the suite recorded at the failing step -- never from the target:

* ``lanes``      -- one lane (cluster) per worker/thread with its operations in order, grey edges
  for the real order of events across lanes, the diverging step in red, labelled with the
  model's (expected) and the implementation's (actual) result;
* ``tasks``      -- scheduler: the task graph at that moment, model and implementation side by
  side, each task filled by state, the tasks whose state/generation/cause differ outlined red;
* ``ring``       -- wheel: the ring of buckets at the failing tick, each timer hanging off its
  bucket with its remaining rounds and deadline; the cursor's bucket in bold;
* ``timeline``   -- wheel: the processed ticks left to right with what fired and was cancelled;
* ``cycle``      -- a reported cycle; each step checked with networkx against the submitted
  edges (green: a real edge; red dashed: not an edge of the graph), plus the cycle networkx
  finds itself when the reported one is bogus;
* ``deadlock``   -- the wait-for graph, its cycle in red.

The snapshot's shape is documented on ``Counterexample.snapshot``; every reader here tolerates
missing keys, so a picture is simply left out when its material is absent. Text from the target
(reprs) goes through :func:`_esc` so that a repr such as ``<Handle ...>`` is never taken for an
HTML label and a backslash never for a DOT escape.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import zlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import graphviz
import networkx as nx

from schedcheck.harness.result import Counterexample, Step

__all__ = [
    "STATE_COLOURS",
    "dot_available",
    "pictures",
    "render_svg",
    "write_pictures",
]

#: Fill colour per task state (the HTML legend uses the same).
STATE_COLOURS: dict[str, str] = {
    "PENDING": "#e0e0e0",
    "READY": "#fff3b0",
    "RUNNING": "#9ecbff",
    "SUCCEEDED": "#a8e6a3",
    "FAILED": "#ff9c9c",
    "BLOCKED": "#d7b4f3",
    "CANCELLED": "#c9c9c9",
    "ABSENT": "#ffffff",
}

_RED = "#d62728"
_MAX_LABEL = 70  #: characters per line of a label before it is cut
_MAX_BUCKETS = 64  #: a larger ring draws only the non-empty buckets and the cursor's


def dot_available() -> bool:
    return shutil.which("dot") is not None


def _esc(text: Any, limit: int = _MAX_LABEL) -> str:
    s = text if isinstance(text, str) else repr(text)
    s = s.replace("\\", "\\\\").replace("\n", " ")
    if len(s) > limit:
        s = s[: limit - 3] + "..."
    return s


def _shown(value: Any) -> str:
    """Task ids arrive as their repr strings from the suites (``"'a'"``); show them as is."""
    return value if isinstance(value, str) else repr(value)


def _label(*lines: Any) -> Any:
    """A multi-line plain label (``\\n`` separators), never an HTML label."""
    return graphviz.nohtml("\\n".join(_esc(line) for line in lines if line != ""))


def _node_id(value: Any) -> str:
    """A DOT-safe, deterministic node id for any value (its repr, cut, plus a CRC)."""
    text = repr(value)
    safe = "".join(ch if ch.isalnum() else "_" for ch in text)[:40]
    return f"n_{safe}_{zlib.crc32(text.encode()):08x}"


# ---------------------------------------------------------------------------------------------
# Lanes: one per worker/thread, the steps in order, the divergence in red.
# ---------------------------------------------------------------------------------------------


def lanes_dot(cx: Counterexample) -> graphviz.Digraph:
    g = graphviz.Digraph("lanes", graph_attr={"rankdir": "TB", "label": _esc(
        f"{cx.system} counterexample: {len(cx.steps)} steps, clause {cx.clause} broken", 120),
        "labelloc": "t", "fontname": "Helvetica", "newrank": "true"},
        node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "white",
                   "fontname": "Helvetica", "fontsize": "10"})
    snap = cx.snapshot or {}
    ops = sorted((op for op in snap.get("round") or [] if isinstance(op, Mapping)),
                 key=lambda o: int(o.get("invoked") or 0))
    threads = {str(op.get("lane")) for op in ops}
    steps_shown = [s for s in cx.steps if not _in_round(s, threads)] if ops else cx.steps
    lanes: dict[str, list[Step]] = {}
    for step in steps_shown:
        lanes.setdefault(step.thread or "caller", []).append(step)
    for lane, steps in lanes.items():
        with g.subgraph(name=f"cluster_{_node_id(lane)}") as sub:
            sub.attr(label=_esc(f"lane {lane}"), style="rounded", color="#888888")
            for step in steps:
                sub.node(f"s{step.index}", **_step_node(step))
            for a, b in itertools.pairwise(steps):
                sub.edge(f"s{a.index}", f"s{b.index}", weight="10")
    if ops:
        round_step = next((s for s in cx.steps if _in_round(s, threads)), None)
        _round_lanes(g, ops, snap.get("switches") or [], round_step,
                     before=steps_shown[-1] if steps_shown else None)
    if snap.get("not_linearizable"):
        longest = snap.get("longest_linearization") or []
        g.node("lin", shape="note", color=_RED, fontcolor=_RED, style="filled",
               fillcolor="#ffecec", label=_label(
                   f"not linearizable: {snap['not_linearizable']}",
                   "longest linearization: " + (" ; ".join(map(str, longest)) or "(none)")))
    # The real order of events: consecutive steps that switch lanes.
    for a, b in itertools.pairwise(steps_shown):
        if (a.thread or "caller") != (b.thread or "caller"):
            g.edge(f"s{a.index}", f"s{b.index}", style="dashed", color="#999999",
                   constraint="true", arrowhead="open")
    return g


def _in_round(step: Step, threads: set[str]) -> bool:
    """A step the round's own lanes show: one of its threads' operations, or the round as a
    whole (thread ``t0+t1``)."""
    return bool(step.thread) and set(str(step.thread).split("+")) <= threads


def _round_lanes(g: graphviz.Digraph, ops: list[Mapping[str, Any]],
                 switches: list[Any], round_step: Step | None, before: Step | None) -> None:
    """A concurrent round as a sequence diagram: one lane per thread, side by side; each
    operation is its call (at the row of its invocation event) and its response (at the row
    of its response event), so the interleaving reads top to bottom; orange dashed edges where
    the baton switched threads, labelled with the switch point the controller recorded; the
    verdict in red below."""
    events: list[tuple[int, str, int]] = []  # (time, node, op index)
    for i, op in enumerate(ops):
        events.append((int(op.get("invoked") or 0), f"r{i}i", i))
        if op.get("returned") is not None:
            events.append((int(op["returned"]), f"r{i}o", i))
    events.sort()
    by_lane: dict[str, list[tuple[int, str, int]]] = {}
    for ev in events:
        by_lane.setdefault(str(ops[ev[2]].get("lane")), []).append(ev)
    for lane, lane_events in by_lane.items():
        with g.subgraph(name=f"cluster_round_{_node_id(lane)}") as sub:
            sub.attr(label=_esc(f"thread {lane}"), style="rounded,filled", color="#4a78b5",
                     fillcolor="#f3f7fc", fontname="Helvetica")
            for time, node, i in lane_events:
                op = ops[i]
                if node.endswith("i"):
                    label = _label(f"{op.get('call')}", f"called (event {time})")
                else:
                    label = _label(f"-> {op.get('response')}", f"returned (event {time})")
                sub.node(node, label=label)
            for (_, a, i), (_, b, j) in itertools.pairwise(lane_events):
                running = i == j
                sub.edge(a, b, weight="10", penwidth="3" if running else "1",
                         color="#4a78b5" if running else "black",
                         label="running" if running else "", fontsize="9")
            if lane_events[-1][1].endswith("i"):
                sub.node(f"r{lane_events[-1][2]}n", label="<no response>", color=_RED)
                sub.edge(lane_events[-1][1], f"r{lane_events[-1][2]}n", style="dashed")
    for k, (_, node, _) in enumerate(events):  # one row per event, across the lanes
        g.node(f"row{k}", label="", style="invis", width="0", height="0")
        if k:
            g.edge(f"row{k - 1}", f"row{k}", style="invis")
        with g.subgraph() as row:
            row.attr(rank="same")
            row.node(f"row{k}")
            row.node(node)
    points = [s for s in switches if isinstance(s, Mapping)]
    for (_, a, i), (_, b, j) in itertools.pairwise(events):
        lane_a, lane_b = ops[i].get("lane"), ops[j].get("lane")
        if lane_a == lane_b:
            continue
        why = next((s for s in points if s.get("lane") == lane_a
                    and s.get("chosen") == lane_b), None)
        if why is not None:
            points.remove(why)
        label = "switch" if why is None else (
            f"switch at {why.get('point')}" + (" (preempted)" if why.get("preemption") else ""))
        g.edge(a, b, style="dashed", color="#e07b00", fontcolor="#e07b00", penwidth="2",
               constraint="false", label=_esc(label, 40), fontsize="9")
    if before is not None and events:
        g.edge(f"s{before.index}", events[0][1], style="dashed", color="#999999",
               arrowhead="open")
    if round_step is not None and round_step.diverged and events:
        first_line = round_step.words.splitlines()[0].rstrip(":") if round_step.words else ""
        shown = Step(round_step.index, round_step.code, first_line or "the round",
                     expected=round_step.expected, actual=round_step.actual, diverged=True)
        g.node("verdict", **_step_node(shown))
        g.edge(events[-1][1], "verdict", style="dotted", color=_RED)


def _step_node(step: Step) -> dict[str, Any]:
    if step.diverged:
        return {
            "label": _label(f"#{step.index} {step.words}", f"expected (model): {step.expected}",
                            f"actual (implementation): {step.actual}"),
            "color": _RED, "fontcolor": _RED, "penwidth": "3", "fillcolor": "#ffecec",
        }
    return {"label": _label(f"#{step.index} {step.words}",
                            f"-> {step.actual}" if step.actual else "")}


# ---------------------------------------------------------------------------------------------
# Scheduler: the task graph, model and implementation side by side.
# ---------------------------------------------------------------------------------------------


def _task_fields(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (tuple, list)) and len(value) >= 3:
        # a normalised TaskInfo: (task_id, generation, STATE, cause)
        return {"generation": value[1], "state": value[2],
                "cause": value[3] if len(value) > 3 else None}
    return {"state": value}


def _state_name(fields: Mapping[str, Any]) -> str:
    state = fields.get("state")
    return str(state).rsplit(".", 1)[-1].upper() if state is not None else "ABSENT"


def _focus(tasks: list[Any], step: Step | None, snapshot: Mapping[str, Any]) -> set[Any]:
    """The tasks the failing step is about: those its code, words or results name (for a
    concurrent round, also its operations' calls and responses)."""
    if step is None:
        return set()
    parts = [step.code, step.words, step.expected, step.actual]
    for op in snapshot.get("round") or []:
        if isinstance(op, Mapping):
            parts += [str(op.get("call", "")), str(op.get("response", ""))]
    text = " ".join(parts)
    return {t for t in tasks if _shown(t) in text
            or (not isinstance(t, str) and repr(t) in text)}


def tasks_dot(snapshot: Mapping[str, Any],
              step: Step | None = None) -> graphviz.Digraph | None:
    model = snapshot.get("model")
    impl = snapshot.get("impl")
    if not isinstance(model, Mapping) and not isinstance(impl, Mapping):
        return None
    sides = {"model": dict(model or {}), "implementation": dict(impl or {})}
    edges = [tuple(e) for e in snapshot.get("edges", []) if len(e) == 2]
    tasks = list(dict.fromkeys([*sides["model"], *sides["implementation"]]))
    model_side, impl_side = sides["model"], sides["implementation"]
    differ = {t for t in tasks
              if _task_fields(model_side.get(t)) != _task_fields(impl_side.get(t))}
    # Outline what the failing step is about; other differences (a consequence, or a field
    # the clause does not look at) are not the bug and stay unmarked.
    focus = _focus(tasks, step, snapshot)
    marked = focus or differ
    what = ("red outline: the task(s) the failing step names" if focus
            else "red outline: model and implementation differ")
    g = graphviz.Digraph("tasks", graph_attr={
        "rankdir": "TB", "fontname": "Helvetica", "labelloc": "t",
        "label": _esc("task graph at the failing step (edge: dependency -> dependent); "
                      + what, 140)},
        node_attr={"shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
                   "fontsize": "10"})
    for side, states in sides.items():
        with g.subgraph(name=f"cluster_{side}") as sub:
            sub.attr(label=side, style="rounded", color="#555555", fontname="Helvetica")
            for task in tasks:
                fields = _task_fields(states.get(task))
                state = _state_name(fields)
                lines = [_shown(task), f"{state} g{fields['generation']}"
                         if fields.get("generation") is not None else state]
                if fields.get("cause"):
                    lines.append(f"cause {fields['cause']}")
                attrs = {"fillcolor": STATE_COLOURS.get(state, "white")}
                if task in marked:
                    attrs.update(color=_RED, penwidth="3")
                sub.node(f"{side}_{_node_id(task)}", label=_label(*lines), **attrs)
            for dep, task in edges:
                if dep in tasks and task in tasks:
                    sub.edge(f"{side}_{_node_id(dep)}", f"{side}_{_node_id(task)}")
    return g


# ---------------------------------------------------------------------------------------------
# Wheel: the ring of buckets at the failing tick, and the timeline of ticks.
# ---------------------------------------------------------------------------------------------


def _timer_fields(timer: Any, i: int) -> dict[str, Any]:
    if isinstance(timer, Mapping):
        return dict(timer)
    return {"name": f"t{i}", "deadline": timer}


def ring_dot(snapshot: Mapping[str, Any]) -> graphviz.Graph | None:
    if "wheel_size" not in snapshot or "timers" not in snapshot:
        return None
    size = int(snapshot["wheel_size"])
    tick = snapshot.get("tick")
    tick_len = snapshot.get("tick_size") or snapshot.get("tick_length")
    cursor_bucket = int(tick) % size if isinstance(tick, int) and size else None
    timers = [_timer_fields(t, i) for i, t in enumerate(snapshot.get("timers") or [])]
    by_bucket: dict[int, list[dict[str, Any]]] = {}
    for t in timers:
        bucket = t.get("bucket")
        due = t.get("due_tick", t.get("due"))
        if bucket is None and due is not None and size:
            bucket = int(due) % size
        by_bucket.setdefault(int(bucket) if bucket is not None else -1, []).append(t)
    cursor_set = {cursor_bucket} if cursor_bucket is not None else set()
    shown = list(range(size)) if size <= _MAX_BUCKETS else sorted(
        {b for b in by_bucket if b >= 0} | cursor_set)
    g = graphviz.Graph("ring", engine="circo" if len(shown) > 2 else "dot", graph_attr={
        "fontname": "Helvetica", "labelloc": "t",
        # the snapshot's tick is the cursor: the next tick to process, one past the window
        # the failing advance processed (which its step's words name)
        "label": _esc(f"the model's ring of {size} buckets, the cursor at tick {tick} (the next "
                      "to process)" + (f" (tick = {tick_len} units)" if tick_len else "")
                      + "; each timer: rounds, deadline; red: the implementation gives it "
                        "another state", 180)},
        node_attr={"fontname": "Helvetica", "fontsize": "10"})
    for a, b in zip(shown, shown[1:] + shown[:1]):
        if len(shown) > 1 and a != b:
            g.edge(f"b{a}", f"b{b}", color="#bbbbbb")
    for b in shown:
        attrs = {"shape": "circle", "style": "filled", "fillcolor": "#f2f2f2"}
        if b == cursor_bucket:
            attrs.update(penwidth="3", fillcolor="#9ecbff")
        g.node(f"b{b}", label=_label(f"[{b}]", "cursor" if b == cursor_bucket else ""), **attrs)
    for b, group in by_bucket.items():
        anchor = f"b{b}" if b in shown else None
        for i, t in enumerate(group):
            name = t.get("name", t.get("id", f"t{i}"))
            lines = [f"{name}", f"deadline {t.get('deadline')}"]
            if t.get("rounds") is not None:
                lines.append(f"rounds {t['rounds']}")
            due = t.get("due_tick", t.get("due"))
            if due is not None:
                lines.append(f"due tick {due}")
            status = t.get("state") or t.get("status") or (
                "cancelled" if t.get("cancelled") else "fired" if t.get("fired") else "")
            theirs = t.get("target_state")
            if t.get("note"):
                lines.append(str(t["note"]))
            if theirs is not None and theirs != status:
                lines.append(f"model: {status}, implementation: {theirs}")
            elif status:
                lines.append(str(status))
            bad = bool(t.get("diverged") or t.get("wrong")) or (
                theirs is not None and theirs != status)
            node = f"t_{b}_{i}_{_node_id(name)}"
            g.node(node, label=_label(*lines), shape="note", style="filled",
                   fillcolor="#ffecec" if bad else "#fffbe6",
                   color=_RED if bad else "black", penwidth="3" if bad else "1")
            if anchor:
                g.edge(anchor, node, style="dotted")
    return g


def timeline_dot(snapshot: Mapping[str, Any]) -> graphviz.Digraph | None:
    timeline = snapshot.get("timeline")
    if not timeline:
        return None
    g = graphviz.Digraph("timeline", graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "labelloc": "t",
        "label": "timeline of processed ticks: what fired and what was cancelled"},
        node_attr={"shape": "record", "fontname": "Helvetica", "fontsize": "10"})
    previous = None
    for i, entry in enumerate(timeline):
        e = dict(entry) if isinstance(entry, Mapping) else {"tick": entry}
        fired = ", ".join(_esc(x, 60) for x in e.get("fired", []) or []) or "-"
        cancelled = ", ".join(_esc(x, 30) for x in e.get("cancelled", []) or []) or "-"
        bad = bool(e.get("diverged"))
        label = graphviz.nohtml(
            f"tick {_rec(_esc(e.get('tick'), 90))}|fired: {_rec(fired)}|"
            f"cancelled: {_rec(cancelled)}")
        g.node(f"k{i}", label=label, color=_RED if bad else "black",
               penwidth="3" if bad else "1")
        if previous is not None:
            g.edge(previous, f"k{i}")
        previous = f"k{i}"
    return g


def _rec(text: str) -> str:
    for ch in "{}|<>":
        text = text.replace(ch, "\\" + ch)
    return text


# ---------------------------------------------------------------------------------------------
# Cycles (confirmed with networkx) and deadlocks (the wait-for cycle).
# ---------------------------------------------------------------------------------------------


def cycle_dot(snapshot: Mapping[str, Any]) -> graphviz.Digraph | None:
    if "cycle" not in snapshot:
        return None
    cycle = list(snapshot.get("cycle") or [])
    graph = nx.DiGraph()
    graph.add_edges_from(tuple(e) for e in snapshot.get("edges", []) if len(e) == 2)
    have_graph = graph.number_of_edges() > 0
    if not cycle and not have_graph:
        return None
    g = graphviz.Digraph("cycle", graph_attr={
        "fontname": "Helvetica", "labelloc": "t",
        "label": _esc("reported cycle (each node is a dependency of the next); "
                      + ("green: confirmed edge of the graph (networkx), red: not an edge"
                         if have_graph else "edges of the graph not recorded"), 140)},
        node_attr={"shape": "ellipse", "fontname": "Helvetica"})
    for node in dict.fromkeys(cycle):
        g.node(_node_id(node), label=_label(_shown(node)))
    for a, b in itertools.pairwise(cycle):
        real = graph.has_edge(a, b)
        g.edge(_node_id(a), _node_id(b), color="#2ca02c" if real or not have_graph else _RED,
               style="solid" if real or not have_graph else "dashed",
               penwidth="2", label="" if real or not have_graph else "not an edge")
    if not cycle:
        g.node("empty", shape="note", color=_RED, fontcolor=_RED,
               label=_label(f"the target reported cycle={snapshot.get('cycle')!r}: no path"))
    bogus = not cycle or not all(graph.has_edge(a, b) for a, b in itertools.pairwise(cycle))
    if have_graph and bogus:
        try:
            found = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            found = []
        with g.subgraph(name="cluster_networkx") as sub:
            sub.attr(label="a cycle networkx finds in the submitted graph", color="#2ca02c")
            for a, b, *_ in found:
                sub.edge(f"x{_node_id(a)}", f"x{_node_id(b)}", color="#2ca02c")
                sub.node(f"x{_node_id(a)}", label=_label(_shown(a)))
                sub.node(f"x{_node_id(b)}", label=_label(_shown(b)))
    return g


def deadlock_dot(snapshot: Mapping[str, Any]) -> graphviz.Digraph | None:
    wait_for = [tuple(e) for e in snapshot.get("wait_for", []) or [] if len(e) == 2]
    if not wait_for:
        return None
    graph = nx.DiGraph(wait_for)
    try:
        on_cycle = {(a, b) for a, b, *_ in nx.find_cycle(graph)}
    except nx.NetworkXNoCycle:
        on_cycle = set()
    g = graphviz.Digraph("deadlock", graph_attr={
        "fontname": "Helvetica", "labelloc": "t",
        "label": "wait-for graph (a -> b: a waits for b); the cycle in red"},
        node_attr={"shape": "box", "style": "rounded", "fontname": "Helvetica"})
    for a, b in wait_for:
        red = (a, b) in on_cycle
        g.node(_node_id(a), label=_label(str(a)))
        g.node(_node_id(b), label=_label(str(b)))
        g.edge(_node_id(a), _node_id(b), color=_RED if red else "black",
               penwidth="3" if red else "1")
    return g


# ---------------------------------------------------------------------------------------------
# All pictures of a counterexample, and writing them.
# ---------------------------------------------------------------------------------------------


def _with_divergence(cx: Counterexample) -> dict[str, Any]:
    """The snapshot plus what the diverging step says, for the wheel pictures: timers named
    only in the implementation's result (or only in the model's) are marked on the ring, and
    the timeline ends with the diverging step, red, model vs implementation."""
    snap = dict(cx.snapshot or {})
    step = cx.divergence
    if step is None or "timers" not in snap:
        return snap
    marked = []
    for t in snap.get("timers") or []:
        if not isinstance(t, Mapping):
            marked.append(t)
            continue
        quoted = repr(str(t.get("name", "")))
        in_actual, in_expected = quoted in step.actual, quoted in step.expected
        if in_actual != in_expected:
            t = {**t, "wrong": True, "note": "in the implementation's result only" if in_actual
                 else "in the model's result only"}
        marked.append(t)
    snap["timers"] = marked
    if ".advance(" not in step.code:
        return snap
    snap["timeline"] = [*(snap.get("timeline") or []), {
        "tick": f"cursor {snap.get('tick')} at step {step.index} ({step.words})",
        "fired": [f"model: {step.expected}", f"implementation: {step.actual}"],
        "cancelled": [], "diverged": True}]
    return snap


def pictures(cx: Counterexample) -> dict[str, graphviz.Graph | graphviz.Digraph]:
    """Name -> graph, in the order a reader should look at them."""
    snap = _with_divergence(cx)
    out: dict[str, graphviz.Graph | graphviz.Digraph] = {"lanes": lanes_dot(cx)}
    def tasks(s: Mapping[str, Any]) -> graphviz.Digraph | None:
        return tasks_dot(s, cx.divergence)

    builders: list[tuple[str, Callable[[Mapping[str, Any]], Any]]] = [
        ("tasks", tasks), ("ring", ring_dot), ("timeline", timeline_dot),
        ("cycle", cycle_dot), ("deadlock", deadlock_dot)]
    if snap.get("wait_for"):  # a deadlock's "cycle" is the wait-for cycle, not a task cycle
        builders = [b for b in builders if b[0] != "cycle"]
    for name, build in builders:
        g = build(snap)
        if g is not None:
            out[name] = g
    return out


def render_svg(g: graphviz.Graph | graphviz.Digraph) -> str | None:
    """The SVG text of a graph, or ``None`` when ``dot`` is missing or fails."""
    if not dot_available():
        return None
    try:
        data = g.pipe(format="svg")
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError, subprocess.SubprocessError):
        return None
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else str(data)
    return text


def write_pictures(cx: Counterexample, out: Path,
                   formats: Iterable[str] = ("svg", "png")) -> list[Path]:
    """Write ``<name>.dot`` for every picture, and SVG/PNG beside it when ``dot`` exists."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    have_dot = dot_available()
    for name, g in pictures(cx).items():
        dot_path = out / f"{name}.dot"
        dot_path.write_text(g.source, encoding="utf-8")
        written.append(dot_path)
        if not have_dot:
            continue
        for fmt in formats:
            target = out / f"{name}.{fmt}"
            try:
                data = g.pipe(format=fmt)
            except (graphviz.ExecutableNotFound, graphviz.CalledProcessError,
                    subprocess.SubprocessError):
                continue
            target.write_bytes(data)
            written.append(target)
    return written
