"""Grading an answer item by item: what an item is, what it returns, the card.

An :class:`Item` is one point of an interview text (its id is the seed map's, e.g. ``S-M4``)
with a check. A check runs short programs on the learner's class and on the reference model
and returns ``None`` (held), one :class:`Miss` or a list of them (the steps that show each
mistake, already shrunk), or raises :class:`NotAttempted` (an optional part the class does
not have). Every item runs on its own: one mistake never hides the next item's verdict.

Each miss names the item that *owns* the rule it broke (``Miss.owner``). An item fails only
on misses it owns; a program that trips over another item's rule before reaching its subject
leaves the item "blocked by" that item, and the miss is shown once, under its owner (which
then fails even if its own programs never met it). A miss owned by ``capability:...`` is a
difference the interview text allows (the item is "not attempted"); a method that raises
NotImplementedError makes the item "not implemented"; an item whose check itself crashes on
the class fails with what it raised.

A miss's program is reduced by the suites' own delta debugging
(``schedcheck.practice.reduce``): steps, tasks, arguments and numbers, while the same item's
rule still breaks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from schedcheck import systems
from schedcheck.practice.seed_map import SeedItem, SeedSection, load_seed_map

__all__ = ["BLOCKED", "CAPABILITY", "FAIL", "NOT_ATTEMPTED", "NOT_IMPLEMENTED", "NOT_RUN",
           "PASS", "TALK", "Card", "Item", "ItemResult", "Miss", "NotAttempted", "declared_lack",
           "grade_items", "render_card"]

PASS, FAIL, NOT_ATTEMPTED, NOT_RUN, TALK = "pass", "FAIL", "not attempted", "not run", "talk"
BLOCKED, NOT_IMPLEMENTED = "blocked", "not implemented"
#: owner prefix of a miss that is a difference the interview text allows
CAPABILITY = "capability:"
#: owner of a miss that is a method raising NotImplementedError
UNFILLED = "not-implemented"

#: the sections a card shows, in order; "polish" is argument hygiene, shown last
CARD_SECTIONS = ("T", "M", "F", "polish")
_POLISH = ("argument hygiene: types, ranges, foreign objects, error names",) * 2


class NotAttempted(Exception):
    """The class lacks an optional part the item needs (an extension, an executor, ...)."""


@dataclass(frozen=True)
class Miss:
    """What went wrong: the program's lines (constructor first) and the disagreement."""

    steps: tuple[str, ...]
    message: str
    #: the item whose rule broke ("" = the item that found it; "A|B" = either: the one that
    #: found it if it is one of them, else A)
    owner: str = ""


Check = Callable[[Any], "Miss | list[Miss] | None"]


@dataclass(frozen=True)
class Item:
    id: str  #: the seed map's id ("S-M4"), or "S-polish-2" for argument hygiene
    section: str  #: "T", "M", "F" or "polish"
    title: str  #: what is checked, in English
    hint: str  #: shown when it fails: the text's point, and what to change
    check: Check | None  #: None: a discussion item, nothing to execute
    cost: bool = False  #: a timing-based scaling check (skipped by ``cost=False``)
    owns: tuple[str, ...] = ()  #: other owners whose misses count as this item's own


@dataclass
class ItemResult:
    item: Item
    status: str
    miss: Miss | None = None  #: the first of ``misses``
    note: str = ""
    misses: list[Miss] = field(default_factory=list)  #: every miss shown under this item


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
                cost: bool = True, lacking: dict[str, str] | None = None) -> Card:
    """Run every item on ``target`` (a factory with the contract's interface) and keep going;
    then move each miss to the item that owns it (see the module docstring). ``lacking``:
    items not attempted, with why (a part the class declares it lacks)."""
    card = Card(system, name)
    found: dict[str, list[Miss]] = {}
    for item in items:
        if item.check is None:
            card.results.append(ItemResult(item, TALK, note="a discussion point: see the hint"))
            continue
        if lacking and item.id in lacking:
            card.results.append(ItemResult(item, NOT_ATTEMPTED, note=lacking[item.id]))
            continue
        if item.cost and not cost:
            card.results.append(ItemResult(item, NOT_RUN, note="timing check skipped (--no-cost)"))
            continue
        try:
            got = item.check(target)
        except NotAttempted as exc:
            card.results.append(ItemResult(item, NOT_ATTEMPTED, note=str(exc)))
            continue
        except NotImplementedError as exc:
            got = Miss((), f"raised NotImplementedError: {exc}", UNFILLED)
        except Exception as exc:  # the item's verdict: what the class made it raise
            got = Miss((), f"checking this item raised {type(exc).__name__}: {exc}", item.id)
        misses = [] if got is None else [got] if isinstance(got, Miss) else list(got)
        misses = [_declared_lack(target, miss) for miss in misses]
        found[item.id] = misses
        card.results.append(ItemResult(item, PASS))
    _attribute(card, found)
    return card


