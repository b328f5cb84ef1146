"""``python -m schedcheck.impl.durable status URL`` (what a store holds) and ``python -m
schedcheck.impl.durable worker URL ...`` (the same as ``python -m
schedcheck.impl.durable.worker``)."""

from __future__ import annotations

import sys

from schedcheck.impl.durable import status, worker


def main(argv: list[str]) -> int:
    commands = {"status": status.main, "worker": worker.main}
    if not argv or argv[0] not in commands:
        print("usage: python -m schedcheck.impl.durable {status,worker} URL ...\n"
              "  status URL   the graph's progress, each task's state, attempts, lease, "
              "error\n  worker URL   run workers (see: worker --help)", file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
