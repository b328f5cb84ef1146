#!/usr/bin/env node
// schedcheck's JavaScript shim (specs/protocol.md, protocol 1): Node >= 18, no dependencies.
//
//   node shim.js path/to/module.js ClassName
//
// The module exports a class (module.exports = { ClassName } or export class ... via
// require of a CommonJS file) with the contract's methods, named either way: schedule_after or
// scheduleAfter, cancel_requested or cancelRequested. Errors are thrown as exceptions whose
// `name` (or class name) is the contract's: CycleError with `.cycle`, UnknownDependencyError with
// `.taskId`/`.missing`, WheelFullError with `.pending`/`.maxPending`; a JavaScript TypeError
// counts as TypeError and a RangeError as ValueError. A wheel's constructor is called as
// `new ClassName(tick, wheelSize, {start, maxCatchupTicks, maxPending})` and may accept only the
// options its class lists in `static options = ["start", ...]`; a scheduler's as
// `new ClassName(maxConcurrency)`. Log to stderr: stdout carries protocol lines only.
"use strict";
const path = require("path");

const SCHEDULER = ["submit", "start", "ready", "complete", "fail", "cancel", "cancel_requested",
  "close", "info", "retry", "add_dependency", "ready_pairs", "complete_many"];
const WHEEL = ["schedule", "schedule_after", "cancel", "advance", "pending", "lag_ticks",
  "callback_errors"];

const [modulePath, className] = process.argv.slice(2);
if (!modulePath || !className) {
  process.stderr.write("usage: node shim.js path/to/module.js ClassName\n");
  process.exit(2);
}
const Impl = require(path.resolve(modulePath))[className];
if (typeof Impl !== "function") {
  process.stderr.write(`${modulePath} exports no class ${className}\n`);
  process.exit(2);
}

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const snake = (name) => name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
function methodOf(obj, name) {
  if (typeof obj[name] === "function") return obj[name];
  if (typeof obj[camel(name)] === "function") return obj[camel(name)];
  return null;
}

class ProtocolTypeError extends Error {
  constructor(message) { super(message); this.name = "TypeError"; }
}

let system = null;
const instances = new Map(); // instance id -> {obj, handles: Map id->handle, ids: Map handle->id}

function isOpaque(v) { return v !== null && typeof v === "object" && "$object" in v; }
function checkArgs(args) {
  for (const a of args) {
    if (isOpaque(a)) throw new ProtocolTypeError(`${a.$object} (a Python ${a.type}) is not a value of the contract`);
  }
}
function checkId(id, what) {
  if (typeof id === "string" || Number.isInteger(id)) return;
  throw new ProtocolTypeError(`${what} must be a string or an integer, not ${JSON.stringify(id)}`);
}

function handleId(inst, h) {
  if (inst.ids.has(h)) return inst.ids.get(h);
  const id = inst.ids.size;
  inst.ids.set(h, id);
  inst.handles.set(id, h);
  return id;
}

function snakeKeys(v) {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (v instanceof Set) return [...v].map(snakeKeys);
  if (v instanceof Map) return [...v.entries()].map(snakeKeys);
  if (v !== null && typeof v === "object") {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[snake(k)] = snakeKeys(x);
    return out;
  }
  return v;
}

function cause(c) {
  if (c === null || c === undefined) return null;
  if (Array.isArray(c)) return c;
  return [c.kind, c.taskId !== undefined ? c.taskId : c.task_id, c.generation];
}

function claim(c) {
  if (Array.isArray(c)) return { task_id: c[0], generation: c[1] };
  const out = { task_id: c.taskId !== undefined ? c.taskId : c.task_id, generation: c.generation };
  if (typeof c.fn === "string") out.fn = c.fn;
  if (c.claim !== undefined) out.claim = c.claim;
  return out;
}

function callScheduler(inst, method, args) {
  const obj = inst.obj;
  if (["submit", "info", "complete", "fail", "cancel", "cancel_requested", "retry",
    "add_dependency"].includes(method)) checkId(args[0], "a task id");
  if (method === "submit") {
    if (!Array.isArray(args[1])) throw new ProtocolTypeError(`deps must be an array of task ids, not ${JSON.stringify(args[1])}`);
    args[1].forEach((d) => checkId(d, "a dependency"));
    if (args[3] !== undefined && !Array.isArray(args[3])) throw new ProtocolTypeError("optional must be an array of task ids");
  }
  if (method === "complete_many") args = [args[0].map((c) => ({ taskId: c.task_id, task_id: c.task_id, generation: c.generation, claim: c.claim }))];
  const fn = methodOf(obj, method);
  let value = fn.apply(obj, args);
  if (value === undefined) value = null;
  if (method === "submit") inst.taskIds.add(args[0]);
  switch (method) {
    case "ready": return value.map(claim);
    case "ready_pairs": return value.map((c) => (Array.isArray(c) ? c : [claim(c).task_id, c.generation]));
    case "info": {
      const out = snakeKeys(Object.assign({}, value, { cause: undefined }));
      out.cause = cause(value.cause);
      return out;
    }
    case "retry": return value instanceof Map ? [...value.entries()] : Array.isArray(value) ? value : Object.entries(value);
    case "close": return Array.isArray(value) ? value : [...value];
    default: return snakeKeys(value);
  }
}

