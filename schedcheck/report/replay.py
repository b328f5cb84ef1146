"""The replay script: a counterexample as a standalone program (Hypothesis-style).

``replay_script(cx, target_spec, cwd)`` returns the text of a Python file that

* needs only the target and the standard library: it carries its own copies of
  ``schedcheck.report.replay_runtime`` (loading the target, the step time limit, the failure
  messages), of ``schedcheck.targets.adapt`` (how the check reads replies) and of the test doubles
  the check handed to the target (the wheel's named callbacks and recording executor, the
  scheduler's ``noop``) -- source, never a repr;
* loads the target exactly as ``schedcheck check`` did (``module:attr`` importable from the
  folder the check ran in, or ``path/to/file.py:attr`` by absolute path; adapters are plain
  factories, so they are built the same way), then builds it with the counterexample's
  constructor line and runs one block per step: a comment with the step in words (and, on the
  diverging step, the model's and the implementation's results), the step's code under the
  check's step time limit, and its checks;
* fails at the diverging step with an ``AssertionError`` whose message starts ``step N`` for
  every kind of clause: a reply that differs from the model's (``Step.check``), a step that
  did again what broke an invariant or an oracle (``Step.observed``: the target's reply as
  the check saw it, for clauses with no model reply to compare), or a call that hangs (the
  step time limit);
* prints "did not reproduce" and exits 0 when every check passes (a fixed or flaky target).

Thread switches are explicit comment lines (``# -- thread w1``), and the file ends with the
``schedcheck check ... --seed S`` command that found it. ``schedcheck.report.verify_replay``
runs each script before it is shown.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from schedcheck.harness import guard
from schedcheck.harness.result import Counterexample, Step
from schedcheck.report.replay_runtime import current_hash_seed

__all__ = ["replay_script"]

_HEADER = '''\
#!/usr/bin/env python3
"""Replay of a schedcheck counterexample -- run it with `python3 {filename}`.

system:  {system}
target:  {target}
broken:  {clause}
{message}

