// timer-wheel 1.0.0 skips its first layer when the wheel's clock crosses a multiple of 2**20 ms
// (about 17.5 minutes after the wheel was made): advance() walks the buckets from
// `previousTicks & 1023` to `timeTicks & 1023`, a range that runs backwards (and so is empty)
// when the tick count wraps from 1023 to 1024. An item due then is not expired by that advance,
// nor by the next ones, until the 64-bucket layer comes round again, about 65 s late.
// Expected (the README: schedule(data, delayMs) expires it "after a certain delay"; advance()
// returns "all expired items"): an advance at or after its expiry time returns it.
// Run: node tests/corpus/bugs/timer_wheel_skips_at_wrap.js   (exit 1 while the bug is there)
"use strict";
const path = require("path");
const { TimerWheel } = require(path.join(__dirname, "..", "js", "node_modules", "timer-wheel"));

const wheel = new TimerWheel();
// the wheel's own clock, localTime = Date.now() - base, read here from a fake clock
let now = 0;
Object.defineProperty(wheel, "localTime", { get: () => now });

const advanceTo = (t) => { now = t; return wheel.advance(t); };
for (let t = 1000; t <= 1047000; t += 1000) advanceTo(t); // one advance a second, as the README does
wheel.schedule("item", 1500); // due at 1048500 ms
let firedAt = null;
for (let t = 1048000; t <= 1200000 && firedAt === null; t += 1000) {
  if (advanceTo(t).includes("item")) firedAt = t;
}
console.log(`scheduled at 1047000 ms with a delay of 1500 ms: due at 1048500 ms`);
console.log(`expected: returned by the advance at 1049000 ms (the first one after it is due; its buckets are 1024 ms wide)`);
console.log(`got:      returned by the advance at ${firedAt} ms`);
if (firedAt === null || firedAt - 1048500 > 1024) {
  console.log(`BUG: it expired ${(firedAt - 1048500) / 1000} s late (the advance walked no bucket of its first layer)`);
  process.exit(1);
}
console.log("fixed: it expired on time");
