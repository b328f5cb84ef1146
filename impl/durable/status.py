"""``python -m schedcheck.impl.durable status URL``: what a store holds, for a person -- the
graph's progress, how many tasks are in each state, and per task its state, generation,
attempts, lease (token, time left), the time a retry waits for, and its error or result.
``--json`` prints the same as one JSON object. Exit codes: 0, 2 (bad command line), 3 (the
store cannot be used: missing or damaged file, refused URL)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from schedcheck.impl.durable._exits import EXIT
from schedcheck.impl.durable._records import _COLS, _Row
from schedcheck.impl.durable._store import StoreError, decode_id, open_store
from schedcheck.impl.durable.scheduler import DurableScheduler

__all__ = ["main", "snapshot"]

_ORDER = ("RUNNING", "READY", "PENDING", "FAILED", "BLOCKED", "CANCELLED", "SUCCEEDED")


def snapshot(url: str) -> dict[str, Any]:
    """The store's state as plain data (what ``status --json`` prints)."""
    store = open_store(url)
    try:
        limit = store.rows("SELECT value FROM dmeta WHERE key = 'max_concurrency'")
        if not limit:  # opening a scheduler would make one here, with a limit we do not know
            raise StoreError(f"{url!r} holds no scheduler yet: no DurableScheduler was ever "
                             "opened on it")
        sched = DurableScheduler(store, int(limit[0][0]))
        metas = sched._metas()
        now = sched._now()
        tasks = []
        for raw in store.rows(f"SELECT {_COLS} FROM dtask ORDER BY seq"):
            row = _Row(*raw)
            info = sched.info(decode_id(row.id))
            tasks.append({
                "id": info.task_id, "state": info.state.name, "generation": info.generation,
                "attempts": info.attempts,
                "max_attempts": row.max_attempts if row.max_attempts is not None
                else sched.max_attempts,
                "token": info.token,
                "lease_left": None if info.expires is None else round(info.expires - now, 3),
                "retry_in": None if info.not_before is None
                else round(max(info.not_before - now, 0.0), 3),
                "error": info.error, "result": info.result,
                "cause": None if info.cause is None else [info.cause.kind,
                                                         info.cause.task_id,
                                                         info.cause.generation],
                "function": row.fn})
        counts = sched.counts()
        return {"store": url, "started": metas.get("started") == "1",
                "closed": metas.get("closed") == "1",
                "max_concurrency": sched.max_concurrency, "counts": counts,
                "done": counts.get("SUCCEEDED", 0), "total": len(tasks), "tasks": tasks}
    finally:
        store.close()


def _render(snap: dict[str, Any], limit: int | None) -> str:
    total, done = snap["total"], snap["done"]
    pct = 100.0 * done / total if total else 100.0
    phase = ("closed" if snap["closed"] else "started" if snap["started"]
             else "not started (start() not called yet)")
    lines = [f"store {snap['store']}: {phase}; limit {snap['max_concurrency']}, "
             f"{snap['counts'].get('RUNNING', 0)} running",
             f"progress: {done} of {total} tasks SUCCEEDED ({pct:.0f}%)"
             + "".join(f", {snap['counts'][s]} {s}" for s in _ORDER
                       if s != "SUCCEEDED" and snap["counts"].get(s))]
    tasks = sorted(snap["tasks"], key=lambda t: _ORDER.index(t["state"]))
    shown = tasks if limit is None else tasks[:limit]
    if shown:
        lines.append(f"{'TASK':<20} {'STATE':<10} {'GEN':>4} {'TRIES':>6}  DETAIL")
    for t in shown:
        detail = []
        if t["token"] is not None:
            left = t["lease_left"]
            detail.append(f"token {t['token']}, lease " + (
                f"ends in {left:.1f} s" if left >= 0 else
                f"expired {-left:.1f} s ago (the next claim reclaims it)"))
        if t["retry_in"] is not None:
            detail.append(f"retry in {t['retry_in']:.1f} s")
        if t["cause"] is not None and t["state"] in ("BLOCKED", "CANCELLED"):
            kind, root, gen = t["cause"]
            detail.append(f"{kind}: {root!r} generation {gen}")
        if t["error"] is not None:  # on a live or SUCCEEDED task: the error of a retry
            last = t["state"] not in ("FAILED", "CANCELLED", "BLOCKED")
            detail.append(f"{'last error' if last else 'error'}: {t['error']}")
        if t["result"] is not None:
            detail.append(f"result: {json.dumps(t['result'])[:60]}")
        lines.append(f"{t['id']!r:<20} {t['state']:<10} {t['generation']:>4} "
                     f"{t['attempts']:>3}/{t['max_attempts']:<2}  {'; '.join(detail)}")
    if len(shown) < len(tasks):
        lines.append(f"... {len(tasks) - len(shown)} more (--limit 0 shows every task)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m schedcheck.impl.durable status",
                                description="Show what a durable scheduler store holds.")
    p.add_argument("url", help="sqlite:///path/to/file.db or postgresql://user@host/db")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--limit", type=int, default=50,
                   help="tasks listed, running and failed first (0: all; default 50)")
    args = p.parse_args(argv)
    try:
        snap = snapshot(args.url)
    except (StoreError, ValueError) as exc:
        print(f"status: the store cannot be read: {exc}", file=sys.stderr)
        return EXIT["store"]
    if args.json:
        print(json.dumps(snap, default=repr))
    else:
        print(_render(snap, args.limit or None))
    return EXIT["ok"]
