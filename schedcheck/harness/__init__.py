"""The differential suites: a model and a target driven in lockstep.

One folder per system -- ``scheduler/``, ``wheel/``, ``leases/`` (the durable store) -- beside
the machinery they all share, here: ``program`` (a run as data), ``common``/``outcomes``/
``recorder`` (the state machine's base, one call's outcome, the trace), ``clauses`` and
``result`` (what a run judged), ``search`` (the budgeted search), ``delta``/``minimize``/
``shorter`` (reduction), ``guard`` (time and memory limits on the target), ``opcount`` and
``scaling`` (the counted cost clauses)."""
