"""Targets: the implementation a check runs, however it is reached.

* ``load`` -- a ``module:attr`` or ``path/to/file.py:attr`` target, loaded into this process
  (:func:`load_target`, :class:`TargetError`);
* ``adapters`` -- the adapter bases a user subclasses to fit another surface onto the contract,
  and the capabilities a target declares (also importable as ``schedcheck.adapters``);
* ``adapt`` -- how a target's replies are read: states, outcomes and records by name;
* ``preflight`` -- the probes run before a check: can the target be built at all.
"""

from schedcheck.targets.load import ACCEPTED_FORMS, Target, TargetError, load_target

__all__ = ["ACCEPTED_FORMS", "Target", "TargetError", "load_target"]
