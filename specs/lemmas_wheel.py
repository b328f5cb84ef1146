"""z3 lemmas of the timing wheel (specs/wheel.md, invariants WI1..WI6), over unbounded integers.

Every formula below is an ordinary Python function of ``tick``, ``wheel_size``, ``cursor``,
``deadline``, ``now``... that works on ``int`` *and* on z3 terms (``floor_div``/``ceil_div`` map
to SMT-LIB ``div``, which is floor division for a positive divisor, and ``%`` is never negative
in both). The same functions compute the due tick in the lemmas, in the mutated wheels of the
replays, and in ``tests/specs/test_lemmas_on_model.py`` -- so the encoding cannot drift from the
executable model (``schedcheck.model.TimingWheel``), whose ``due_tick`` the tests compare.

No bound anywhere: tick, wheel_size, cursor, deadline and now are symbolic integers. z3's
non-linear integer arithmetic cannot always find the "a multiple of W strictly between -W and
W is 0" step by itself, so two arithmetic facts are proved first as lemmas of their own
(``arith-*``) and then given to the other queries as *instances* (a proved universal fact
instantiated at a term is sound).

Mutations (the seed's common mistakes) are refuted by a z3 model, then replayed: a subclass of
the model wheel computes the mutated due tick, the wheel is driven with real ``advance`` calls
at every tick boundary, and the shared predicate (never early / lateness) is evaluated on what
really fired.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import z3
from schedcheck.specs._z3util import Lemma, Query, Replay, ceil_div, floor_div, z3_max

__all__ = [
    "LEMMAS",
    "contract_due",
    "first_visit",
    "hashed_fire_tick",
    "hier_cascade_tick",
    "hier_level",
    "seed_due",
]

# ----------------------------------------------------------------------------------------
# The formulas, written once (ints or z3 terms)
# ----------------------------------------------------------------------------------------


def contract_due(deadline: Any, tick: Any, cursor: Any) -> Any:
    """Rule 2 (WI1): ``max(ceil(deadline / tick), cursor)``."""
    return z3_max(ceil_div(deadline, tick), cursor)


def bucket_of(due: Any, w: Any) -> Any:
    return due % w


def rounds_of(due: Any, cursor: Any, w: Any) -> Any:
    """Remaining rounds at placement: ``(due - cursor) // W``."""
    return floor_div(due - cursor, w)


def first_visit(bucket: Any, cursor: Any, w: Any) -> Any:
    """The first tick ``t >= cursor`` with ``t % W == bucket``: ``cursor + (bucket - cursor) % W``.
    The k-th visit (k >= 1) is ``first_visit + (k - 1) * W``."""
    return cursor + (bucket - cursor) % w


def hashed_fire_tick(due: Any, cursor: Any, w: Any) -> Any:
    """Visit ``rounds + 1`` of the bucket: each earlier visit only decrements the rounds."""
    return first_visit(bucket_of(due, w), cursor, w) + rounds_of(due, cursor, w) * w


def seed_due(deadline: Any, now: Any, tick: Any, cursor: Any) -> Any:
    """The seed's pseudocode: ``ticks = max(ceil((deadline - now) / tick), 0)`` counted from
    ``currentTick`` (the cursor): bucket ``currentTick + ticks``."""
    return cursor + z3_max(ceil_div(deadline - now, tick), 0)


def hier_cascade_tick(due: Any, span: Any) -> Any:
    """Hierarchical wheel: a level with slots of ``span`` ticks cascades the slot holding
    ``due`` at the slot's first tick ``(due // span) * span``; its bucket is
    ``(due // span) % B`` (level 0: span 1, the bucket is visited at ``due`` itself)."""
    return floor_div(due, span) * span


def hier_level(delta: int, b: int) -> int:
    """The lowest level ``l`` with ``delta < b ** (l + 1)`` (ints only: the lemmas take the
    level's span as a symbol instead)."""
    level, span = 0, 1
    while delta >= span * b:
        level, span = level + 1, span * b
    return level


# Mutated formulas (the seeds' common mistakes) ------------------------------------------