function callWheel(inst, method, args) {
  const obj = inst.obj;
  if (method === "cancel") {
    const ref = args[0];
    if (ref === null || typeof ref !== "object" || !("handle" in ref)) throw new ProtocolTypeError("cancel() takes a handle");
    const owner = instances.get(ref.instance);
    const h = owner && owner.handles.get(ref.handle);
    if (h === undefined) throw new ProtocolTypeError(`no handle ${JSON.stringify(ref)}`);
    const stopped = methodOf(obj, "cancel").call(obj, h);
    return stopped === undefined ? null : stopped; // a void cancel() replies null
  }
  const value = methodOf(obj, method).apply(obj, args);
  if (method === "schedule" || method === "schedule_after") {
    const deadline = value && Number.isInteger(value.deadline) ? value.deadline : (method === "schedule" ? args[0] : null);
    return { handle: handleId(inst, value), deadline };
  }
  if (method === "advance") return [...value].map((h) => handleId(inst, h));
  return value === undefined ? null : value;
}

// Answers in advance (specs/protocol.md): the queries the checker will likely ask next,
// computed right after the call, so that it need not ask.
function answers(inst, queries) {
  const after = {};
  for (const q of queries) {
    if (q === "info") {
      if (system !== "scheduler" || !methodOf(inst.obj, "info")) continue;
      after.info = [...inst.taskIds].map((id) => {
        try {
          return [id, { value: callScheduler(inst, "info", [id]) }];
        } catch (e) {
          return [id, { error: errorOf(e) }];
        }
      });
    } else if (system === "wheel" && methodOf(inst.obj, q)) {
      try {
        after[q] = callWheel(inst, q, []);
      } catch (e) { /* asked for real when needed */ }
    }
  }
  return after;
}

function build(args, options) {
  if (system === "scheduler") return new Impl(...args);
  const allowed = new Set((Impl.options || []).map(snake));
  const opts = {};
  for (const [k, v] of Object.entries(options)) {
    if (!allowed.has(k)) throw new ProtocolTypeError(`${className} takes no option ${k}`);
    opts[camel(k)] = v;
  }
  return new Impl(...args, opts);
}

function errorOf(e) {
  let name = (e && (e.name && e.name !== "Error" ? e.name : e.constructor && e.constructor.name)) || "Error";
  if (name === "RangeError") name = "ValueError";
  const out = { name, message: String((e && e.message) || e) };
  if (e && typeof e === "object") {
    for (const [k, v] of Object.entries(e)) if (k !== "name" && k !== "message" && k !== "stack") out[snake(k)] = snakeKeys(v);
  }
  return out;
}

function handle(msg) {
  switch (msg.op) {
    case "hello": {
      system = msg.system;
      const names = system === "wheel" ? WHEEL : SCHEDULER;
      const methods = names.filter((m) => methodOf(Impl.prototype, m));
      const hello = { protocol: 1, system, implementation: `${path.basename(modulePath)}:${className}`, methods };
      if (Impl.features) hello.features = Impl.features;
      if (Impl.capabilities) hello.capabilities = snakeKeys(Impl.capabilities);
      return hello;
    }
    case "new": {
      for (const id of msg.drop || []) instances.delete(id);
      checkArgs(msg.args);
      instances.set(msg.instance, { obj: build(msg.args, msg.options || {}), handles: new Map(), ids: new Map(), taskIds: new Set() });
      return null;
    }
    case "call": {
      const inst = instances.get(msg.instance);
      if (!inst) throw new ProtocolTypeError(`no instance ${msg.instance}`);
      checkArgs(msg.args);
      if (!methodOf(inst.obj, msg.method)) throw new ProtocolTypeError(`${className} has no method ${msg.method}`);
      return system === "wheel" ? callWheel(inst, msg.method, msg.args) : callScheduler(inst, msg.method, msg.args);
    }
    case "shutdown": return null;
    default: throw new ProtocolTypeError(`unknown op ${msg.op}`);
  }
}

function serve(line) {
  const msg = JSON.parse(line);
  let reply;
  try {
    reply = { id: msg.id, value: handle(msg) };
  } catch (e) {
    reply = { id: msg.id, error: errorOf(e) };
  }
  if (msg.op === "call" && Array.isArray(msg.queries) && instances.has(msg.instance)) {
    reply.after = answers(instances.get(msg.instance), msg.queries);
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
  if (msg.op === "shutdown") process.exit(0);
}

// One request per line; a plain split of the input (cheaper than readline per line).
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    if (line.trim()) serve(line);
  }
});
process.stdin.on("end", () => process.exit(0));