It loads the target the way `schedcheck check` did, replays the {n} steps below, and fails
with an AssertionError at step {diverging} if the target still behaves this way; once it is
fixed, it prints "did not reproduce" and exits 0. `python3 {filename} --target FILE.py:ATTR`
(or `module:ATTR`) runs the same steps on another implementation. {needs}
Found by: {command}
"""

from __future__ import annotations

# ---- loading the target, the step time limit, the failure messages
{runtime}
# ---- how the check reads replies (a copy of schedcheck.targets.adapt)
{adapt}
{doubles}
TARGET = {target!r}
CHECKED_IN = {cwd!r}  #: the folder `schedcheck check` ran in
#: where the checking python imported from: used only if the target's own imports need them
SEARCH_PATHS = {paths!r}
STEP_SECONDS = {step_seconds!r}  #: the check's time limit for one call
#: the str hash seed the check ran with (None: random): the script runs again under it once
HASH_SEED = {hash_seed!r}

{exec_client}{factory_line}
'''


def install_paths() -> list[str]:
    """The folders the checking python imports from (site-packages, with the .pth of an
    editable install, the folder that holds schedcheck, and the ``PYTHONPATH`` it ran with):
    a target that imports schedcheck itself (a zoo mutant, an adapter), or a module found on
    that ``PYTHONPATH``, is found there when run by another python (``python3 -I`` ignores
    the variable)."""
    import sysconfig

    import schedcheck

    paths = [sysconfig.get_paths()["purelib"],
             os.path.dirname(os.path.dirname(os.path.abspath(schedcheck.__file__)))]
    paths += [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
              if p and os.path.isdir(p)]
    return list(dict.fromkeys(paths))


def _copy_of(path: str) -> str:
    """A module's source for the script, without its docstring, ``from __future__`` line,
    ``__all__`` and imports of schedcheck (the script carries what they import)."""
    text = Path(path).read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.splitlines()
    drop: set[int] = set()
    for node in tree.body:
        docstring = (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                     and isinstance(node.value.value, str))
        ours = isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in (
            "__future__", "schedcheck")
        exported = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        if docstring or ours or exported:
            end = node.end_lineno or node.lineno
            drop.update(range(node.lineno - 1, end))
    return "\n".join(ln for i, ln in enumerate(lines) if i not in drop).strip("\n") + "\n"


def _runtime() -> str:
    from schedcheck.report import replay_runtime

    assert replay_runtime.__file__ is not None
    return _copy_of(replay_runtime.__file__)


def _adapt() -> str:
    from schedcheck.targets import adapt

    assert adapt.__file__ is not None
    return _copy_of(adapt.__file__)


#: The factory line of an ``--exec`` target's replay: the recorded command, or the one given
#: as ``python3 replay.py --exec "COMMAND"`` (kept in the environment across the hash-seed
#: re-run), started in the folder the check ran in.
_EXEC_FACTORY = '''\
EXEC = os.environ.get("SCHEDCHECK_REPLAY_EXEC") or TARGET[len("exec:"):]
factory = ExecTarget(EXEC, {system!r}, cwd=CHECKED_IN, limit=lambda: STEP_SECONDS * 0.8)
atexit.register(close_all)'''

_EXEC_ARGUMENT = '''\
if "--exec" in sys.argv[1:-1]:  # replay the same steps against another implementation
    os.environ["SCHEDCHECK_REPLAY_EXEC"] = sys.argv[sys.argv.index("--exec") + 1]
'''


#: How a replay of a Python target loads it: the recorded one, or ``--target SPEC``.
_PYTHON_FACTORY = """\
TARGET, LOAD_FROM = chosen_target(TARGET, CHECKED_IN)  # `--target SPEC`: another one
pin_hash_seed(HASH_SEED)
factory = load_target(TARGET, LOAD_FROM, SEARCH_PATHS)"""


def _exec_client(target_spec: str) -> str:
    """For an ``--exec`` target: the protocol's client (copies of
    ``schedcheck.targets.exec_client`` and ``exec_instances``) and the ``--exec`` argument."""
    if not target_spec.startswith("exec:"):
        return ""
    from schedcheck.targets import exec_client, exec_instances

    assert exec_client.__file__ is not None and exec_instances.__file__ is not None
    return ("# ---- the process protocol's client (copies of schedcheck.targets.exec_client "
            "and exec_instances)\nimport atexit\n" + _copy_of(exec_client.__file__) + "\n"
            + _copy_of(exec_instances.__file__) + "\n" + _EXEC_ARGUMENT + "\n")


def _doubles(cx: Counterexample, code: str) -> tuple[str, list[str]]:
    """The test doubles the script needs, as source, and the preamble without the lines that
    imported them from schedcheck."""
    preamble = [str(x) for x in (cx.snapshot or {}).get("preamble", []) or []]
    kept = [ln for ln in preamble
            if not ln.lstrip().startswith(("from schedcheck", "import schedcheck"))]
    parts: list[str] = []
    text = "\n".join([*preamble, code])
    if "make_callback(" in text or "RecordingExecutor(" in text:
        from schedcheck.harness.wheel import fixtures as wf

        objects: Iterable[Any] = (wf.CallLog, wf.Callback, wf.make_callback,
                                  wf.RecordingExecutor)
        parts.append("# ---- the callbacks and executor the check handed to the wheel\n"
                     "import threading\nfrom concurrent.futures import Future\n"
                     "from collections.abc import Callable\n\n"
                     f"EXECUTOR_POLICIES = {wf.EXECUTOR_POLICIES!r}\n\n\n"
                     + "\n\n".join(inspect.getsource(o) for o in objects))
    if "noop" in text:
        parts.append("# ---- the task function the check submitted\n"
                     "def noop(*args, **kwargs):\n    return None\n")
    return "\n\n".join(parts) + ("\n" if parts else ""), kept


def _bare_expression(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)


def _step_code_and_check(st: Step) -> tuple[str, str | None]:
    """The step's code and check; on the diverging step, a check that compares nothing
    (``_raised is None`` after a bare expression) is strengthened to compare the value with
    the model's, so that the script fails there the same way."""
    check = st.check
    weak = check is None or check.strip() == "_raised is None"
    if (st.diverged and weak and st.expected and not st.expected.startswith("raises")
            and _bare_expression(st.code)):
        return (f"_value = {st.code.strip()}",
                f"_raised is None and same(_value, {st.expected!r})")
    return st.code, check