def forgot_rounds_fire_tick(due: Any, cursor: Any, w: Any) -> Any:
    """Forgetting remainingRounds: the timer fires on the *first* visit of its bucket."""
    return first_visit(bucket_of(due, w), cursor, w)


def floor_due(deadline: Any, tick: Any, cursor: Any) -> Any:
    """Floor instead of ceiling: the tick *before* a deadline that is not on a boundary."""
    return z3_max(floor_div(deadline, tick), cursor)


def modulo_negative_fire_tick(deadline: Any, now: Any, tick: Any, cursor: Any, w: Any) -> Any:
    """A negative relative delay taken modulo the wheel (no ``max(.., 0)``): bucket
    ``(cursor + ticks) % W`` with ``rounds = ticks // W`` (negative, so never decremented):
    it fires on the first visit of that bucket -- ``cursor + ticks % W``."""
    ticks = ceil_div(deadline - now, tick)
    return first_visit((cursor + ticks) % w, cursor, w)


# ----------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------


def multiple_is_zero(k: Any, w: Any) -> Any:
    """arith-small-multiple: ``W >= 1 and -W < k*W < W  ->  k == 0``."""
    return z3.Implies(z3.And(w >= 1, -w < k * w, k * w < w), k == 0)


def positive_multiple(m: Any, w: Any) -> Any:
    """arith-positive-multiple: ``m >= 1 and W >= 1  ->  m*W >= W``."""
    return z3.Implies(z3.And(m >= 1, w >= 1), m * w >= w)


def ints(names: str) -> list[Any]:
    return list(z3.Ints(names))


def _q(hyps: list[Any], claim: Any, label: str = "", **data: Any) -> list[Query]:
    return [Query(hyps, claim, label=label, data=data)]


def _small(tick: Any, w: Any, c: Any) -> list[Any]:
    """Bounds for a *witness* only (mutations): small numbers make a readable program."""
    return [tick >= 1, tick <= 10, w >= 1, w <= 8, c >= 0, c <= 20]


def _read(model: z3.ModelRef, term: Any) -> int:
    v = model.eval(term, model_completion=True)
    return int(v.as_long())


# ----------------------------------------------------------------------------------------
# Lemmas
# ----------------------------------------------------------------------------------------


def _arith_small_multiple() -> Sequence[Query]:
    k, w = ints("k W")
    return _q([w >= 1, -w < k * w, k * w < w], k == 0)


def _arith_positive_multiple() -> Sequence[Query]:
    m, w = ints("m W")
    return _q([m >= 1, w >= 1], m * w >= w)


def _placement() -> Sequence[Query]:
    w, c, d = ints("W cursor due")
    b = bucket_of(d, w)
    r = rounds_of(d, c, w)
    k = r - floor_div(b - c, w) - floor_div(d, w)
    return _q([w >= 1, d >= c, multiple_is_zero(k, w)],
              z3.And(hashed_fire_tick(d, c, w) == d, r >= 0, b >= 0, b < w))


def _first_visit_is_first() -> Sequence[Query]:
    w, c, d, t = ints("W cursor due t")
    b = bucket_of(d, w)
    t1 = first_visit(b, c, w)
    k = floor_div(t, w) + floor_div(b - c, w)
    return _q([w >= 1, d >= c, c <= t, t < t1, multiple_is_zero(k, w)],
              z3.And(t1 >= c, t1 < c + w, t % w != b))


def _visits_are_w_apart() -> Sequence[Query]:
    # between a visit v and v + W no tick is in the bucket: visits are exactly W apart, so
    # visit j (1-based) happens at first_visit + (j - 1) * W and, the rounds being decremented
    # on each of the first `rounds` visits, the timer fires at visit rounds + 1.
    w, v, t = ints("W v t")
    k = floor_div(t, w) - floor_div(v, w)
    return _q([w >= 1, v < t, t < v + w, multiple_is_zero(k, w)], t % w != v % w)


