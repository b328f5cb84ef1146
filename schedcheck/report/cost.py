"""The folder of a broken cost clause (``S-COST/``, ``W-COST/``): its counterexample is two
measured runs, not a program, so the folder holds their figures and a script that measures
them again.

* ``figures.json`` / ``figures.txt`` -- n, the factor, the Python steps of the whole workload at
  each size, the per-item ratio and the threshold a linear cost stays under;
* ``measure.py`` -- runs the same scaling check on the same target at the same n, prints the
  figures, and exits 1 while the clause is broken (0 once it holds).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schedcheck.harness.result import RunResult

__all__ = ["figures_text", "measure_script", "record_cost", "write_cost"]


def record_cost(result: RunResult, cid: str, scaling: Any, *, also: tuple[str, ...] = ()
                ) -> None:
    """Keep a ScalingResult's two runs on ``result`` (written with :func:`write_cost`) and,
    when it broke ``cid``, give the card its reason (and the clauses in ``also``, observable
    only as cost, theirs)."""
    figures = {k: getattr(scaling, k, None) for k in
               ("n", "factor", "steps_small", "steps_large", "ratio", "threshold")}
    result.cost_figures = {"clause": cid, "verdict": getattr(scaling, "verdict", ""),
                           "text": getattr(scaling, "text", ""), **figures}
    n, factor = figures["n"], figures["factor"]
    if result.stats[cid].broken and n and factor:
        result.stats[cid].why = (
            f"the cost per item grew {figures['ratio']:.1f}x from n={n} to n={n * factor} "
            f"(linear stays under {figures['threshold']:g}x); figures and measure.py: {cid}/")
        for other in also:
            if result.stats[other].broken and not result.stats[other].why:
                result.stats[other].why = f"broken where {cid} broke (its runs: {cid}/)"


def figures_text(figures: dict[str, Any]) -> str:
    """The two runs in words."""
    n, factor = figures.get("n") or 0, figures.get("factor") or 0
    lines = [f"{figures.get('clause', '')}: {figures.get('verdict', '')}",
             f"  n = {n}: {figures.get('steps_small', 0):.0f} Python steps",
             f"  n = {n * factor}: {figures.get('steps_large', 0):.0f} Python steps",
             f"  per item, the large run over the small one: {figures.get('ratio', 0):.2f}x "
             f"(a linear cost stays under {figures.get('threshold', 0):g}x)"]
    if figures.get("text"):
        lines.append(f"  {figures['text']}")
    return "\n".join(lines) + "\n"


def measure_script(result: RunResult, target_spec: str, cwd: str, command: str) -> str:
    """A standalone script that measures the cost clause of ``target_spec`` again."""
    figures = result.cost_figures
    cid, n = figures.get("clause", ""), figures.get("n")
    recorded = figures_text(figures).rstrip().replace('"""', "'''")
    return f'''"""Measure the scaling clause {cid} of {target_spec} again: the same workload at n
and at {figures.get("factor")} x n in one process, compared as Python steps per item (never as
seconds). Exit status 1 while the clause is broken, 0 once it holds.

Found by: {command}
Recorded then:
{recorded}
"""

import os
import sys

os.chdir({cwd!r})
sys.path.insert(0, {cwd!r})

from schedcheck import pipeline  # noqa: E402
from schedcheck.targets import load_target  # noqa: E402

scaling = pipeline.run_scaling({result.system!r}, load_target({target_spec!r}).factory,
                               n={n!r})
large = scaling.n * scaling.factor
print(f"n = {{scaling.n}}: {{scaling.steps_small:.0f}} Python steps")
print(f"n = {{large}}: {{scaling.steps_large:.0f}} Python steps")
print(f"per item: {{scaling.ratio:.2f}}x (a linear cost stays under {{scaling.threshold:g}}x)")
print(f"{cid}: {{scaling.verdict}}")
sys.exit(0 if scaling.ok else 1)
'''


def write_cost(result: RunResult, out: Path, *, target_spec: str, cwd: str,
               command: str) -> list[Path]:
    """The cost clause's folder under ``out`` when the clause is broken; the files written
    ([] when it is not broken or was not measured)."""
    broken = result.cost_broken()
    if not broken:
        return []
    folder = out / broken[0]
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "figures.json"
    data.write_text(json.dumps(result.cost_figures, indent=2, default=repr) + "\n",
                    encoding="utf-8")
    text = folder / "figures.txt"
    text.write_text(figures_text(result.cost_figures), encoding="utf-8")
    script = folder / "measure.py"
    script.write_text(measure_script(result, target_spec, cwd, command), encoding="utf-8")
    return [text, data, script]