#: which owner of an ambiguous miss shows it first: a common mistake, then what is tested
_SECTION_RANK = {"M": 0, "T": 1, "F": 2, "polish": 3}


def _attribute(card: Card, found: dict[str, list[Miss]]) -> None:
    """Each miss under the item that owns it, once; the others blocked by it. A miss that
    either of several items may own ("A|B": from outside the two mistakes look the same)
    goes to one of them that already shows a mistake of its own, so that one mistake is
    never shown under two items."""
    by_id = {r.item.id: r for r in card.results}

    def owners_of(miss: Miss, item: Item) -> list[str]:
        if miss.owner == UNFILLED or miss.owner.startswith(CAPABILITY):
            return [miss.owner]
        owners = [o for o in miss.owner.split("|") if o]  # "A|B": the rule of either
        if not owners or any(o in item.owns for o in owners):
            return [item.id]
        known = [o for o in owners if o in by_id]
        return known or [item.id]  # else the item that found it

    blocked: dict[str, list[str]] = {}
    moved: list[tuple[str, list[str], Miss]] = []
    for item_id, misses in found.items():
        item = by_id[item_id].item
        for miss in misses:
            owners = owners_of(miss, item)
            if owners == [item_id]:
                _add(by_id[item_id], miss)
            elif owners[0] == UNFILLED or owners[0].startswith(CAPABILITY):
                blocked.setdefault(item_id, []).append(owners[0])
                by_id[item_id].note = by_id[item_id].note or miss.message
            else:
                moved.append((item_id, owners, miss))
    # The misses of one owner first (an item another item's program showed to fail fails),
    # then an item's own ambiguous misses, the common mistakes' items before the others (a
    # mistake the text names is shown under its name): one it found itself is its own unless
    # another owner shows a mistake already; then the misses other items found.
    def rank(item_id: str) -> int:
        return _SECTION_RANK.get(by_id[item_id].item.section, len(_SECTION_RANK))

    moved.sort(key=lambda m: (len(m[1]) > 1, m[0] not in m[1], rank(m[0])))
    for item_id, owners, miss in moved:  # shown under one owner, unless it shows one already
        failing = [o for o in owners if by_id[o].status == FAIL]
        owner = failing[0] if failing else item_id if item_id in owners else min(owners,
                                                                                 key=rank)
        if owner == item_id:
            _add(by_id[item_id], miss)
            continue
        blocked.setdefault(item_id, []).append(owner)
        if by_id[owner].status == PASS:
            _add(by_id[owner], miss)
    for item_id, owners in blocked.items():
        r = by_id[item_id]
        if r.status == FAIL:
            continue
        if UNFILLED in owners:
            r.status = NOT_IMPLEMENTED
            continue
        caps = [o for o in owners if o.startswith(CAPABILITY)]
        others = [o for o in owners if o not in caps]
        if others:
            r.status = BLOCKED
            r.note = "blocked by " + ", ".join(dict.fromkeys(others)) + (
                ": its program broke that rule before reaching this one (shown there)")
        else:
            r.status = NOT_ATTEMPTED
            r.note = caps[0][len(CAPABILITY):]


def _add(result: ItemResult, miss: Miss) -> None:
    if any(m.message == miss.message for m in result.misses):
        return
    result.misses.append(miss)
    result.miss = result.misses[0]
    result.status = FAIL


def _declared_missing(caps: Any) -> list[str]:
    """The operations an adapter declares it does not have."""
    if getattr(caps, "cancel", None) == "missing":
        return ["cancel"]
    return [op for op in ("fail", "cancel", "close", "info") if getattr(caps, op, True) is False]


