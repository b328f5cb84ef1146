// A hashed timing wheel in JavaScript (specs/wheel.md): buckets of timers with remaining rounds.
// RoundlessWheel has a classic mistake: it forgets the remaining rounds and fires every timer of
// a bucket at its first visit, a rotation (or more) early.
"use strict";

class WheelFullError extends Error {
  constructor(pending, maxPending) {
    super(`wheel is full: ${pending} timers pending, max_pending=${maxPending}`);
    this.name = "WheelFullError";
    this.pending = pending;
    this.maxPending = maxPending;
  }
}

function requireInt(value, what, minimum) {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new TypeError(`${what} must be an integer, not ${JSON.stringify(value)}`);
  }
  if (minimum !== undefined && value < minimum) throw new RangeError(`${what} must be >= ${minimum}`);
  return value;
}

class Timer {
  constructor(wheel, deadline, callback, due, rounds) {
    this.wheel = wheel;
    this.deadline = deadline;
    this.callback = callback;
    this.due = due;
    this.rounds = rounds;
    this.fired = false;
    this.cancelled = false;
  }
}

class HashedWheel {
  static options = ["start", "maxCatchupTicks", "maxPending"];

  constructor(tick, wheelSize, { start = 0, maxCatchupTicks = null, maxPending = null } = {}) {
    this.tick = requireInt(tick, "tick", 1);
    this.size = requireInt(wheelSize, "wheel_size", 1);
    requireInt(start, "start");
    if (maxCatchupTicks !== null) requireInt(maxCatchupTicks, "max_catchup_ticks", 1);
    if (maxPending !== null) requireInt(maxPending, "max_pending", 0);
    this.maxCatchup = maxCatchupTicks;
    this.maxPending = maxPending;
    this.cursor = Math.floor(start / this.tick);
    this.now = start;
    this.live = 0;
    this.buckets = Array.from({ length: this.size }, () => []);
  }

  schedule(deadline, callback) {
    requireInt(deadline, "deadline");
    return this._schedule(deadline, callback);
  }

  scheduleAfter(delay, callback) {
    requireInt(delay, "delay");
    return this._schedule(this.now + delay, callback);
  }

  _schedule(deadline, callback) {
    if (typeof callback !== "string" && typeof callback !== "function") {
      throw new TypeError("callback must be callable");
    }
    if (this.maxPending !== null && this.live >= this.maxPending) {
      throw new WheelFullError(this.live, this.maxPending);
    }
    const due = Math.max(-Math.floor(-deadline / this.tick), this.cursor);
    const rounds = Math.floor((due - this.cursor) / this.size);
    const timer = new Timer(this, deadline, callback, due, rounds);
    this.buckets[((due % this.size) + this.size) % this.size].push(timer);
    this.live += 1;
    return timer;
  }

  cancel(timer) {
    if (!(timer instanceof Timer)) throw new TypeError("cancel() takes a timer handle");
    if (timer.wheel !== this || timer.fired || timer.cancelled) return false;
    timer.cancelled = true;
    this.live -= 1;
    return true;
  }

  advance(now) {
    requireInt(now, "now");
    if (now < this.now) throw new RangeError(`advance(${now}) goes back in time (last now ${this.now})`);
    this.now = now;
    let last = Math.floor(now / this.tick);
    if (this.maxCatchup !== null) last = Math.min(last, this.cursor + this.maxCatchup - 1);
    const fired = [];
    for (; this.cursor <= last; this.cursor += 1) {
      if (this.live === 0) { this.cursor = last + 1; break; }
      const index = ((this.cursor % this.size) + this.size) % this.size;
      const keep = [];
      for (const timer of this.buckets[index]) {
        if (timer.cancelled) continue;
        if (timer.rounds > 0 && !this.forgetsRounds) {
          timer.rounds -= 1;
          keep.push(timer);
          continue;
        }
        timer.fired = true;
        this.live -= 1;
        fired.push(timer);
      }
      this.buckets[index] = keep;
    }
    return fired;
  }

  pending() { return this.live; }

  lagTicks() { return Math.floor(this.now / this.tick) + 1 - this.cursor; }
}

class RoundlessWheel extends HashedWheel {
  get forgetsRounds() { return true; }
}

module.exports = { HashedWheel, RoundlessWheel, WheelFullError };
