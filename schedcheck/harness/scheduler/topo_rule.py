"""The graphlib oracle as a rule of the scheduler suite (clause S-ORACLE-TOPO).

One draw in three, :meth:`TopoOracleRule.topo_oracle` builds a second, unbounded target
(``factory(BIG)``), submits a random DAG to it, starts it and claims everything READY again
and again, completing each batch: every ``ready()`` must hand out exactly the group that
``graphlib.TopologicalSorter.get_ready()`` gives for the same graph at that point
(``scheduler.oracles.topo_batches``), and the last one nothing. The second target is the
oracle's alone: the main machine's model and target are not touched.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import rule

from schedcheck.harness.clauses import S_ORACLE_TOPO
from schedcheck.harness.outcomes import call_code, observe
from schedcheck.harness.program import atomic
from schedcheck.harness.scheduler import oracles as oracles
from schedcheck.harness.scheduler.deep_rules import DeepRules
from schedcheck.harness.scheduler.fixtures import BIG
from schedcheck.targets import adapt

__all__ = ["TopoOracleRule"]


class TopoOracleRule(DeepRules):
    """The rule above (mixed into ``scheduler.suite.SchedulerMachine``)."""

    @rule(shape=st.lists(st.lists(st.integers(0, 6), max_size=3), min_size=1, max_size=7),
          reverse=st.booleans(), now=st.sampled_from((False, False, True)))
    @atomic
    def topo_oracle(self, shape: list[list[int]], reverse: bool, now: bool) -> None:
        """A fresh unbounded target on a random DAG: ready() batches == graphlib's groups.
        (One draw in three: it is long, and the main machine needs the steps.)"""
        if not now:
            return
        graph: dict[Any, tuple[Any, ...]] = {
            f"t{i}": tuple(dict.fromkeys(f"t{j % i}" for j in ds)) if i else ()
            for i, ds in enumerate(shape)}
        self.exercise(S_ORACLE_TOPO)
        obj = self.trace.fresh_name("topo")
        step = self._step(f"{obj} = factory({BIG})",
                          f"build a second scheduler with max_concurrency={BIG}",
                          S_ORACLE_TOPO)
        built = observe(type(self).factory, BIG)
        if not built.ok:
            self.diverge(S_ORACLE_TOPO, f"factory({BIG}) {built.describe()}", step=step)
        t = built.value
        order = list(graph)[::-1] if reverse else list(graph)
        for tid in order:
            step = self._step(call_code("submit", tid, obj=obj, deps=graph[tid]),
                              f"oracle graph: submit {tid!r}", S_ORACLE_TOPO,
                              compare_first=False)
            self._oracle_ok(step, observe(t.submit, tid, deps=graph[tid]))
        step = self._step(call_code("start", obj=obj), "oracle graph: start", S_ORACLE_TOPO,
                          compare_first=False)
        self._oracle_ok(step, observe(t.start))
        batches: list[list[str]] = [sorted(b) for b in oracles.topo_batches(graph)]
        for want in [*batches, []]:
            name = self.trace.fresh_name("batch")
            step = self._step(call_code("ready", obj=obj, assign=name),
                              "oracle graph: claim every READY task", S_ORACLE_TOPO,
                              compare_first=False)
            got = observe(t.ready, norm=adapt.norm_claims)
            ids = sorted(c[0] for c in got.value) if got.ok else None
            step.expected, step.actual = repr(want), repr(got)
            step.check = (f"_raised is None and sorted(c[0] for c in norm_claims({name})) == "
                          f"{want!r}")
            if ids != want:
                self.diverge(S_ORACLE_TOPO, f"`{step.code}` returned {got!r}; graphlib's "
                             f"get_ready() group is {want!r} for the graph {graph!r}",
                             step=step)
            for tid, gen in got.value:
                step = self._step(call_code("complete", tid, gen, obj=obj),
                                  f"oracle graph: {tid!r} succeeds", S_ORACLE_TOPO,
                                  compare_first=False)
                self._oracle_ok(step, observe(t.complete, tid, gen, norm=adapt.norm_reply))
