"""Pictures from snapshots (lanes, task graph, ring, timeline, cycle, deadlock) and index.html."""

from __future__ import annotations

from pathlib import Path

from schedcheck.harness.result import Counterexample, Step
from schedcheck.report import render
from schedcheck.report.html import choose_showcase, index_html, inline_svg
from schedcheck.report.kill_matrix import kill_matrix_text
from schedcheck.report.verify import SuiteRun, VerifyReport
from schedcheck.report.writer import Written
from schedcheck.zoo.catalogue import Mutant
from schedcheck.zoo.run import KillRow

from .fakes import cycle_counterexample, scheduler_result, wheel_counterexample


def test_lanes_have_one_cluster_per_thread_and_the_divergence_in_red() -> None:
    source = render.pictures(scheduler_result().counterexample).get("lanes").source
    assert source.count("subgraph cluster_") == 3  # caller, w1, w2
    assert "expected (model): ('STALE', 'RUNNING')" in source
    assert "actual (implementation): ('APPLIED', 'SUCCEEDED')" in source
    assert "#d62728" in source


def test_task_graph_outlines_exactly_the_tasks_that_differ() -> None:
    cx = scheduler_result().counterexample
    cx.snapshot["impl"]["'b'"] = dict(cx.snapshot["model"]["'b'"])  # only 'a' differs now
    source = render.pictures(cx)["tasks"].source
    red = [ln for ln in source.splitlines() if "penwidth=3" in ln]
    assert len(red) == 2 and all("_a_" in ln for ln in red)  # 'a' on both sides


def test_wheel_pictures_show_rounds_deadlines_and_the_timeline() -> None:
    pics = render.pictures(wheel_counterexample())
    assert set(pics) == {"lanes", "ring", "timeline"}
    ring = pics["ring"].source
    assert "deadline 5" in ring and "rounds 0" in ring and "cursor" in ring
    timeline = pics["timeline"].source
    assert "fired: h_0" in timeline


def test_cycle_edges_are_checked_against_the_graph_with_networkx() -> None:
    source = render.pictures(cycle_counterexample())["cycle"].source
    assert source.count('label="not an edge"') == 1  # b -> a is not in the graph
    assert "#2ca02c" in source  # a -> b is


def test_deadlock_draws_the_wait_for_cycle_in_red() -> None:
    cx = Counterexample("scheduler", "S-LIN", "deadlock", [Step(0, "x", "x")], "target = f(1)",
                        snapshot={"wait_for": [["t1", "t2"], ["t2", "t1"], ["t3", "t1"]]})
    source = render.pictures(cx)["deadlock"].source
    assert source.count("penwidth=3") == 2


def test_labels_from_the_target_are_never_html_or_escapes() -> None:
    cx = Counterexample("wheel", "W3", "m", [Step(0, "h = t.schedule(1, f)", "schedule",
                                                  actual="<Handle at 0x1 \\ odd>",
                                                  diverged=True)], "target = f(1, 4)")
    g = render.pictures(cx)["lanes"]
    assert "<Handle at 0x1 \\\\ odd>" in g.source
    if render.dot_available():
        svg = render.render_svg(g)
        assert svg is not None and "&lt;Handle at 0x1" in svg


def _report(tmp_path: Path) -> VerifyReport:
    broken = scheduler_result()
    report = VerifyReport(tmp_path)
    report.suites.append(SuiteRun("scheduler-impl", scheduler_result(broken=False),
                                  Written(tmp_path)))
    mutants = [
        Mutant("sched-no-generation", "scheduler", "drops the generation from complete()",
               "seed 000: common mistakes", "S4", object),
        Mutant("wheel-early", "wheel", "rounds from the absolute tick",
               "extra (not in the interview texts)",
               "W-INV-EARLY", object),
        Mutant("sched-survivor", "scheduler", "a mistake nothing catches", "test", "S1", object),
    ]
    wheel_result = scheduler_result()
    wheel_result.counterexample = wheel_counterexample()
    report.zoo = [KillRow(mutants[0], True, "S4", 3, 0.4, result=broken),
                  KillRow(mutants[1], True, "W-INV-EARLY", 5, 0.2, result=wheel_result),
                  KillRow(mutants[2], False, None, 100, 9.0)]
    report.unavailable.append("concurrency checking (--threads) is not available in this build")
    return report


def test_index_html_embeds_svg_pictures_cards_and_the_kill_matrix(tmp_path: Path) -> None:
    page = index_html(_report(tmp_path))
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org", "")
    if render.dot_available():
        assert page.count("<svg") >= 4 and "<?xml" not in page and "<!DOCTYPE svg" not in page
    assert "sched-no-generation" in page and "SURVIVED" in page
    assert "2/3 killed" in page
    assert "not reached" in page and "not available in this build" in page
    assert "drops the generation from complete()" in page


def test_showcase_prefers_one_entry_per_system() -> None:
    chosen = choose_showcase(_report(Path(".")).zoo or [], k=2)
    assert {r.mutant.system for r in chosen} == {"scheduler", "wheel"}


def test_verify_report_is_not_ok_while_a_mutant_survives(tmp_path: Path) -> None:
    report = _report(tmp_path)
    assert not report.ok
    report.zoo = [r for r in report.zoo or [] if r.killed]
    assert report.ok


def test_inline_svg_strips_the_xml_prolog() -> None:
    svg = '<?xml version="1.0"?>\n<!DOCTYPE svg>\n<!-- c -->\n<svg width="1"><!-- x --></svg>'
    assert inline_svg(svg) == '<svg width="1"></svg>'


def test_kill_matrix_text_marks_survivors() -> None:
    text = kill_matrix_text(_report(Path(".")).zoo or [])
    assert any(ln.startswith("!!sched-survivor") and "SURVIVED" in ln for ln in text.splitlines())
    assert text.rstrip().endswith("2/3 killed")


def test_an_empty_reported_cycle_is_drawn_with_the_cycle_networkx_finds() -> None:
    cx = cycle_counterexample()
    cx.snapshot = {"cycle": [], "edges": [["'a'", "'b'"], ["'b'", "'a'"]]}
    source = render.pictures(cx)["cycle"].source
    assert "the target reported cycle=[]: no path" in source
    assert "a cycle networkx finds" in source and source.count("#2ca02c") >= 2


def test_exhaustive_scenarios_show_schedule_counts_and_a_violation_fails_verify(
    tmp_path: Path,
) -> None:
    from types import SimpleNamespace

    report = _report(tmp_path)
    report.zoo = [r for r in report.zoo or [] if r.killed]
    clean = SimpleNamespace(name="last-slot", system="scheduler", words="two workers claim",
                            target="impl.Scheduler", bound=2, schedules={0: 1, 1: 9, 2: 55},
                            complete=True, violation=None)
    report.scenarios = [clean]
    assert report.ok
    page = index_html(report)
    assert "55 within 2" in page and "no violation within bound 2" in page
    report.scenarios.append(SimpleNamespace(**{**vars(clean), "violation": "lost update"}))
    assert not report.ok
    assert "VIOLATION: lost update" in index_html(report)
