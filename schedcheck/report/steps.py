"""``steps.txt``: the counterexample in plain words, for a person rather than for Python.

One numbered line per step (lane, what happened, the target's result); at the first step where
model and implementation differ, the two results side by side under "model (expected)" and
"implementation (actual)", and an arrow. Then the story (``Counterexample.message``), how to
replay it, and the command that re-runs the same search. The pytest API prints the same text.
"""

from __future__ import annotations

import textwrap

from schedcheck.harness.clauses import clause as clause_by_id
from schedcheck.harness.result import Counterexample

__all__ = ["steps_text"]


def _title(clause_id: str) -> str:
    try:
        return clause_by_id(clause_id).title
    except KeyError:
        return ""


def _side_by_side(left: str, right: str, width: int = 44) -> list[str]:
    lw = textwrap.wrap(left, width) or [""]
    rw = textwrap.wrap(right, width) or [""]
    rows = [f"      | {'model (expected)':<{width}} | implementation (actual)"]
    rows.append("      |" + "-" * (width + 2) + "+" + "-" * (width + 1))
    for i in range(max(len(lw), len(rw))):
        a = lw[i] if i < len(lw) else ""
        b = rw[i] if i < len(rw) else ""
        rows.append(f"      | {a:<{width}} | {b}")
    return rows


def steps_text(
    cx: Counterexample,
    *,
    target: str = "",
    command: str = "",
    pictures: list[str] | None = None,
) -> str:
    out = [
        f"schedcheck: counterexample against {cx.system} target {target or '(unnamed)'}",
        f"clause broken: {cx.clause}" + (f" -- {_title(cx.clause)}" if _title(cx.clause) else ""),
        "",
    ]
    if cx.message:
        out += [*textwrap.wrap(cx.message, 96), ""]
    shown = cx.snapshot.get("constructor") if isinstance(cx.snapshot, dict) else None
    out.append(f"the constructor: {shown or cx.setup.strip()}")
    lanes = {st.thread for st in cx.steps if st.thread}
    for st in cx.steps:
        lane = f"[{st.thread}] " if lanes and st.thread else ""
        result = "" if st.diverged or not st.actual else f"  -> {st.actual}"
        mark = "  <== first divergence" if st.diverged else ""
        out.append(f"{st.index:>4}. {lane}{st.words}{result}{mark}")
        if st.diverged:
            out += _side_by_side(st.expected, st.actual)
    if cx.divergence is None:
        out.append("      (no single step diverged: an invariant or a whole-run check failed;"
                   " see the story above)")
    if cx.schedule:
        out += ["", f"thread schedule (who ran at each switch): {cx.schedule}"]
    out.append("")
    if cx.replay_check:
        out.append(f"replay it:   python3 replay.py   (run before this was shown: "
                   f"{cx.replay_check})")
    else:
        out.append("replay it:   python3 replay.py   (fails with an AssertionError at the "
                   "diverging step)")
    if command:
        out.append(f"search again: {command}")
    if pictures:
        out.append("pictures:    " + ", ".join(pictures))
    return "\n".join(out) + "\n"
