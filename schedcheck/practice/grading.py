"""Grading an answer item by item: what an item is, what it returns, shrinking, the card.

An :class:`Item` is one point of an interview text (its id is the seed map's, e.g. ``S-M4``)
with a check. A check runs short programs on the learner's class and on the reference model
and returns ``None`` (held), a :class:`Miss` (the steps that show the mistake, already shrunk),
or raises :class:`NotAttempted` (an optional part the class does not have). Every item runs
on its own: one mistake never hides the next item's verdict.

Shrinking (:func:`shrink`) is a greedy pass over a recorded program: drop one step at a time
while the same kind of disagreement remains, until no single step can go. Programs are short
(under twenty steps), so this is cheap and gives the essential steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedcheck import systems
from schedcheck.practice.seed_map import SeedItem, SeedSection, load_seed_map

__all__ = ["FAIL", "NOT_ATTEMPTED", "NOT_RUN", "PASS", "TALK", "Card", "Item", "ItemResult",
           "Miss", "NotAttempted", "grade_items", "render_card", "shrink"]

PASS, FAIL, NOT_ATTEMPTED, NOT_RUN, TALK = "pass", "FAIL", "not attempted", "not run", "talk"

#: the sections a card shows, in order; "polish" is argument hygiene, shown last
CARD_SECTIONS = ("T", "M", "F", "polish")
_POLISH = ("Kerapian (polish)", "argument hygiene: types, ranges, foreign objects, error names")


class NotAttempted(Exception):
    """The class lacks an optional part the item needs (an extension, an executor, ...)."""


@dataclass(frozen=True)
class Miss:
    """What went wrong: the program's lines (constructor first) and the disagreement."""

    steps: tuple[str, ...]
    message: str


Check = Callable[[Any], "Miss | None"]


@dataclass(frozen=True)
class Item:
    id: str  #: the seed map's id ("S-M4"), or "S-polish-2" for argument hygiene
    section: str  #: "T", "M", "F" or "polish"
    title: str  #: what is checked, in English
    hint: str  #: shown when it fails: the text's point, and what to change
    check: Check | None  #: None: a discussion item, nothing to execute
    cost: bool = False  #: a timing-based scaling check (skipped by ``cost=False``)


@dataclass
class ItemResult:
    item: Item
    status: str
    miss: Miss | None = None
    note: str = ""


@dataclass
class Card:
    system: str
    target: str
    results: list[ItemResult] = field(default_factory=list)

    @property
    def failed(self) -> list[str]:
        return [r.item.id for r in self.results if r.status == FAIL]

    @property
    def passed(self) -> list[str]:
        return [r.item.id for r in self.results if r.status == PASS]

    def __repr__(self) -> str:  # short: a notebook shows it under every check() cell
        failed = self.failed
        return (f"<Card {self.system} {self.target}: {len(self.passed)} held, "
                f"{len(failed)} failed{': ' + ', '.join(failed) if failed else ''}>")


def grade_items(items: Sequence[Item], target: Any, *, system: str, name: str,
                cost: bool = True) -> Card:
    """Run every item on ``target`` (a factory with the contract's interface) and keep going."""
    card = Card(system, name)
    for item in items:
        if item.check is None:
            card.results.append(ItemResult(item, TALK, note="a discussion point: see the hint"))
            continue
        if item.cost and not cost:
            card.results.append(ItemResult(item, NOT_RUN, note="timing check skipped (--no-cost)"))
            continue
        try:
            miss = item.check(target)
        except NotAttempted as exc:
            card.results.append(ItemResult(item, NOT_ATTEMPTED, note=str(exc)))
            continue
        lacks = _declared_lack(target, miss)
        if lacks:
            card.results.append(ItemResult(item, NOT_ATTEMPTED, note=lacks))
            continue
        card.results.append(ItemResult(item, PASS if miss is None else FAIL, miss))
    return card


def _declared_missing(caps: Any) -> list[str]:
    """The operations an adapter declares it does not have."""
    if getattr(caps, "cancel", None) == "missing":
        return ["cancel"]
    return [op for op in ("fail", "cancel", "close", "info") if getattr(caps, op, True) is False]


def _declared_lack(target: Any, miss: Miss | None) -> str:
    """For an adapter (it declares its capabilities): why a miss comes from a part it
    declares it lacks -- a method it does not have, or argument checks it does not make --
    so the item is not graded rather than failed; "" otherwise."""
    from schedcheck.adapters import capabilities_of

    caps = capabilities_of(target)
    if caps is None or miss is None:
        return ""
    if "has no attribute" in miss.message:
        return f"not supported by this adapter ({miss.message.split(': ', 1)[-1]})"
    for op in _declared_missing(caps):
        if miss.message.startswith(f"{op} raised") or f"{op}(" in miss.message:
            return f"not supported by this adapter: it declares no {op}()"
    if not caps.validates_args and "yours no error" in miss.message and any(
            e in miss.message for e in ("TypeError", "ValueError")):
        return "not supported by this adapter: it declares validates_args=False"
    return ""


def shrink(program: Sequence[Any], disagrees: Callable[[Sequence[Any]], bool]) -> list[Any]:
    """The shortest program found by dropping single steps while ``disagrees`` stays true."""
    best = list(program)
    changed = True
    while changed:
        changed = False
        for i in range(len(best) - 1, -1, -1):
            candidate = best[:i] + best[i + 1:]
            if candidate and disagrees(candidate):
                best, changed = candidate, True
    return best


_MARK = {PASS: "ok  ", FAIL: "FAIL", NOT_ATTEMPTED: "--  ", NOT_RUN: "..  ", TALK: "talk"}


def _sections(system: str) -> dict[str, tuple[str, str]]:
    prefix = systems.get(system).short
    out: dict[str, tuple[str, str]] = {}
    seed_items: list[SeedItem] = load_seed_map()
    for it in seed_items:
        sec: SeedSection = it.section
        if sec.id.startswith(prefix + "-"):
            out.setdefault(sec.id[2:], (sec.label_id, sec.label_en))
    out["polish"] = _POLISH
    return out


def render_card(card: Card) -> str:
    """The card as plain text: one block per section (the text's heading and its English),
    one line per item, and under each failed item its hint and its steps."""
    words = {it.id: it.words for it in load_seed_map()}
    labels = _sections(card.system)
    lines = [f"schedcheck grade {card.system} {card.target}"]
    for sec in CARD_SECTIONS:
        rows = [r for r in card.results if r.item.section == sec]
        if not rows:
            continue
        label_id, label_en = labels[sec]
        held = sum(r.status == PASS for r in rows)
        graded = sum(r.status in (PASS, FAIL) for r in rows)
        lines += ["", f"== {label_id} — {label_en}  ({held}/{graded} held)"]
        for r in rows:
            lines.append(f"  [{_MARK[r.status]}] {r.item.id:<12} {r.item.title}")
            if r.item.id in words and r.status in (FAIL, TALK):
                lines.append(f"         «{words[r.item.id]}»")
            if r.note and r.status != TALK:
                lines.append(f"         {r.note}")
            if r.status in (FAIL, TALK):
                lines.append(f"         hint: {r.item.hint}")
            if r.miss is not None:
                lines.append(f"         what happened: {r.miss.message}")
                lines += [f"           {s}" for s in r.miss.steps]
    failed = card.failed
    lines += ["", f"{len(card.passed)} held, {len(failed)} failed"
              + (f": {', '.join(failed)}" if failed else "")]
    return "\n".join(lines)
