"""The two interview texts as installed files: the Indonesian originals (``specs/seeds/``) and
their English translations (``specs/interview/``), read through ``importlib.resources`` so
that ``schedcheck practice`` works from an installed package as well as from a checkout."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = ["LANGUAGES", "interview_path", "interview_text", "rules_path", "seed_map_path"]

#: the languages each text is kept in: the translation first, then the original
LANGUAGES = ("en", "id")

_FILES = {"en": "interview/{system}.en.md", "id": "seeds/{system}.txt"}


def _resource(relative: str) -> Traversable:
    return resources.files("schedcheck.specs").joinpath(relative)


def interview_text(system: str, language: str = "en") -> str:
    """The interview text of ``system`` ("scheduler" or "wheel") in ``language`` ("en" the
    English translation, "id" the Indonesian original). ``ValueError`` for anything else."""
    if language not in _FILES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    if system not in ("scheduler", "wheel"):
        raise ValueError(f"system must be 'scheduler' or 'wheel', got {system!r}")
    return _resource(_FILES[language].format(system=system)).read_text("utf-8")


def interview_path(system: str, language: str = "en") -> Path | None:
    """Where the installed text lies on disk (absolute), or None when the package is not
    unpacked on disk (a zip import): then :func:`interview_text` still reads it."""
    interview_text(system, language)  # the same checks
    return _on_disk(_FILES[language].format(system=system))


def rules_path(system: str) -> Path | None:
    """The absolute path of ``specs/<system>.md`` (the rules this project settled on) as
    installed, or None when the package is not unpacked on disk."""
    return _on_disk(f"{system}.md")


def seed_map_path() -> Path | None:
    """The absolute path of ``specs/seed-map.md`` as installed, or None (not on disk)."""
    return _on_disk("seed-map.md")


def _on_disk(relative: str) -> Path | None:
    found = _resource(relative)
    if isinstance(found, Path) and found.is_file():
        return found.resolve()
    return None
