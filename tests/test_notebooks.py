"""The notebooks are part of the documentation: every code cell runs and its asserts hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks_for_both_systems() -> None:
    names = [p.name for p in NOTEBOOKS]
    assert any("scheduler" in n for n in names) and any("wheel" in n for n in names)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_code_cell_of_the_notebook_runs_and_its_asserts_hold(path: Path) -> None:
    cells = json.loads(path.read_text())["cells"]
    namespace: dict[str, object] = {"__name__": "__notebook__"}
    code_cells = [c for c in cells if c["cell_type"] == "code"]
    assert code_cells, f"{path.name} has no code"
    for number, cell in enumerate(code_cells):
        source = "".join(cell["source"])
        assert "assert" in source or number == 0, f"cell {number} of {path.name} checks nothing"
        exec(compile(source, f"{path.name}[cell {number}]", "exec"), namespace)
