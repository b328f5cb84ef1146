"""The timing wheel's graded items: short programs of schedule/cancel/advance with a ledger.

Each divergence names the item that owns it (``wheel_owners.Timers.owner`` for a timer
that fires at the wrong time: a past deadline is ``W-T1``'s, a timer due inside a stall
``W-M7``'s, one a rotation or more early ``W-M2``'s or ``W-M3``'s, ...); a program that meets
another item's rule first leaves its own item "blocked by" that one. Callbacks run inline
count only in the items with an executor; handles' ``fired``/``cancelled`` are read after
every step.

The main items check what the interview asks and not this project's refinement of the due
tick: a timer fires at most once, never before its deadline, never after a cancel, and —
advancing at least every tick — no later than two ticks after its deadline (the text's own
formula is late by less than two ticks). Only ``W-T1`` ("relates tick, buckets, span and
deadline exactly") and the follow-ups that name an exact behaviour compare with
``schedcheck.model.TimingWheel`` tick for tick.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from schedcheck.harness import guard
from schedcheck.model import TimingWheel as ModelWheel
from schedcheck.practice.grading import (
    CAPABILITY,
    UNFILLED,
    Item,
    Miss,
    NotAttempted,
)
from schedcheck.practice.reduce import reduce_program
from schedcheck.practice.wheel_owners import LOST, Timers, early_by, late_owner, most_telling
from schedcheck.targets.adapt import error_name

__all__ = ["ITEMS", "disagreement"]

Step = tuple[str, tuple[Any, ...]]
#: (tick, wheel_size, constructor options, steps)
Scenario = tuple[int, int, dict[str, Any], list[Step]]
TICK, SIZE = 10, 4


def S(call: str, *args: Any) -> Step:
    return (call, args)


class _Recorder:
    """The executor the grader hands in: it keeps submissions and runs them after advance."""

    def __init__(self) -> None:
        self.queue: list[Callable[[], Any]] = []

    def submit(self, fn: Callable[[], Any]) -> None:
        self.queue.append(fn)


class _CallbackError(Exception):
    """What the grader's raising callback raises (only the wheel can let it escape)."""


class _Refused(Exception):
    """What the grader's full executor raises from submit()."""


