// timer-wheel 1.0.0 holds an item scheduled with a delay of 0 (or a deadline already passed)
// for a whole rotation of its first layer, about 64 s: schedule(data, delay) files it in the
// bucket of the current tick, which advance() has already walked, so it is expired only when
// the 64-bucket layer comes round again. A delay of 1 ms expires with the next bucket.
// Expected (the README: schedule(data, delayMs) expires it "after a certain delay"; advance()
// returns "all expired items"): the first advance after its delay returns it, as for 1 ms.
// (Its README calls the wheel "designed for larger delays" with "a minimum delay of 1000 ms";
// a delay of 1 ms is below that minimum too, and does expire within a bucket.)
// Found by `schedcheck check wheel --exec ...` (the check's phases: its swarm phase
// scheduled a timer at a deadline already passed; W-INV-LATE, reduced to 3 steps).
// Run: node tests/corpus/bugs/timer_wheel_due_now_waits_a_rotation.js   (exit 1 while the bug is there)
"use strict";
const path = require("path");
const { TimerWheel } = require(path.join(__dirname, "..", "js", "node_modules", "timer-wheel"));

function expiry(delay) {
  const wheel = new TimerWheel();
  let now = 0; // the wheel's own clock, localTime = Date.now() - base, read from a fake clock
  Object.defineProperty(wheel, "localTime", { get: () => now });
  now = 1024;
  wheel.advance(now);
  wheel.schedule("item", delay);
  for (let t = 1025; t <= 200000; t += 1) {
    now = t;
    if (wheel.advance(t).includes("item")) return t;
  }
  return null;
}

const one = expiry(1);
const zero = expiry(0);
console.log("scheduled at 1024 ms, advanced every 1 ms afterwards");
console.log(`delay 1 ms: expired at ${one} ms (${one - 1025} ms after it was due)`);
console.log(`delay 0 ms: expired at ${zero} ms (${zero === null ? "never" : zero - 1024 + " ms after it was due"})`);
if (zero === null || zero - 1024 > 1024) {
  console.log(`BUG: a delay of 0 expired ${zero === null ? "never" : ((zero - 1024) / 1000) + " s late"}: the current bucket had already been walked`);
  process.exit(1);
}
console.log("no bug: a delay of 0 expired within a bucket");
