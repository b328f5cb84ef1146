"""Hypothesis's digest of a suite machine, computed once per machine class.

Each Hypothesis run of a state machine starts by digesting the machine class
(``hypothesis.internal.reflection.function_digest``: its source found with ``inspect``, which
parses the whole module, then tokenized and cleaned). The digest names the run in an example
database. The checker starts a run per search chunk, each on a fresh subclass bound to that
run (``common.run_suite``) with the name, module and qualified name of its machine class,
and so the same source: the same digest, recomputed at some 50 ms a run.

:func:`install` puts a memo in front of the digest for those bound subclasses only (a class
with a ``_ctx`` of its own), keyed by what the digest reads of them: module, qualified name,
signature and ``_hypothesis_internal_add_digest``. Every other function and class -- a user's
own tests in the same process -- goes to Hypothesis's function as before. Where Hypothesis has
no such function to wrap, nothing is installed.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["install"]

_memo: dict[tuple[Any, ...], bytes] = {}


class _Memoized:
    """Hypothesis's ``function_digest`` with the memo in front (``original``: its own)."""

    def __init__(self, original: Callable[[Any], bytes]) -> None:
        self.original = original

    def __call__(self, function: Any) -> bytes:
        if not (isinstance(function, type) and "_ctx" in function.__dict__):
            return self.original(function)
        try:
            signature = repr(inspect.signature(function))
        except (TypeError, ValueError):
            signature = ""
        key = (function.__module__, function.__qualname__, signature,
               getattr(function, "_hypothesis_internal_add_digest", None))
        digest = _memo.get(key)
        if digest is None:
            digest = _memo[key] = self.original(function)
        return digest


def install() -> None:
    """Memoize the digest of bound suite machines in ``hypothesis.stateful`` (idempotent)."""
    import hypothesis.stateful as stateful

    names = vars(stateful)  # the module's own namespace: the name is not exported
    original = names.get("function_digest")
    if original is None or isinstance(original, _Memoized):
        return
    names["function_digest"] = _Memoized(original)