class _Refusing(_Recorder):
    """An executor that refuses its first submission (its queue is full) and keeps the rest:
    the wheel must catch the refusal, count it, and still return every fired handle."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = False

    def admit(self) -> None:
        """Raises for the first submission (a seed-shaped wheel's executor asks too)."""
        if not self.refused:
            self.refused = True
            raise _Refused("the executor refused a submission (its queue is full)")

    def submit(self, fn: Callable[[], Any]) -> None:
        self.admit()
        self.queue.append(fn)


#: How each step reads as Python (``n``: the number the next scheduled handle gets).
_LINES = {
    "schedule": "h{n} = w.schedule({0}, callback)",
    "after": "h{n} = w.schedule_after({0}, callback)",
    "schedule_raising": "h{n} = w.schedule({0}, callback_that_raises)",
    "schedule_raw": "w.schedule({0!r}, {1!r})",
    "schedule_full": "w.schedule({0}, callback)   # pending() == max_pending",
    "cancel": "w.cancel(h{0})",
    "cancel_raw": "w.cancel({0!r})",
    "cancel_foreign": "w.cancel(handle_of_another_wheel)",
    "advance_raw": "w.advance({0!r})",
}


def _line(step: Step, n: int) -> str:
    """One step as Python; ``n`` is the number the next scheduled handle gets."""
    call, args = step
    form = _LINES.get(call)
    return form.format(*args, n=n) if form else \
        f"w.{call}({', '.join(repr(a) for a in args)})"


def _lines(tick: int, size: int, opts: dict[str, Any], steps: Sequence[Step]) -> list[str]:
    head = ", ".join([str(tick), str(size), *(f"{k}={_opt(v)}" for k, v in opts.items())])
    out = [f"w = YourWheel({head})"]
    n = 0
    for st in steps:
        out.append(_line(st, n))
        n += st[0] in ("schedule", "after", "schedule_raising")
    return out


def _opt(v: Any) -> str:
    if isinstance(v, _Refusing):
        return "executor_that_refuses_its_first_submission"
    return "recording_executor" if isinstance(v, _Recorder) else repr(v)


def disagreement(factory: Callable[..., Any], scenario: Scenario, *, exact: bool = False,
                 strict: bool = False) -> tuple[int, str, str, str] | None:
    """The first step where the learner's wheel breaks the ledger (or, ``exact``, differs from
    the model), as ``(step index, kind, message, owner)`` -- ``owner`` the item whose rule it
    broke -- or None when every step held. Callbacks run inline are a divergence only in a
    scenario with an executor (the items about callback isolation); handles' ``fired`` and
    ``cancelled`` flags, where the class has them, are read after every step."""
    tick, size, opts, steps = scenario
    executor = opts.get("executor")
    if isinstance(executor, _Refusing):
        executor.refused = False  # each run of the scenario starts with a fresh executor
    model_opts = {k: v for k, v in opts.items() if k != "executor"}
    model = ModelWheel(tick, size, **model_opts)
    try:
        wheel = factory(tick, size, **opts)
    except Exception as exc:
        owner = UNFILLED if isinstance(exc, NotImplementedError) else "W-T1"
        return -1, "construct", f"constructing it raised {error_name(exc)}: {exc}", owner
    handles: list[Any] = []  # theirs, by schedule order
    mhandles: list[Any] = []
    timers = Timers(size)
    ran: list[int] = []  # callbacks run, by index
    fired_at: dict[int, int] = {}  # index -> the now it fired at
    cancelled: set[int] = set()
    in_advance = [False]
    last_now = 0

    def callback(k: int, raising: bool = False) -> Callable[[], None]:
        def cb() -> None:
            if in_advance[0]:
                inline.append(k)
            ran.append(k)
            if raising:
                raise _CallbackError(f"h{k}'s callback raised")
        return cb

    inline: list[int] = []  # callbacks run while advance() was on the stack
    for i, (call, args) in enumerate(steps):
        try:
            if call in ("schedule", "after", "schedule_raising"):
                k = len(handles)
                deadline = last_now + args[0] if call == "after" else args[0]
                cursor = model.cursor
                mh = model.schedule(deadline, callback(k))
                mhandles.append(mh)
                timers.add(deadline, call == "after", last_now, mh.due_tick, cursor)
                handles.append(wheel.schedule_after(args[0], callback(k)) if call == "after"
                               else wheel.schedule(deadline, callback(
                                   k, raising=call == "schedule_raising")))
            elif call == "cancel":
                k = args[0]
                want = model.cancel(mhandles[k])
                got = wheel.cancel(handles[k])
                if got and k in fired_at:
                    return i, "cancel", (f"cancel(h{k}) returned {got!r} after h{k} had "
                                         "fired"), "W-F3"
                if (strict or exact) and got is not want:
                    return i, "cancel", (f"cancel(h{k}) returned {got!r}; the model says "
                                         f"{want}"), "W-F3"
                if want and got is not False:
                    cancelled.add(k)
            elif call == "advance":
                now = args[0]
                # the ticks this advance catches up before the tick of ``now`` (from the
                # model's cursor: at the start that is tick 0, which no advance processed yet)
                skipped = range(model.cursor, now // tick)
                first_tick = model.cursor  # the first tick this advance processes
                want_fired = model.advance(now)
                in_advance[0] = True
                try:
                    with guard.no_logging():  # a refusal the wheel contains, it logs
                        got_list = list(wheel.advance(now) or [])
                except _Refused as exc:  # the refusal escaped: the window's handles with it
                    return i, "refused", (
                        f"advance({now}) raised: {exc}; a submission the executor refuses is "
                        "caught and counted in callback_errors(), and advance() still returns "
                        "every fired handle"), "W-M7"
                except _CallbackError as exc:  # the wheel ran a callback itself, uncontained
                    lost = [f"h{j}" for j, mh in enumerate(mhandles) if mh in want_fired
                            and j not in ran]
                    return i, "raised", (
                        f"advance({now}) raised: {exc} inside the wheel, which ran it itself "
                        "on the tick thread"
                        + (f"; the rest of the window ({', '.join(lost)}) was lost" if lost
                           else "; the fired handles never reached the caller")
                        + "; without an executor advance() returns the fired handles and "
                        "never calls a callback"), "W-M5"
                finally:
                    in_advance[0] = False
                last_now = now
                if inline and executor is not None:
                    return i, "inline", (f"h{inline[0]}'s callback ran inside advance({now}), "
                                         "on the tick thread"), "W-M5"
                got = []
                for h in got_list:
                    idx = next((j for j, x in enumerate(handles) if x is h), None)
                    if idx is None:
                        return i, "advance", (f"advance({now}) returned {h!r}, not a handle "
                                              "of it"), "W-T2"
                    got.append(idx)
                for k in got:
                    if k in fired_at:
                        return i, "twice", (f"h{k} fired twice (at {fired_at[k]} and "
                                            f"{now})"), "W-T2"
                    if k in cancelled:
                        # its flag set and fired anyway: the tick did not look at the flag
                        # again when it took the bucket (W-M4); else cancel changed nothing
                        marked = _reads(handles[k], "cancelled") is True
                        return i, "cancelled", (
                            f"h{k} fired after cancel(h{k}) returned True"
                            + (f" (h{k}.cancelled reads True: the tick fired it anyway)"
                               if marked else "")), "W-M4" if marked else "W-T3"
                    if timers.deadline[k] > now:
                        ticks = (first_tick, now // tick)
                        k = most_telling(timers, [j for j in got if timers.deadline[j] > now],
                                          ticks, skipped)
                        return i, "early", (f"h{k} (deadline {timers.deadline[k]}) fired at "
                                            f"now={now}: before its deadline"), \
                            timers.owner(k, early=True, skipped=skipped,
                                         early_by=early_by(timers, k, ticks))
                    fired_at[k] = now
                if exact:
                    want_idx = [next(j for j, x in enumerate(mhandles) if x is h)
                                for h in want_fired]
                    if got != want_idx:
                        odd = [k for k in want_idx if k not in got] + [
                            k for k in got if k not in want_idx]
                        owner = (timers.owner(odd[0], early=odd[0] in got, skipped=skipped,
                                              early_by=early_by(timers, odd[0],
                                                                 (first_tick, now // tick)))
                                 # the same timers in another order: after a stall of a
                                 # rotation or more, the catch-up's (it walks the ring once)
                                 # -- or the rounds', which also reorder a catch-up
                                 if odd else "W-M7|W-M2|W-M3"
                                 if now // tick - first_tick >= timers.size else "W-T1")
                        if "max_catchup_ticks" in opts and not (
                                odd and timers.distance[odd[0]] >= timers.size):
                            # the catch-up budget is that scenario's subject; a timer more
                            # than a rotation away fired early is the rounds' mistake, and
                            # one lost in ticks the budget allowed may be the missed ticks'
                            missed = bool(odd) and odd[0] not in got and timers.due[odd[0]] \
                                in range(first_tick, first_tick + opts["max_catchup_ticks"])
                            owner = "W-M7|W-F2" if missed else "W-F2"
                        why = timers.describe(odd[0]) if odd else ""
                        if odd and odd[0] not in got and owner in LOST:
                            owner, later = late_owner(timers, odd[0], now, tick, wheel,
                                                      handles, ran) or (owner, "")
                            why += later
                        return i, "exact" if odd else "order", (f"advance({now}) fired "
                                            f"{[f'h{k}' for k in got]}; the model fires "
                                            f"{[f'h{k}' for k in want_idx]}{why}"), owner
                elif "max_catchup_ticks" not in opts:
                    late = [k for k, d in enumerate(timers.deadline) if d + 2 * tick <= now
                            and k not in fired_at and k not in cancelled]
                    if late:
                        k = late[0]
                        owner, why = timers.owner(k, early=False, skipped=skipped), ""
                        if owner in LOST:
                            owner, why = late_owner(timers, k, now, tick, wheel, handles,
                                                    ran) or (owner, "")
                        return i, "late", (f"h{k} (deadline {timers.deadline[k]}) has not "
                                           f"fired by now={now}"
                                           + (why or ": lost, or two ticks late")), owner
                if type(executor) is _Recorder:  # a refusing one's refusal ran nothing
                    queued, executor.queue = executor.queue, []
                    before = len(ran)
                    for fn in queued:
                        fn()
                    done = sorted(ran[before:])
                    if done != sorted(got):
                        return i, "executor", (f"the executor got callbacks of "
                                               f"{[f'h{k}' for k in done]}; advance fired "
                                               f"{[f'h{k}' for k in got]}"), "W-T4"
            elif call in ("schedule_raw", "schedule_full", "cancel_raw", "cancel_foreign",
                          "advance_raw"):
                exc_name = _raw(model, wheel, call, args, factory, tick, size)
                if exc_name:
                    return i, call, exc_name, _RAW_OWNER[call]
            elif call == "pending" and callable(getattr(wheel, "pending", None)):
                want_n, got_n = model.pending(), wheel.pending()
                if want_n != got_n:
                    return i, "pending", f"pending() is {got_n}; the model says {want_n}", \
                        "W-T3"
        except NotImplementedError:
            return i, "unfilled", f"{_line((call, args), i)} raised NotImplementedError", \
                UNFILLED
        except NotAttempted as exc:
            return i, "capability", str(exc), CAPABILITY + str(exc)
        except Exception as exc:
            return i, "raises", f"{call} raised {error_name(exc)}: {exc}", _RAISES_OWNER.get(
                call, "W-T1")
        flags = _flags(handles, fired_at, cancelled)
        if flags:
            return i, "flags", flags, "W-F3"
    return None


#: the item owning a malformed call, and a call that raised where the model did not
_RAW_OWNER = {"schedule_raw": "W-polish-4", "schedule_full": "W-T4", "cancel_raw": "W-polish-1",
              "cancel_foreign": "W-polish-2", "advance_raw": "W-polish-3"}
_RAISES_OWNER = {"schedule": "W-T1", "after": "W-M1", "cancel": "W-T3", "advance": "W-T2"}


def _reads(handle: Any, attr: str) -> Any:
    """``handle.attr``, or None where the class keeps no such attribute (or reading it
    raises)."""
    try:
        return getattr(handle, attr, None)
    except Exception:
        return None


def _flags(handles: list[Any], fired: dict[int, int], cancelled: set[int]) -> str:
    """'' when every handle's ``fired``/``cancelled`` (where it has them, as bools) agrees
    with what the wheel itself did to it (returned it from advance, or cancelled it), else
    which one differs."""
    for k, h in enumerate(handles):
        for attr, truth in (("fired", k in fired), ("cancelled", k in cancelled)):
            got = _reads(h, attr)  # a property that raises: not a flag the class keeps
            if isinstance(got, bool) and got != truth:
                fate = "fired" if k in fired else "cancelled" if k in cancelled else "pending"
                return f"h{k}.{attr} is {got}, but h{k} is {fate}"
    return ""


def _raw(model: Any, wheel: Any, call: str, args: tuple[Any, ...], factory: Any, tick: int,
         size: int) -> str:
    """Malformed calls: the same error name as the model (or False for a foreign handle)."""
    def attempt(w: Any) -> str:
        try:
            if call == "schedule_raw":
                w.schedule(*args)
            elif call == "schedule_full":
                w.schedule(args[0], lambda: None)
            elif call == "cancel_raw":
                w.cancel(*args)
            elif call == "advance_raw":
                w.advance(*args)
            else:
                other = (ModelWheel if w is model else factory)(tick, size)
                result = w.cancel(other.schedule(10, lambda: None))
                return "" if result is False else f"returned {result!r}"
        except NotImplementedError:
            raise
        except Exception as exc:
            return error_name(exc)
        return "no error"
    want, got = attempt(model), attempt(wheel)
    return "" if want == got else f"the model gives {want or 'False'}; yours {got}"


def _check(*scenarios: Scenario, exact: bool = False, strict: bool = False,
           needs: str = "") -> Callable[[Any], list[Miss]]:
    def check(factory: Any) -> list[Miss]:
        out: list[Miss] = []
        for tick, size, opts, steps in scenarios:
            if needs or opts:
                try:
                    w = factory(tick, size, **opts)
                except NotImplementedError as exc:
                    return [Miss((f"w = YourWheel({tick}, {size})",),
                                 f"constructing it raised NotImplementedError: {exc}", UNFILLED)]
                except (TypeError, ValueError) as exc:
                    if not opts:
                        return [Miss((f"w = YourWheel({tick}, {size})",),
                                     f"constructing it raised {error_name(exc)}: {exc}", "W-T1")]
                    raise NotAttempted(f"the constructor takes no {', '.join(opts)}") from exc
                except Exception as exc:
                    return [Miss((f"w = YourWheel({tick}, {size})",),
                                 f"constructing it raised {error_name(exc)}: {exc}", "W-T1")]
                if needs and not callable(getattr(w, needs, None)):
                    raise NotAttempted(f"no {needs}()")
            scenario = (tick, size, opts, steps)
            found = disagreement(factory, scenario, exact=exact, strict=strict)
            if found is None:
                continue

            def same(build: tuple[Any, ...], p: Sequence[Step], owner: str = found[3],
                     kind: str = found[1], opts: dict[str, Any] = opts) -> bool:
                # the same item's rule, broken the same way (an order stays an order: the
                # reduction never slides to another mistake of the same item)
                d = disagreement(factory, (*build, opts, list(p)), exact=exact,
                                 strict=strict)
                return d is not None and d[3] == owner and d[1] == kind

            build, small = (tick, size), steps
            if found[0] >= 0 and found[3] != UNFILLED:
                build, small = reduce_program(build, steps, same)
            last = disagreement(factory, (*build, opts, small), exact=exact, strict=strict)
            if last is None:  # a class whose answers change from run to run
                build, small, last = (tick, size), steps, found
            lines = _lines(*build, opts, small[:last[0] + 1])
            lines[-1] += "   # <- here"
            out.append(Miss(tuple(lines), last[2], last[3]))
        return out
    return check


def _optional(check: Callable[[Any], list[Miss]]) -> Callable[[Any], list[Miss]]:
    """A part of an item the wheel may lack (a constructor option it does not take): then
    nothing is missed there, and the rest of the item is graded."""
    def optional(factory: Any) -> list[Miss]:
        try:
            return check(factory)
        except NotAttempted:
            return []
    return optional


def _all(*checks: Callable[[Any], list[Miss]]) -> Callable[[Any], list[Miss]]:
    """One check running several (strict and lenient scenarios of one item)."""
    def check(factory: Any) -> list[Miss]:
        return [m for c in checks for m in c(factory)]
    return check


def _cost(factory: Any) -> Miss | None:
    from schedcheck.harness.result import BROKEN
    from schedcheck.harness.wheel.cost import check_wheel_scaling

    result = check_wheel_scaling(factory)
    if result.verdict == BROKEN:
        return Miss(("one tick with n and 8n timers parked in other buckets",), result.text)
    return None


def _every_tick(until: int, start: int = 0) -> list[Step]:
    return [S("advance", t) for t in range(start, until + 1, TICK)]


_PLAIN: dict[str, Any] = {}

def _items() -> tuple[Item, ...]:
    return (
        Item("W-T1", "T", "tick, bucket count, span and deadline related exactly",
             "due tick = the first tick at or after the deadline (ceil(deadline / tick)), "
             "bucket = due % wheel_size, rounds = (due - cursor) // wheel_size; a deadline "
             "already passed is due at the next tick processed (the text's formula counts from the "
             "current tick and can be almost two ticks late)", _check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 0), S("schedule", 10), S("schedule", 11),
                                       S("schedule", 29), *_every_tick(20), S("advance", 25),
                                       S("schedule", 27), S("schedule", 12), S("schedule", 49),
                                       *_every_tick(80, 30)]),
                 (TICK, SIZE, _PLAIN, [S("schedule", 39), S("schedule", 40), S("schedule", 41),
                                       S("schedule", 80), S("schedule", 165),
                                       *_every_tick(200)]),
                 # ties: one deadline twice, due at one tick whatever the rounding
                 (TICK, SIZE, _PLAIN, [S("schedule", 35), S("schedule", 35), S("schedule", 32),
                                       *_every_tick(60)]),
                 exact=True)),
        Item("W-T2", "T", "rotations, the current bucket, late ticks, never early",
             "keep remaining rounds; in the current bucket re-link what is not due yet; after "
             "missed ticks process every tick up to now", _check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 5), S("schedule", 45), S("schedule", 85),
                                       S("schedule", 44), S("advance", 0), S("advance", 7),
                                       S("advance", 33), S("advance", 50), S("advance", 90),
                                       S("advance", 200)]))),
        Item("W-T3", "T", "cancel is cheap and a cancelled node never runs",
             "the handle points at the node; cancel marks it and unlinks it, and the tick "
             "skips anything marked", _check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 30), S("schedule", 30), S("schedule", 70),
                                       *_every_tick(20), S("cancel", 0), S("cancel", 2),
                                       *_every_tick(100, 30)]))),
        Item("W-T4", "T", "callbacks go to the executor; overload is refused, never lost",
             "advance only moves nodes; each fired callback is submitted once to the "
             "executor, after the window is processed; with max_pending, schedule() raises "
             "WheelFullError once pending() reaches it", _all(_check(
                 (TICK, SIZE, {"executor": _Recorder()},
                  [S("schedule", 10), S("schedule", 20), S("schedule", 20),
                   *_every_tick(60)])),
                 # backpressure at the wheel (a wheel without max_pending is not graded here)
                 _optional(_check((TICK, SIZE, {"max_pending": 2},
                                   [S("schedule", 10), S("schedule", 20),
                                    S("schedule_full", 30), S("advance", 10),
                                    S("schedule", 40), S("schedule_full", 50)]))))),
        Item("W-M1", "M", "relative delays count from the wheel's own clock",
             "schedule_after(delay) is schedule(last now + delay): never time.time()",
             _check((TICK, SIZE, _PLAIN, [S("advance", 1000), S("after", 30),
                                          S("after", 25), S("after", 15),
                                          *_every_tick(1100, 1010)]),
                    # the last now between two ticks: from it, not from the tick's start
                    (TICK, SIZE, _PLAIN, [S("advance", 1005), S("after", 10), S("after", 4),
                                          *_every_tick(1100, 1010)]),
                    needs="schedule_after")),
        Item("W-M2", "M", "remaining rounds are kept",
             "a timer more than one rotation away waits (due - cursor) // wheel_size visits",
             _check((TICK, SIZE, _PLAIN, [S("schedule", 85), S("schedule", 125),
                                          S("schedule", 160), *_every_tick(220)]),
                    # rounds counted from the cursor after an advance, not from the clock
                    (TICK, SIZE, _PLAIN, [*_every_tick(20), S("schedule", 100),
                                          S("schedule", 90), *_every_tick(200, 30)]))),
        Item("W-M3", "M", "not-yet-due nodes in the current bucket are neither run nor lost",
             "when the bucket under the cursor holds a node with rounds left, decrement and "
             "re-link it", _check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 10), S("schedule", 50), S("schedule", 90),
                                       *_every_tick(150)]))),
        Item("W-M4", "M", "the cancel flag is checked again after the bucket is taken",
             "a node detached for firing is skipped if it was cancelled meanwhile", _check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 30), S("schedule", 30), S("advance", 20),
                                       S("cancel", 1), S("advance", 40)]))),
        Item("W-M5", "M", "user callbacks never run synchronously on the tick thread",
             "hand each due callback to a bounded executor; the tick thread only moves nodes "
             "(without an executor, return the fired handles and call nothing)",
             _all(_check((TICK, SIZE, {"executor": _Recorder()},
                          [S("schedule", 5), S("schedule", 15), *_every_tick(40)])),
                  # no executor: the wheel never calls a callback, so one that raises
                  # cannot take the rest of the window with it
                  _check((TICK, SIZE, _PLAIN, [S("schedule", 15), S("schedule_raising", 12),
                                               S("schedule", 18), *_every_tick(40)])))),
        Item("W-M6", "M", "no scan of every timer on each tick (cost)",
             "visit only the bucket under the cursor; a tick costs O(1 + its bucket)",
             _cost, cost=True),
        Item("W-M7", "M", "missed ticks are processed, failing callbacks contained",
             "after a stall process every missed tick (bounded per call if you like); a "
             "callback that raises, or a submission the executor refuses, is caught and "
             "counted, the rest still run; what one catch-up fires comes by due tick, then "
             "schedule order", _all(_check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 15), S("schedule", 35), S("schedule", 75),
                                       S("schedule", 155), S("advance", 0),
                                       S("advance", 400)]),
                 # a short stall too (less than a rotation), which a wheel may handle apart
                 (TICK, SIZE, _PLAIN, [S("schedule", 15), S("schedule", 25), S("advance", 0),
                                       S("advance", 35)])),
                 # a stall of several rotations: the later timer sits nearer in the ring
                 _check((TICK, SIZE, _PLAIN, [S("schedule", 50), S("schedule", 20),
                                              S("advance", 0), S("advance", 200)]),
                        exact=True),
                 # a full executor refuses a submission (a wheel without one is not graded
                 # here): the refusal is contained, the window's handles still come back
                 _optional(_check((TICK, SIZE, {"executor": _Refusing()},
                                   [S("schedule", 10), S("schedule", 10), S("schedule", 20),
                                    *_every_tick(40)]))))),
        Item("W-F1", "F", "why not a min-heap?",
             "a heap keeps exact order at O(log n) per insert/delete; a wheel trades precision "
             "for O(1) placement and removal; choose by error tolerance and operation mix "
             "(measured: benchmarks/bench_crossover.py -- the wheel wins short horizons, the "
             "heap past a crossover)", None),
        Item("W-F2", "F", "a stalled tick thread: bounded catch-up (max_catchup_ticks)",
             "process at most max_catchup_ticks ticks per advance and report the lag; the "
             "next advance(now) continues", _check(
                 (TICK, 2 * SIZE, {"max_catchup_ticks": 2},
                  [S("schedule", 15), S("schedule", 45), S("advance", 100),
                   S("advance", 100), S("advance", 100)]), exact=True)),
        Item("W-F3", "F", "cancel's answer is the linearization point: True once, else False",
             "the text asks for the cancel's linearization point: cancel must answer whether "
             "it stopped the timer (True, once) or came too late (False after the timer fired "
             "or a first cancel) -- setting a flag and returning nothing leaves the caller "
             "unable to tell; a fired handle is never marked cancelled", _all(_check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 20), S("schedule", 40), S("cancel", 1),
                                       S("cancel", 1), *_every_tick(30), S("cancel", 0)]),
                 strict=True), _check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 20), *_every_tick(30), S("cancel", 0)])))),
        Item("W-F4", "F", "long delays over many rotations fire on their tick",
             "with spans far beyond one rotation keep rounds (or cascade a hierarchical "
             "wheel); a long delay must be neither early nor lost", _check(
                 (TICK, SIZE, _PLAIN, [S("schedule", 1003), S("schedule", 2005),
                                       *_every_tick(2100)]))),
        Item("W-polish-1", "polish", "cancel() of something not a handle is TypeError",
             "check the argument's type first", _check(
                 (TICK, SIZE, _PLAIN, [S("cancel_raw", 42)]), strict=True)),
        Item("W-polish-2", "polish", "a handle of another wheel cancels nothing (False)",
             "compare the handle's owner with self; return False for a foreign handle",
             _check((TICK, SIZE, _PLAIN, [S("schedule", 10), S("cancel_foreign"),
                                          S("advance", 20)]), strict=True)),
        Item("W-polish-3", "polish", "advance() back in time is ValueError",
             "time only moves forward: refuse a now below the last one, change nothing",
             _check((TICK, SIZE, _PLAIN, [S("advance", 50), S("advance_raw", 40)]),
                    strict=True)),
        Item("W-polish-4", "polish", "a non-callable callback or a bool deadline is TypeError",
             "validate the deadline (an int, not a bool) and the callback before changing "
             "anything", _check((TICK, SIZE, _PLAIN, [S("schedule_raw", 10, None),
                                                      S("schedule_raw", True, print)]),
                                strict=True)),
    )


ITEMS: tuple[Item, ...] = _items()
