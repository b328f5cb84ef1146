"""The interview texts in English: a translation of each seed kept beside the original,
shipped with the package, written into every practice folder, and the language of the
practice guide and of ``grade``'s headings."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest

from schedcheck import impl
from schedcheck.practice.grading import render_card
from schedcheck.practice.interview import interview_path, interview_text, rules_path
from schedcheck.practice.items import grade
from schedcheck.practice.seed_map import load_seed_map, seed_units
from schedcheck.practice.skeleton import write_practice

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = ["scheduler", "wheel"]


def _list_items(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith("- "))


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_translation_has_every_section_of_the_seed_map_in_order(system: str) -> None:
    english = interview_text(system, "en")
    headings = [line[3:] for line in english.splitlines() if line.startswith("## ")]
    prefix = "S-" if system == "scheduler" else "W-"
    labels: list[str] = []
    for it in load_seed_map():
        if it.id.startswith(prefix) and it.section.label_en not in labels:
            labels.append(it.section.label_en)
    assert [h.lower() for h in headings] == [lab.lower() for lab in labels]


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_translation_keeps_the_originals_pseudocode_and_its_lists(system: str) -> None:
    original = interview_text(system, "id")
    english = interview_text(system, "en")
    code = [t for kind, t in seed_units(original) if kind == "code"]
    blocks = re.findall(r"```text\n(.*?)```", english, flags=re.S)
    assert code and [line for b in blocks for line in b.splitlines() if line.strip()] == code
    # each of the seed map's one-sentence list items (the T and M sections) is a "- " item
    listed = {"scheduler": ("S-T", "S-M"), "wheel": ("W-T", "W-M")}[system]
    wanted = sum(1 for it in load_seed_map() if it.section.id in listed)
    assert _list_items(english) >= wanted


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_original_kept_in_the_package_is_the_projects_seed(system: str) -> None:
    assert interview_text(system, "id") == (ROOT / "specs" / "seeds" / f"{system}.txt").read_text(
        "utf-8")
    assert interview_path(system, "en") == (ROOT / "specs" / "interview" /
                                            f"{system}.en.md").resolve()


def test_bad_arguments_name_the_accepted_values() -> None:
    with pytest.raises(ValueError, match="en, id"):
        interview_text("wheel", "fr")
    with pytest.raises(ValueError, match="'scheduler' or 'wheel'"):
        interview_text("heap")


def _shipped(relative: str, globs: list[str]) -> bool:
    """setuptools' package-data globs: '*' stays within one folder."""
    return any(fnmatch.fnmatch(relative, g) and relative.count("/") == g.count("/")
               for g in globs)


def test_packaging_ships_every_text_the_practice_command_reads() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["schedcheck.specs"]
    for system in SYSTEMS:
        for needed in (f"interview/{system}.en.md", f"seeds/{system}.txt", f"{system}.md"):
            assert (ROOT / "specs" / needed).is_file()
            assert _shipped(needed, globs), (needed, globs)
    assert _shipped("seed-map.md", globs)
    assert not _shipped("seeds/wheel.txt", ["*.md"])  # the check itself can fail


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_practice_folder_holds_the_question_and_its_guide_names_no_repository_path(
        system: str, tmp_path: Path) -> None:
    folder = tmp_path / "answers"
    write_practice(system, folder)
    assert (folder / "QUESTION.md").read_text("utf-8") == interview_text(system, "en")
    assert (folder / "QUESTION.id.txt").read_text("utf-8") == interview_text(system, "id")
    guide = (folder / "GUIDE.md").read_text("utf-8")
    assert "`QUESTION.md`" in guide
    named = re.findall(r"`([^`\s]+\.(?:md|txt|py))`", guide)
    assert named
    for path in named:  # in the folder, or absolute and there
        assert (folder / path).is_file() or (Path(path).is_absolute() and Path(path).is_file()), \
            path
    assert str(rules_path(system)) in guide
    assert "specs/" not in guide.replace(str(ROOT / "specs"), "")


def test_grade_headings_and_quoted_words_are_in_english() -> None:
    text = render_card(grade("scheduler", impl.Scheduler, cost=False))
    assert "== What the interviewer tests (Hal yang diuji oleh pewawancara)" in text
    assert "== Follow-up questions (Pertanyaan lanjutan)" in text
    assert "«Graphs too large for memory" in text  # the talk item S-F1, in English
    assert "Bagaimana Anda" not in text
