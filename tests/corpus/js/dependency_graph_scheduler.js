// dependency-graph 1.0.0 (npm; a dependency graph with a topological order, used by build
// tools): DepGraph.addNode/addDependency(from, to) ("from" depends on "to"), overallOrder() (a
// DepGraphCycleError with .cyclePath for a cycle), overallOrder(true) (the leaves: nodes that
// depend on nothing), removeNode. The adapter maps the core scheduler contract: submit =
// addNode + addDependency (a dependency not yet submitted is added as a node of its own, as
// DepGraph requires its ends to exist), start = overallOrder() (the cycle check), ready = the
// leaves not handed out yet (at most the free slots: DepGraph has no concurrency limit, so the
// adapter counts running tasks), complete = removeNode, which releases its dependants. The
// cycle is reported as DepGraph's .cyclePath reversed (it lists each node before the one it
// depends on; the contract lists each dependency before its dependant). Declared, not
// re-implemented: no generations, fail, cancel, close or info; ready tasks in its own order;
// no refusal of malformed arguments; and a report only for a task handed out (DepGraph does
// not know which tasks run: removing a node that never ran is what its driver never does).
// Verdict (tests/corpus/test_corpus_npm.py, core level): S-ORACLE-CYCLE broken, a genuine bug:
// when a node outside a cycle is submitted first, the reported cycle path starts at it
// (reduced to: submit a depending on b, b depending on b, start -> "a -> b -> b"); reproduced
// without schedcheck by tests/corpus/bugs/dependency_graph_cycle_path_not_a_cycle.js. Every
// other checked clause held.
"use strict";
const { DepGraph } = require("dependency-graph");

class DependencyGraphScheduler {
  static capabilities = { generations: false, fail: false, cancel: false, close: false,
    info: false, claimOrder: "any", validatesArgs: false, unknownDeps: false, limit: false,
    claimsOnly: true };

  constructor(maxConcurrency) {
    this.maxConcurrency = maxConcurrency;
    this.graph = new DepGraph();
    this.running = new Set();
    this.handedOut = new Set();
  }

  submit(taskId, deps = [], fn = null) {
    this.graph.addNode(taskId);
    for (const dep of deps) {
      this.graph.addNode(dep);  // a no-op for a node already there
      this.graph.addDependency(taskId, dep);
    }
  }

  start() {
    try {
      this.graph.overallOrder();
    } catch (e) {
      if (Array.isArray(e.cyclePath)) e.cycle = [...e.cyclePath].reverse();
      throw e;
    }
  }

  ready(limit = null) {
    let free = this.maxConcurrency - this.running.size;
    if (limit !== null) free = Math.min(free, limit);
    const claims = [];
    for (const taskId of this.graph.overallOrder(true)) {
      if (claims.length >= free) break;
      if (this.handedOut.has(taskId)) continue;
      this.handedOut.add(taskId);
      this.running.add(taskId);
      claims.push([taskId, 0]);
    }
    return claims;
  }

  complete(taskId, generation = 0) {
    this.running.delete(taskId);
    this.graph.removeNode(taskId);  // "Node does not exist" for a duplicate
  }
}

module.exports = { DependencyGraphScheduler };
