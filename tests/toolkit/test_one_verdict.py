"""The card (card.txt), report.json and the HTML page show the same verdict and reason for
every clause, on a real run that has every kind of verdict: broken (with its replay), held,
not reached and not supported."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from schedcheck import pipeline
from schedcheck.harness.clauses import SEED_RULES
from schedcheck.report.card import NOT_SUPPORTED
from schedcheck.report.page import check_html
from schedcheck.report.writer import write_run
from schedcheck.targets.adapters import WheelCapabilities
from schedcheck.zoo.wheel_mutants import ForgottenRoundsWheel


class NoCancelForgottenRounds(ForgottenRoundsWheel):
    """A wheel that forgets its rounds and declares no cancel(): broken, held, not reached
    and not supported clauses in one run."""

    capabilities = WheelCapabilities(cancel="missing")


def _card_rows(text: str) -> dict[str, str]:
    """clause id -> verdict, as card.txt prints them (a folded group: each id with the
    group's verdict)."""
    rows: dict[str, str] = {}
    verdicts = r"(broken|held|not reached|not exercised|not supported|unknown|\S+)"
    for line in text.splitlines():
        row = re.match(rf"^(?:!!|  )(\S+)\s+{verdicts}\s+\d+\s", line)
        if row and row.group(1) != "clause":
            rows[row.group(1)] = row.group(2)
        group = re.match(r"^  \d+ clauses (not supported|not reached): (.*)$", line)
        if group:
            rows.update({cid.strip(): group.group(1) for cid in group.group(2).split(",")})
    return rows


def test_card_report_json_and_html_agree_on_every_clause(tmp_path: Path) -> None:
    spec = f"{__name__}:NoCancelForgottenRounds"
    result = pipeline.check("wheel", NoCancelForgottenRounds, target_name=spec,
                            examples=60, seed=0, cost=False, first=True)
    write_run(result, tmp_path, target_spec=spec, cwd=str(Path.cwd()), with_pictures=False)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    card = _card_rows((tmp_path / "card.txt").read_text(encoding="utf-8"))
    page = html.unescape((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert page == html.unescape(check_html(result, spec, {}, {})) or "<figure>" not in page

    rows = [row for section in report["card"] for row in section["rows"]]
    assert {row["verdict"] for row in rows} >= {"broken", "held", NOT_SUPPORTED}, rows
    assert any(row["verdict"] not in ("broken", "held", NOT_SUPPORTED) for row in rows), rows
    for row in rows:
        assert card.get(row["id"]) == row["verdict"], (row, card.get(row["id"]))
        cell = re.search(rf"<code>{re.escape(row['id'])}</code>.*?<td class=\"v-[^\"]*\">"
                         rf"([^<]*)</td><td class=\"num\">\d+</td><td>([^<]*)</td>", page)
        assert cell is not None, row["id"]
        assert cell.group(1) == row["verdict"], (row, cell.group(1))
        assert cell.group(2).startswith(row["reason"]), (row, cell.group(2))
        if row["verdict"] == "held":
            assert row["reason"] == "", row
        if row["verdict"] == "broken" and row["id"] in SEED_RULES:  # broken with its rule
            assert any(rule in row["reason"] for rule in SEED_RULES[row["id"]]), row
        elif row["verdict"] == "broken":
            assert row["replay"].startswith("verified: fails at step"), row
            assert f'href="{row["id"]}/replay.py"' in page or 'href="replay.py"' in page


def test_a_core_level_run_puts_the_contract_clauses_on_the_card_as_report_json_does(
        tmp_path: Path) -> None:
    """``--level core``: the clauses of the contract level were not run; the card says so for
    each, as report.json does, and never that the contract level is not supported."""
    from schedcheck.impl import HashedTimingWheel

    spec = "schedcheck.impl:HashedTimingWheel"
    result = pipeline.check("wheel", HashedTimingWheel, target_name=spec, examples=30, seed=0,
                            cost=False, levels=True, level="core")
    write_run(result, tmp_path, target_spec=spec, cwd=str(Path.cwd()), with_pictures=False)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    text = (tmp_path / "card.txt").read_text(encoding="utf-8")
    card = _card_rows(text)
    assert "contract level -- not run (--level core)" in text
    assert {c["id"] for c in report["clauses"]} == set(card)
    for clause in report["clauses"]:
        assert card[clause["id"]] == clause["verdict"], clause
        if clause["verdict"] == "not reached":
            assert clause["reason"].endswith("(not run: --level core)"), clause
    assert "not supported" not in text
