// A hashed timing wheel in C++ (specs/wheel.md): buckets of timers with remaining rounds.
// Built with -DFORGETS_ROUNDS it has a classic mistake: it fires every timer of a bucket at its
// first visit, a rotation (or more) early.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "shim.hpp"

struct Timer {
    std::int64_t deadline;
    std::string callback;
    const void* wheel;
    std::int64_t rounds;
    bool fired = false;
    bool cancelled = false;
};

struct WheelFullError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

static std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

class HashedWheel {
public:
    static inline const std::vector<std::string> OPTIONS{"start", "max_catchup_ticks", "max_pending"};
    using H = std::shared_ptr<Timer>;

    HashedWheel(std::int64_t tick, std::int64_t wheel_size, const schedcheck::WheelOptions& o)
        : tick_(tick), size_(wheel_size), catchup_(o.max_catchup_ticks), max_pending_(o.max_pending) {
        if (tick < 1 || wheel_size < 1) throw std::invalid_argument("tick and wheel_size must be >= 1");
        if (catchup_ && *catchup_ < 1) throw std::invalid_argument("max_catchup_ticks must be >= 1");
        if (max_pending_ && *max_pending_ < 0) throw std::invalid_argument("max_pending must be >= 0");
        now_ = o.start.value_or(0);
        cursor_ = floor_div(now_, tick_);
        buckets_.resize(static_cast<std::size_t>(size_));
    }

    H schedule(std::int64_t deadline, const std::string& cb) { return add(deadline, cb); }
    H schedule_after(std::int64_t delay, const std::string& cb) { return add(now_ + delay, cb); }

    bool cancel(const H& t) {
        if (t->wheel != this || t->fired || t->cancelled) return false;
        t->cancelled = true;
        --live_;
        return true;
    }

    std::vector<H> advance(std::int64_t now) {
        if (now < now_) throw std::invalid_argument("advance() goes back in time");
        now_ = now;
        std::int64_t last = floor_div(now, tick_);
        if (catchup_) last = std::min(last, cursor_ + *catchup_ - 1);
        std::vector<H> fired;
        for (; cursor_ <= last; ++cursor_) {
            if (live_ == 0) { cursor_ = last + 1; break; }
            auto& bucket = buckets_[static_cast<std::size_t>(((cursor_ % size_) + size_) % size_)];
            std::vector<H> keep;
            for (auto& t : bucket) {
                if (t->cancelled) continue;
#ifndef FORGETS_ROUNDS
                if (t->rounds > 0) { --t->rounds; keep.push_back(t); continue; }
#endif
                t->fired = true;
                --live_;
                fired.push_back(t);
            }
            bucket.swap(keep);
        }
        return fired;
    }

    std::int64_t pending() { return live_; }
    std::int64_t lag_ticks() { return floor_div(now_, tick_) + 1 - cursor_; }

private:
    H add(std::int64_t deadline, const std::string& cb) {
        if (max_pending_ && live_ >= *max_pending_)
            throw schedcheck::ContractError("WheelFullError", "wheel is full",
                                            {{"pending", live_}, {"max_pending", *max_pending_}});
        std::int64_t due = std::max(-floor_div(-deadline, tick_), cursor_);
        auto t = std::make_shared<Timer>(Timer{deadline, cb, this, (due - cursor_) / size_});
        buckets_[static_cast<std::size_t>(((due % size_) + size_) % size_)].push_back(t);
        ++live_;
        return t;
    }

    std::int64_t tick_, size_;
    std::optional<std::int64_t> catchup_, max_pending_;
    std::int64_t now_ = 0, cursor_ = 0, live_ = 0;
    std::vector<std::vector<H>> buckets_;
};

int main() { return schedcheck::serve_wheel<HashedWheel>(); }
