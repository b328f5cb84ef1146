"""The production timing wheels and their real-time side.

* ``hashed`` -- :class:`HashedTimingWheel`, one ring of buckets with remaining rounds;
* ``hierarchical`` -- :class:`HierarchicalTimingWheel`, levels that cascade;
* ``_common`` and ``_buckets`` -- what both wheels share (handles, validation, the occupancy
  bitmap and the buckets);
* ``driver`` -- :class:`WheelTimer`, the tick thread and the bounded executor;
* ``queued_driver`` -- a producer queue in front of one tick thread.
"""

from schedcheck.impl.wheel.driver import WheelTimer
from schedcheck.impl.wheel.hashed import HashedTimingWheel
from schedcheck.impl.wheel.hierarchical import HierarchicalTimingWheel

__all__ = ["HashedTimingWheel", "HierarchicalTimingWheel", "WheelTimer"]
