"""The adapter bases and capabilities, under their public name (they live in
``schedcheck.targets.adapters``): ``from schedcheck.adapters import SchedulerAdapter``."""

from schedcheck.targets.adapters import *  # noqa: F403
from schedcheck.targets.adapters import __all__ as __all__
