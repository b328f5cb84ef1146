"""Hand-made RunResults and Counterexamples, so the toolkit is tested without running a suite."""

from __future__ import annotations

from schedcheck.harness.result import Counterexample, RunResult, Step


def scheduler_counterexample() -> Counterexample:
    steps = [
        Step(0, "gen_0 = target.submit('a', deps=())", "submit 'a' with no dependencies",
             expected="1", actual="1", check="_raised is None and gen_0 == 1"),
        Step(1, "gen_1 = target.submit('b', deps=('a',))", "submit 'b' after 'a'",
             expected="1", actual="1", check="_raised is None and gen_1 == 1"),
        Step(2, "target.start()", "start scheduling", check="_raised is None"),
        Step(3, "claim_0 = target.ready()", "worker w1 claims", thread="w1",
             expected="[('a', 1)]", actual="[('a', 1)]",
             check="_raised is None and norm_claims(claim_0) == [('a', 1)]"),
        Step(4, "reply_0 = target.complete('a', 2)", "worker w2 completes 'a' generation 2",
             thread="w2", expected="('STALE', 'RUNNING')", actual="('APPLIED', 'SUCCEEDED')",
             diverged=True, clause="S4",
             check="_raised is None and norm_reply(reply_0) == ('STALE', 'RUNNING')"),
    ]
    return Counterexample(
        system="scheduler", clause="S4",
        message="complete() of a generation that is not current must be STALE",
        steps=steps, setup="target = factory(2)", seed=7,
        snapshot={
            "model": {"'a'": {"state": "RUNNING", "generation": 1, "cause": None},
                      "'b'": {"state": "PENDING", "generation": 1, "cause": None}},
            "impl": {"'a'": {"state": "SUCCEEDED", "generation": 1, "cause": None},
                     "'b'": {"state": "READY", "generation": 1, "cause": None}},
            "edges": [["'a'", "'b'"]],
        },
    )


def scheduler_result(*, broken: bool = True) -> RunResult:
    result = RunResult.fresh("scheduler", "fake.py:Scheduler")
    result.examples, result.steps, result.seconds, result.seed = 12, 140, 0.5, 7
    for cid in ("S1", "S2", "S3", "S4", "S-INV"):
        result.exercise(cid, 10)
    result.unsupported_clause("S-X-RETRY")
    if broken:
        result.counterexample = scheduler_counterexample()
        result.break_("S4")
    return result


def wheel_counterexample() -> Counterexample:
    steps = [
        Step(0, "h_0 = target.schedule(5, cb)", "schedule a timer for time 5",
             check="_raised is None"),
        Step(1, "fired_0 = target.advance(3)", "advance to time 3", thread="tick",
             expected="[]", actual="[h_0]", diverged=True, clause="W-INV-EARLY",
             check="_raised is None and fired_0 == []"),
    ]
    return Counterexample(
        system="wheel", clause="W-INV-EARLY", message="a timer fired before its deadline",
        steps=steps, setup="target = factory(1, 4)\ncb = lambda: None",
        snapshot={"tick": 3, "wheel_size": 4,
                  "timers": [{"name": "h_0", "deadline": 5, "due": 5, "rounds": 0,
                              "bucket": 1, "diverged": True}],
                  "timeline": [{"tick": 0, "fired": [], "cancelled": []},
                               {"tick": 1, "fired": ["h_0"], "cancelled": [],
                                "diverged": True}]},
    )


def cycle_counterexample() -> Counterexample:
    cx = scheduler_counterexample()
    cx.clause = "S2"
    cx.snapshot = {"cycle": ["'a'", "'b'", "'a'"], "edges": [["'a'", "'b'"], ["'c'", "'a'"]]}
    return cx


def database_env() -> dict[str, str]:
    """The environment for a child process that must use Hypothesis's example database.

    Hypothesis loads its own ``ci`` settings profile (``database=None``) when it sees a CI
    variable such as ``CI``; a user's CI does the same, so the child runs without those
    variables and keeps schedcheck's profile explicitly instead. pytest-xdist's variables are
    dropped so that the child is a plain pytest run."""
    import os

    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_XDIST") and k not in ("CI", "TF_BUILD", "GITHUB_ACTIONS",
                                                             "CODEBUILD_BUILD_ID", "BUILDKITE",
                                                             "CIRCLECI", "GITLAB_CI")}
    if "CI" in os.environ:
        env.setdefault("SCHEDCHECK_PROFILE", "ci")
    return env
