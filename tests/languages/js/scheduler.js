// A dependency-aware task scheduler in JavaScript (specs/scheduler.md, without the extensions):
// one record per task id (its current generation), readiness recomputed after every call.
// LateCallbackScheduler has a classic mistake: it ignores the generation a callback quotes, so
// the late worker of an old generation completes (or fails) the current one.
"use strict";

const TERMINAL = new Set(["SUCCEEDED", "FAILED", "BLOCKED", "CANCELLED"]);
const DEAD = new Set(["FAILED", "BLOCKED", "CANCELLED"]);

class ClosedError extends Error { constructor(m) { super(m); this.name = "ClosedError"; } }
class NotStartedError extends Error { constructor(m) { super(m); this.name = "NotStartedError"; } }
class UnknownTaskError extends Error {
  constructor(taskId) { super(`task ${JSON.stringify(taskId)} was never submitted`); this.name = "UnknownTaskError"; this.taskId = taskId; }
}
class ConflictError extends Error {
  constructor(taskId, generation) {
    super(`cannot resubmit ${JSON.stringify(taskId)}: generation ${generation} is RUNNING`);
    this.name = "ConflictError"; this.taskId = taskId; this.generation = generation;
  }
}
class UnknownDependencyError extends Error {
  constructor(taskId, missing) {
    super(`task ${JSON.stringify(taskId)} depends on ${JSON.stringify(missing)}, never submitted`);
    this.name = "UnknownDependencyError"; this.taskId = taskId; this.missing = missing;
  }
}
class CycleError extends Error {
  constructor(cycle) { super(`dependency cycle ${cycle.join(" -> ")}`); this.name = "CycleError"; this.cycle = cycle; }
}

function requireInt(value, what, minimum) {
  if (typeof value !== "number" || !Number.isInteger(value)) throw new TypeError(`${what} must be an integer`);
  if (minimum !== undefined && value < minimum) throw new RangeError(`${what} must be >= ${minimum}`);
  return value;
}

// (call, state, requested) -> [outcome, next state]; absent: REJECTED.
const TRANSITIONS = new Map(Object.entries({
  "complete RUNNING false": ["APPLIED", "SUCCEEDED"], "complete RUNNING true": ["APPLIED", "SUCCEEDED"],
  "complete SUCCEEDED false": ["DUPLICATE", "SUCCEEDED"], "complete SUCCEEDED true": ["DUPLICATE", "SUCCEEDED"],
  "fail RUNNING false": ["APPLIED", "FAILED"], "fail RUNNING true": ["APPLIED", "CANCELLED"],
  "fail FAILED false": ["DUPLICATE", "FAILED"], "fail CANCELLED false": ["DUPLICATE", "CANCELLED"],
  "fail CANCELLED true": ["DUPLICATE", "CANCELLED"],
  "cancel PENDING false": ["APPLIED", "CANCELLED"], "cancel READY false": ["APPLIED", "CANCELLED"],
  "cancel RUNNING false": ["REQUESTED", "RUNNING"], "cancel RUNNING true": ["DUPLICATE", "RUNNING"],
  "cancel CANCELLED false": ["DUPLICATE", "CANCELLED"], "cancel CANCELLED true": ["DUPLICATE", "CANCELLED"],
}));

function findCycle(roots, edges) {
  const colour = new Map();
  for (const root of roots) {
    if (colour.has(root)) continue;
    const stack = [root];
    const iters = [edges(root)[Symbol.iterator]()];
    colour.set(root, 1);
    while (iters.length) {
      const step = iters[iters.length - 1].next();
      if (step.done) { colour.set(stack.pop(), 2); iters.pop(); continue; }
      const next = step.value;
      if (colour.get(next) === 1) {
        const i = stack.indexOf(next);
        return [next, ...stack.slice(i).reverse()];
      }
      if (!colour.has(next)) { colour.set(next, 1); stack.push(next); iters.push(edges(next)[Symbol.iterator]()); }
    }
  }
  return null;
}

class Scheduler {
  constructor(maxConcurrency) {
    this.maxConcurrency = requireInt(maxConcurrency, "max_concurrency", 0);
    this.tasks = new Map();
    this.seq = 0;
    this.started = false;
    this.closed = false;
  }

  get(taskId) {
    const t = this.tasks.get(taskId);
    if (t === undefined) throw new UnknownTaskError(taskId);
    return t;
  }

  isStale(g, t) { return g !== null && g !== t.generation; }

  info(taskId) {
    const t = this.get(taskId);
    return { taskId: t.taskId, generation: t.generation, state: t.state, cause: t.cause, error: t.error };
  }

  cancelRequested(taskId, generation) {
    requireInt(generation, "generation");
    const t = this.get(taskId);
    return generation === t.generation && t.requested;
  }

  blockingCause(t) {
    for (const d of t.deps) {
      const dt = this.tasks.get(d);
      if (dt !== undefined && DEAD.has(dt.state)) return dt.state === "FAILED" ? ["failed", d, dt.generation] : dt.cause;
    }
    return null;
  }

