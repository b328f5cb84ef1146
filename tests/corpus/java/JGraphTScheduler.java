// JGraphT 0.8.3 (Debian's libjgrapht0.8-java, /usr/share/java/jgrapht0.8.jar: the graph library
// of many JVM build and workflow tools): DefaultDirectedGraph (an edge task -> dependency; loops
// allowed), CycleDetector (detectCycles, findCyclesContainingVertex), removeVertex. The adapter
// maps the core scheduler contract: submit = addVertex + addEdge (a dependency not yet submitted
// is added as a vertex of its own, as an edge needs both ends), start = CycleDetector (a cycle is
// thrown as CycleError with a path through JGraphT's cycle set, each dependency before its
// dependant), ready = the vertices with no outgoing edge not handed out yet (at most the free
// slots: JGraphT has no concurrency limit, so the adapter counts running tasks), complete =
// removeVertex, which releases the dependants. Declared, not re-implemented: no generations,
// fail, cancel, close or info; ready tasks in the graph's own order; no refusal of malformed
// arguments; a report only for a task handed out (the graph does not know which tasks run).
// Verdict (tests/corpus/test_corpus_debian.py, core level): every checked clause held.
//
//   javac -cp /usr/share/java/jgrapht0.8.jar -d build Shim.java JGraphTScheduler.java
//   java -cp build:/usr/share/java/jgrapht0.8.jar Shim JGraphTScheduler

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jgrapht.alg.CycleDetector;
import org.jgrapht.graph.DefaultDirectedGraph;
import org.jgrapht.graph.DefaultEdge;

public class JGraphTScheduler {
    public static final Map<String, Object> CAPABILITIES = Map.of(
        "generations", false, "fail", false, "cancel", false, "close", false, "info", false,
        "claimOrder", "any", "validatesArgs", false, "unknownDeps", false, "limit", false,
        "claimsOnly", true);

    public static final class CycleError extends RuntimeException {
        public final List<Object> cycle;

        public CycleError(List<Object> cycle) {
            super("cycle: " + cycle);
            this.cycle = cycle;
        }
    }

    private final long maxConcurrency;
    private final DefaultDirectedGraph<Object, DefaultEdge> graph =
        new DefaultDirectedGraph<>(DefaultEdge.class);
    private final Set<Object> running = new HashSet<>();
    private final Set<Object> handedOut = new HashSet<>();

    public JGraphTScheduler(long maxConcurrency) {
        this.maxConcurrency = maxConcurrency;
    }

    public void submit(Object taskId, List<Object> deps, Object fn) {
        graph.addVertex(taskId);  // false for a vertex already there
        for (Object dep : deps) {
            graph.addVertex(dep);
            graph.addEdge(taskId, dep);  // null for an edge already there
        }
    }

    public void start() {
        Set<Object> on = new CycleDetector<>(graph).findCycles();  // every vertex on a cycle
        for (Object v : graph.vertexSet()) {  // the first of them in the graph's order
            if (on.contains(v)) throw new CycleError(path(v, on));
        }
    }

    /** A cycle through {@code start} inside JGraphT's set of the vertices on its cycles, each
     *  dependency listed before its dependant (depth first along the edges task -> dep). */
    private List<Object> path(Object start, Set<Object> on) {
        List<Object> walk = new ArrayList<>();
        if (walk(start, start, on, walk, new HashSet<>())) {
            List<Object> cycle = new ArrayList<>(walk);
            cycle.add(start);  // [a, ..., a]: a loop is [a, a]
            java.util.Collections.reverse(cycle);
            return cycle;
        }
        return new ArrayList<>(on);
    }

    private boolean walk(Object at, Object start, Set<Object> on, List<Object> walk,
                         Set<Object> seen) {
        walk.add(at);
        seen.add(at);
        for (DefaultEdge e : graph.outgoingEdgesOf(at)) {
            Object next = graph.getEdgeTarget(e);
            if (next.equals(start)) return true;
            if (on.contains(next) && !seen.contains(next) && walk(next, start, on, walk, seen)) return true;
        }
        walk.remove(walk.size() - 1);
        return false;
    }

    public List<List<Object>> ready(Long limit) {
        long free = maxConcurrency - running.size();
        if (limit != null) free = Math.min(free, limit);
        List<List<Object>> claims = new ArrayList<>();
        for (Object taskId : graph.vertexSet()) {
            if (claims.size() >= free) break;
            if (handedOut.contains(taskId) || graph.outDegreeOf(taskId) != 0) continue;
            handedOut.add(taskId);
            running.add(taskId);
            claims.add(List.of(taskId, 0L));
        }
        return claims;
    }

    public void complete(Object taskId, long generation) {
        running.remove(taskId);
        graph.removeVertex(taskId);  // false for a vertex already gone
    }
}
