"""``schedcheck prove``: every lemma of specs/ proved, every mutation refuted, as a table.

Usage: ``python -m schedcheck.specs.prove [--timeout-ms N] [--only NAME] [--json]``
(``schedcheck prove`` calls :func:`main`). Exit status 0 iff every lemma and bounded model
check is ``proved`` and every mutation ``refuted`` (with a counterexample that the executable
model reproduces); 1 otherwise (``unknown`` included: a timeout proves nothing); 2 for unusable
arguments. :func:`run_all` returns the rows as :class:`LemmaResult` for the HTML report.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence

from schedcheck.specs._z3util import Lemma, LemmaResult, check_lemma

__all__ = ["DEFAULT_TIMEOUT_MS", "LemmaResult", "all_lemmas", "main", "run_all"]

#: per solver call (wall clock): generous, so a loaded machine does not turn a proof into
#: "unknown"; on an idle machine the slowest single query takes a few seconds
DEFAULT_TIMEOUT_MS = 60_000


def all_lemmas() -> list[Lemma]:
    from schedcheck.specs import lemmas_scheduler, lemmas_wheel

    return [*lemmas_wheel.LEMMAS, *lemmas_scheduler.LEMMAS]


def _select(lemmas: Sequence[Lemma], only: Sequence[str] | None) -> list[Lemma]:
    if not only:
        return list(lemmas)
    names = {lem.name for lem in lemmas}
    # an exact name selects that row only; any other text selects every row containing it
    return [lem for lem in lemmas
            if any(o == lem.name or (o not in names and o in lem.name) for o in only)]


def run_all(timeout_ms: int = DEFAULT_TIMEOUT_MS,
            progress: Callable[[LemmaResult], None] | None = None,
            only: Sequence[str] | None = None) -> list[LemmaResult]:
    """Check every lemma (or those whose name contains one of ``only``), in order."""
    out = []
    for lemma in _select(all_lemmas(), only):
        res = check_lemma(lemma, timeout_ms)
        out.append(res)
        if progress is not None:
            progress(res)
    return out


def _bound(r: LemmaResult) -> str:
    if r.kind == "mutation":
        return "witness" if r.bounded_n is None else f"witness N={r.bounded_n}"
    return "all values" if r.bounded_n is None else f"N<={r.bounded_n}"


def _plain(results: Sequence[LemmaResult], out: Callable[[str], None]) -> None:
    w = max((len(r.name) for r in results), default=4)
    out(f"{'lemma':<{w}}  {'kind':<8}  {'status':<20}  {'bound':<10}  {'s':>7}  says")
    for r in results:
        out(f"{r.name:<{w}}  {r.kind:<8}  {r.status:<20}  {_bound(r):<10}  "
            f"{r.seconds:>7.3f}  {r.says}")
    for r in results:
        if r.counterexample and (r.kind == "mutation" or not r.ok):
            out(f"\n== {r.name}: {r.status}\n{r.counterexample}")


def _rich(results: Sequence[LemmaResult]) -> bool:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover - rich is a dependency, plain text is the fallback
        return False
    console = Console()
    table = Table(title="schedcheck prove: z3 lemmas (specs/)")
    for col in ("lemma", "kind", "status", "bound", "seconds", "says"):
        table.add_column(col)
    for r in results:
        colour = "green" if r.ok else "red"
        table.add_row(r.name, r.kind, f"[{colour}]{r.status}[/{colour}]", _bound(r),
                      f"{r.seconds:.3f}", r.says)
    console.print(table)
    for r in results:
        if r.counterexample and (r.kind == "mutation" or not r.ok):
            console.rule(f"{r.name}: {r.status}")
            console.print(r.counterexample, markup=False, highlight=False, soft_wrap=True)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="schedcheck prove",
        description="Prove the z3 lemmas of specs/ and refute the seeds' common mistakes.")
    parser.add_argument("--timeout-ms", type=int, default=DEFAULT_TIMEOUT_MS,
                        help="per solver call (default %(default)s)")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="only lemmas whose name contains NAME (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--plain", action="store_true", help="plain text, not a rich table")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress lines on stderr while the lemmas run")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.timeout_ms < 1:
        print(f"--timeout-ms must be >= 1, got {args.timeout_ms}", file=sys.stderr)
        return 2
    if args.only and not _select(all_lemmas(), args.only):
        names = ", ".join(lem.name for lem in all_lemmas())
        print(f"--only {args.only} matches no lemma; known: {names}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    def progress(r: LemmaResult) -> None:
        mark = "ok " if r.ok else "!! "
        print(f"{mark}{r.status:<10} {r.name} ({r.seconds:.1f} s)", file=sys.stderr, flush=True)

    results = run_all(args.timeout_ms, progress=None if args.quiet else progress,
                      only=args.only)
    total = time.perf_counter() - t0
    ok = all(r.ok for r in results)
    if args.json:
        print(json.dumps({"ok": ok, "seconds": round(total, 3),
                          "results": [r.to_json() for r in results]}, indent=2))
    else:
        if args.plain or not _rich(results):
            _plain(results, print)
        bad = [r.name for r in results if not r.ok]
        print(f"\n{len(results)} rows in {total:.1f} s: "
              + ("every lemma proved, every mutation refuted" if ok
                 else f"NOT OK: {', '.join(bad)}"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
