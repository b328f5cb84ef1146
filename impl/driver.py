"""PLACEHOLDER -- being written; replaced by the real module."""


class WheelTimer:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise NotImplementedError("WheelTimer is not written yet")
