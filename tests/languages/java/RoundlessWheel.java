// A classic mistake: the wheel forgets the remaining rounds and fires every timer of a bucket at
// its first visit, a rotation (or more) early.
import java.util.Map;

public class RoundlessWheel extends HashedWheel {
    public RoundlessWheel(long tick, long wheelSize, Map<String, Object> options) {
        super(tick, wheelSize, options);
    }

    @Override
    protected boolean forgetsRounds() {
        return true;
    }
}
