# ruff: noqa: E501 -- the skeletons are the other languages' source, as their authors write it
"""``schedcheck practice scheduler|wheel DIR --lang js|java``: the same question in another
language, graded through the process protocol (``specs/protocol.md``).

Written into DIR (an existing file is never overwritten): the skeleton (``wheel.js`` /
``scheduler.js``, or ``Wheel.java`` / ``Scheduler.java``) whose methods throw "not
implemented", the language's shim (``schedcheck/shims/``), and ``GUIDE.md`` with the lines that
build, grade and check it (``schedcheck grade --system S --exec "..."``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from schedcheck.shims import SHIMS, shim_file

__all__ = ["LANGUAGES", "write_practice_in"]

_JS_WHEEL = '''// Your hashed timing wheel (specs/wheel.md). Fill in every method, then grade it:
//   schedcheck grade --system wheel --exec "node shim.js wheel.js Wheel"
"use strict";

class NotImplementedError extends Error {
  constructor(what) { super(`${what} is not implemented yet`); this.name = "NotImplementedError"; }
}

class WheelFullError extends Error {  // schedule() while pending() >= maxPending
  constructor(pending, maxPending) {
    super(`wheel is full: ${pending} pending, max_pending=${maxPending}`);
    this.name = "WheelFullError"; this.pending = pending; this.maxPending = maxPending;
  }
}

class Wheel {
  static options = ["start", "maxCatchupTicks", "maxPending"];  // drop those you do not take

  // tick: time units per tick (an integer >= 1; a TypeError for a non-integer, a RangeError
  // below 1); wheelSize: buckets per rotation. Time starts at `start`.
  constructor(tick, wheelSize, { start = 0, maxCatchupTicks = null, maxPending = null } = {}) {
    throw new NotImplementedError("constructor");
  }

  // A timer at the absolute `deadline`; returns its handle (with a `deadline` property).
  // Due tick: max(ceil(deadline / tick), cursor) -- never early.
  schedule(deadline, callback) { throw new NotImplementedError("schedule"); }

  // schedule(lastNow + delay, callback).
  scheduleAfter(delay, callback) { throw new NotImplementedError("scheduleAfter"); }

  // true iff this call stopped a pending timer; false when it fired, was cancelled, or is
  // another wheel's; a TypeError for something that is not a handle.
  cancel(handle) { throw new NotImplementedError("cancel"); }

  // Process the ticks cursor .. floor(now / tick) (at most maxCatchupTicks of them); return
  // the fired handles by due tick, then schedule order. A RangeError for an earlier now.
  advance(now) { throw new NotImplementedError("advance"); }

  // Timers scheduled and neither fired nor cancelled.
  pending() { throw new NotImplementedError("pending"); }
}

module.exports = { Wheel, WheelFullError };
'''

_JS_SCHEDULER = '''// Your dependency-aware task scheduler (specs/scheduler.md). Fill in every method, then:
//   schedcheck grade --system scheduler --exec "node shim.js scheduler.js Scheduler"
"use strict";

class NotImplementedError extends Error {
  constructor(what) { super(`${what} is not implemented yet`); this.name = "NotImplementedError"; }
}
// The contract's errors: throw them with these names (and these fields).
class ClosedError extends Error { constructor(m) { super(m); this.name = "ClosedError"; } }
class NotStartedError extends Error { constructor(m) { super(m); this.name = "NotStartedError"; } }
class UnknownTaskError extends Error {
  constructor(taskId) { super(`unknown task ${taskId}`); this.name = "UnknownTaskError"; this.taskId = taskId; }
}
class ConflictError extends Error {
  constructor(taskId, generation) { super(`${taskId} is RUNNING`); this.name = "ConflictError"; this.taskId = taskId; this.generation = generation; }
}
class UnknownDependencyError extends Error {
  constructor(taskId, missing) { super(`${taskId} needs ${missing}`); this.name = "UnknownDependencyError"; this.taskId = taskId; this.missing = missing; }
}
class CycleError extends Error {
  constructor(cycle) { super(`cycle ${cycle.join(" -> ")}`); this.name = "CycleError"; this.cycle = cycle; }
}

class Scheduler {
  // At most maxConcurrency tasks RUNNING at once (an integer >= 0).
  constructor(maxConcurrency) { throw new NotImplementedError("constructor"); }

  // A task (or a new generation of one) needing every dep to SUCCEED first; returns its
  // generation (1, then +1 per resubmit). Resubmitting a RUNNING task: ConflictError.
  submit(taskId, deps = [], fn = null) { throw new NotImplementedError("submit"); }

  // UnknownDependencyError, then CycleError([a, ..., a]); changes nothing if it throws.
  start() { throw new NotImplementedError("start"); }

  // Claim READY tasks in submission order, within the free slots: [{taskId, generation, fn}].
  ready(limit = null) { throw new NotImplementedError("ready"); }

  // Replies are [outcome, state]: outcome APPLIED, DUPLICATE, REJECTED, STALE or REQUESTED.
  complete(taskId, generation) { throw new NotImplementedError("complete"); }
  fail(taskId, generation, error = null) { throw new NotImplementedError("fail"); }
  cancel(taskId, generation = null) { throw new NotImplementedError("cancel"); }
  cancelRequested(taskId, generation) { throw new NotImplementedError("cancelRequested"); }

  // Cancel every PENDING/READY task (cause ["shutdown", id, generation]); their ids.
  close() { throw new NotImplementedError("close"); }

  // {taskId, generation, state, cause}: cause null or [kind, taskId, generation].
  info(taskId) { throw new NotImplementedError("info"); }
}

module.exports = { Scheduler };
'''

_JAVA_WHEEL = '''// Your hashed timing wheel (specs/wheel.md). Fill in every method, then grade it:
//   javac -d build Shim.java Wheel.java
//   schedcheck grade --system wheel --exec "java -cp build Shim Wheel"
import java.util.List;
import java.util.Map;

public class Wheel {
    public static final String[] OPTIONS = {"start", "maxCatchupTicks", "maxPending"};

    /** A timer's handle: the shim reads its public deadline. */
    public static final class Timer {
        public final long deadline;

        Timer(long deadline) {
            this.deadline = deadline;
        }
    }

    /** schedule() while pending() >= maxPending. */
    public static final class WheelFullError extends RuntimeException {
        public final long pending;
        public final long maxPending;

        public WheelFullError(long pending, long maxPending) {
            super("wheel is full: " + pending + " pending, max_pending=" + maxPending);
            this.pending = pending;
            this.maxPending = maxPending;
        }
    }

    /** options: "start", "maxCatchupTicks", "maxPending" (Long values). Bad values:
     * IllegalArgumentException (ValueError). */
    public Wheel(long tick, long wheelSize, Map<String, Object> options) {
        throw new UnsupportedOperationException("the constructor");
    }

    /** Due tick max(ceil(deadline / tick), cursor): never early. */
    public Timer schedule(long deadline, String callback) {
        throw new UnsupportedOperationException("schedule");
    }

    public Timer scheduleAfter(long delay, String callback) {
        throw new UnsupportedOperationException("scheduleAfter");
    }

    /** true iff this call stopped a pending timer of this wheel. */
    public boolean cancel(Object handle) {
        throw new UnsupportedOperationException("cancel");
    }

    /** The fired timers, by due tick then schedule order; an earlier now is
     * IllegalArgumentException. */
    public List<Timer> advance(long now) {
        throw new UnsupportedOperationException("advance");
    }

    public long pending() {
        throw new UnsupportedOperationException("pending");
    }
}
'''

_JAVA_SCHEDULER = '''// Your dependency-aware task scheduler (specs/scheduler.md). Fill in every method, then:
//   javac -d build Shim.java Scheduler.java
//   schedcheck grade --system scheduler --exec "java -cp build Shim Scheduler"
import java.util.List;

public class Scheduler {
    public record Claim(Object taskId, long generation, String fn) {}

    /** outcome: APPLIED, DUPLICATE, REJECTED, STALE or REQUESTED; state: the task's. */
    public record Reply(String outcome, String state) {}

    /** cause: null or [kind, taskId, generation]. */
    public record TaskInfo(Object taskId, long generation, String state, List<Object> cause) {}

    // The contract's errors, replied under their class names with their public fields.
    public static final class ClosedError extends RuntimeException {
        public ClosedError(String m) { super(m); }
    }
    public static final class NotStartedError extends RuntimeException {
        public NotStartedError(String m) { super(m); }
    }
    public static final class UnknownTaskError extends RuntimeException {
        public final Object taskId;
        public UnknownTaskError(Object taskId) { super("unknown task " + taskId); this.taskId = taskId; }
    }
    public static final class ConflictError extends RuntimeException {
        public final Object taskId;
        public final long generation;
        public ConflictError(Object taskId, long generation) {
            super(taskId + " is RUNNING");
            this.taskId = taskId;
            this.generation = generation;
        }
    }
    public static final class UnknownDependencyError extends RuntimeException {
        public final Object taskId;
        public final List<Object> missing;
        public UnknownDependencyError(Object taskId, List<Object> missing) {
            super(taskId + " needs " + missing);
            this.taskId = taskId;
            this.missing = missing;
        }
    }
    public static final class CycleError extends RuntimeException {
        public final List<Object> cycle;
        public CycleError(List<Object> cycle) { super("cycle " + cycle); this.cycle = cycle; }
    }

    public Scheduler(long maxConcurrency) { throw new UnsupportedOperationException("the constructor"); }
    public long submit(Object taskId, List<Object> deps, String fn) { throw new UnsupportedOperationException("submit"); }
    public void start() { throw new UnsupportedOperationException("start"); }
    public List<Claim> ready(Long limit) { throw new UnsupportedOperationException("ready"); }
    public Reply complete(Object taskId, long generation) { throw new UnsupportedOperationException("complete"); }
    public Reply fail(Object taskId, long generation, String error) { throw new UnsupportedOperationException("fail"); }
    public Reply cancel(Object taskId, Long generation) { throw new UnsupportedOperationException("cancel"); }
    public boolean cancelRequested(Object taskId, long generation) { throw new UnsupportedOperationException("cancelRequested"); }
    public List<Object> close() { throw new UnsupportedOperationException("close"); }
    public TaskInfo info(Object taskId) { throw new UnsupportedOperationException("info"); }
}
'''

#: language -> system -> (file name, class, skeleton, the line that builds it or None, the
#: command that serves it)
LANGUAGES: dict[str, dict[str, tuple[str, str, str, str | None, str]]] = {
    "js": {
        "wheel": ("wheel.js", "Wheel", _JS_WHEEL, None, "node shim.js wheel.js Wheel"),
        "scheduler": ("scheduler.js", "Scheduler", _JS_SCHEDULER, None,
                      "node shim.js scheduler.js Scheduler"),
    },
    "java": {
        "wheel": ("Wheel.java", "Wheel", _JAVA_WHEEL, "javac -d build Shim.java Wheel.java",
                  "java -cp build Shim Wheel"),
        "scheduler": ("Scheduler.java", "Scheduler", _JAVA_SCHEDULER,
                      "javac -d build Shim.java Scheduler.java",
                      "java -cp build Shim Scheduler"),
    },
}

_GUIDE = '''# Practising the {system} question in {language}

1. Read the question: `specs/seeds/{system}.txt` (the interview text) and `specs/seed-map.md`;
   the rules this project settled on are `specs/{system}.md`, and how schedcheck talks to your
   code is `specs/protocol.md` (you need not read it: `{shim}` does it for you).
2. Fill in `{file}`, one method at a time; each comment says what the method must do.
3. {build}Grade it, item by item, with the interview text's own headings:

       schedcheck grade --system {system} --exec "{command}"

   `todo` items need a method that still throws "not implemented"; `--` are parts your class
   does not have; `blkd` met another item's mistake first. A failing item shows its hint and
   the shortest program that shows it.
4. When every item holds, run the full differential suite (a `replay.py` comes with any
   counterexample; it starts your code again and fails at the printed step):

       schedcheck check {system} --exec "{command}"
'''


def write_practice_in(system: str, folder: str | Path, language: str) -> list[Path]:
    """Write the skeleton, the shim and the guide of ``system`` in ``language`` into
    ``folder``; their paths. ``FileExistsError`` naming a file that is already there."""
    if language not in LANGUAGES:
        raise ValueError(f"no practice in {language!r}; there is: {', '.join(LANGUAGES)}")
    name, _cls, skeleton, build, command = LANGUAGES[language][system]
    out = Path(folder)
    shim = out / SHIMS[language]
    steps = (f"Build it:\n\n       {build}\n\n   (again after every change). " if build else "")
    files = {
        out / name: skeleton,
        out / "GUIDE.md": _GUIDE.format(system=system, language={"js": "JavaScript",
                                                                  "java": "Java"}[language],
                                        shim=shim.name, file=name, build=steps,
                                        command=command),
    }
    for path in [*files, shim]:
        if path.exists():
            raise FileExistsError(f"{path} already exists; choose an empty folder or remove it")
    out.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    shutil.copyfile(shim_file(language), shim)
    return [out / name, shim, out / "GUIDE.md"]
