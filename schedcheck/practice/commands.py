"""``schedcheck practice`` and ``schedcheck grade``: the subcommands, added to the CLI's parser
by :func:`add_commands`.

Exit status of ``grade``: 0 every graded item held, 1 an item failed or is not implemented
yet (a method raises NotImplementedError), 2 the target or the arguments are unusable (it
cannot be loaded, or it is neither a scheduler nor a wheel). A class that crashes an item
is graded, never a traceback: the crash is that item's verdict. ``practice``: 0 the files
were written, 2 they could not be.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from schedcheck import systems
from schedcheck.contract import SchedcheckInternalError
from schedcheck.targets import TargetError, load_target

__all__ = ["add_commands"]

EXIT_OK, EXIT_FOUND, EXIT_UNUSABLE = 0, 1, 2


def _unusable(message: str) -> int:
    print(f"schedcheck: {message}", file=sys.stderr)
    return EXIT_UNUSABLE


def cmd_practice(args: argparse.Namespace) -> int:
    from schedcheck.practice.skeleton import write_practice

    if args.lang != "python":
        from schedcheck.practice.languages import LANGUAGES, write_practice_in

        try:
            paths = write_practice_in(args.system, args.folder, args.lang)
        except (FileExistsError, OSError) as exc:
            return _unusable(str(exc))
        for path in paths:
            print(f"wrote {path}")
        _, _, _, build, command = LANGUAGES[args.lang][args.system]
        print(f"next: fill in {paths[0]}, then in {args.folder}: "
              + (f"{build} && " if build else "")
              + f"schedcheck grade --system {args.system} --exec \"{command}\" "
              "(GUIDE.md has the steps)")
        return EXIT_OK
    try:
        paths = write_practice(args.system, args.folder)
    except (FileExistsError, OSError) as exc:
        return _unusable(str(exc))
    for path in paths:
        print(f"wrote {path}")
    module = systems.get(args.system).answer_target
    print(f"next: fill in {args.folder}/{module.split(':')[0]}, then `cd {args.folder} && "
          f"pytest -q` or `schedcheck grade {args.folder}/{module}`")
    return EXIT_OK


def cmd_grade(args: argparse.Namespace) -> int:
    if (args.exec is None) == (args.target is None):
        return _unusable("give either TARGET or --exec 'COMMAND', not "
                         + ("both" if args.exec else "neither"))
    if args.exec is not None:  # a child process speaking specs/protocol.md
        if args.system is None:
            return _unusable("--exec needs --system scheduler|wheel (the child is told which "
                             "one it serves)")
        from schedcheck.targets.exec import close_all, exec_factory, exec_spec

        try:
            factory = exec_factory(args.exec, args.system)
        except TargetError as exc:
            return _unusable(f"--exec {args.exec!r}: {exc.reason}")
        args.target = exec_spec(args.exec)
        try:
            return _grade(args, factory)
        finally:
            close_all()
    try:
        target = load_target(args.target)
    except TargetError as exc:
        return _unusable(f"{exc}\n  accepted forms: path/to/file.py:Class or module:Class")
    return _grade(args, target.factory)


def _grade(args: argparse.Namespace, factory: Any) -> int:
    from schedcheck.practice.grading import NOT_IMPLEMENTED, render_card
    from schedcheck.practice.items import grade, guess_system

    if args.exec is not None:  # messages name the target as the command line gave it
        import shlex

        args.target = f"--exec {shlex.quote(args.exec)}"
    system: Any = args.system or guess_system(factory)
    if system is None:
        return _unusable(f"cannot tell whether {args.target} is a scheduler (submit, ready) or "
                         "a wheel (schedule, advance); pass --system scheduler|wheel")
    try:
        card = grade(system, factory, seed_shaped=args.seed_shaped,
                     cost=not args.no_cost, name=args.target)
    except SchedcheckInternalError:
        raise
    print(render_card(card))
    if not card.failed and not card.passed:
        print(f"nothing here could be graded on this target: `schedcheck check {system} "
              f"{args.target} --level core` checks what every correct design holds")
    if not args.seed_shaped:
        from schedcheck.practice.shapes import looks_seed_shaped

        why = looks_seed_shaped(system, factory)
        if why:
            print(f"note: {args.target} looks written in the interview text's own names "
                  f"({why}); grade it with --seed-shaped")
    unfinished = any(r.status == NOT_IMPLEMENTED for r in card.results)
    return EXIT_FOUND if card.failed or unfinished else EXIT_OK


def add_commands(sub: Any) -> None:
    """Add ``practice`` and ``grade`` to the ``schedcheck`` subparsers ``sub``."""
    practice = sub.add_parser(
        "practice", help="write a skeleton, its tests and a guide for one interview question",
        description="Write into DIR a skeleton answer for SYSTEM, its pytest tests and a "
                    "GUIDE.md; fill in the skeleton, then `schedcheck grade` it.")
    practice.add_argument("system", choices=systems.names(), help="which interview question")
    practice.add_argument("folder", metavar="DIR",
                          help="folder to write into (created; existing files are never "
                               "overwritten)")
    practice.add_argument("--lang", choices=("python", "js", "java"), default="python",
                          help="the language of the skeleton (js, java: checked through "
                               "specs/protocol.md with --exec; default python)")
    practice.set_defaults(run=cmd_practice)

    grade = sub.add_parser(
        "grade", help="grade an answer item by item against the interview text",
        description="Grade an answer item by item against the interview text's list of what "
                    "is tested. TARGET is path/to/file.py:Class or module:Class.",
        epilog="exit status: 0 every graded item held, 1 an item failed or is not "
               "implemented yet, 2 the target or the arguments are unusable")
    grade.add_argument("target", metavar="TARGET", nargs="?", help="the answer's class")
    grade.add_argument("--exec", metavar="COMMAND", default=None,
                       help="instead of TARGET: a command serving the answer over "
                            "specs/protocol.md (any language; needs --system)")
    grade.add_argument("--system", choices=systems.names(),
                       help="default: guessed from the class's methods")
    grade.add_argument("--seed-shaped", action="store_true",
                       help="the class uses the interview text's own names and signatures "
                            "(e.g. schedule(task, deadline), advance() handing callbacks to "
                            "executor.submit)")
    grade.add_argument("--no-cost", action="store_true",
                       help="skip the timing-based items (a run at n and 8n)")
    grade.set_defaults(run=cmd_grade)