def _rounds_track_the_cursor() -> Sequence[Query]:
    # the stored rounds equal (due - cursor) // W at every cursor: moving the cursor from k to
    # k + 1 (k < due) lowers the formula by one exactly when tick k visits the timer's bucket
    w, d, k = ints("W due k")
    step = z3.If(k % w == d % w, 1, 0)
    q = floor_div(d - k, w) - floor_div(d - k - 1, w)
    return _q([w >= 1, k < d, multiple_is_zero(floor_div(d, w) - floor_div(k, w)
                                               - floor_div(d - k, w), w),
               multiple_is_zero(q - step, w)], q == step)


def _never_early() -> Sequence[Query]:
    tick, c, deadline, now = ints("tick cursor deadline now")
    due = contract_due(deadline, tick, c)
    # the tick `due` is processed by an advance(now) with due <= now // tick
    return _q([tick >= 1, due <= floor_div(now, tick)],
              z3.And(due * tick >= deadline, due >= c, due * tick <= now, deadline <= now))


def _late_under_one_tick() -> Sequence[Query]:
    tick, c, deadline = ints("tick cursor deadline")
    due = contract_due(deadline, tick, c)
    # advance is called at every tick boundary: tick `due` is processed at now = due * tick
    return _q([tick >= 1, ceil_div(deadline, tick) >= c],
              z3.And(due * tick - deadline >= 0, due * tick - deadline < tick))


def _late_at_most_one_tick() -> Sequence[Query]:
    tick, c, deadline, s = ints("tick cursor deadline scheduled_at")
    due = contract_due(deadline, tick, c)
    # kept up: the last advance was at (cursor - 1) * tick <= s < cursor * tick
    return _q([tick >= 1, (c - 1) * tick <= s, s < c * tick],
              due * tick - z3_max(deadline, s) <= tick)


def _seed_kept_up() -> tuple[list[Any], Any, Any, Any, Any, Any]:
    tick, now, deadline = ints("tick now deadline")
    c = floor_div(now, tick) + 1  # the seed's currentTick after advance(now) kept up
    return [tick >= 1], tick, now, deadline, c, seed_due(deadline, now, tick, c)


def _seed_never_early() -> Sequence[Query]:
    hyps, tick, _now, deadline, c, sd = _seed_kept_up()
    return _q(hyps, z3.And(sd * tick >= deadline, sd >= contract_due(deadline, tick, c)))


def _seed_late_under_two_ticks() -> Sequence[Query]:
    hyps, tick, now, deadline, _c, sd = _seed_kept_up()
    return _q([*hyps, deadline >= now], sd * tick - deadline < 2 * tick)


def _seed_later_than_contract() -> Sequence[Query]:
    hyps, tick, now, deadline, c, sd = _seed_kept_up()
    due = contract_due(deadline, tick, c)
    return _q([*hyps, *_small(tick, z3.IntVal(4), now), now <= 100, deadline >= now,
               deadline <= now + 10 * tick], z3.And(sd == due, sd * tick - deadline < tick),
              tick=tick, now=now, deadline=deadline, cursor=c)


def _seed_backlog_early() -> Sequence[Query]:
    tick, now, deadline, c = ints("tick now deadline cursor")
    sd = seed_due(deadline, now, tick, c)
    # a backlog: the cursor is behind now // tick (max_catchup_ticks ran out)
    return _q([*_small(tick, z3.IntVal(4), c), c <= floor_div(now, tick), deadline > now,
               deadline <= now + 4 * tick,
               c >= floor_div(now, tick) - 3],
              sd * tick >= deadline, tick=tick, now=now, deadline=deadline, cursor=c)


def _mut_forgot_rounds() -> Sequence[Query]:
    tick, w, c, deadline = ints("tick W cursor deadline")
    due = contract_due(deadline, tick, c)
    fire = forgot_rounds_fire_tick(due, c, w)
    return _q([*_small(tick, w, c), deadline <= (c + 40) * tick], fire * tick >= deadline,
              tick=tick, w=w, cursor=c, deadline=deadline)


def _mut_floor() -> Sequence[Query]:
    tick, w, c, deadline = ints("tick W cursor deadline")
    fire = floor_due(deadline, tick, c)
    return _q([*_small(tick, w, c), deadline <= (c + 40) * tick], fire * tick >= deadline,
              tick=tick, w=w, cursor=c, deadline=deadline)


