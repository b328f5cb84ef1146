"""The wheels' timers and buckets: ``Handle`` (one timer) and ``_BucketArray`` (``size``
buckets, each a plain list of handles, cancelled shells included, or None, and an occupancy
map). The layout and its reasons are in ``_wheel_common``, which re-exports both."""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, repeat
from operator import attrgetter, is_not
from typing import Any

Callback = Callable[[], Any]


class Handle:
    """One timer. No public constructor: ``wheel.schedule`` makes them.

    Its state is in its two references: *pending* while it holds both one of its wheel's
    tokens and its callback; firing drops the token (``_owner = None``), cancelling drops the
    callback (``_callback = None``: freed at cancel). Both are final and never both (cancel
    requires the token, firing requires the callback). The tokens are plain objects
    the wheel keeps (``_WheelBase._queue_token`` while the timer waits in the admission
    queue, ``_WheelBase._token`` once it is filed in a bucket), not the wheel: a handle never
    refers to its wheel, so no handle closes a cycle through the wheel's buckets."""

    __slots__ = ("_callback", "_deadline", "_due", "_owner", "_rounds", "_seq")

    _owner: object  #: the token of the wheel that made it; None once fired
    _seq: int  #: scheduling sequence: ties in a tick fire by seq
    _deadline: int
    _callback: Callback | None  #: None once cancelled
    _due: int  #: due tick, max(ceil(deadline / tick), cursor at schedule) (rule 2)
    _rounds: int  #: hashed wheel: rotations left, == (due - cursor) // W while linked

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            "Handle has no public constructor; get one from wheel.schedule(deadline, callback)"
        )

    @classmethod
    def _create(
        cls, owner: object, seq: int, deadline: int, callback: Callback | None, due: int
    ) -> Handle:
        self = object.__new__(cls)
        self._owner = owner
        self._seq = seq
        self._deadline = deadline
        self._callback = callback
        self._due = due
        self._rounds = 0
        return self

    @property
    def deadline(self) -> int:
        return self._deadline

    @property
    def callback(self) -> Callback | None:
        """The callback; None once the timer is cancelled (cancel drops it at once)."""
        return self._callback

    @property
    def cancelled(self) -> bool:
        return self._callback is None

    @property
    def fired(self) -> bool:
        return self._owner is None

    @property
    def due_tick(self) -> int:
        return self._due

    @property
    def seq(self) -> int:
        return self._seq

    @property
    def rounds(self) -> int:
        """Remaining rotations of the hashed wheel (the seed's ``remainingRounds``)."""
        return self._rounds

    def __repr__(self) -> str:
        state = "cancelled" if self.cancelled else "fired" if self.fired else "pending"
        return f"<Handle seq={self._seq} deadline={self._deadline} due={self._due} {state}>"


class LevelHandle(Handle):
    """A hierarchical wheel's timer: a ``Handle`` whose ``_rounds`` slot holds the level it is
    filed on (``_level``, the same slot: a hierarchical wheel has no rounds, so its ``rounds``
    is 0). ``cancel`` finds the timer's bucket from its level and due tick, to count the
    shell there; the slot is reused so that a timer costs no more memory than the hashed
    wheel's."""

    __slots__ = ()

    _level: int  #: the level it is filed on (the ``_rounds`` slot); meaningless while queued

    @property
    def rounds(self) -> int:
        """Always 0: levels instead of rounds."""
        return 0


setattr(LevelHandle, "_level", vars(Handle)["_rounds"])  # noqa: B010 -- the slot, renamed


_callback_of = attrgetter("_callback")


def live_only(nodes: list[Handle]) -> list[Handle]:
    """``nodes`` without the cancelled shells, in order (one C-level pass: the callback of
    each is compared with None by identity, never called or tested for truth)."""
    return list(compress(nodes, map(is_not, map(_callback_of, nodes), repeat(None))))


