"""specs/seed-map.md: every sentence of both interview texts has exactly one item, every item
quotes only the text's own words, and every piece of evidence it names exists (a clause of the
report card, a row of ``schedcheck prove``, a zoo entry, a test function, a benchmark, a
numbered decision of the written contract, a file)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from schedcheck.specs.prove import all_lemmas

from schedcheck.harness.clauses import SCHEDULER_CLAUSES, WHEEL_CLAUSES
from schedcheck.practice.seed_map import (
    EVIDENCE_KINDS,
    SeedItem,
    load_seed_map,
    parse_seed_map,
    seed_units,
)
from schedcheck.zoo.catalogue import all_mutants

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "specs" / "seed-map.md"
SEEDS = {"scheduler": ROOT / "specs" / "seeds" / "scheduler.txt",
         "wheel": ROOT / "specs" / "seeds" / "wheel.txt"}
#: the sections every text has, in the map's order
SECTION_CODES = ("P", "T", "Q", "A", "L", "J", "M", "F")


def _norm(s: str) -> str:
    return " ".join(s.split())


def _sentences(words: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.?!])\s+", _norm(words)) if s]


def _spec_anchor_exists(doc: str, anchor: str) -> bool:
    if m := re.fullmatch(r"decision-(\d+)", anchor):
        part = doc.split("## 6. Decisions", 1)
        return len(part) == 2 and re.search(rf"^{m.group(1)}\. \*\*", part[1], re.M) is not None
    if re.fullmatch(r"W?D\d+|W?I\d+", anchor):
        return f"**{anchor}**" in doc or f"**{anchor} " in doc
    return re.search(rf"^#+ .*{re.escape(anchor)}", doc, re.M | re.I) is not None


def evidence_problems(item: SeedItem, root: Path = ROOT) -> list[str]:
    """What is wrong with the evidence one item names ([] when every piece resolves)."""
    clause_ids = {c.id for c in SCHEDULER_CLAUSES + WHEEL_CLAUSES}
    lemma_names = {lem.name for lem in all_lemmas()}
    mutant_names = {m.name for m in all_mutants()}
    out = []
    for ev in item.evidence:
        kind, _, name = ev.partition(":")
        bad = ""
        if kind not in EVIDENCE_KINDS or not name:
            bad = f"unknown evidence kind {kind!r} (known: {', '.join(EVIDENCE_KINDS)})"
        elif kind == "clause" and name not in clause_ids:
            bad = "no such clause in schedcheck.harness.clauses"
        elif kind == "z3" and name not in lemma_names:
            bad = "no such row in schedcheck prove"
        elif kind == "zoo" and name not in mutant_names:
            bad = "no such zoo entry"
        elif kind == "test":
            path, _, func = name.partition("::")
            f = root / path
            if not f.is_file() or not func:
                bad = "no such test file"
            elif not re.search(rf"^\s*def {re.escape(func)}\(", f.read_text("utf-8"), re.M):
                bad = f"{path} has no test function {func}"
        elif kind in ("bench", "file") and not (root / name).is_file():
            bad = "no such file"
        elif kind == "spec":
            doc_name, _, anchor = name.partition("#")
            doc = root / "specs" / doc_name
            if not doc.is_file():
                bad = "no such document in specs/"
            elif anchor and not _spec_anchor_exists(doc.read_text("utf-8"), anchor):
                bad = f"specs/{doc_name} has no {anchor}"
        elif kind == "grade":
            from schedcheck.practice.items import item_ids

            if name not in item_ids():
                bad = "no such graded item in schedcheck.practice"
        if bad:
            out.append(f"{item.id}: {ev}: {bad}")
    if item.prose is not None and len(item.prose.split()) < 8:
        out.append(f"{item.id}: 'Prose:' must say why nothing executable verifies it")
    return out


def coverage_problems(items: list[SeedItem], system: str, seed_text: str) -> list[str]:
    """Sentences of the text with no item (or with two), and quoted words the text lacks."""
    units = seed_units(seed_text)
    mine = [it for it in items if it.system == system]
    out = []
    for kind, text in units:
        if kind == "sentence":
            owners = [it.id for it in mine if text in _sentences(it.words)]
        elif kind == "code":
            owners = [it.id for it in mine if text in it.code]
        else:
            continue
        if len(owners) != 1:
            out.append(f"{system}: {text!r} is quoted by {owners or 'no item'}")
    seed_sentences = {t for k, t in units if k == "sentence"}
    seed_code = {t for k, t in units if k == "code"}
    headings = {t for k, t in units if k == "heading"}
    for it in mine:
        out += [f"{it.id}: {s!r} is not a sentence of the text"
                for s in _sentences(it.words) if s not in seed_sentences]
        out += [f"{it.id}: code line {c!r} is not in the text" for c in it.code
                if c not in seed_code]
        if it.section.label_id not in headings:
            out.append(f"{it.id}: section heading {it.section.label_id!r} is not in the text")
    return out


def structure_problems(items: list[SeedItem]) -> list[str]:
    out = [f"{i} appears {n} times" for i, n in Counter(it.id for it in items).items() if n > 1]
    for prefix in ("S", "W"):
        codes = {it.section.id[2:] for it in items if it.id.startswith(prefix)}
        out += [f"{prefix}-{c}: no item in this section" for c in SECTION_CODES
                if c not in codes]
    return out


@pytest.fixture(scope="module")
def items() -> list[SeedItem]:
    return parse_seed_map(MAP.read_text("utf-8"))


def test_the_installed_map_is_the_one_in_specs(items: list[SeedItem]) -> None:
    assert load_seed_map() == items


def test_every_section_of_both_texts_has_items_and_ids_are_unique(items: list[SeedItem]) -> None:
    assert structure_problems(items) == []
    assert len(items) >= 100


@pytest.mark.parametrize("system", sorted(SEEDS))
def test_every_sentence_of_the_text_has_exactly_one_item(items: list[SeedItem],
                                                         system: str) -> None:
    assert coverage_problems(items, system, SEEDS[system].read_text("utf-8")) == []


def test_every_piece_of_evidence_exists(items: list[SeedItem]) -> None:
    assert [p for it in items for p in evidence_problems(it)] == []


def test_the_interviewer_test_items_are_the_report_cards_seed_clauses(
        items: list[SeedItem]) -> None:
    seed_clauses = {c.id for c in SCHEDULER_CLAUSES + WHEEL_CLAUSES
                    if c.source.startswith("seed:")}
    t_items = {it.id for it in items if it.section.id in ("S-T", "W-T")}
    assert t_items == seed_clauses
    for it in items:
        if it.id in seed_clauses:
            assert f"clause:{it.id}" in it.evidence


def test_a_broken_map_is_caught_item_by_item(items: list[SeedItem]) -> None:
    text = MAP.read_text("utf-8")
    # an item dropped: its sentences have no item any more
    m3 = re.search(r"^#### S-M3\n.*?(?=^#### )", text, re.M | re.S)
    assert m3 is not None
    dropped = parse_seed_map(text.replace(m3.group(0), ""))
    missing = coverage_problems(dropped, "scheduler", SEEDS["scheduler"].read_text("utf-8"))
    assert missing == ["scheduler: 'Hanya mengembalikan boolean siklus tanpa jalur "
                       "diagnostik.' is quoted by no item"]
    # words the text does not contain
    invented = parse_seed_map(text.replace("> Melupakan remainingRounds,",
                                           "> Melupakan sisa putaran,"))
    found = coverage_problems(invented, "wheel", SEEDS["wheel"].read_text("utf-8"))
    assert any(p.startswith("W-M2: 'Melupakan sisa putaran") for p in found)
    # evidence that does not exist, one of each kind
    bad = parse_seed_map(text.replace(
        "Evidence: `zoo:sched-boolean-cycle` · `clause:S-ORACLE-CYCLE`",
        "Evidence: `zoo:sched-no-such` · `clause:S99` · `z3:no-row` · "
        "`test:tests/impl/test_runner.py::test_nothing` · `spec:scheduler.md#decision-42` · "
        "`file:impl/nothing.py` · `oracle:x`"))
    m3_item = next(it for it in bad if it.id == "S-M3")
    assert len(evidence_problems(m3_item)) == 7
    with pytest.raises(ValueError, match="S-M3 has neither"):
        parse_seed_map(text.replace(
            "Evidence: `zoo:sched-boolean-cycle` · `clause:S-ORACLE-CYCLE`", ""))


def test_every_common_mistake_of_the_texts_is_a_zoo_entry_labelled_as_the_texts(
        items: list[SeedItem]) -> None:
    sources = {m.name: m.source for m in all_mutants()}
    for it in items:
        if it.section.id in ("S-M", "W-M"):
            zoo = [e[len("zoo:"):] for e in it.evidence if e.startswith("zoo:")]
            assert zoo, f"{it.id} names no zoo entry"
            assert all(sources[z].startswith("seed") for z in zoo), (it.id, zoo)