def _mut_modulo_negative() -> Sequence[Query]:
    tick, w, now, deadline = ints("tick W now deadline")
    c = floor_div(now, tick) + 1  # kept up
    fire = modulo_negative_fire_tick(deadline, now, tick, c, w)
    return _q([*_small(tick, w, now), now <= 100, deadline < now, deadline >= now - 10 * tick],
              # the claim is exactly what the replay judges (late by less than two ticks),
              # so every witness z3 returns is one the replay confirms
              fire * tick - z3_max(deadline, now) < 2 * tick,
              tick=tick, w=w, now=now, deadline=deadline, cursor=c)


def _h_level() -> tuple[list[Any], Any, Any, Any, Any, Any, Any]:
    g, gl, b, c, d = ints("G G_below B cursor due")
    # level l >= 1 of B buckets: slots of G = B**l ticks, the level below has G_below =
    # B**(l-1); the timer is on level l: it does not fit below (delta >= G) but fits here
    hyps = [b >= 2, gl >= 1, g == gl * b, d - c >= g, d - c < g * b]
    return hyps, g, gl, b, c, d, floor_div(d, g)


def _h_slot_not_started() -> Sequence[Query]:
    hyps, g, _gl, b, c, d, s = _h_level()
    return _q(hyps, z3.And(s * g > c, s * g <= d, s <= floor_div(c, g) + b))


def _h_cascade_lands_lower() -> Sequence[Query]:
    hyps, g, gl, b, _c, d, _s = _h_level()
    k = hier_cascade_tick(d, g)  # the slot's first tick
    return _q(hyps, z3.And(k % g == 0, d - k >= 0, d - k < gl * b))


def _h_no_earlier_cascade() -> Sequence[Query]:
    hyps, g, _gl, b, c, _d, s = _h_level()
    j = z3.Int("j")  # another slot of the same bucket index, cascaded before s
    hints = [positive_multiple(floor_div(s, b) - floor_div(j, b), b),
             positive_multiple(s - b - j + 1, g)]
    return _q([*hyps, *hints], z3.Not(z3.And(c < j * g, j * g < s * g, j % b == s % b)))


def _h_level0_fires_at_due() -> Sequence[Query]:
    b, c, d, k = ints("B cursor due k")
    hyps = [b >= 2, d >= c, d - c < b, c <= k, k < d, multiple_is_zero(
        floor_div(d, b) - floor_div(k, b), b)]
    return _q(hyps, k % b != d % b)


# ----------------------------------------------------------------------------------------
# WI5 under interleaving: cancel racing with the tick that would fire the timer
# ----------------------------------------------------------------------------------------

#: Each thread is a list of atomic steps. A timer word: 0 pending, 1 cancelled, 2 fired.
#: "cas-cancel": compare-and-set 0 -> 1, cancel() returns whether it succeeded;
#: "unlink": remove the node from its bucket if still there; "detach": the tick takes the
#: bucket; "cas-fire": compare-and-set 0 -> 2 and fire on success (Netty's expire());
#: "read": the tick reads the word into a register; "fire-if-read-0": fires if the register
#: said pending; "fire": fires unconditionally.
RACE_DESIGNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "contract": (("cas-cancel", "unlink"), ("detach", "cas-fire")),
    "no-recheck": (("cas-cancel", "unlink"), ("detach", "fire")),
    "recheck-not-atomic": (("cas-cancel", "unlink"), ("detach", "read", "fire-if-read-0")),
}