class _BucketArray:
    """``size`` buckets (plain lists of handles, cancelled shells included, or None), an
    occupancy map and each bucket's shell count.

    The lazy-cancel rule, per bucket (specs/wheel.md section 5): ``marked[i]`` is the number
    of cancelled shells in bucket ``i``, exactly; ``mark(i)`` counts one more and, once the
    shells pass half of the bucket's entries, rebuilds that bucket without them. So after
    every call ``2 * marked[i] <= len(lists[i])``: a bucket never holds more shells than
    pending timers."""

    __slots__ = ("lists", "marked", "occ", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        #: lists[i]: the handles appended to bucket i, in order (a handle no longer pending
        #: is a cancelled shell); None iff nothing was appended since it was last detached
        self.lists: list[list[Handle] | None] = [None] * size
        self.occ = bytearray(size)  #: occ[i] == 1 iff lists[i] is not None
        self.marked: list[int] = [0] * size  #: marked[i]: the cancelled shells in lists[i]

    def append(self, index: int, node: Handle) -> None:
        bucket = self.lists[index]
        if bucket is None:
            self.lists[index] = [node]
            self.occ[index] = 1
        else:
            bucket.append(node)

    def mark(self, index: int) -> None:
        """A handle in bucket ``index`` was just cancelled: count its shell, and drop the
        bucket's shells once they are over half its entries (O(bucket), each entry dropped
        once: O(1) amortized per cancel)."""
        bucket = self.lists[index]
        if bucket is None:  # not there (only a subclass that loses timers gets here)
            return
        marked = self.marked[index] + 1
        if marked * 2 <= len(bucket):
            self.marked[index] = marked
            return
        self.marked[index] = 0
        kept = live_only(bucket)
        if kept:
            self.lists[index] = kept
        else:
            self.lists[index] = None
            self.occ[index] = 0

    def take(self, index: int) -> list[Handle]:
        """Take bucket ``index`` out whole, shells included (the hot walks filter it; read
        ``marked[index]`` first to know whether they must)."""
        bucket = self.lists[index]
        if bucket is None:
            return []
        self.lists[index] = None
        self.occ[index] = 0
        self.marked[index] = 0
        return bucket

    def detach(self, index: int) -> list[Handle]:
        """Take bucket ``index`` out; return its pending handles in order (shells dropped)."""
        return [node for node in self.take(index) if node._callback is not None]

    def swap_out(self) -> tuple[list[list[Handle] | None], bytearray, list[int]]:
        """Take every bucket out at once (the array is left empty) and return them, for
        ``put_behind``: what is appended meanwhile goes in front of them."""
        taken = self.lists, self.occ, self.marked
        self.lists = [None] * self.size
        self.occ = bytearray(self.size)
        self.marked = [0] * self.size
        return taken

    def put_behind(self, lists: list[list[Handle] | None], occ: bytearray,
                   marked: list[int]) -> None:
        """Put back the buckets ``swap_out`` returned, each behind what was appended to the
        same bucket since: O(buckets put back + the entries of those that meet one). What
        was appended meanwhile is pending (a cascade drops shells), so the shell counts add
        up and no bucket passes half."""
        mine, mine_occ, mine_marked = self.lists, self.occ, self.marked
        index = occ.find(1)
        while index >= 0:
            back = lists[index]
            assert back is not None, f"occupancy byte {index} is set for no bucket"
            front = mine[index]
            if front is None:
                mine[index] = back
                mine_occ[index] = 1
            else:
                front += back
            mine_marked[index] += marked[index]
            index = occ.find(1, index + 1)

    def iter_bucket(self, index: int) -> list[Handle]:
        bucket = self.lists[index]
        return [] if bucket is None else [node for node in bucket if node._callback is not None]

    def occupied(self) -> list[list[Handle]]:
        """Every bucket present (shells included), in index order."""
        return [bucket for bucket in self.lists if bucket is not None]

    def entries(self) -> int:
        """The handles the buckets hold, cancelled shells included."""
        return sum(map(len, self.occupied()))

    def distance_to_next(self, i: int) -> int:
        """Circular distance from ``i`` to the next bucket holding a pending timer (0 if ``i``
        does), or -1. ``bytearray.find`` is a C ``memchr``: O(distance) at tens of buckets per
        ns. A bucket left holding only cancelled shells is dropped here when met (the shell
        count says when a bucket may be one; its handles are read only then)."""
        occ, lists, marked = self.occ, self.lists, self.marked
        while True:
            f = occ.find(1, i)
            if f >= 0:
                distance = f - i
            else:
                f = occ.find(1, 0, i)
                if f < 0:
                    return -1
                distance = f + self.size - i
            bucket = lists[f] or ()
            if marked[f] < len(bucket) or any(
                    map(is_not, map(_callback_of, bucket), repeat(None))):
                return distance  # (the scan only when the count says all are shells)
            lists[f] = None  # only cancelled shells: the bucket is empty
            occ[f] = 0
            marked[f] = 0

    def check(self) -> tuple[int, int]:
        """Assert occupancy and shell counts agree with the buckets and no bucket is over half
        shells; return (pending entries, shells)."""
        pending = shells = 0
        for i, bucket in enumerate(self.lists):
            assert self.occ[i] == (bucket is not None), (
                f"occupancy byte {i} is {self.occ[i]} but the bucket is "
                f"{'absent' if bucket is None else 'present'}"
            )
            here = 0
            for node in bucket or ():
                assert node._owner is not None, f"{node!r} has fired but is still in bucket {i}"
                if node._callback is None:
                    here += 1
                else:
                    pending += 1
            assert self.marked[i] == here, (
                f"bucket {i} holds {here} cancelled shells but counts {self.marked[i]}"
            )
            assert here * 2 <= len(bucket or ()), (
                f"bucket {i} holds {here} cancelled shells of {len(bucket or ())} entries: "
                "over half, it should have been rebuilt without them"
            )
            shells += here
        return pending, shells
