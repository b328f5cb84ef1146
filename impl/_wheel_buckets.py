"""The wheels' timers and buckets: ``Handle`` (one timer) and ``_BucketArray`` (``size``
buckets, each a plain list of handles, cancelled shells included, or None, and an occupancy
map). The layout and its reasons are in ``_wheel_common``, which re-exports both."""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from operator import attrgetter, is_not
from typing import Any

Callback = Callable[[], Any]


class Handle:
    """One timer. No public constructor: ``wheel.schedule`` makes them.

    Its state is in its two references: *pending* while it holds both its wheel's token and
    its callback; firing drops the token (``_owner = None``), cancelling drops the callback
    (``_callback = None``: freed at cancel). Both are final and never both (cancel requires
    the token, firing requires the callback). The token is a plain ``object()`` the wheel
    keeps (``_WheelBase._token``), not the wheel: a handle never refers to its wheel, so no
    handle closes a cycle through the wheel's buckets."""

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


_callback_of = attrgetter("_callback")


class _BucketArray:
    """``size`` buckets (plain lists of handles, cancelled shells included, or None) and an
    occupancy map."""

    __slots__ = ("lists", "occ", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        #: lists[i]: the handles appended to bucket i, in order (a handle no longer pending
        #: is a cancelled shell); None iff nothing was appended since it was last detached
        self.lists: list[list[Handle] | None] = [None] * size
        self.occ = bytearray(size)  #: occ[i] == 1 iff lists[i] is not None

    def append(self, index: int, node: Handle) -> None:
        bucket = self.lists[index]
        if bucket is None:
            self.lists[index] = [node]
            self.occ[index] = 1
        else:
            bucket.append(node)

    def take(self, index: int) -> list[Handle]:
        """Take bucket ``index`` out whole, shells included (the hot walks filter it)."""
        bucket = self.lists[index]
        if bucket is None:
            return []
        self.lists[index] = None
        self.occ[index] = 0
        return bucket

    def detach(self, index: int) -> list[Handle]:
        """Take bucket ``index`` out; return its pending handles in order (shells dropped)."""
        return [node for node in self.take(index) if node._callback is not None]

    def swap_out(self) -> tuple[list[list[Handle] | None], bytearray]:
        """Take every bucket out at once (the array is left empty) and return them, for
        ``put_behind``: what is appended meanwhile goes in front of them."""
        taken = self.lists, self.occ
        self.lists = [None] * self.size
        self.occ = bytearray(self.size)
        return taken

    def put_behind(self, lists: list[list[Handle] | None], occ: bytearray) -> None:
        """Put back the buckets ``swap_out`` returned, each behind what was appended to the
        same bucket since: O(buckets put back + the entries of those that meet one)."""
        mine, mine_occ = self.lists, self.occ
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
            index = occ.find(1, index + 1)

    def iter_bucket(self, index: int) -> list[Handle]:
        bucket = self.lists[index]
        return [] if bucket is None else [node for node in bucket if node._callback is not None]

    def occupied(self) -> list[list[Handle]]:
        """Every bucket present (shells included), in index order."""
        return [bucket for bucket in self.lists if bucket is not None]

    def compact(self) -> None:
        """Drop every cancelled shell; a bucket left with nothing goes."""
        lists, occ = self.lists, self.occ
        index = occ.find(1)
        while index >= 0:
            kept = [node for node in lists[index] or () if node._callback is not None]
            if kept:
                lists[index] = kept
            else:
                lists[index] = None
                occ[index] = 0
            index = occ.find(1, index + 1)

    def distance_to_next(self, i: int) -> int:
        """Circular distance from ``i`` to the next bucket holding a pending timer (0 if ``i``
        does), or -1. ``bytearray.find`` is a C ``memchr``: O(distance) at tens of buckets per
        ns. A bucket left holding only cancelled shells is dropped here when met."""
        occ, lists = self.occ, self.lists
        while True:
            f = occ.find(1, i)
            if f >= 0:
                distance = f - i
            else:
                f = occ.find(1, 0, i)
                if f < 0:
                    return -1
                distance = f + self.size - i
            if any(map(is_not, map(_callback_of, lists[f] or ()), repeat(None))):
                return distance  # the first pending timer stops the C-level scan
            lists[f] = None  # only cancelled shells: the bucket is empty
            occ[f] = 0

    def check(self) -> tuple[int, int]:
        """Assert occupancy agrees with the buckets; return (pending entries, shells)."""
        pending = shells = 0
        for i, bucket in enumerate(self.lists):
            assert self.occ[i] == (bucket is not None), (
                f"occupancy byte {i} is {self.occ[i]} but the bucket is "
                f"{'absent' if bucket is None else 'present'}"
            )
            for node in bucket or ():
                assert node._owner is not None, f"{node!r} has fired but is still in bucket {i}"
                if node._callback is None:
                    shells += 1
                else:
                    pending += 1
        return pending, shells
