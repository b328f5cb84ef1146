"""What a user sees after a run: the report card, the plain-words steps, the replay script, the
Graphviz pictures, ``report.json`` (all written by :mod:`schedcheck.report.writer`) and the
``index.html`` of ``schedcheck verify`` (:mod:`schedcheck.report.html`).

Everything here consumes :class:`schedcheck.harness.result.RunResult` /
:class:`~schedcheck.harness.result.Counterexample` and never runs a target, except the replay
script, which is a standalone program written for the user to run.
"""
