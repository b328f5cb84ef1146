"""PLACEHOLDER -- being written; replaced by the real module."""


class Runner:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise NotImplementedError("Runner is not written yet")

def run(*args: object, **kwargs: object) -> None:
    raise NotImplementedError("run is not written yet")
