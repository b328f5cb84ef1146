"""The report of ``schedcheck verify``, as data and as text: :class:`VerifyReport` (the suite
runs, the lemmas, the exhaustive scenarios, the zoo's rows), its ``report.json`` form and the
terminal summary. ``schedcheck.verify`` runs the parts and fills it; ``schedcheck.report.html``
draws it as ``index.html``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from schedcheck.harness.result import RunResult
from schedcheck.report.card import card_table, card_text
from schedcheck.report.kill_matrix import kill_matrix_table, kill_matrix_text, zoo_json
from schedcheck.report.writer import Written, report_json

__all__ = ["LEMMA_OK", "SuiteRun", "VerifyReport", "lemma_ok"]

#: What each kind of prove result must say to count as a success: a lemma or a bounded model
#: check is "proved" (a bound is stated in the table); a seeded mutation must be "refuted".
LEMMA_OK: dict[str, str] = {"lemma": "proved", "bmc": "proved", "mutation": "refuted"}


def lemma_ok(lem: Any) -> bool:
    kind = str(getattr(lem, "kind", "lemma")).lower()
    return str(getattr(lem, "status", "")).lower() == LEMMA_OK.get(kind, "proved")


@dataclass
class SuiteRun:
    folder: str
    result: RunResult
    written: Written


@dataclass
class VerifyReport:
    out: Path
    suites: list[SuiteRun] = field(default_factory=list)
    lemmas: list[Any] | None = None
    scenarios: list[Any] | None = None  #: exhaustive small concurrent scenarios
    zoo: list[Any] | None = None
    zoo_written: dict[str, Written] = field(default_factory=dict)
    showcase: list[str] = field(default_factory=list)  #: zoo entries pictured on the page
    notes: list[str] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def lemmas_ok(self) -> bool:
        return all(lemma_ok(lem) for lem in self.lemmas or [])

    @property
    def zoo_ok(self) -> bool:
        return all(r.killed for r in self.zoo or [])

    @property
    def scenarios_ok(self) -> bool:
        return all(getattr(s, "violation", None) is None for s in self.scenarios or [])

    @property
    def ok(self) -> bool:
        return (all(s.result.ok for s in self.suites) and self.lemmas_ok and self.zoo_ok
                and self.scenarios_ok)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "seconds": round(self.seconds, 1),
            "suites": [report_json(s.result, files=[f"{s.folder}/{s.written.rel(p)}"
                                                     for p in s.written.files])
                       for s in self.suites],
            "lemmas": [_lemma_json(lem) for lem in self.lemmas] if self.lemmas is not None
            else None,
            "zoo": zoo_json(self.zoo) if self.zoo is not None else None,
            "scenarios": [_scenario_json(s) for s in self.scenarios]
            if self.scenarios is not None else None,
            "unavailable": self.unavailable,
            "skipped": self.skipped,
            "notes": self.notes,
        }

    def print(self, console: Console) -> None:
        """Cards, prove summary, kill matrix: rich tables on a terminal, else plain text
        (written straight to the console's file: no wrapping at 80 columns)."""
        plain = not console.is_terminal

        def say(line: str) -> None:
            if plain:
                console.file.write(line + "\n")
            else:
                console.print(line, markup=False, highlight=False)

        for s in self.suites:
            if plain:
                say(card_text(s.result))
            else:
                console.print(card_table(s.result))
            for note in s.result.notes:
                say(f"note: {note}")
        if self.lemmas is not None:
            say(f"prove: {sum(lemma_ok(lem) for lem in self.lemmas)}/{len(self.lemmas)} as "
                "expected (lemmas proved, mutations refuted)")
            for lem in self.lemmas:
                if not lemma_ok(lem):
                    say(f"  NOT AS EXPECTED {getattr(lem, 'name', lem)}: "
                        f"{getattr(lem, 'status', '?')}")
        if self.scenarios is not None:
            for sc in self.scenarios:
                say(f"exhaustive: {getattr(sc, 'text', sc)}")
        if self.zoo is not None:
            if plain:
                say(kill_matrix_text(self.zoo))
            else:
                console.print(kill_matrix_table(self.zoo))
        for line in self.unavailable:
            say(line)
        for line in self.skipped:
            say(f"skipped on request: {line}")
        for line in self.notes:
            say(f"note: {line}")
        say(f"{'OK' if self.ok else 'FAILED'}: report written to {self.out / 'index.html'} "
            f"({self.seconds:.0f}s)")


def _scenario_json(s: Any) -> dict[str, Any]:
    keys = ("name", "system", "words", "target", "bound", "schedules", "complete", "violation",
            "failing_schedule")
    return {k: getattr(s, k, None) for k in keys}


def _lemma_json(lem: Any) -> dict[str, Any]:
    keys = ("name", "kind", "system", "says", "status", "seconds", "counterexample",
            "bounded_n", "why_bounded")
    return {k: getattr(lem, k, None) for k in keys}