  blockFrom(root, cause) {
    const frontier = [root];
    while (frontier.length) {
      const x = frontier.pop();
      for (const t of this.tasks.values()) {
        if (t.deps.includes(x) && (t.state === "PENDING" || t.state === "READY")) {
          t.state = "BLOCKED"; t.cause = cause; frontier.push(t.taskId);
        }
      }
    }
  }

  settle() {
    for (const t of this.tasks.values()) {
      if (t.state !== "PENDING" && t.state !== "READY") continue;
      const ready = t.deps.every((d) => { const dt = this.tasks.get(d); return dt !== undefined && dt.state === "SUCCEEDED"; });
      t.state = ready ? "READY" : "PENDING";
    }
  }

  edges(override) {
    return (x) => {
      const ds = override && override.has(x) ? override.get(x) : this.tasks.get(x).deps;
      return ds.filter((d) => this.tasks.has(d) || (override && override.has(d)));
    };
  }

  submit(taskId, deps = [], fn = null) {
    const req = [...new Set(deps)];
    if (fn !== null && typeof fn !== "string" && typeof fn !== "function") throw new TypeError("fn must be callable or None");
    if (this.closed) throw new ClosedError(`cannot submit ${JSON.stringify(taskId)}: the scheduler is closed`);
    const old = this.tasks.get(taskId);
    if (old !== undefined && old.state === "RUNNING") throw new ConflictError(taskId, old.generation);
    if (this.started) {
      const missing = req.filter((d) => !this.tasks.has(d) && d !== taskId);
      if (missing.length) throw new UnknownDependencyError(taskId, missing);
      const cycle = findCycle([taskId], this.edges(new Map([[taskId, req]])));
      if (cycle !== null) throw new CycleError(cycle);
    }
    let t = old;
    if (t === undefined) { t = { taskId, generation: 0 }; this.tasks.set(taskId, t); }
    this.seq += 1;
    Object.assign(t, { generation: t.generation + 1, seq: this.seq, deps: req, fn, state: "PENDING",
      cause: null, error: null, requested: false });
    const cause = this.blockingCause(t);
    if (cause !== null) { t.state = "BLOCKED"; t.cause = cause; this.blockFrom(taskId, cause); }
    this.settle();
    return t.generation;
  }

  start() {
    if (this.closed && !this.started) throw new ClosedError("cannot start(): closed before it started");
    if (this.started) return null;
    const order = [...this.tasks.values()].sort((a, b) => a.seq - b.seq);
    for (const t of order) {
      const missing = t.deps.filter((d) => !this.tasks.has(d));
      if (missing.length) throw new UnknownDependencyError(t.taskId, missing);
    }
    const cycle = findCycle(order.map((t) => t.taskId), this.edges(null));
    if (cycle !== null) throw new CycleError(cycle);
    this.started = true;
    return null;
  }

  ready(limit = null) {
    if (limit !== null) requireInt(limit, "limit", 0);
    if (!this.started) throw new NotStartedError("ready() before start(): call start() first");
    if (this.closed) return [];
    const running = [...this.tasks.values()].filter((t) => t.state === "RUNNING").length;
    let n = this.maxConcurrency - running;
    if (limit !== null) n = Math.min(n, limit);
    const queue = [...this.tasks.values()].filter((t) => t.state === "READY").sort((a, b) => a.seq - b.seq);
    return queue.slice(0, Math.max(n, 0)).map((t) => {
      t.state = "RUNNING";
      return { taskId: t.taskId, generation: t.generation, fn: t.fn };
    });
  }

  apply(call, taskId, generation, error) {
    if (generation !== null) requireInt(generation, "generation");
    const t = this.get(taskId);
    if (this.isStale(generation, t)) return ["STALE", t.state];
    const hit = TRANSITIONS.get(`${call} ${t.state} ${t.requested}`);
    if (hit === undefined) return ["REJECTED", t.state];
    const [outcome, next] = hit;
    if (outcome === "APPLIED") {
      t.state = next;
      if (next === "CANCELLED") t.cause = ["cancelled", t.taskId, t.generation];
      if (call === "fail") t.error = error;
      if (DEAD.has(next)) this.blockFrom(t.taskId, next === "CANCELLED" ? t.cause : ["failed", t.taskId, t.generation]);
      this.settle();
    } else if (outcome === "REQUESTED") {
      t.requested = true;
    }
    return [outcome, t.state];
  }

  complete(taskId, generation) { return this.apply("complete", taskId, requireInt(generation, "generation"), null); }

  fail(taskId, generation, error = null) { return this.apply("fail", taskId, requireInt(generation, "generation"), error); }

  cancel(taskId, generation = null) { return this.apply("cancel", taskId, generation, null); }

  close() {
    if (this.closed) return [];
    this.closed = true;
    const out = [];
    for (const t of [...this.tasks.values()].sort((a, b) => a.seq - b.seq)) {
      if (t.state === "PENDING" || t.state === "READY") {
        t.state = "CANCELLED"; t.cause = ["shutdown", t.taskId, t.generation]; out.push(t.taskId);
      }
    }
    return out;
  }
}

class LateCallbackScheduler extends Scheduler {
  isStale(g, t) { return false; }
}

module.exports = { Scheduler, LateCallbackScheduler };
