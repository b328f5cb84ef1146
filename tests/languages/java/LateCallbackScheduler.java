// A classic mistake: the generation a callback quotes is ignored, so the late worker of an old
// generation completes (or fails, or cancels) the current one.
public class LateCallbackScheduler extends ListScheduler {
    public LateCallbackScheduler(long maxConcurrency) {
        super(maxConcurrency);
    }

    @Override
    protected boolean stale(Long generation, Task t) {
        return false;
    }
}