def _observed(st: Step, code: str, cx: Counterexample, in_process: bool = True) -> str | None:
    """On the diverging step: an expression true iff the target did again what it did when
    this was found, if its reply shows it (the step's own ``observed``, else its reply
    compared with the one recorded). None when the reply was the model's own (the clause
    broke in something the reply does not show) or there is nothing to read."""
    if st.again:
        return st.again
    if st.expected and st.expected == st.actual:
        return None
    if st.actual.startswith("raises StrayThreads[") and in_process:
        # the call returned and left threads running: it does again if one is still alive
        return STRAY_THREADS
    if st.actual.startswith(("raises Hang[", "raises OutOfMemory[", "raises StrayThreads[",
                             *(ENDS_PROCESS if in_process else ()))):
        return None  # the step limit reports a hang; memory is the check's own ceiling
    cycle = (cx.snapshot or {}).get("cycle") if cx.clause == "S-ORACLE-CYCLE" else None
    if cycle and st.actual.startswith("raises "):
        # a cycle error is right here; what broke the clause is the cycle it names
        return f"cycle_named(_raised) == {[str(c) for c in cycle]!r}"
    if st.observed:
        return st.observed
    if st.actual.startswith("raises "):
        name = st.actual[len("raises "):].split("(", 1)[0]
        return f"_raised is not None and error_name(_raised) == {name!r}"
    assigned = _assigned(code)
    if assigned is None:
        return None
    return f"_raised is None and same({assigned}, {st.actual!r})"


