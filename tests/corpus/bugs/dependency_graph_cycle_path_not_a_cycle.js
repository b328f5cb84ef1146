// dependency-graph 1.0.0 reports a cycle path that is not a cycle when the depth-first search
// reaches the cycle from a node outside it: DepGraphCycleError.cyclePath (and the message) is
// the whole search path, so it starts with nodes that are not on the cycle.
// Expected (the README: the error "includes what the cycle was in the message as well as the
// cyclePath property: e.g. `Dependency Cycle Found: a -> b -> c -> a`"; every cycle in its own
// tests starts and ends with the same node): the cycle b -> c -> b (or c -> b -> c).
// Run: node tests/corpus/bugs/dependency_graph_cycle_path_not_a_cycle.js   (exit 1 while the bug is there)
"use strict";
const path = require("path");
const { DepGraph } = require(path.join(__dirname, "..", "js", "node_modules", "dependency-graph"));

const graph = new DepGraph();
for (const node of ["a", "b", "c"]) graph.addNode(node);
graph.addDependency("a", "b"); // a depends on b, which is on the cycle; a is not
graph.addDependency("b", "c");
graph.addDependency("c", "b");
let cyclePath = null;
try {
  graph.overallOrder();
} catch (e) {
  console.log(`got:      ${e.name}: ${e.message}; cyclePath ${JSON.stringify(e.cyclePath)}`);
  cyclePath = e.cyclePath;
}
console.log('expected: a cycle path that starts and ends with the same node: ["b","c","b"] or ["c","b","c"]');
if (!Array.isArray(cyclePath) || cyclePath[0] !== cyclePath[cyclePath.length - 1]) {
  console.log("BUG: the reported cycle path is not a cycle (it starts at a node outside the cycle)");
  process.exit(1);
}
console.log("fixed: the path is a cycle");
