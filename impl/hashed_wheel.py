"""PLACEHOLDER -- being written; replaced by the real module."""


class HashedTimingWheel:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise NotImplementedError("HashedTimingWheel is not written yet")
