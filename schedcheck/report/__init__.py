"""What a user sees after a run: the report card (``card``), the plain-words steps
(``steps``), the replay script (``replay``), the Graphviz pictures (``render``),
``report.json`` (all written by ``writer``), the zoo's kill matrix (``kill_matrix``) and the
report of ``schedcheck verify`` (``verify``) with its ``index.html`` (``html``).

Everything here only renders: it consumes :class:`schedcheck.harness.result.RunResult` /
:class:`~schedcheck.harness.result.Counterexample` and never runs a target or a suite (that is
``schedcheck.pipeline``), except the replay script, which is a standalone program written for
the user to run.
"""