def _race(design: str) -> tuple[list[Any], Any, dict[str, Any]]:
    """Every interleaving of the two threads (a symbolic choice per slot) from a pending,
    linked timer; the claim: exactly one of "cancel returned True" and "fired"."""
    cancel_steps, tick_steps = RACE_DESIGNS[design]
    total = len(cancel_steps) + len(tick_steps)
    by_cancel = [z3.Bool(f"slot{s}_is_cancel") for s in range(total)]
    hyps = [z3.Sum([z3.If(b, 1, 0) for b in by_cancel]) == len(cancel_steps)]
    word, linked, reg = z3.IntVal(0), z3.BoolVal(True), z3.IntVal(0)
    returned, fired = z3.BoolVal(False), z3.BoolVal(False)
    ci, ti = z3.IntVal(0), z3.IntVal(0)  # program counters
    for s in range(total):
        nxt = {"word": word, "linked": linked, "reg": reg, "returned": returned, "fired": fired}
        for thread, steps, pc in (("c", cancel_steps, ci), ("t", tick_steps, ti)):
            mine = by_cancel[s] if thread == "c" else z3.Not(by_cancel[s])
            for n, step in enumerate(steps):
                on = z3.And(mine, pc == n)
                if step == "cas-cancel":
                    nxt["returned"] = z3.If(on, word == 0, nxt["returned"])
                    nxt["word"] = z3.If(z3.And(on, word == 0), 1, nxt["word"])
                elif step in ("unlink", "detach"):
                    nxt["linked"] = z3.If(on, False, nxt["linked"])
                elif step == "cas-fire":
                    nxt["fired"] = z3.If(z3.And(on, word == 0), True, nxt["fired"])
                    nxt["word"] = z3.If(z3.And(on, word == 0), 2, nxt["word"])
                elif step == "read":
                    nxt["reg"] = z3.If(on, word, nxt["reg"])
                elif step == "fire-if-read-0":
                    nxt["fired"] = z3.If(z3.And(on, reg == 0), True, nxt["fired"])
                elif step == "fire":
                    nxt["fired"] = z3.If(on, True, nxt["fired"])
        ci = z3.If(by_cancel[s], ci + 1, ci)
        ti = z3.If(by_cancel[s], ti, ti + 1)
        word, linked, reg = nxt["word"], nxt["linked"], nxt["reg"]
        returned, fired = nxt["returned"], nxt["fired"]
    return hyps, z3.Xor(returned, fired), {"slots": by_cancel, "steps": (cancel_steps,
                                                                          tick_steps)}


def _race_query(design: str) -> Sequence[Query]:
    hyps, claim, data = _race(design)
    q = Query(hyps, claim, label=f"design {design!r}", data=data)

    def describe(m: z3.ModelRef) -> str:
        cancel_steps, tick_steps = data["steps"]
        ci = ti = 0
        lines = []
        for b in data["slots"]:
            if z3.is_true(m.eval(b, model_completion=True)):
                lines.append(f"cancel thread: {cancel_steps[ci]}")
                ci += 1
            else:
                lines.append(f"tick thread:   {tick_steps[ti]}")
                ti += 1
        return "\n".join(lines) + "\n# cancel() returned True and the timer fired (WI5 broken)"
    q.describe = describe
    return [q]


# ----------------------------------------------------------------------------------------
# Replays in the executable model
# ----------------------------------------------------------------------------------------

DueRule = Callable[[int, int, int, int, int], int]  # (deadline, tick, cursor, now, W) -> due


def _mutated_wheel(rule: DueRule) -> type:
    from schedcheck.model.wheel import Handle, TimingWheel

    class MutatedWheel(TimingWheel):
        """The model wheel with the due tick of a mutated rule (the rest is the model): the
        model files the timer at ``deadline = due * tick`` (so its own rule 2 yields the
        mutated due tick), then the handle gets back the deadline the caller asked for."""

        def _schedule(self, deadline: int, callback: Callable[[], Any]) -> Handle:
            due = rule(deadline, self._tick, self._cursor, self._now, self._wheel_size)
            assert due >= self._cursor, "a mutated due tick behind the cursor is not filed"
            handle = super()._schedule(due * self._tick, callback)
            handle._deadline = deadline
            return handle

    return MutatedWheel


