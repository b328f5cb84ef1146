"""The differential suites: a model and a target driven in lockstep (see result.py, clauses.py)."""
