"""PLACEHOLDER -- being written; replaced by the real module."""


class TimingWheel:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise NotImplementedError("TimingWheel is not written yet")
class Handle:  # placeholder
    pass
