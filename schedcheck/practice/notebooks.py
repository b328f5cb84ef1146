"""Execute the exercise notebooks with a real Jupyter kernel, and refresh their stored outputs.

``python -m schedcheck.practice.notebooks --refresh`` (or ``scripts/notebooks``) runs every
notebook of ``notebooks/`` top to bottom in a fresh kernel and saves it with its outputs --
cards, z3 rows, counterexample pictures and plots -- so that a reader who only opens the file
(on GitHub, say) sees the results. Runs are deterministic where they can be (fixed seeds,
small budgets, no timing metadata); the plotted costs are measured, so they move a little
from one refresh to the next. ``--check`` executes without writing (what the tests do).

Needs the ``dev`` extra (nbclient, nbformat, ipykernel, matplotlib).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["NOTEBOOKS", "execute", "main", "refresh"]

#: the notebooks folder of a checkout (this module lives in schedcheck/practice/)
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def execute(path: Path, *, timeout: int = 120) -> Any:
    """Run ``path`` in a fresh ``python3`` kernel started in its folder; the executed
    notebook. Raises nbclient's ``CellExecutionError`` at the first cell that raises and
    ``CellTimeoutError`` for a cell that runs longer than ``timeout`` seconds."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                            record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    return nb


def refresh(paths: list[Path], *, timeout: int = 300) -> None:
    """Execute each notebook and write it back with its outputs."""
    import nbformat

    for path in paths:
        nb = execute(path, timeout=timeout)
        nb.metadata.pop("widgets", None)
        for cell in nb.cells:  # one stream output per run of prints, however it was flushed
            if cell.cell_type == "code":
                cell.outputs = _merge_streams(cell.outputs)
        nbformat.write(nb, path)  # type: ignore[no-untyped-call]
        print(f"refreshed {path}")


def _merge_streams(outputs: list[Any]) -> list[Any]:
    merged: list[Any] = []
    for out in outputs:
        prev = merged[-1] if merged else None
        if (out.get("output_type") == "stream" and prev is not None
                and prev.get("output_type") == "stream" and prev.get("name") == out.get("name")):
            prev["text"] = "".join(prev["text"]) + "".join(out["text"])
        else:
            merged.append(out)
    return merged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m schedcheck.practice.notebooks",
                                     description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--refresh", action="store_true", help="execute and save the outputs")
    mode.add_argument("--check", action="store_true", help="execute only")
    parser.add_argument("paths", nargs="*", type=Path,
                        help=f"notebooks (default: every .ipynb of {NOTEBOOKS})")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(NOTEBOOKS.glob("*.ipynb"))
    if not paths:
        print(f"no notebooks found in {NOTEBOOKS}", file=sys.stderr)
        return 2
    if args.refresh:
        refresh(paths)
    else:
        for path in paths:
            execute(path)
            print(f"ran {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
