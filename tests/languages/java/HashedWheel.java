// A hashed timing wheel in Java (specs/wheel.md): buckets of timers with remaining rounds.
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public class HashedWheel {
    public static final String[] OPTIONS = {"start", "maxCatchupTicks", "maxPending"};

    public static final class Timer {
        public final long deadline;
        final String callback;
        final HashedWheel wheel;
        long rounds;
        boolean fired;
        boolean cancelled;

        Timer(HashedWheel wheel, long deadline, String callback, long rounds) {
            this.wheel = wheel;
            this.deadline = deadline;
            this.callback = callback;
            this.rounds = rounds;
        }
    }

    public static final class WheelFullError extends RuntimeException {
        public final long pending;
        public final long maxPending;

        WheelFullError(long pending, long maxPending) {
            super("wheel is full: " + pending + " timers pending, max_pending=" + maxPending);
            this.pending = pending;
            this.maxPending = maxPending;
        }
    }

    private final long tick;
    private final int size;
    private final Long maxCatchup;
    private final Long maxPending;
    private final List<List<Timer>> buckets = new ArrayList<>();
    private long cursor;
    private long now;
    private long live;

    public HashedWheel(long tick, long wheelSize, Map<String, Object> options) {
        if (tick < 1 || wheelSize < 1) throw new IllegalArgumentException("tick and wheel_size must be >= 1");
        long start = options.containsKey("start") ? (Long) options.get("start") : 0L;
        maxCatchup = (Long) options.get("maxCatchupTicks");
        maxPending = (Long) options.get("maxPending");
        if (maxCatchup != null && maxCatchup < 1) throw new IllegalArgumentException("max_catchup_ticks must be >= 1");
        if (maxPending != null && maxPending < 0) throw new IllegalArgumentException("max_pending must be >= 0");
        this.tick = tick;
        this.size = Math.toIntExact(wheelSize);
        for (int i = 0; i < size; i++) buckets.add(new ArrayList<>());
        cursor = Math.floorDiv(start, tick);
        now = start;
    }

    protected boolean forgetsRounds() {
        return false;
    }

    public Timer schedule(long deadline, String callback) {
        return add(deadline, callback);
    }

    public Timer scheduleAfter(long delay, String callback) {
        return add(now + delay, callback);
    }

    private Timer add(long deadline, String callback) {
        if (maxPending != null && live >= maxPending) throw new WheelFullError(live, maxPending);
        long due = Math.max(-Math.floorDiv(-deadline, tick), cursor);
        Timer timer = new Timer(this, deadline, callback, (due - cursor) / size);
        buckets.get((int) Math.floorMod(due, (long) size)).add(timer);
        live++;
        return timer;
    }

    public boolean cancel(Object handle) {
        if (!(handle instanceof Timer timer)) throw new ClassCastException("cancel() takes a timer handle");
        if (timer.wheel != this || timer.fired || timer.cancelled) return false;
        timer.cancelled = true;
        live--;
        return true;
    }

    public List<Timer> advance(long to) {
        if (to < now) throw new IllegalArgumentException("advance(" + to + ") goes back in time (last now " + now + ")");
        now = to;
        long last = Math.floorDiv(to, tick);
        if (maxCatchup != null) last = Math.min(last, cursor + maxCatchup - 1);
        List<Timer> fired = new ArrayList<>();
        for (; cursor <= last; cursor++) {
            if (live == 0) {
                cursor = last + 1;
                break;
            }
            int index = (int) Math.floorMod(cursor, (long) size);
            List<Timer> keep = new ArrayList<>();
            for (Timer timer : buckets.get(index)) {
                if (timer.cancelled) continue;
                if (timer.rounds > 0 && !forgetsRounds()) {
                    timer.rounds--;
                    keep.add(timer);
                    continue;
                }
                timer.fired = true;
                live--;
                fired.add(timer);
            }
            buckets.set(index, keep);
        }
        return fired;
    }

    public long pending() {
        return live;
    }

    public long lagTicks() {
        return Math.floorDiv(now, tick) + 1 - cursor;
    }
}