def _assigned(code: str) -> str | None:
    """The one name a step's code assigns (``claim_0 = target.ready()``), if any."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign):
        return None
    targets = tree.body[0].targets
    if len(targets) == 1 and isinstance(targets[0], ast.Name):
        return targets[0].id
    return None


def _block(code: str) -> str:
    body = textwrap.indent(code.strip("\n"), "        ")
    only_comments = all(not ln.strip() or ln.strip().startswith("#") for ln in code.splitlines())
    return f"{body}\n        pass" if only_comments else body


#: True after a step iff a thread other than the main one, not a daemon, is still running
STRAY_THREADS = ("any(t.is_alive() and not t.daemon for t in __import__('threading').enumerate()"
                 " if t is not __import__('threading').main_thread())")
#: How a step that ended the check's process reads (``schedcheck.supervised``).
ENDS_PROCESS = ("raises Crash[", "raises Exit[")


def _step_lines(st: Step, cx: Counterexample, aside_since: int | None = None, *,
                in_process: bool = True) -> list[str]:
    """The step's block. ``aside_since``: the first earlier step set aside in this run, after
    which the model followed the target's own answers: its replies are then the wrong
    target's, so they are not compared (a correct implementation differs from them), only
    whether the diverging step did again what broke the clause."""
    lines = [f"# step {st.index}: {st.words}"]
    if st.diverged:
        model = st.expected or f"(no reply to compare: {cx.clause})"
        lines.append(f"#   model:          {model}")
        lines.append(f"#   implementation: {st.actual}    <-- first divergence")
    code, check = _step_code_and_check(st)
    observed = _observed(st, code, cx, in_process) if st.diverged else None
    if st.aside and (not st.diverged or observed):
        # the target differed from the model here on a clause set aside in this run, which
        # went on with the model following the target: nothing to compare at this step
        lines.append(f"#   (differs from the model on {st.aside.replace(',', ', ')}, set aside "
                     "in this run: not compared here)")
        check = None
    elif check and aside_since is not None and (not st.diverged or observed):
        lines.append(f"#   (not compared with the model: since step {aside_since}, set aside, "
                     "the model followed this target's answers)")
        check = None
    if in_process and st.diverged and st.actual.startswith(ENDS_PROCESS):
        # the step ended the check's process: the replay runs it in a forked copy of itself
        # (an --exec target's crash ends only its own child: the proxy reports it in place)
        code = (f"ends_process({st.index}, {st.words!r}, {st.actual!r}, {code!r}, "
                "globals())")
    lines += [f"with step_limit({st.index}, {st.words!r}, STEP_SECONDS):",
              "    try:", _block(code),
              "    except Exception as _e:", "        _raised = _e",
              "    else:", "        _raised = None"]
    if check:
        why = f"differs({st.index}, {st.words!r}, {st.expected!r}, {st.actual!r}, _raised)"
        lines.append(f"assert {check}, {why}")
    if st.diverged and observed:
        story = cx.message if len(cx.message) <= 300 else cx.message[:297] + "..."
        why = (f"reproduced({st.index}, {st.words!r}, {cx.clause!r}, {story!r}, "
               f"{st.actual!r})")
        lines.append(f"assert not ({observed}), {why}")
    lines.append("")
    return lines


def replay_script(
    cx: Counterexample,
    target_spec: str,
    cwd: str,
    *,
    filename: str = "replay.py",
    command: str = "",
) -> str:
    diverging = cx.divergence
    message = textwrap.fill(cx.message, 92) if cx.message else ""
    all_code = "\n".join([cx.setup, *(st.code for st in cx.steps)])
    doubles, preamble = _doubles(cx, all_code)
    setup = cx.setup.strip() or "target = factory()"
    race = "schedcheck" in "\n".join([setup, *preamble])
    head = _HEADER.format(
        needs=("It needs the target\nand schedcheck, whose thread controller drives the "
               "recorded interleaving (it is found\nwhere the checking python found it)."
               if race else "It starts the\ntarget's command (`python3 replay.py --exec "
               "'COMMAND'` runs another) and needs only\nthe standard library: the protocol's "
               "client is written out below."
               if target_spec.startswith("exec:") else "It needs only\nthe target and the "
               "standard library: how the check reads replies and the callbacks it\npassed "
               "are written out below."),
        filename=filename,
        system=cx.system,
        target=target_spec,
        clause=cx.clause,
        message=message.replace('"""', "'''").replace("\\", "\\\\"),
        n=len(cx.steps),
        diverging=diverging.index if diverging else "?",
        command=command or f"schedcheck check {cx.system} {target_spec}"
        + (f" --seed {cx.seed}" if cx.seed is not None else ""),
        cwd=cwd,
        paths=install_paths(),
        runtime=_runtime(),
        adapt=_adapt(),
        doubles=doubles,
        step_seconds=cx.step_seconds or guard.step_seconds(),
        exec_client=_exec_client(target_spec),
        factory_line=("pin_hash_seed(HASH_SEED)\n" + _EXEC_FACTORY.format(system=cx.system)
                      if target_spec.startswith("exec:") else _PYTHON_FACTORY),
        hash_seed=current_hash_seed(),
    )
    # a race's replay imports schedcheck's thread controller: make it importable first
    needs = ["need_schedcheck(SEARCH_PATHS)", ""] if race else []
    lines = [head, *needs, *preamble, "end_at_once()  # a thread the target left cannot hold it",
             "with step_limit(-1, 'build the target', STEP_SECONDS):",
             textwrap.indent(setup, "    "), ""]
    lane: str | None = None
    aside_since: int | None = None
    for st in cx.steps:
        if st.thread and st.thread != lane:
            lines.append(f"# -- thread {st.thread}")
            lane = st.thread
        lines += _step_lines(st, cx, aside_since, in_process=not target_spec.startswith("exec:"))
        if st.aside and aside_since is None:
            aside_since = st.index
    lines.append(
        'print("did not reproduce: every step behaved as the model did '
        '(the target was fixed, or the failure depends on timing)")'
    )
    lines.append("end_now(0)")
    lines.append(f"# {command or 'schedcheck check ' + cx.system + ' ' + target_spec}")
    return "\n".join(lines) + "\n"