def _drive(rule: DueRule, tick: int, w: int, start: int, deadline: int, *,
           kept_up: bool, backlog_now: int | None = None) -> tuple[list[str], int | None]:
    """Build a wheel, schedule one timer, advance at every tick boundary; return the program
    lines and the ``now`` of the advance that fired it (None: it never fired).

    ``kept_up``: ``advance(start)`` first (cursor ``start // tick + 1``); ``backlog_now``: a
    ``max_catchup_ticks=1`` wheel advanced to that ``now`` processes one tick only."""
    cls = _mutated_wheel(rule)
    catchup = None if backlog_now is None else 1
    opts = "" if catchup is None else f", max_catchup_ticks={catchup}"
    lines = [f"wheel = MutatedWheel(tick={tick}, wheel_size={w}, start={start}{opts})"]
    wheel = cls(tick, w, start=start, max_catchup_ticks=catchup)
    now = start
    if kept_up:
        wheel.advance(now)
        lines.append(f"wheel.advance({now})")
    if backlog_now is not None:
        now = backlog_now
        wheel.advance(now)
        lines.append(f"wheel.advance({now})  # one tick processed: cursor {wheel.cursor}, "
                     f"lag {wheel.lag_ticks()} ticks")
    h = wheel.schedule(deadline, lambda: None)
    lines.append(f"h_0 = wheel.schedule({deadline}, cb)  # cursor {wheel.cursor}"
                 f", mutated due tick {h.due_tick}")
    for _ in range(400):
        fired = wheel.advance(now)
        if fired:
            lines.append(f"wheel.advance({now})  # fires h_0 at now={now}; deadline {deadline}")
            return lines, now
        if wheel.lag_ticks() <= 0:
            now = (now // tick + 1) * tick
    return lines, None


def _replay_early(rule: DueRule, *, backlog: bool = False) -> Callable[[z3.ModelRef, Query],
                                                                         Replay]:
    def replay(model: z3.ModelRef, q: Query) -> Replay:
        vals = {k: _read(model, v) for k, v in q.data.items()}
        tick, w = vals["tick"], vals.get("w", 4)
        c, deadline = vals["cursor"], vals["deadline"]
        if backlog:
            lines, fired_at = _drive(rule, tick, w, (c - 1) * tick, deadline, kept_up=False,
                                     backlog_now=vals["now"])
        else:
            lines, fired_at = _drive(rule, tick, w, c * tick, deadline, kept_up=False)
        story = "\n".join(lines)
        if fired_at is None:
            return Replay(False, story + "\n# never fired: the situation is not reproduced")
        early = fired_at < deadline
        return Replay(early, story + (f"\n# WI2 broken: fired at now={fired_at} < deadline "
                                      f"{deadline}" if early else "\n# not early in the model"))
    return replay


def _replay_late(rule: DueRule, bound_ticks: int) -> Callable[[z3.ModelRef, Query], Replay]:
    def replay(model: z3.ModelRef, q: Query) -> Replay:
        vals = {k: _read(model, v) for k, v in q.data.items()}
        tick, w, now, deadline = vals["tick"], vals.get("w", 4), vals["now"], vals["deadline"]
        lines, fired_at = _drive(rule, tick, w, now, deadline, kept_up=True)
        if fired_at is None:
            return Replay(False, "\n".join(lines) + "\n# never fired")
        late = fired_at - max(deadline, now)
        broken = late >= bound_ticks * tick
        return Replay(broken, "\n".join(lines) + (
            f"\n# WI3 broken: late by {late} >= {bound_ticks} tick(s) of {tick}" if broken
            else f"\n# late by {late}: within the bound in the model"))
    return replay


def _rule_forgot_rounds(deadline: int, tick: int, cursor: int, now: int, w: int) -> int:
    return int(forgot_rounds_fire_tick(contract_due(deadline, tick, cursor), cursor, w))


def _rule_floor(deadline: int, tick: int, cursor: int, now: int, w: int) -> int:
    return int(floor_due(deadline, tick, cursor))


def _rule_modulo(deadline: int, tick: int, cursor: int, now: int, w: int) -> int:
    return int(modulo_negative_fire_tick(deadline, now, tick, cursor, w))


def _rule_seed(deadline: int, tick: int, cursor: int, now: int, w: int) -> int:
    return int(seed_due(deadline, now, tick, cursor))


# ----------------------------------------------------------------------------------------

_W = "wheel"
_ALL = "all integers, no bound"


def _lemma(name: str, says: str, build: Callable[[], Sequence[Query]]) -> Lemma:
    return Lemma(name, "lemma", _W, says, build)


def _mutation(name: str, says: str, build: Callable[[], Sequence[Query]],
              replay: Callable[[z3.ModelRef, Query], Replay]) -> Lemma:
    return Lemma(name, "mutation", _W, says, build, replay)


LEMMAS: tuple[Lemma, ...] = (
    _lemma("arith-small-multiple", "a multiple k*W of W >= 1 strictly between -W and W is 0",
           _arith_small_multiple),
    _lemma("arith-positive-multiple", "m >= 1 and W >= 1 imply m*W >= W",
           _arith_positive_multiple),
    _lemma("wheel-placement", "WI4: bucket due%W with (due-cursor)//W rounds fires at exactly "
           "tick due", _placement),
    _lemma("wheel-first-visit", "WI4: no tick in [cursor, first visit) visits the bucket",
           _first_visit_is_first),
    _lemma("wheel-visits-w-apart", "WI4: two visits of one bucket are exactly W ticks apart",
           _visits_are_w_apart),
    _lemma("wheel-rounds-track-cursor", "WI4: moving the cursor past tick k lowers "
           "(due-k)//W by one iff k visits the bucket (stored rounds stay exact)",
           _rounds_track_the_cursor),
    _lemma("wheel-never-early", "WI2: due*tick >= deadline and a processed tick is <= now",
           _never_early),
    _lemma("wheel-late-under-one-tick", "WI3: advancing at every boundary, a timer fires "
           "less than one tick after its deadline", _late_under_one_tick),
    _lemma("wheel-late-at-most-one-tick", "WI3: kept up, a timer fires at most one tick after "
           "max(deadline, schedule time)", _late_at_most_one_tick),
    _lemma("seed-formula-never-early", "the seed's ceil((deadline-now)/tick) from the current "
           "tick is never early, never before the contract's due", _seed_never_early),
    _lemma("seed-formula-late-under-two-ticks", "the seed's formula is late by less than two "
           "ticks", _seed_late_under_two_ticks),
    _lemma("hier-slot-not-started", "WI6: a level-l slot chosen at placement starts after the "
           "cursor and at or before the due tick", _h_slot_not_started),
    _lemma("hier-no-earlier-cascade", "WI6: no earlier tick cascades the same level-l bucket",
           _h_no_earlier_cascade),
    _lemma("hier-cascade-lands-lower", "WI6: cascading at the slot's first tick re-places the "
           "timer, same due, on a level below", _h_cascade_lands_lower),
    _lemma("hier-level0-fires-at-due", "WI6: on level 0 the first visit of bucket due%B is "
           "tick due", _h_level0_fires_at_due),
    _lemma("wheel-cancel-race-exactly-once", "WI5: cancel racing with the tick, both as atomic "
           "compare-and-set of one timer word: exactly one of cancel-True and fire",
           lambda: _race_query("contract")),
    Lemma("mut-cancel-flag-not-rechecked", "mutation", _W, "seed mistake: the tick fires a "
          "detached node without re-checking the cancel flag (cancelled and fired)",
          lambda: _race_query("no-recheck")),
    Lemma("mut-cancel-recheck-not-atomic", "mutation", _W, "a re-check that reads the flag "
          "and then fires (not one atomic step) still lets a cancel win and fire",
          lambda: _race_query("recheck-not-atomic")),
    _mutation("mut-forgot-remaining-rounds", "seed mistake: forgetting remainingRounds fires "
              "on the first rotation (early)", _mut_forgot_rounds,
              _replay_early(_rule_forgot_rounds)),
    _mutation("mut-floor-instead-of-ceiling", "floor(deadline/tick) instead of ceiling fires "
              "before the deadline", _mut_floor, _replay_early(_rule_floor)),
    _mutation("mut-negative-delay-modulo", "seed mistake: a past deadline taken modulo the "
              "wheel fires up to W-1 ticks late", _mut_modulo_negative,
              _replay_late(_rule_modulo, 2)),
    _mutation("mut-seed-formula-later", "the seed's formula is later than the contract's "
              "(a full tick or more late)", _seed_later_than_contract,
              _replay_late(_rule_seed, 1)),
    _mutation("mut-seed-formula-with-backlog", "the seed's formula counted from a lagging "
              "cursor fires before the deadline", _seed_backlog_early,
              _replay_early(_rule_seed, backlog=True)),
)
