"""The seed map (``specs/seed-map.md``) as data: one :class:`SeedItem` per item of the two texts.

The map is markdown written for people; this module is the one place that reads it. Format,
per item::

    #### S-T3
    > the text's own words (one line; several sentences may share an item)
    ```text
    pseudocode lines of the text, when the item is a code block
    ```
    English gloss (one paragraph)
    Evidence: `kind:name` · `kind:name`        (or)        Prose: why nothing executes it

Sections are ``### S-T · <the text's heading> — <English heading>``. The interview texts
themselves are ``specs/seeds/*.txt``; :func:`seed_units` splits one into headings, sentences
and code lines the way the map's test compares them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

__all__ = ["EVIDENCE_KINDS", "SeedItem", "SeedSection", "load_seed_map", "parse_seed_map",
           "seed_units"]

#: the evidence kinds an item may name (``kind:name``)
EVIDENCE_KINDS = ("clause", "z3", "zoo", "test", "bench", "spec", "file", "grade")

_SECTION = re.compile(r"^### ([SW])-([A-Z]) · (.+?) — (.+)$")
_ITEM = re.compile(r"^#### ([SW]-[A-Z][0-9.]+)$")
_TICKED = re.compile(r"`([^`]+)`")
_CODE_LINE = re.compile(r"^\w+(\([^)]*\))?:$")


@dataclass(frozen=True)
class SeedSection:
    id: str  #: "S-T"
    system: str  #: "scheduler" or "wheel"
    label_id: str  #: the text's own heading (Indonesian)
    label_en: str  #: its English gloss


@dataclass(frozen=True)
class SeedItem:
    id: str  #: "S-T3"
    section: SeedSection
    words: str  #: the text's own sentences (Indonesian), "" for a code-only item
    code: tuple[str, ...]  #: the text's pseudocode lines, when the item quotes a code block
    gloss: str  #: English
    evidence: tuple[str, ...]  #: "kind:name" strings
    prose: str | None  #: why nothing executable verifies it (then evidence may be empty)

    @property
    def system(self) -> str:
        return self.section.system


def parse_seed_map(text: str) -> list[SeedItem]:
    """Every item of the map, in order. Raises ``ValueError`` naming the line of a malformed
    item (an item outside a section, without words or gloss, or with neither evidence nor
    prose)."""
    items: list[SeedItem] = []
    section: SeedSection | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _SECTION.match(line)
        if m:
            system = "scheduler" if m.group(1) == "S" else "wheel"
            section = SeedSection(f"{m.group(1)}-{m.group(2)}", system, m.group(3), m.group(4))
            i += 1
            continue
        m = _ITEM.match(line)
        if not m:
            i += 1
            continue
        item_id, start = m.group(1), i + 1
        if section is None or not item_id.startswith(section.id):
            raise ValueError(f"line {i + 1}: item {item_id} is not under its section heading")
        i += 1
        body: list[str] = []
        while i < len(lines) and not lines[i].startswith("#"):
            body.append(lines[i])
            i += 1
        items.append(_item(item_id, section, body, start))
    return items


def _item(item_id: str, section: SeedSection, body: list[str], line_no: int) -> SeedItem:
    words: list[str] = []
    code: list[str] = []
    gloss: list[str] = []
    evidence: tuple[str, ...] = ()
    prose: str | None = None
    in_code = False
    for line in body:
        if line.startswith("```"):
            in_code = not in_code
        elif in_code:
            code.append(line)
        elif line.startswith("> "):
            words.append(line[2:].strip())
        elif line.startswith("Evidence:"):
            evidence = tuple(_TICKED.findall(line))
        elif line.startswith("Prose:"):
            prose = line[len("Prose:"):].strip()
        elif line.strip():
            gloss.append(line.strip())
    where = f"line {line_no}: item {item_id}"
    if not words and not code:
        raise ValueError(f"{where} quotes none of the text's words ('> ...' or a code block)")
    if not gloss:
        raise ValueError(f"{where} has no English gloss")
    if not evidence and not prose:
        raise ValueError(f"{where} has neither 'Evidence:' nor 'Prose:' with a reason")
    return SeedItem(item_id, section, " ".join(words), tuple(code), " ".join(gloss), evidence,
                    prose)


def load_seed_map() -> list[SeedItem]:
    """The installed map (``schedcheck.specs/seed-map.md``), parsed."""
    text = resources.files("schedcheck.specs").joinpath("seed-map.md").read_text("utf-8")
    return parse_seed_map(text)


def seed_units(text: str) -> list[tuple[str, str]]:
    """An interview text as ``(kind, text)`` units: ``heading`` (the first line, and every line
    that does not end in '.', '?' or ':'), ``code`` (indented lines and ``name(args):`` lines of
    pseudocode, right-stripped) and ``sentence`` (prose lines split after '.', '?', '!')."""
    out: list[tuple[str, str]] = []
    for n, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        if n == 0 or (not line[0].isspace() and not re.search(r"[.?:]$", line.strip())):
            out.append(("heading", line.strip()))
        elif line[0].isspace() or _CODE_LINE.match(line):
            out.append(("code", line.rstrip()))
        else:
            out.extend(("sentence", s) for s in re.split(r"(?<=[.?!])\s+", line.strip()))
    return out