#: a part a class can declare it lacks, in the words of a card's note
_LACK_WORDS = {"cancel": "cancel()", "fail": "fail()", "close": "close()",
               "info": "info() (its states cannot be read)", "validates_args": "argument checks"}


def declared_lack(what: str) -> str:
    """The one wording of an item not graded because the class declares it lacks ``what`` (an
    operation's name, ``"validates_args"``, or a part in words): the same whether the item is
    known beforehand to need that part (``items.lacking_items``) or one of its programs runs
    into it (a miss owned by that capability)."""
    return f"the class declares it lacks {_LACK_WORDS.get(what, what)}"


def _declared_lack(target: Any, miss: Miss) -> Miss:
    """For an adapter (it declares its capabilities): a miss that comes from a part it
    declares it lacks -- a method it does not have, or argument checks it does not make --
    is owned by that capability, so the item is not graded rather than failed. Only the
    adapter's own missing attribute counts: an AttributeError from deeper down is a miss."""
    from schedcheck.targets.adapters import capabilities_of

    caps = capabilities_of(target)
    if caps is None:
        return miss
    missing = _declared_missing(caps)
    lacks = ""
    own = f"'{getattr(target, '__name__', '')}' object has no attribute '"
    if own in miss.message:
        name = miss.message.split(own, 1)[1].split("'", 1)[0]
        lacks = name if name in missing else f"{name} (an adapter has only what it maps)"
    for op in missing:
        if not lacks and (miss.message.startswith(f"{op} raised") or f"{op}(" in miss.message):
            lacks = op
    if not lacks and not caps.validates_args and "yours no error" in miss.message and any(
            e in miss.message for e in ("TypeError", "ValueError")):
        lacks = "validates_args"
    return replace(miss, owner=CAPABILITY + declared_lack(lacks)) if lacks else miss


_MARK = {PASS: "ok  ", FAIL: "FAIL", NOT_ATTEMPTED: "--  ", NOT_RUN: "..  ", TALK: "talk",
         BLOCKED: "blkd", NOT_IMPLEMENTED: "todo"}


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
    """The card as plain text: one block per section (the text's heading in English, then the
    original's in parentheses), one line per item, and under each failed or talk item the
    text's words in English (``specs/interview/``), its hint and its steps."""
    words = {it.id: it.gloss for it in load_seed_map()}
    labels = _sections(card.system)
    lines = [f"schedcheck grade {card.system} {card.target}"]
    for sec in CARD_SECTIONS:
        rows = [r for r in card.results if r.item.section == sec]
        if not rows:
            continue
        label_id, label_en = labels[sec]
        held = sum(r.status == PASS for r in rows)
        graded = sum(r.status in (PASS, FAIL, NOT_IMPLEMENTED) for r in rows)
        title = label_en[:1].upper() + label_en[1:]
        original = f" ({label_id})" if label_id != label_en else ""
        lines += ["", f"== {title}{original}  ({held}/{graded} held)"]
        for r in rows:
            lines.append(f"  [{_MARK[r.status]}] {r.item.id:<12} {r.item.title}")
            if r.item.id in words and r.status in (FAIL, TALK):
                lines.append(f"         «{words[r.item.id]}»")
            if r.note and r.status != TALK:
                lines.append(f"         {r.note}")
            if r.status in (FAIL, TALK):
                lines.append(f"         hint: {r.item.hint}")
            for miss in r.misses if r.status == FAIL else ():
                lines.append(f"         what happened: {miss.message}")
                lines += [f"           {s}" for s in miss.steps]
    failed = card.failed
    todo = [r.item.id for r in card.results if r.status == NOT_IMPLEMENTED]
    blocked = [r.item.id for r in card.results if r.status == BLOCKED]
    lines += ["", f"{len(card.passed)} held, {len(failed)} failed"
              + (f": {', '.join(failed)}" if failed else "")
              + (f"; {len(blocked)} blocked by another item's rule" if blocked else "")
              + (f"; {len(todo)} not implemented (a method raises NotImplementedError)"
                 if todo else "")]
    return "\n".join(lines)
