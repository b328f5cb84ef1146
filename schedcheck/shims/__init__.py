"""The shims of the process protocol (``specs/protocol.md``), one file per language, standard
library only: ``shim.js`` (Node >= 18), ``Shim.java`` (Java 17), ``shim.hpp`` (C++17 with
Debian's nlohmann-json3-dev). Installed with schedcheck as package data: :func:`shim_file`
names the file, so that a user copies it next to an implementation."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SHIMS", "shim_file"]

#: language -> the shim's file name
SHIMS: dict[str, str] = {"js": "shim.js", "java": "Shim.java", "cpp": "shim.hpp"}


def shim_file(language: str) -> Path:
    """The installed shim of ``language`` (``"js"``, ``"java"`` or ``"cpp"``)."""
    try:
        return Path(__file__).resolve().parent / SHIMS[language]
    except KeyError:
        raise ValueError(f"no shim for {language!r}; there are: {', '.join(SHIMS)}") from None
