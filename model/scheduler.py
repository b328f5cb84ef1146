"""PLACEHOLDER -- being written; replaced by the real module."""


class Scheduler:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise NotImplementedError("Scheduler is not written yet")
