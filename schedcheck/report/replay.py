"""The replay script: a counterexample as a standalone program (STYLE 9, Hypothesis-style).

``replay_script(cx, target_spec, cwd)`` returns the text of a Python file that

* loads the target exactly as ``schedcheck check`` did (``module:attr`` importable from the
  directory the check ran in, or ``path/to/file.py:attr`` by absolute path) -- the loader is
  inlined, so the file needs only plain ``python``; it imports ``schedcheck.adapt`` for the
  normalisation helpers the checks use (``norm_reply``, ``norm_claims``, ``error_name`` ...);
* builds the target with the counterexample's constructor line, then runs one block per step:
  a comment with the step in words (and, on the diverging step, the model's and the
  implementation's results), the step's code, and ``assert <check>`` whose message names the
  step, what the model expected and what the target returned when the check ran;
* runs each step's code as ``try: <code> except Exception as _e: _raised = _e else: _raised =
  None`` and then ``assert <check>`` (the replay convention of ``schedcheck.harness.common``:
  ``check`` reads the step's names, ``_raised`` and the adapt helpers), so an exception the
  model did not raise, or a different reply, fails "the same way": an AssertionError at the
  same step, whose message names the step, the model's result and the target's;
* prints "did not reproduce" and exits 0 when every check passes (a fixed or flaky target);
* runs with a plain ``python`` outside the virtual environment schedcheck is installed in: when
  ``import schedcheck`` fails it adds the folders schedcheck was installed in when the file
  was written (:func:`install_paths`) and, if that is not enough, says in one line which
  ``python`` to run it with.

Thread switches are explicit comment lines (``# -- thread w1``), and the file ends with the
``schedcheck check ... --seed S`` command that found it.
"""

from __future__ import annotations

import ast
import os
import sys
import textwrap

from schedcheck.harness.result import Counterexample, Step

__all__ = ["replay_script"]

_HEADER = '''\
#!/usr/bin/env python3
"""Replay of a schedcheck counterexample -- run it with plain `python {filename}`.

system:  {system}
target:  {target}
broken:  {clause}
{message}

It loads the target the way `schedcheck check` did, replays the {n} steps below, and fails
with an AssertionError at step {diverging} if the target still behaves this way.
Found by: {command}
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

#: where schedcheck was installed when this file was written: used when plain `python` does
#: not find it (a virtual environment that is not active)
SCHEDCHECK_PATHS = {paths!r}
try:
    import schedcheck  # noqa: F401
except ModuleNotFoundError:
    import site

    for _where in SCHEDCHECK_PATHS:
        site.addsitedir(_where)  # also runs the .pth files there (an editable install)
    try:
        import schedcheck  # noqa: F401
    except ModuleNotFoundError:
        raise SystemExit(
            "replay.py needs schedcheck, which this python cannot import: run it with the "
            "python schedcheck is installed in, e.g. {python} {filename}") from None

from schedcheck.adapt import (  # noqa: F401  -- the checks below use these
    error_name,
    norm_cause,
    norm_claim,
    norm_claims,
    norm_info,
    norm_name,
    norm_reply,
)

TARGET = {target!r}
CHECKED_IN = {cwd!r}  #: the directory `schedcheck check` ran in


def load_target(spec: str = TARGET):
    """module:attr (importable from CHECKED_IN) or path/to/file.py:attr, as schedcheck does."""
    if spec.startswith("zoo:"):  # a catalogued mutant of schedcheck's zoo
        from schedcheck.zoo.catalogue import get

        return get(spec[len("zoo:"):]).factory
    where, _, attr = spec.rpartition(":")
    if where.endswith(".py") or "/" in where or os.sep in where:
        path = where if os.path.isabs(where) else os.path.join(CHECKED_IN, where)
        name = "_schedcheck_replay_target"
        module_spec = importlib.util.spec_from_file_location(name, path)
        if module_spec is None or module_spec.loader is None:
            raise SystemExit(f"cannot load {{path!r}} as a Python module")
        module = importlib.util.module_from_spec(module_spec)
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
    else:
        sys.path.insert(0, CHECKED_IN)
        module = importlib.import_module(where)
    obj = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def differs(index: int, words: str, expected: str, actual_then: str, raised) -> str:
    now = f"; this time it raised {{error_name(raised)}}: {{raised}}" if raised is not None else ""
    return (
        f"step {{index}} ({{words}}): the model expected {{expected}}; the implementation "
        f"gave {{actual_then}} when this was found{{now}}"
    )


def same(value, expected: str) -> bool:
    """True iff ``value``, as is or normalised as the checker would, prints as ``expected``."""
    for norm in (lambda v: v, norm_reply, norm_claims, norm_info, norm_claim):
        try:
            if repr(norm(value)) == expected:
                return True
        except Exception:
            pass
    return False


factory = load_target()
'''


def install_paths() -> list[str]:
    """The folders a plain ``python`` needs on its path to import this schedcheck: the
    site-packages of the running interpreter (with its dependencies and, for an editable
    install, the .pth that maps the package) and the folder that holds the package."""
    import sysconfig

    import schedcheck

    paths = [sysconfig.get_paths()["purelib"],
             os.path.dirname(os.path.dirname(os.path.abspath(schedcheck.__file__)))]
    return list(dict.fromkeys(paths))


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


def _block(code: str) -> str:
    body = textwrap.indent(code.strip("\n"), "    ")
    only_comments = all(not ln.strip() or ln.strip().startswith("#") for ln in code.splitlines())
    return f"{body}\n    pass" if only_comments else body


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
    head = _HEADER.format(
        filename=filename,
        system=cx.system,
        target=target_spec,
        clause=cx.clause,
        message=message.replace('"""', "'''"),
        n=len(cx.steps),
        diverging=diverging.index if diverging else "?",
        command=command or f"schedcheck check {cx.system} {target_spec}"
        + (f" --seed {cx.seed}" if cx.seed is not None else ""),
        cwd=cwd,
        paths=install_paths(),
        python=sys.executable,
    )
    preamble = [str(x) for x in (cx.snapshot or {}).get("preamble", []) or []]
    lines = [head, *preamble, cx.setup.strip() or "target = factory()", ""]
    lane: str | None = None
    for st in cx.steps:
        if st.thread and st.thread != lane:
            lines.append(f"# -- thread {st.thread}")
            lane = st.thread
        lines.append(f"# step {st.index}: {st.words}")
        if st.diverged:
            lines.append(f"#   model:          {st.expected}")
            lines.append(f"#   implementation: {st.actual}    <-- first divergence")
        code, check = _step_code_and_check(st)
        lines.append("try:")
        lines.append(_block(code))
        lines.append("except Exception as _e:")
        lines.append("    _raised = _e")
        lines.append("else:")
        lines.append("    _raised = None")
        if check:
            why = f"differs({st.index}, {st.words!r}, {st.expected!r}, {st.actual!r}, _raised)"
            lines.append(f"assert {check}, {why}")
        lines.append("")
    lines.append(
        'print("did not reproduce: every step behaved as the model did '
        '(the target was fixed, or the failure depends on timing)")'
    )
    lines.append(f"# {command or 'schedcheck check ' + cx.system + ' ' + target_spec}")
    return "\n".join(lines) + "\n"
