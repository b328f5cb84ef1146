// A dependency-aware task scheduler in Java (specs/scheduler.md, without the extensions): one
// record per task id (its current generation), readiness recomputed after every call.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class ListScheduler {
    public record Claim(Object taskId, long generation, String fn) {}

    public record Reply(String outcome, String state) {}

    public record TaskInfo(Object taskId, long generation, String state, List<Object> cause, String error) {}

    public static final class ClosedError extends RuntimeException {
        public ClosedError(String m) { super(m); }
    }

    public static final class NotStartedError extends RuntimeException {
        public NotStartedError(String m) { super(m); }
    }

    public static final class UnknownTaskError extends RuntimeException {
        public final Object taskId;

        public UnknownTaskError(Object taskId) {
            super("task " + taskId + " was never submitted");
            this.taskId = taskId;
        }
    }

    public static final class ConflictError extends RuntimeException {
        public final Object taskId;
        public final long generation;

        public ConflictError(Object taskId, long generation) {
            super("cannot resubmit " + taskId + ": generation " + generation + " is RUNNING");
            this.taskId = taskId;
            this.generation = generation;
        }
    }

    public static final class UnknownDependencyError extends RuntimeException {
        public final Object taskId;
        public final List<Object> missing;

        public UnknownDependencyError(Object taskId, List<Object> missing) {
            super(taskId + " depends on " + missing + ", never submitted");
            this.taskId = taskId;
            this.missing = missing;
        }
    }

    public static final class CycleError extends RuntimeException {
        public final List<Object> cycle;

        public CycleError(List<Object> cycle) {
            super("dependency cycle " + cycle);
            this.cycle = cycle;
        }
    }

    static final class Task {
        Object taskId;
        long generation;
        long seq;
        List<Object> deps = List.of();
        String fn;
        String state = "PENDING";
        List<Object> cause;
        String error;
        boolean requested;
    }

    static final Set<String> DEAD = Set.of("FAILED", "BLOCKED", "CANCELLED");
    static final Map<String, String[]> TRANSITIONS = new HashMap<>();

    static {
        String[][] rows = {
            {"complete RUNNING false", "APPLIED", "SUCCEEDED"}, {"complete RUNNING true", "APPLIED", "SUCCEEDED"},
            {"complete SUCCEEDED false", "DUPLICATE", "SUCCEEDED"}, {"complete SUCCEEDED true", "DUPLICATE", "SUCCEEDED"},
            {"fail RUNNING false", "APPLIED", "FAILED"}, {"fail RUNNING true", "APPLIED", "CANCELLED"},
            {"fail FAILED false", "DUPLICATE", "FAILED"}, {"fail CANCELLED false", "DUPLICATE", "CANCELLED"},
            {"fail CANCELLED true", "DUPLICATE", "CANCELLED"},
            {"cancel PENDING false", "APPLIED", "CANCELLED"}, {"cancel READY false", "APPLIED", "CANCELLED"},
            {"cancel RUNNING false", "REQUESTED", "RUNNING"}, {"cancel RUNNING true", "DUPLICATE", "RUNNING"},
            {"cancel CANCELLED false", "DUPLICATE", "CANCELLED"}, {"cancel CANCELLED true", "DUPLICATE", "CANCELLED"},
        };
        for (String[] row : rows) TRANSITIONS.put(row[0], new String[] {row[1], row[2]});
    }

    private final long maxConcurrency;
    private final Map<Object, Task> tasks = new LinkedHashMap<>();
    private long seq;
    private boolean started;
    private boolean closed;

    public ListScheduler(long maxConcurrency) {
        if (maxConcurrency < 0) throw new IllegalArgumentException("max_concurrency must be >= 0");
        this.maxConcurrency = maxConcurrency;
    }

    private Task get(Object taskId) {
        Task t = tasks.get(taskId);
        if (t == null) throw new UnknownTaskError(taskId);
        return t;
    }

    protected boolean stale(Long generation, Task t) {
        return generation != null && generation != t.generation;
    }

    public TaskInfo info(Object taskId) {
        Task t = get(taskId);
        return new TaskInfo(t.taskId, t.generation, t.state, t.cause, t.error);
    }

    public boolean cancelRequested(Object taskId, long generation) {
        Task t = get(taskId);
        return generation == t.generation && t.requested;
    }

    private List<Object> blockingCause(Task t) {
        for (Object d : t.deps) {
            Task dt = tasks.get(d);
            if (dt != null && DEAD.contains(dt.state)) {
                return dt.state.equals("FAILED") ? Arrays.asList("failed", d, dt.generation) : dt.cause;
            }
        }
        return null;
    }

    private void blockFrom(Object root, List<Object> cause) {
        List<Object> frontier = new ArrayList<>(List.of(root));
        while (!frontier.isEmpty()) {
            Object x = frontier.remove(frontier.size() - 1);
            for (Task t : tasks.values()) {
                if (t.deps.contains(x) && (t.state.equals("PENDING") || t.state.equals("READY"))) {
                    t.state = "BLOCKED";
                    t.cause = cause;
                    frontier.add(t.taskId);
                }
            }
        }
    }

    private void settle() {
        for (Task t : tasks.values()) {
            if (!t.state.equals("PENDING") && !t.state.equals("READY")) continue;
            boolean ready = true;
            for (Object d : t.deps) {
                Task dt = tasks.get(d);
                ready &= dt != null && dt.state.equals("SUCCEEDED");
            }
            t.state = ready ? "READY" : "PENDING";
        }
    }

    private List<Object> findCycle(List<Object> roots, Map<Object, List<Object>> override) {
        Map<Object, Integer> colour = new HashMap<>();
        for (Object root : roots) {
            if (colour.containsKey(root)) continue;
            List<Object> stack = new ArrayList<>(List.of(root));
            List<java.util.Iterator<Object>> iters = new ArrayList<>(List.of(edges(root, override).iterator()));
            colour.put(root, 1);
            while (!iters.isEmpty()) {
                java.util.Iterator<Object> it = iters.get(iters.size() - 1);
                if (!it.hasNext()) {
                    colour.put(stack.remove(stack.size() - 1), 2);
                    iters.remove(iters.size() - 1);
                    continue;
                }
                Object next = it.next();
                Integer c = colour.get(next);
                if (c != null && c == 1) {
                    List<Object> cycle = new ArrayList<>(List.of(next));
                    List<Object> tail = new ArrayList<>(stack.subList(stack.indexOf(next), stack.size()));
                    java.util.Collections.reverse(tail);
                    cycle.addAll(tail);
                    return cycle;
                }
                if (c == null) {
                    colour.put(next, 1);
                    stack.add(next);
                    iters.add(edges(next, override).iterator());
                }
            }
        }
        return null;
    }

    private List<Object> edges(Object x, Map<Object, List<Object>> override) {
        List<Object> ds = override != null && override.containsKey(x) ? override.get(x) : tasks.get(x).deps;
        List<Object> out = new ArrayList<>();
        for (Object d : ds) if (tasks.containsKey(d) || (override != null && override.containsKey(d))) out.add(d);
        return out;
    }

    public long submit(Object taskId, List<Object> deps, String fn) {
        List<Object> req = new ArrayList<>(new LinkedHashSet<>(deps));
        if (closed) throw new ClosedError("cannot submit " + taskId + ": the scheduler is closed");
        Task old = tasks.get(taskId);
        if (old != null && old.state.equals("RUNNING")) throw new ConflictError(taskId, old.generation);
        if (started) {
            List<Object> missing = new ArrayList<>();
            for (Object d : req) if (!tasks.containsKey(d) && !d.equals(taskId)) missing.add(d);
            if (!missing.isEmpty()) throw new UnknownDependencyError(taskId, missing);
            List<Object> cycle = findCycle(List.of(taskId), Map.of(taskId, req));
            if (cycle != null) throw new CycleError(cycle);
        }
        Task t = old;
        if (t == null) {
            t = new Task();
            t.taskId = taskId;
            tasks.put(taskId, t);
        }
        t.generation += 1;
        t.seq = ++seq;
        t.deps = req;
        t.fn = fn;
        t.state = "PENDING";
        t.cause = null;
        t.error = null;
        t.requested = false;
        List<Object> cause = blockingCause(t);
        if (cause != null) {
            t.state = "BLOCKED";
            t.cause = cause;
            blockFrom(taskId, cause);
        }
        settle();
        return t.generation;
    }

    private List<Task> bySeq() {
        List<Task> out = new ArrayList<>(tasks.values());
        out.sort((a, b) -> Long.compare(a.seq, b.seq));
        return out;
    }

    public void start() {
        if (closed && !started) throw new ClosedError("cannot start(): closed before it started");
        if (started) return;
        List<Object> order = new ArrayList<>();
        for (Task t : bySeq()) {
            List<Object> missing = new ArrayList<>();
            for (Object d : t.deps) if (!tasks.containsKey(d)) missing.add(d);
            if (!missing.isEmpty()) throw new UnknownDependencyError(t.taskId, missing);
            order.add(t.taskId);
        }
        List<Object> cycle = findCycle(order, null);
        if (cycle != null) throw new CycleError(cycle);
        started = true;
    }

    public List<Claim> ready(Long limit) {
        if (limit != null && limit < 0) throw new IllegalArgumentException("limit must be >= 0");
        if (!started) throw new NotStartedError("ready() before start(): call start() first");
        List<Claim> claims = new ArrayList<>();
        if (closed) return claims;
        long running = tasks.values().stream().filter(t -> t.state.equals("RUNNING")).count();
        long n = maxConcurrency - running;
        if (limit != null) n = Math.min(n, limit);
        for (Task t : bySeq()) {
            if (claims.size() >= n) break;
            if (!t.state.equals("READY")) continue;
            t.state = "RUNNING";
            claims.add(new Claim(t.taskId, t.generation, t.fn));
        }
        return claims;
    }

    private Reply apply(String call, Object taskId, Long generation, String error) {
        Task t = get(taskId);
        if (stale(generation, t)) return new Reply("STALE", t.state);
        String[] hit = TRANSITIONS.get(call + " " + t.state + " " + t.requested);
        if (hit == null) return new Reply("REJECTED", t.state);
        if (hit[0].equals("APPLIED")) {
            t.state = hit[1];
            if (t.state.equals("CANCELLED")) t.cause = Arrays.asList("cancelled", t.taskId, t.generation);
            if (call.equals("fail")) t.error = error;
            if (DEAD.contains(t.state)) {
                blockFrom(t.taskId, t.state.equals("CANCELLED") ? t.cause : Arrays.asList("failed", t.taskId, t.generation));
            }
            settle();
        } else if (hit[0].equals("REQUESTED")) {
            t.requested = true;
        }
        return new Reply(hit[0], t.state);
    }

    public Reply complete(Object taskId, long generation) {
        return apply("complete", taskId, generation, null);
    }

    public Reply fail(Object taskId, long generation, String error) {
        return apply("fail", taskId, generation, error);
    }

    public Reply cancel(Object taskId, Long generation) {
        return apply("cancel", taskId, generation, null);
    }

    public List<Object> close() {
        List<Object> out = new ArrayList<>();
        if (closed) return out;
        closed = true;
        for (Task t : bySeq()) {
            if (t.state.equals("PENDING") || t.state.equals("READY")) {
                t.state = "CANCELLED";
                t.cause = Arrays.asList("shutdown", t.taskId, t.generation);
                out.add(t.taskId);
            }
        }
        return out;
    }
}
