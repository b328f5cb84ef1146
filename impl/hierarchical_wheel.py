"""PLACEHOLDER -- being written; replaced by the real module."""


class HierarchicalTimingWheel:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise NotImplementedError("HierarchicalTimingWheel is not written yet")
