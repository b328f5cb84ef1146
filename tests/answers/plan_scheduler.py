"""The scheduler text's own plan, written line by line in its names (seed-shaped).

``TaskScheduler(max_concurrency)`` with ``submit(task_id, deps, fn)``, ``freeze()`` (the model
answer "freezes the graph first": unknown dependencies, then Kahn's algorithm with parent
pointers for the cycle), ``ready()`` without a limit, ``complete``/``fail(task_id,
generation)``, ``cancel(task_id)``, ``close()`` and ``state(task_id)``; outcomes in lower
case (``ok``, ``conflict`` for a late callback as the text says, ``duplicate``, ...). As the
text's clarification allows, only new *versions* may be submitted once frozen: a new id is
refused. Its divergences from the contract are listed in ``answers.py``.
"""

from __future__ import annotations

from typing import Any


class Conflict(Exception):
    pass


class UnknownDependency(Exception):
    pass


class Cycle(Exception):
    def __init__(self, path: list[Any]) -> None:
        super().__init__(" -> ".join(map(str, path)))
        self.path = path


class TaskScheduler:
    def __init__(self, max_concurrency: int) -> None:
        self.max_concurrency = max_concurrency
        self.tasks: dict[Any, dict[str, Any]] = {}
        self.dependents: dict[Any, list[Any]] = {}
        self.order = 0
        self.running = 0
        self.frozen = self.closed = False

    def submit(self, task_id: Any, deps: Any, fn: Any = None) -> int:
        if self.closed:
            raise RuntimeError("closed")
        old = self.tasks.get(task_id)
        if self.frozen and old is None:
            raise RuntimeError("the graph is frozen: only new versions of known tasks")
        if old is not None and old["state"] == "running":
            raise Conflict(task_id)
        if old is not None:
            for d in old["deps"]:
                self.dependents[d].remove(task_id)
        deps = list(dict.fromkeys(deps))  # validateUniqueDependencies
        self.order += 1
        task = {"deps": deps, "fn": fn, "gen": old["gen"] + 1 if old else 1,
                "order": self.order, "state": "pending", "cancel": False, "cause": None,
                "remaining": sum(1 for d in deps
                                 if self.tasks.get(d, {}).get("state") != "succeeded")}
        self.tasks[task_id] = task
        for d in deps:  # registerEdges
            self.dependents.setdefault(d, []).append(task_id)
        if task["remaining"] == 0:
            task["state"] = "ready"
        return int(task["gen"])

    def freeze(self) -> None:
        for task_id, t in self.tasks.items():
            for d in t["deps"]:
                if d not in self.tasks:
                    raise UnknownDependency(f"{task_id!r} depends on unknown {d!r}")
        indegree = {t: len(v["deps"]) for t, v in self.tasks.items()}
        queue = [t for t, n in indegree.items() if n == 0]
        seen = 0
        while queue:
            x = queue.pop()
            seen += 1
            for d in self.dependents.get(x, []):
                indegree[d] -= 1
                if indegree[d] == 0:
                    queue.append(d)
        if seen < len(self.tasks):  # walk the parent pointers of what is left
            left = {t for t, n in indegree.items() if n > 0}
            start = next(iter(left))
            path, x = [start], self.tasks[start]["deps"]
            node = next(d for d in x if d in left)
            while node not in path:
                path.append(node)
                node = next(d for d in self.tasks[node]["deps"] if d in left)
            raise Cycle([*path[path.index(node):], node])
        self.frozen = True

    def ready(self) -> list[tuple[Any, int]]:
        if not self.frozen or self.closed:
            return []
        free = self.max_concurrency - self.running
        out: list[tuple[Any, int]] = []
        for task_id, t in sorted(self.tasks.items(), key=lambda kv: kv[1]["order"]):
            if len(out) >= free:
                break
            if t["state"] == "ready":
                t["state"] = "running"
                out.append((task_id, t["gen"]))
        self.running += len(out)
        return out

    def complete(self, task_id: Any, generation: int) -> tuple[str, str]:
        t = self.tasks[task_id]
        if generation != t["gen"]:
            return ("conflict", t["state"])
        if t["state"] == "succeeded":
            return ("duplicate", "succeeded")
        if t["state"] != "running":
            return ("rejected", t["state"])
        t["state"] = "succeeded"
        self.running -= 1
        for d in self.dependents.get(task_id, []):
            dt = self.tasks[d]
            if dt["state"] == "pending":
                dt["remaining"] -= 1
                if dt["remaining"] == 0:
                    dt["state"] = "ready"
        return ("ok", "succeeded")

    def fail(self, task_id: Any, generation: int) -> tuple[str, str]:
        t = self.tasks[task_id]
        if generation != t["gen"]:
            return ("conflict", t["state"])
        if t["state"] in ("failed", "cancelled"):
            return ("duplicate", t["state"])
        if t["state"] != "running":
            return ("rejected", t["state"])
        t["state"] = "failed"
        self.running -= 1
        self._block(task_id, ("failed", task_id, t["gen"]))
        return ("ok", "failed")

    def cancel(self, task_id: Any) -> tuple[str, str]:
        t = self.tasks[task_id]
        if t["state"] in ("pending", "ready"):
            t["state"] = "cancelled"
            t["cause"] = ("cancelled", task_id, t["gen"])
            self._block(task_id, t["cause"])
            return ("ok", "cancelled")
        if t["state"] == "running":
            t["cancel"] = True
            return ("requested", "running")
        return ("duplicate" if t["state"] == "cancelled" else "rejected", t["state"])

    def _block(self, root: Any, cause: tuple[Any, Any, int]) -> None:
        """Mark the direct and transitive descendants blocked, each with the first cause."""
        stack = [root]
        while stack:
            parent = stack.pop()
            for d in self.dependents.get(parent, []):
                dt = self.tasks[d]
                if dt["state"] in ("pending", "ready", "running"):
                    dt["state"] = "blocked"
                    pt = self.tasks[parent]
                    dt["cause"] = cause if parent == root else ("blocked", parent, pt["gen"])
                    stack.append(d)

    def close(self) -> list[Any]:
        self.closed = True
        out = []
        for task_id, t in sorted(self.tasks.items(), key=lambda kv: kv[1]["order"]):
            if t["state"] in ("pending", "ready"):
                t["state"] = "cancelled"
                t["cause"] = ("shutdown", task_id, t["gen"])
                out.append(task_id)
        return out

    def state(self, task_id: Any) -> tuple[Any, int, str, Any]:
        t = self.tasks[task_id]
        return (task_id, t["gen"], t["state"], t["cause"])
