// @sinonjs/fake-timers 15.5.0 (npm; the fake clock of Sinon, Jest and Vitest): a clock whose
// setTimeout/clearTimeout keep timers in a heap and whose tick(ms) runs every timer that is due.
// The adapter maps the wheel contract onto one clock per wheel: one time unit = one millisecond,
// schedule(deadline) = setTimeout(fire, deadline - now), schedule_after(delay) =
// setTimeout(fire, delay), cancel = clearTimeout (which returns undefined whatever happened:
// the adapter's reply is whether its books had the timer pending, as the Python adapters'
// base does for cancel="none"; whether it then fires anyway is the library's and is checked),
// advance(now) = tick(now - clock.now), pending() = countTimers(), the start option = the
// clock's start. Declared, not re-implemented: it fires at the deadline itself (no ticks),
// clearTimeout returns nothing, malformed arguments are coerced rather than refused (as the
// browser's setTimeout does), and a delay over 2**31 - 1 ms becomes 1 ms (the WebIDL rule that
// Node and browsers follow), so no longer delay is drawn.
// Verdict (tests/corpus/test_corpus_npm.py): every checked clause held.
"use strict";
const FakeTimers = require("@sinonjs/fake-timers");

class FakeTimersWheel {
  static options = ["start"];
  static capabilities = { cancel: "none", validatesArgs: false, dueTicks: false,
    maxDelay: 2 ** 31 - 1 };

  constructor(tick, wheelSize, { start = 0 } = {}) {
    this.clock = FakeTimers.createClock(start);
    this.fired = [];
  }

  scheduleAfter(delay, callback) {
    const timer = { deadline: this.clock.now + delay, owner: this, done: false };
    timer.id = this.clock.setTimeout(() => { timer.done = true; this.fired.push(timer); }, delay);
    return timer;
  }

  schedule(deadline, callback) {
    return this.scheduleAfter(deadline - this.clock.now, callback);
  }

  cancel(timer) {
    this.clock.clearTimeout(timer.id); // another clock's id too: the library's own refusal
    const stopped = timer.owner === this && !timer.done;
    timer.done = timer.done || stopped;
    return stopped;
  }

  advance(now) {
    this.clock.tick(now - this.clock.now);
    const fired = this.fired;
    this.fired = [];
    return fired;
  }

  pending() {
    return this.clock.countTimers();
  }
}

module.exports = { FakeTimersWheel };
