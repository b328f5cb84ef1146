"""The exercise notebooks: each runs clean top to bottom in a fresh Jupyter kernel, and the
stored files show what a reader needs without running them (outputs, pictures, plots, the
answers collapsed); no cell checks an error with an assert inside ``except``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schedcheck.practice.notebooks import NOTEBOOKS, execute

PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


def _cells(nb: Any, kind: str) -> list[Any]:
    return [c for c in nb["cells"] if c["cell_type"] == kind]


def _source(cell: Any) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def _images(nb: Any) -> int:
    return sum("image/png" in o.get("data", {}) for c in _cells(nb, "code")
               for o in c.get("outputs", []))


def test_a_tour_and_one_notebook_per_system() -> None:
    names = [p.stem for p in PATHS]
    assert names == ["00_tour", "01_scheduler_interview", "02_timing_wheel_interview"]


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_the_notebook_runs_clean_in_a_fresh_kernel(path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHEDCHECK_NOTEBOOK_SHRINK", "0")  # the refresh shrinks; a test need not
    nb = execute(path, timeout=120)  # raises at the first cell that raises or times out
    outputs = [o for c in _cells(nb, "code") for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert _images(nb) >= 1  # the counterexample picture, and the plots


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_the_stored_notebook_shows_its_results(path: Path) -> None:
    nb = json.loads(path.read_text("utf-8"))
    code = _cells(nb, "code")
    assert code and all(c["execution_count"] is not None for c in code)  # refreshed, in order
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    assert _images(nb) >= (1 if path.stem == "00_tour" else 2)
    for cell in code:  # a failure is shown by raised()/check(), never by a try/except
        assert "try:" not in _source(cell) and "except" not in _source(cell), _source(cell)


@pytest.mark.parametrize("path", PATHS[1:], ids=[p.stem for p in PATHS[1:]])
def test_every_section_has_a_turn_a_check_and_a_collapsed_answer(path: Path) -> None:
    nb = json.loads(path.read_text("utf-8"))
    cells = nb["cells"]
    headings = [i for i, c in enumerate(cells)
                if c["cell_type"] == "markdown" and _source(c).startswith("## ")
                and " — " in _source(c).splitlines()[0]]
    labels = [_source(cells[i]).splitlines()[0] for i in headings]
    # English first, then the original's heading
    assert [lab.split(" — ")[0][3:] for lab in labels][:3] in (
        ["What the interviewer tests", "Common mistakes", "Follow-up questions"],
        ["What the interviewer evaluates", "Common mistakes",
         "Follow-up questions and answers"])
    assert [lab.split(" — ")[1] for lab in labels][:3] in (
        ["Hal yang diuji oleh pewawancara", "Kesalahan umum", "Pertanyaan lanjutan"],
        ["Apa yang sedang dievaluasi oleh pewawancara", "Kesalahan umum",
         "Pertanyaan lanjutan dan tanggapan"])
    assert labels[3].startswith("## Argument hygiene")
    for start, end in zip(headings, [*headings[1:], len(cells)]):
        section = cells[start:end]
        sources = [_source(c) for c in section]
        assert any(s.lstrip().startswith("check(My") for s in sources), labels
        answers = [c for c in section if c["cell_type"] == "markdown"
                   and _source(c).startswith("<details>")]
        hidden = [c for c in section if c["cell_type"] == "code"
                  and c["metadata"].get("jupyter", {}).get("source_hidden")]
        assert answers and hidden, _source(section[0]).splitlines()[0]
        assert all(c.get("outputs") for c in hidden)  # the live result is stored
