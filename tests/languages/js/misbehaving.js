// Wheels whose process misbehaves once a timer fires: the check must give a verdict naming the
// call (and start a fresh process for the next example), never a traceback.
"use strict";
const { HashedWheel } = require("./wheel.js");

class ChattyWheel extends HashedWheel {  // a debugging line left on stdout
  advance(now) {
    const fired = super.advance(now);
    if (fired.length) console.log(`fired ${fired.length}`);
    return fired;
  }
}

class HangingWheel extends HashedWheel {  // an endless loop
  advance(now) {
    const fired = super.advance(now);
    if (fired.length) for (;;) { /* spins */ }
    return fired;
  }
}

class CrashingWheel extends HashedWheel {  // the process dies
  advance(now) {
    const fired = super.advance(now);
    if (fired.length) { process.stderr.write("fatal: out of luck\n"); process.exit(3); }
    return fired;
  }
}

module.exports = { ChattyWheel, HangingWheel, CrashingWheel };
