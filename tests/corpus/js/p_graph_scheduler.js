// p-graph 2.0.0 (npm; Microsoft's promise graph runner with concurrency control, used by the
// lage build tool): new PGraph(nodeMap, [[dependency, dependant], ...]) (an Error naming the
// nodes of a cycle), run({concurrency, continue, run}) calls run(taskId) for each task whose
// dependencies all resolved, at most `concurrency` at once; with continue: true a task whose
// promise rejects fails its dependants, which are never run. The adapter maps the core
// scheduler contract: submit records the node and its edges, start = new PGraph(...) and
// run({concurrency: maxConcurrency, continue: true, run}), where run(taskId) is a claim: it
// returns a promise that complete() resolves and fail() rejects; ready() hands out the claims
// p-graph made (at most ready(limit) of them; the rest stay running for p-graph and are handed
// out next). p-graph moves on in promise callbacks, which Node runs between two requests of
// the checker. Declared, not re-implemented: no generations, cancel, close or info; ready
// tasks in its own (priority) order; no refusal of malformed arguments; and reports only for
// tasks it started, as its own promises are the only way to report.
// Verdict (tests/corpus/test_corpus_npm.py, core level): every checked clause held, S5 (a failure
// never releases its dependants) included.
"use strict";
const { PGraph } = require("p-graph");

class PGraphScheduler {
  static capabilities = { generations: false, cancel: false, close: false, info: false,
    claimOrder: "any", validatesArgs: false, claimsOnly: true };

  constructor(maxConcurrency) {
    this.maxConcurrency = maxConcurrency;
    this.nodes = new Map();
    this.edges = [];
    this.started = [];  // claims p-graph made, not yet handed out
    this.settle = new Map();  // task id -> {resolve, reject} of its running promise
  }

  submit(taskId, deps = [], fn = null) {
    this.nodes.set(taskId, {});
    for (const dep of deps) this.edges.push([dep, taskId]);
  }

  start() {
    const graph = new PGraph(this.nodes, this.edges);
    const run = (taskId) => new Promise((resolve, reject) => {
      this.settle.set(taskId, { resolve, reject });
      this.started.push(taskId);
    });
    graph.run({ concurrency: this.maxConcurrency, continue: true, run }).catch(() => {});
  }

  ready(limit = null) {
    const n = limit === null ? this.started.length : limit;
    return this.started.splice(0, n).map((taskId) => [taskId, 0]);
  }

  complete(taskId, generation = 0) {
    this.settle.get(taskId).resolve();
  }

  fail(taskId, generation = 0, error = null) {
    this.settle.get(taskId).reject(new Error(`${taskId} failed`));
  }
}

module.exports = { PGraphScheduler };
