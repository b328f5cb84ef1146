"""What a user sees after a run: the report card (``card``), the plain-words steps
(``steps``), the replay script (``replay``), the Graphviz pictures (``render``),
``report.json`` (all written by ``writer``), and ``schedcheck verify`` (``verify``) with its
``index.html`` (``html``). ``runs`` is the glue to the suites, the concurrent rounds and the
scaling checks, reporting a missing part as "not available in this build".

Everything here consumes :class:`schedcheck.harness.result.RunResult` /
:class:`~schedcheck.harness.result.Counterexample` and never runs a target, except the replay
script, which is a standalone program written for the user to run.
"""
