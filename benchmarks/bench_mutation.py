"""Mutation score of the default check: cosmic-ray's mutants of impl/ and model/, each checked.

Mutants are generated with cosmic-ray's operators (its library API: ``ast_nodes``,
``Operator.mutation_positions`` and ``mutate_code``; the ``cosmic-ray`` command itself wants a
session database and a test command per mutant, which is not what is measured here). Sources:

* ``impl/scheduler/indegree.py`` and its ``impl/_scheduler_{core,support,extras}.py`` -- checked
  as the scheduler ``schedcheck.impl:Scheduler``;
* ``impl/wheel/hashed.py``, ``impl/wheel/hierarchical.py`` and ``impl/_wheel_{common,buckets}.py``
  -- checked as the hashed and/or hierarchical wheel that uses them;
* ``impl/durable/{scheduler,_store,_records,_batch}.py`` -- the durable scheduler on an
  in-memory SQLite store, checked as a scheduler;
* ``model/scheduler.py``, ``model/wheel.py`` -- the mutated model loaded under another module
  name and checked as a target against the unmutated model.

Each mutant runs in a fresh process (a mutant may hang or exhaust memory; the suites' guards
end it, the process isolates it) with the mutated module put in place before anything imports
it. The check is the default one -- ``pipeline.check(..., levels=True, budget=BUDGET)``, what
``schedcheck check`` runs: both levels, each a budgeted search whose counterexample is
minimised, then the counted cost clause -- with ``first=True`` (``check --first``): the default
check would go on after its first counterexample to grade every other clause until its budget
is spent, which changes neither when the mutant is first caught nor that counterexample. Seed
0; the model's scheduler without the cost clause (the reference model rescans every task on
purpose and fails S-COST unmutated). Time to kill is the time from the check's first call to
its first failing example (process start and imports not included), wall-clock; the whole
check, minimisation included, is ``check_seconds`` in the JSON line, and the child's CPU time
is shown in brackets (on a shared machine the wall-clock figure includes waiting for a core).
A mutant whose module cannot even be imported is "incompetent" and not counted; one the check
reports as unusable (exit status 2) counts as killed.

Survivors are classified: **equivalent** when the mutated module's code equals the original
(same AST without docstrings), when only an annotation changes (never evaluated), when the
change is inside a wheel's ``check_invariants`` (not part of the contract; the wheel suite does
not call it), when only message text changes, or by a reason recorded in
:data:`EQUIVALENT` (keyed by file, function, operator and the mutated line); every other
survivor is **missed** and printed with its diff.

Usage::

    .venv/bin/python benchmarks/bench_mutation.py [--sample N] [--budget S | --examples N]
        [--seed K] [--only impl/scheduler/indegree.py ...] [--all]

``--examples N`` runs each check in seed-only mode (``check --examples N``: every phase of the
budgeted search, N examples a round, the verdict fixed by the seed) instead of a budget.
``--sample N`` draws N mutants per source group (scheduler impl, wheel impl, scheduler model,
wheel model) with random seed ``--seed`` (default 0); ``--all`` runs every mutant (thousands:
hours). Prints one line per mutant, then the table that README shows. ``--zoo SEEDS`` instead
checks the zoo's sequential entries with the default check's first search on seeds
0..SEEDS-1 (time to kill, counterexample length; a clause other than the catalogue's is
shown after a slash).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import importlib
import importlib.abc
import importlib.util
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: The durable scheduler on an in-memory SQLite store, checked as a scheduler (its worker and
#: supervisor are processes around it, which the scheduler suite does not drive: not sampled).
DURABLE_SPEC = "durable:sqlite://"
DURABLE = (("scheduler", DURABLE_SPEC),)
#: source file -> (module name, the targets checked: (system, "module:attr" or "@attr"))
SOURCES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "impl/scheduler/indegree.py": ("schedcheck.impl.scheduler.indegree",
                          (("scheduler", "schedcheck.impl:Scheduler"),)),
    "impl/scheduler/_core.py": ("schedcheck.impl.scheduler._core",
                                (("scheduler", "schedcheck.impl:Scheduler"),)),
    "impl/scheduler/_support.py": ("schedcheck.impl.scheduler._support",
                                   (("scheduler", "schedcheck.impl:Scheduler"),)),
    "impl/scheduler/_extras.py": ("schedcheck.impl.scheduler._extras",
                                  (("scheduler", "schedcheck.impl:Scheduler"),)),
    "impl/wheel/hashed.py": ("schedcheck.impl.wheel.hashed",
                             (("wheel", "schedcheck.impl:HashedTimingWheel"),)),
    "impl/wheel/hierarchical.py": ("schedcheck.impl.wheel.hierarchical",
                                   (("wheel", "schedcheck.impl:HierarchicalTimingWheel"),)),
    "impl/wheel/_common.py": ("schedcheck.impl.wheel._common",
                              (("wheel", "schedcheck.impl:HashedTimingWheel"),
                               ("wheel", "schedcheck.impl:HierarchicalTimingWheel"))),
    "impl/wheel/_buckets.py": ("schedcheck.impl.wheel._buckets",
                               (("wheel", "schedcheck.impl:HashedTimingWheel"),
                                ("wheel", "schedcheck.impl:HierarchicalTimingWheel"))),
    "impl/durable/scheduler.py": ("schedcheck.impl.durable.scheduler", DURABLE),
    "impl/durable/_store.py": ("schedcheck.impl.durable._store", DURABLE),
    "impl/durable/_records.py": ("schedcheck.impl.durable._records", DURABLE),
    "impl/durable/_batch.py": ("schedcheck.impl.durable._batch", DURABLE),
    "model/scheduler.py": ("schedcheck.model.scheduler", (("scheduler", "@Scheduler"),)),
    "model/wheel.py": ("schedcheck.model.wheel", (("wheel", "@TimingWheel"),)),
}
GROUPS = {
    "scheduler impl": ("impl/scheduler/indegree.py", "impl/scheduler/_core.py",
                       "impl/scheduler/_support.py", "impl/scheduler/_extras.py"),
    "wheel impl": ("impl/wheel/hashed.py", "impl/wheel/hierarchical.py",
                   "impl/wheel/_common.py", "impl/wheel/_buckets.py"),
    "durable impl": ("impl/durable/scheduler.py", "impl/durable/_store.py",
                     "impl/durable/_records.py", "impl/durable/_batch.py"),
    "scheduler model": ("model/scheduler.py",),
    "wheel model": ("model/wheel.py",),
}

WHEEL_SOURCES = GROUPS["wheel impl"] + GROUPS["wheel model"]
#: Functions no check calls because the contract does not include them: (file or "*",
#: function) -> why.
OUTSIDE_CONTRACT = {
    ("impl/durable/scheduler.py", "renew"):
        "renew(): the lease API (specs/durable.md), which the scheduler suite does not call "
        "(tests/durable drives the leases)",
    ("impl/durable/scheduler.py", "_retry"):
        "the retry of a failure reported with retry=True (specs/durable.md L8): the scheduler "
        "contract's fail() has no retry; tests/durable/test_retry.py checks the backoff",
    ("impl/wheel/hashed.py", "_next_event"):
        "next_event_tick(): not part of the contract -- only the real-time driver uses it to "
        "sleep until the next due tick (the hashed wheel's own ticks do not)",
    ("*", "__repr__"): "repr() only",
    ("impl/wheel/_buckets.py", "check"):
        "the bucket array's own check, called only by the wheel's check_invariants() (not part "
        "of the contract: the wheel suite does not call a target's)",
    ("impl/wheel/hashed.py", "_check_structure"):
        "called only by the wheel's check_invariants() (not part of the contract)",
    ("impl/wheel/hierarchical.py", "_check_structure"):
        "called only by the wheel's check_invariants() (not part of the contract)",
    ("impl/wheel/_common.py", "_check_node"):
        "called only by the wheels' check_invariants() (not part of the contract)",
    ("impl/wheel/_common.py", "_check_queued"):
        "called only by the wheels' check_invariants() (not part of the contract)",
    ("impl/wheel/hashed.py", "_check_queued"):
        "called only by the wheel's check_invariants() (not part of the contract)",
    ("impl/wheel/hashed.py", "_check_rounds"):
        "called only by the wheel's check_invariants() (not part of the contract)",
    ("impl/wheel/hierarchical.py", "_check_queued"):
        "called only by the wheel's check_invariants() (not part of the contract)",
    ("impl/scheduler/indegree.py", "metrics"):
        "metrics(): not part of the contract (specs/scheduler.md)",
    ("impl/wheel/_buckets.py", "detach"):
        "detach() serves only the zoo's mutant wheels (their own tick loops); the bundled "
        "wheels take a bucket whole and filter it inline",
    ("impl/wheel/_buckets.py", "iter_bucket"):
        "called only by the wheels' structure checks (check_invariants(): not part of the "
        "contract)",
    ("impl/scheduler/_extras.py", "snapshot"):
        "snapshot(): a checking helper for this repository's own tests; the scheduler suite "
        "never calls a target's (not part of the contract)",
    ("impl/scheduler/_extras.py", "copy"):
        "copy(): a checking helper for this repository's own tests; the scheduler suite never "
        "calls a target's (not part of the contract)",
    ("impl/scheduler/_extras.py", "__eq__"):
        "== on schedulers: a checking helper for this repository's own tests; the scheduler "
        "suite never compares targets (not part of the contract)",
    ("impl/scheduler/_support.py", "SchedulerMetrics"):
        "a field of metrics(): not part of the contract (specs/scheduler.md)",
    ("impl/durable/_store.py", "_first_line"):
        "the text of a PostgreSQL connection error: the bench checks SQLite in memory",
    ("impl/durable/_store.py", "permanent_error"):
        "which PostgreSQL connection errors a worker stops waiting on: the bench checks SQLite "
        "in memory (tests/durable drives PostgreSQL's failures)",
    ("impl/durable/_records.py", "retry_delay"):
        "the wait before a retry=True failure is claimed again (specs/durable.md L8): the "
        "scheduler contract's fail() has no retry; tests/durable/test_retry.py checks the "
        "backoff",
    ("model/scheduler.py", "__eq__"):
        "== on models: the checks compare the model's snapshot(), never two models",
    ("model/wheel.py", "__eq__"):
        "== on models: the checks compare the model's snapshot(), never two models",
}
#: Survivors shown to be equivalent by reading them: (file, function, operator, mutated line
#: stripped) -> the reason.
EQUIVALENT: dict[tuple[str, str, str, str], str] = {
    ("impl/wheel/_common.py", "cancel", "core/ReplaceBinaryOperator_Add_BitOr",
     "marked = self._queued_marked | 1"):
        "the count of cancelled timers still queued for a bucket only decides when that queue "
        "is compacted early; the queue is emptied at every schedule() and advance() (filing "
        "drops the shells), so what the wheel holds stays bounded either way",
    ("impl/wheel/_common.py", "cancel", "core/NumberReplacer",
     "marked = self._queued_marked + 2"):
        "the count of cancelled timers still queued for a bucket only decides when that queue "
        "is compacted early; the queue is emptied at every schedule() and advance() (filing "
        "drops the shells), so what the wheel holds stays bounded either way",
    ("impl/durable/scheduler.py", "_apply_row", "core/ReplaceComparisonOperator_Eq_GtE",
     '_encode_error(error) if call >= "fail" else row.error,'):
        'the calls are "cancel", "complete" and "fail": only "fail" is >= "fail"',
    ("model/scheduler.py", "_apply", "core/ReplaceComparisonOperator_Eq_GtE",
     'if call >= "fail":'):
        'the calls are "cancel", "complete" and "fail": only "fail" is >= "fail"',
    ("impl/durable/_store.py", "_damage", "core/ReplaceComparisonOperator_Is_Eq",
     'if type(exc) == sqlite3.DatabaseError or "malformed" in str(exc):'):
        "`is` and `==` agree on classes (type objects compare by identity)",
    ("impl/scheduler/indegree.py", "ready", "core/ReplaceComparisonOperator_Gt_NotEq",
     "if w != wait_max:"):
        "the longest wait of metrics() only: metrics are not part of the contract",
    ("impl/scheduler/indegree.py", "submit", "core/ReplaceComparisonOperator_IsNot_NotEq",
     "if st != ok:"):
        "`is not` and `!=` agree on enum members (a TaskState equals only itself)",
    ("impl/scheduler/indegree.py", "_claim", "core/ReplaceComparisonOperator_NotEq_IsNot",
     "if st[s] is not R or stamp[s] != key:"):
        "a state code is a small int read from a bytearray (CPython keeps one object for each "
        "small int): `is not` and `!=` agree on them",
    ("impl/scheduler/_core.py", "_link", "core/ReplaceComparisonOperator_GtE_IsNot",
     "elif not self._gen[d] or self._stamp[d] is not self._stamp[s]:  # a ghost, itself, or"):
        "the flag that start() must look for a cycle, set on every edge instead of on edges to "
        "a later stamp (a task never depends on itself here: submit() refuses that first) -- "
        "more cycle checks, speed only",
    ("impl/scheduler/_core.py", "_admit", "core/ReplaceComparisonOperator_GtE_IsNot",
     "if len(incoming) is not len(heap) >> 3:"):
        "which of two ways the incoming keys join the heap (one heapify, or a push each): the "
        "heap holds the same keys either way, speed only",
    ("impl/durable/_batch.py", "complete_many", "core/ReplaceComparisonOperator_Lt_Eq",
     "if pg is not None and len(replies) == len(todo):"):
        "PostgreSQL's batch path (pg is None on SQLite): the bench checks SQLite in memory",
    ("impl/durable/scheduler.py", "_apply_row", "core/ReplaceComparisonOperator_Eq_Lt",
     "if tok is not None and row.state < RUN and tok != row.token:"):
        "the fencing of a lease's token (specs/durable.md L5): the scheduler contract's calls "
        "carry no token (tok is None); the lease suite of tests/durable fences",
    ("impl/durable/scheduler.py", "_next", "core/NumberReplacer",
     "last = int(metas.get(key) or -1)"):
        "the store's counters (submission sequence, lease tokens) start one lower: only their "
        "order reaches the scheduler contract",
    ("model/scheduler.py", "ready", "core/NumberReplacer", "for t in queue[:max(n, -1)]:"):
        "n, the free slots (within the limit), is never negative in the model: RUNNING tasks "
        "never exceed max_concurrency",
    ("impl/scheduler/indegree.py", "_all_running", "core/ReplaceComparisonOperator_LtE_NotEq",
     "if (len(set(ss)) != len(ss) or not set(map(type, gens)) != {int}"):
        "the batch's fast path is never taken (a bool never equals a set): every batch goes "
        "the call-by-call way, speed only",
    ("impl/scheduler/_core.py", "_detach", "core/ReplaceComparisonOperator_Eq_GtE",
     "back = [*slots(out[s])] if old >= OK else []"):
        "a dead task's required dependents are BLOCKED, RUNNING or terminal, never PENDING or "
        "READY, so walking them too changes no count",
    ("impl/wheel/hashed.py", "_process", "core/ReplaceComparisonOperator_GtE_NotEq",
     "if k != check_at and last - k >= size and self._pending:"):
        "when a long advance tries to skip whole rotations: the skip is exact whenever it is "
        "tried (it jumps only past ticks that merely decrement rounds), speed only",
    ("impl/wheel/hierarchical.py", "_place_high", "core/NumberReplacer", "to = 0"):
        "the level search starts one lower: a timer placed here is at least base ticks away, "
        "so it passes level 0 at once",
    ("impl/durable/_store.py", "__init__", "core/ReplaceComparisonOperator_NotEq_Is",
     'if bad is ["ok"]:'):
        "the integrity check of a database file: the bench's store is in memory, where it does "
        "not run -- tests/durable catches a damaged file",
    ("impl/durable/_batch.py", "complete_many", "core/ReplaceComparisonOperator_Lt_NotEq",
     "while len(replies) != len(todo):"):
        "the replies never outnumber the claims: `<` and `!=` stop at the same count",
    ("impl/durable/scheduler.py", "__init__", "core/NumberReplacer", "max_concurrency: int = 0,"):
        "a default the checks never use: every instance is built with its max_concurrency",
    ("model/scheduler.py", "_resubmit", "core/NumberReplacer", "self._seq += 2"):
        "submission numbers two apart: only their order is used",
    ("model/wheel.py", "_schedule", "core/NumberReplacer", "self._next_seq += 2"):
        "schedule numbers two apart: only their order (the firing order of one tick) is used",
    ("model/scheduler.py", "retry", "core/ReplaceComparisonOperator_Is_Eq",
     "if t.state == BLK and t.task_id not in chosen:"):
        "`is` and `==` agree on enum members (a TaskState equals only itself)",
    ("impl/wheel/hierarchical.py", "_process", "core/ReplaceBinaryOperator_Add_FloorDiv",
     "k = event // 1"):
        "the next event is searched from the tick just processed instead of the one after: "
        "that tick's slots are empty by then (every timer there fired or moved down a level), "
        "so the search finds the same next event -- one more search, speed only",
    ("impl/wheel/_buckets.py", "Handle", "core/RemoveDecorator", "def rounds(self) -> int:"):
        "a handle's rounds (the seed's remainingRounds, kept for teaching) is not part of the "
        "contract: no check reads it",
    ("impl/scheduler/indegree.py", "_all_running", "core/ReplaceComparisonOperator_IsNot_NotEq",
     "if claims.__class__ != list and claims.__class__ is not tuple:"):
        "`is not` and `!=` agree on classes (type objects compare by identity)",
    ("impl/scheduler/_support.py", "", "core/NumberReplacer", "KEY_SHIFT = 33"):
        "a wider shift keeps keys in stamp order and every 32-bit slot apart from the stamp "
        "(SLOT_MASK follows KEY_SHIFT)",
    ("impl/scheduler/_support.py", "_parse", "core/AddNot",
     "if not value.__class__ is not list and value.__class__ is not tuple:"):
        "lists are copied first, other iterables read as they are: the same dependencies; a "
        "non-iterable still raises TypeError, with Python's message instead of ours (the "
        "contract names the error type, not its text; tests/impl checks our message)",
    ("model/scheduler.py", "add_dependency", "core/ReplaceComparisonOperator_Is_Eq",
     "if not (t.state is P or (t.state == R and not self._started)):"):
        "`is` and `==` agree on enum members (a TaskState equals only itself)",
    ("impl/wheel/_buckets.py", "distance_to_next", "core/ReplaceBinaryOperator_Add_RShift",
     "distance = f >> self.size - i"):
        "the same ticks fire, more slowly: a wrapped distance becomes 0, so advance() walks the "
        "empty ticks one by one up to the next bucket (a long stall's cost, which W-COST does "
        "not measure: it times one tick)",
    ("impl/wheel/_buckets.py", "distance_to_next", "core/ReplaceBinaryOperator_Sub_RShift",
     "distance = f + self.size >> i"):
        "the same ticks fire, more slowly: (f + size) >> i never exceeds the wrapped distance "
        "f + size - i, and every bucket it lands short on is empty, so advance() walks empty "
        "ticks up to the next bucket (a long stall's cost, which W-COST does not measure)",
    ("impl/wheel/_buckets.py", "distance_to_next", "core/NumberReplacer", "return - 2"):
        "-2 and -1 both mean 'no bucket': every caller tests distance < 0",
    ("impl/wheel/hierarchical.py", "_cascade", "core/ReplaceBinaryOperator_Add_BitOr",
     "while top + 1 < len(self._levels) and k % self._spans[top | 1] == 0:"):
        "cascades level 2 at every multiple of level 1's span, not only of its own: a cascade "
        "re-places each live timer by its own deadline, so an early one moves nothing to a "
        "wrong slot (the same ticks, more work)",
    ("impl/scheduler/indegree.py", "submit", "core/ReplaceComparisonOperator_Is_Eq",
     "if ((cls is list or cls is tuple) and optional.__class__ == tuple and not optional"):
        "`is` and `==` agree on classes (type objects compare by identity)",
    ("impl/wheel/_common.py", "advance", "core/ReplaceComparisonOperator_IsNot_NotEq",
     "if now.__class__ != int:  # fast path; bool and int subclasses go the long way"):
        "`is not` and `!=` agree on classes (type objects compare by identity)",
    ("impl/scheduler/_core.py", "_recount", "core/ReplaceComparisonOperator_Eq_LtE",
     'assert len(slot) <= len(self._order) + len(self._ghosts), "stray ids in the index"'):
        "weakens an assertion of check_invariants() that the unmutated code always meets",
    ("impl/scheduler/_core.py", "_compact", "core/ReplaceComparisonOperator_Eq_LtE",
     "live = [seq for seq in self._heap if st[q[seq]] <= R and stamp[q[seq]] == seq]"):
        "memory only: the ready queue's compaction also keeps the entry of a task moved back "
        "to PENDING with the same stamp; every claim re-checks the state, and a task made "
        "READY again reuses that entry, so the same tasks are claimed in the same order",
    ("impl/wheel/_common.py", "_new_timer", "core/ReplaceComparisonOperator_GtE_Eq",
     "if self._max_pending is not None and self._pending == self._max_pending:"):
        "pending never exceeds max_pending (rule 5 refuses at equality, and max_pending is "
        "fixed), so `>=` and `==` agree",
    ("impl/wheel/hashed.py", "_skip_rotations", "core/ReplaceBinaryOperator_Sub_BitAnd",
     "if m & k < size:"):
        "picks the other arm of a speed choice: walking plainly costs more, and rebasing every "
        "timer's rounds to an earlier resume tick re-walks ticks before the cursor, where "
        "nothing is due (each node's rounds are recomputed for the resume tick): the same ticks "
        "fire",
    ("impl/wheel/_common.py", "__init__", "core/ReplaceOrWithAnd",
     'self._inline = not (replaced and self._overrides(_WheelBase, "_due_tick_for", '
     '"_new_timer"))'):
        "decides the path only for a subclass that replaces a step (the zoo's mutants): the "
        "bundled classes replace none, so both forms pick the inlined path",
    ("impl/wheel/_common.py", "advance", "core/ReplaceComparisonOperator_Gt_IsNot",
     "if self._dead > self._pending and self._dead is not _MIN_SHELLS:"):
        "compacts also with few shells (more often, O(entries) each): the same timers fire",
    ("impl/wheel/hierarchical.py", "_place_high", "core/ReplaceComparisonOperator_Lt_IsNot",
     "while to is not len(levels) and delta >= spans[to] * base:"):
        "`to` counts up by one from 1 to at most len(levels), so `<` and `is not` agree while "
        "CPython shares the ints (below 257 levels: a delay under B**256 ticks)",
    ("impl/wheel/hashed.py", "_process", "core/ReplaceComparisonOperator_GtE_LtE",
     "if k >= check_at and last - k <= size and self._pending:"):
        "asks _skip_rotations about short windows instead of long ones: its jump is exact for "
        "any window (the rounds are rebased by WI4's formula), so the same ticks fire (speed "
        "only)",
    ("impl/wheel/hierarchical.py", "_place_all", "core/ReplaceComparisonOperator_NotEq_Is",
     "if len(levels) is known:  # it added levels: file the next timers inline too"):
        "refreshes the inline levels when none was added, and not when one was: a timer past "
        "the stale ranges goes through _place_high, which puts it in the same bucket (speed "
        "only)",
    ("impl/wheel/hierarchical.py", "_inline_levels", "core/NumberReplacer",
     "top = len(levels) - 2"):
        "files one level fewer inline: _place_high puts those timers in the same buckets "
        "(speed only)",
    ("impl/wheel/hierarchical.py", "HierarchicalTimingWheel", "core/ReplaceFalseWithTrue",
     "_keeps_rounds = True  # levels instead of rounds"):
        "the hierarchical wheel never reads a timer's rounds (schedule then computes them for "
        "nothing): only its check_invariants() and the handle's informative rounds attribute do",
    ("impl/wheel/hierarchical.py", "_place", "core/AddNot",
     "if not self._plain_place and due - cursor < self._base:  # level 0 (the cascades' hot "
     "path)"):
        "the general placement computes the same level-0 bucket (level 0, slot due // 1)",
    ("impl/wheel/_common.py", "cancel", "core/ReplaceComparisonOperator_IsNot_NotEq",
     "if handle._owner != self._token or handle._callback is None:"):
        "a wheel's token is a plain object(), whose `!=` is identity: `is not` and `!=` agree",
    ("impl/wheel/_common.py", "cancel", "core/NumberReplacer",
     "if marked * 3 > len(self._incoming):  # over half shells: drop them"):
        "the count of cancelled timers still queued for a bucket only decides when that queue "
        "is compacted early; the queue is emptied at every schedule() and advance() (filing "
        "drops the shells), so what the wheel holds stays bounded either way",
    ("impl/scheduler/_core.py", "_new_slot", "core/ReplaceBinaryOperator_RShift_BitXor",
     "k = max(256, s ^ 3)  # columns grow by an eighth: little slack, amortised O(1)"):
        "how many slots the columns grow by when full (at least 256 either way): memory and "
        "speed only, every slot is filled before it is read",
    ("impl/scheduler/_core.py", "_admit", "core/ReplaceBinaryOperator_RShift_BitAnd",
     "if len(incoming) >= len(heap) & 3:"):
        "chooses between one heapify and a heappush per key: both leave the same keys in a "
        "valid heap, so ready() pops them in the same order (speed only)",
    ("impl/durable/_store.py", "__init__", "core/ReplaceComparisonOperator_NotEq_Gt",
     'if path > ":memory:":'):
        "the bench's store is in memory, where both conditions are false; for a database file "
        "(a path before ':' in text order: every absolute path) the WAL journal and the "
        "integrity check are skipped -- tests/durable catches that (a damaged file, the "
        "journal mode)",
    ("impl/durable/_batch.py", "complete_many", "core/ReplaceComparisonOperator_Lt_IsNot",
     "if len(replies) is not len(todo):"):
        "replies never outnumber the reports, so `<` and `!=` agree; `is not` differs from "
        "`!=` only on equal lengths over 256, where the loop under it runs no step (an empty "
        "transaction)",
    ("impl/wheel/_buckets.py", "mark", "core/NumberReplacer", "self.occ[index] = 1"):
        "a bucket emptied by cancels keeps its occupancy byte: advance() visits it whenever the "
        "cursor passes and finds nothing (take() of an empty bucket returns no node), so the "
        "same timers fire (speed only; the byte is checked by check_invariants(), not part of "
        "the contract)",
    ("impl/durable/_store.py", "open_store", "core/ReplaceFalseWithTrue",
     "def open_store(url: str, *, create: bool = True) -> SqliteStore | PostgresStore:"):
        "the default is taken only by the status command (the scheduler passes create): "
        "tests/durable/test_status.py checks that a missing store is refused there",
    ("impl/durable/scheduler.py", "_apply_row", "core/ReplaceComparisonOperator_Is_Eq",
     "if outcome == Outcome.REQUESTED:"):
        "`is` and `==` agree on enum members (an Outcome equals only itself)",
    ("impl/durable/scheduler.py", "__init__", "core/ReplaceAndWithOr",
     "not (retry_backoff >= 0 or math.isfinite(retry_backoff)):"):
        "the check of a durable-only option (retry_backoff), which the scheduler suite leaves "
        "at its default: tests/durable/test_store_errors.py checks the refusals",
    ("model/wheel.py", "__init__", "core/NumberReplacer", "self._next_seq = 1"):
        "schedule-order numbers only order timers among themselves: starting at 1 keeps "
        "that order",
}
#: Branches no call can reach, so every mutation inside them is equivalent: (file, function)
#: -> (the branch's opening line, stripped; why).
UNREACHABLE: dict[tuple[str, str], tuple[str, str]] = {
    ("impl/scheduler/_core.py", "_unlink_all"): (
        "if not gen[d]:",
        "the never-submitted branch of retry()'s unlinking cannot run: only dead tasks are "
        "retried, tasks die only after start(), and start() refuses unknown dependencies"),
}


@dataclass
class Mutation:
    path: str
    operator: str
    occurrence: int
    definition: str
    source: str  #: the mutated module


def _operators() -> list[tuple[str, Any]]:
    import cosmic_ray.plugins

    out = []
    for name in cosmic_ray.plugins.operator_names():
        cls = cosmic_ray.plugins.get_operator(name)
        if not cls.arguments():  # the parameterised ones need a configuration
            out.append((name, cls()))
    return out


def mutations(path: str) -> list[tuple[str, int, str]]:
    """Every (operator, occurrence, function name) cosmic-ray would apply to ``path``."""
    from cosmic_ray.ast import ast_nodes, get_ast_from_path
    from cosmic_ray.ast.ast_query import ASTQuery

    module = get_ast_from_path(ROOT / path)
    found = []
    for name, op in _operators():
        positions = ((node, p) for node in ast_nodes(module) for p in op.mutation_positions(node))
        for occurrence, (node, _) in enumerate(positions):
            found.append((name, occurrence, ASTQuery(node).get_definition_name() or ""))
    return found


def mutate(path: str, operator: str, occurrence: int) -> str | None:
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    code = (ROOT / path).read_text(encoding="utf-8")
    return mutate_code(code, cosmic_ray.plugins.get_operator(operator)(), occurrence)


def _stripped_ast(code: str, annotations: bool = True) -> str | None:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if not annotations:  # never evaluated: `from __future__ import annotations`
            if isinstance(node, (ast.arg, ast.AnnAssign)):
                node.annotation = ast.Constant(None)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                node.returns = None
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(getattr(body[0], "value", None), ast.Constant)
                and isinstance(body[0].value.value, str)):
            body.pop(0)
    return ast.dump(tree)


def _changed_lines(original: str, mutated: str) -> list[str]:
    return [line[1:].strip() for line in difflib.unified_diff(
        original.splitlines(), mutated.splitlines(), lineterm="", n=0)
        if line.startswith("+") and not line.startswith("+++")]


def _after_removal(original: str, mutated: str) -> list[str]:
    """For a mutation that only removes lines: the line after each removed run, stripped (the
    ``def rounds(self) -> int:`` under a removed ``@property``)."""
    lines = original.splitlines()
    matcher = difflib.SequenceMatcher(a=lines, b=mutated.splitlines(), autojunk=False)
    return [lines[i2].strip() for tag, _, i2, _, _ in matcher.get_opcodes()
            if tag == "delete" and i2 < len(lines)]


def changed_all(original: str, mutated: str, needle: str) -> bool:
    lines = _changed_lines(original, mutated)
    return bool(lines) and all(needle in line for line in lines)


#: Blocks the bench's checks never run, though the contract's tests do elsewhere: (file, the
#: block's head line) -> why. The durable scheduler is checked here on SQLite in memory.
ELSEWHERE: dict[tuple[str, str], str] = {
    ("impl/durable/_store.py", "class PostgresStore:"):
        "PostgreSQL's store: the bench checks the durable scheduler on SQLite in memory "
        "(tests/durable runs the scheduler suite on PostgreSQL)",
    ("impl/durable/_batch.py",
     "def _applied(store: PostgresStore, todo: list[_Report]) -> list[Reply]:"):
        "complete_many's one-statement path on PostgreSQL: the bench checks SQLite in memory",
    ("impl/durable/_store.py", "def hash_text(text: str) -> int:"):
        "the PostgreSQL store's advisory-lock number only: the bench checks SQLite in memory",
    ("impl/durable/scheduler.py", "def _reclaim(self, now: float) -> None:"):
        "runs only when a lease expires: the scheduler suite has no time passing (the lease "
        "suite of tests/durable drives the clock)",
    ("impl/durable/scheduler.py", "if isinstance(self.store, PostgresStore):"):
        "a PostgreSQL-only branch (one round trip): the bench checks SQLite in memory",
    ("impl/durable/scheduler.py",
     "if isinstance(self.store, PostgresStore):  # one round trip when nothing expired"):
        "a PostgreSQL-only branch (one round trip): the bench checks SQLite in memory",
}


def _inside_branch(original: str, mutated: str, head: str) -> bool:
    """Whether every line the mutation changes lies in a block opened by a line ``head``
    (stripped) of ``original``, the head excluded."""
    lines = original.splitlines()
    blocks = []
    for start in (i for i, line in enumerate(lines) if line.strip() == head):
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip()
                                    or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        blocks.append((start, end))
    matcher = difflib.SequenceMatcher(a=lines, b=mutated.splitlines(), autojunk=False)
    touched = [i for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal"
               for i in range(i1, max(i2, i1 + 1))]
    return bool(touched) and all(any(start < i < end for start, end in blocks)
                                 for i in touched)


def classify(m: Mutation) -> str | None:
    """The reason a survivor is equivalent, or None (missed)."""
    original = (ROOT / m.path).read_text(encoding="utf-8")
    if _stripped_ast(original) == _stripped_ast(m.source):
        return "same code (a docstring or a no-op change)"
    if _stripped_ast(original, False) == _stripped_ast(m.source, False):
        return "an annotation only (never evaluated: `from __future__ import annotations`)"
    if m.path in GROUPS["scheduler impl"] and changed_all(original, m.source, "self._m."):
        return ("a metrics() counter only: metrics are not part of the contract "
                "(specs/scheduler.md), so no check reads them")
    outside = (OUTSIDE_CONTRACT.get((m.path, m.definition))
               or OUTSIDE_CONTRACT.get(("*", m.definition)))
    if outside:
        return outside
    if m.definition == "check_invariants" and m.path == "model/scheduler.py":
        return ("in the model's own self-check: a survivor there only weakens it (one that "
                "raised on a valid state is killed at once); the model's replies are unchanged")
    if m.definition == "check_invariants" and m.path in WHEEL_SOURCES:
        return ("in the wheel's own check_invariants(), which is not part of the contract: "
                "the wheel suite does not call a target's")
    changed = _changed_lines(original, m.source)
    unreachable = UNREACHABLE.get((m.path, m.definition))
    if unreachable and _inside_branch(original, m.source, unreachable[0]):
        return unreachable[1]
    for (path, head), reason in ELSEWHERE.items():
        if path == m.path and _inside_branch(original, m.source, head):
            return reason
    for line in changed or _after_removal(original, m.source):
        reason = EQUIVALENT.get((m.path, m.definition, m.operator, line))
        if reason:
            return reason
    if changed and all(line.startswith(("f\"", "\"", "f'", "'")) for line in changed):
        return "message text only"
    return None


# ---------------------------------------------------------------------------------------------
# The child: one mutant, one check
# ---------------------------------------------------------------------------------------------


class _Loader(importlib.abc.Loader):
    def __init__(self, code: str, origin: str) -> None:
        self.code, self.origin = code, origin

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        module.__file__ = self.origin
        exec(compile(self.code, self.origin, "exec"), module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, code: str, origin: str) -> None:
        self.name, self.code, self.origin = name, code, origin

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(self.code, self.origin),
                                               origin=self.origin)


def child(path: str, source_file: str, budget: float, seed: int,
          examples: int | None = None) -> dict[str, Any]:
    name, targets = SOURCES[path]
    code = Path(source_file).read_text(encoding="utf-8")
    origin = str(ROOT / path)
    model = path.startswith("model/")
    try:
        if model:  # a second copy under its own name: the reference model stays unmutated
            spec = importlib.util.spec_from_loader(name + "_mutant", _Loader(code, origin),
                                                   origin=origin)
            assert spec is not None
            mutated = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = mutated
            spec.loader.exec_module(mutated)  # type: ignore[union-attr]
        else:
            sys.meta_path.insert(0, _Finder(name, code, origin))
            # imports the mutated module (the durable package is not imported by impl's)
            importlib.import_module("schedcheck.impl")
            importlib.import_module("schedcheck.impl.durable")
    except Exception as exc:
        return {"outcome": "incompetent", "why": f"{type(exc).__name__}: {exc}"}

    started = time.perf_counter()
    cpu = time.process_time()
    out = _check_targets(targets, mutated if model else None, budget, seed, started, examples)
    out["cpu"] = time.process_time() - cpu
    return out


def _first_failure(first: list[float], started: float) -> Any:
    """A progress factory for ``pipeline.check`` that notes when the first failing example
    came (seconds since ``started``): the time to kill. The default check keeps going after
    it, to grade every other clause, until its budget is spent."""

    @contextlib.contextmanager
    def bar(label: str, total: int | None) -> Iterator[Any]:
        def progress(examples: int, steps: int, failures: int) -> None:
            if failures and not first:
                first.append(time.perf_counter() - started)
        yield progress

    return bar


def _durable(max_concurrency: int) -> Any:
    from schedcheck.impl.durable import DurableScheduler

    return DurableScheduler("sqlite://", max_concurrency)


def _check_targets(targets: tuple[tuple[str, str], ...], mutated: Any, budget: float | None,
                   seed: int, started: float, examples: int | None = None) -> dict[str, Any]:
    from schedcheck import pipeline
    from schedcheck.targets import load_target

    for system, spec_text in targets:
        factory = (getattr(mutated, spec_text[1:]) if spec_text.startswith("@")
                   else _durable if spec_text == DURABLE_SPEC
                   else load_target(spec_text).factory)
        if pipeline.probe_construct(system, factory) is not None:
            return {"outcome": "killed", "clause": "unusable", "steps": 0,
                    "seconds": time.perf_counter() - started, "target": spec_text}
        try:
            # the reference scheduler rescans every task per call on purpose: S-COST fails it
            # unmutated, so its mutants are judged by the suite alone
            cost = not (mutated is not None and system == "scheduler")
            first: list[float] = []
            result = pipeline.check(system, factory, target_name=spec_text, levels=True,
                                    budget=None if examples else budget, examples=examples,
                                    seed=seed, cost=cost, first=True,
                                    bar=_first_failure(first, started))
        except pipeline.Unusable:
            return {"outcome": "killed", "clause": "unusable", "steps": 0,
                    "seconds": time.perf_counter() - started, "target": spec_text}
        if not result.ok:
            cx = result.counterexample
            clause = cx.clause if cx else next(
                (c for c, s in result.stats.items() if s.broken), "?")
            steps = sorted(len(c.steps) for c in result.all_counterexamples())
            return {"outcome": "killed", "clause": clause,
                    "steps": steps[0] if steps else 0, "all_steps": steps,
                    "seconds": first[0] if first else time.perf_counter() - started,
                    "check_seconds": time.perf_counter() - started, "target": spec_text}
    return {"outcome": "survived", "seconds": time.perf_counter() - started}


# ---------------------------------------------------------------------------------------------
# The parent
# ---------------------------------------------------------------------------------------------


def run_one(m: Mutation, budget: float, seed: int, examples: int | None = None
            ) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(m.source)
    try:
        proc = subprocess.run(
            [sys.executable, __file__, "--child", m.path, f.name, "--budget", str(budget),
             "--seed", str(seed), *(["--examples", str(examples)] if examples else [])],
            capture_output=True, text=True, cwd=ROOT,
            timeout=budget * 4 + 120 if not examples else 900,
            env={**os.environ, "PYTHONHASHSEED": "0"})
    except subprocess.TimeoutExpired:
        return {"outcome": "killed", "clause": "hang", "steps": 0, "seconds": budget * 4}
    finally:
        os.unlink(f.name)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        return {"outcome": "killed", "clause": f"crash (exit {proc.returncode})", "steps": 0,
                "seconds": 0.0, "why": proc.stderr[-500:]}
    out: dict[str, Any] = json.loads(lines[-1])
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def zoo(seeds: int, budget: float) -> None:
    """The zoo's sequential entries on seeds 0..seeds-1, each checked by the search the default
    check runs first (the contract level's budgeted search: every zoo entry has the contract's
    surface), stopping at its first counterexample and minimising it -- the default check's
    time to kill without its keep-going grading of the other clauses."""
    from schedcheck import pipeline
    from schedcheck.zoo.catalogue import all_mutants

    times: list[float] = []
    cpus: list[float] = []
    steps: list[int] = []
    kills = runs = 0
    for m in all_mutants():
        if m.kind != "sequential":
            continue
        mine = []
        for seed in range(seeds):
            started, cpu = time.perf_counter(), time.process_time()
            result = pipeline.check(m.system, m.factory, target_name=m.name, search=True,
                                    budget=budget, seed=seed, cost=False)
            seconds = time.perf_counter() - started
            cpus.append(time.process_time() - cpu)
            runs += 1
            cx = result.counterexample
            if cx is not None:
                kills += 1
                times.append(seconds)
                steps.append(len(cx.steps))
                other = "" if m.expects(cx.clause) else "/" + cx.clause
                mine.append(f"{seconds:.1f}s/{len(cx.steps)}{other}")
            else:
                mine.append("SURVIVED")
        print(f"{m.name:36s} {' '.join(mine)}", flush=True)
    print(f"\nzoo, sequential entries: {kills}/{runs} killed ({seeds} seeds each, budget "
          f"{budget:g} s); time to kill median {statistics.median(times):.2f} s, p90 "
          f"{_pct(times, 0.9):.2f} s, max {max(times):.2f} s (CPU: median "
          f"{statistics.median(cpus):.2f} s, p90 {_pct(cpus, 0.9):.2f} s); counterexample "
          f"steps median {statistics.median(steps):g}, max {max(steps)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=15, help="mutants per source group")
    parser.add_argument("--all", action="store_true", help="every mutant (hours)")
    parser.add_argument("--budget", type=float, default=25.0, help="the check's budget (s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, metavar="N", default=None,
                        help="seed-only mode: N examples a search round, no budget "
                             "(check --examples N; the verdict fixed by the seed)")
    parser.add_argument("--only", nargs="*", help="source files (default: all of SOURCES)")
    parser.add_argument("--zoo", type=int, metavar="SEEDS",
                        help="instead: the zoo's sequential entries on seeds 0..SEEDS-1")
    parser.add_argument("--reclassify", metavar="LOG",
                        help="instead: the table again from a run's printed lines")
    parser.add_argument("--child", nargs=2, metavar=("PATH", "SOURCE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], args.budget, args.seed,
                               args.examples)))
        return 0
    if args.zoo:
        zoo(args.zoo, args.budget)
        return 0
    if args.reclassify:
        _table(_rows_from_log(Path(args.reclassify)), args)
        return 0
    rng = random.Random(args.seed)
    chosen: list[Mutation] = []
    for group, paths in GROUPS.items():
        paths = tuple(p for p in paths if not args.only or p in args.only)
        pool = [(p, *m) for p in paths for m in mutations(p)]
        picked = pool if args.all else rng.sample(pool, min(args.sample, len(pool)))
        print(f"{group}: {len(pool)} mutants, {len(picked)} run", flush=True)
        for path, op, occ, definition in picked:
            source = mutate(path, op, occ)
            if source is not None:
                chosen.append(Mutation(path, op, occ, definition, source))
    rows = []
    for i, m in enumerate(chosen, 1):
        out = run_one(m, args.budget, 0, args.examples)
        why = classify(m) if out["outcome"] == "survived" else None
        rows.append((m, out, why))
        tail = (f"{out.get('clause')} in {out['seconds']:.1f} s ({out.get('cpu', 0):.1f} s CPU), "
                f"{out.get('steps')} steps"
                if out["outcome"] == "killed" else
                f"equivalent: {why}" if why else out["outcome"])
        print(f"[{i}/{len(chosen)}] {m.path}:{m.definition} {m.operator}#{m.occurrence}: "
              f"{out['outcome']} -- {tail}", flush=True)
        if out["outcome"] == "survived" and not why:
            original = (ROOT / m.path).read_text(encoding="utf-8")
            diff = difflib.unified_diff(original.splitlines(), m.source.splitlines(),
                                        lineterm="", n=1)
            print("    " + "\n    ".join(list(diff)[2:12]), flush=True)
    _table(rows, args)
    return 0


_LINE = re.compile(r"^\[\d+/\d+\] (\S+?):(\S*) (\S+)#(\d+): (\w+) -- (.*)$")


def _rows_from_log(log: Path) -> list[tuple[Mutation, dict[str, Any], str | None]]:
    """The rows of an earlier run, from its printed lines (survivors classified again)."""
    rows = []
    for line in log.read_text(encoding="utf-8").splitlines():
        hit = _LINE.match(line)
        if not hit:
            continue
        path, definition, op, occ, outcome, tail = hit.groups()
        source = mutate(path, op, int(occ)) or ""
        m = Mutation(path, op, int(occ), definition, source)
        out: dict[str, Any] = {"outcome": outcome}
        got = re.match(r"(.+?) in ([\d.]+) s \(([\d.]+) s CPU\), (\d+) steps", tail)
        if got:
            out.update(clause=got[1], seconds=float(got[2]), cpu=float(got[3]),
                       steps=int(got[4]))
        rows.append((m, out, classify(m) if outcome == "survived" else None))
    return rows


def _table(rows: list[tuple[Mutation, dict[str, Any], str | None]],
           args: argparse.Namespace) -> None:
    mode = (f"seed-only: {args.examples} examples a search round" if args.examples
            else f"budget {args.budget:g} s per check")
    print(f"\n{mode}, seed 0, mutant sample seed {args.seed}\n")
    print("| sources | mutants | incompetent | equivalent | killed | missed | kill rate "
          "| time to kill median / p90 (CPU) | counterexample steps median / max |")
    print("|---|---|---|---|---|---|---|---|---|")
    for group, paths in (*GROUPS.items(), ("all", tuple(SOURCES))):
        mine = [(m, o, w) for m, o, w in rows if m.path in paths]
        if not mine:
            continue
        killed = [o for _, o, _ in mine if o["outcome"] == "killed"]
        equivalent = sum(1 for _, o, w in mine if o["outcome"] == "survived" and w)
        missed = sum(1 for _, o, w in mine if o["outcome"] == "survived" and not w)
        incompetent = sum(1 for _, o, _ in mine if o["outcome"] == "incompetent")
        times = [o["seconds"] for o in killed]
        cpus = [o.get("cpu", o["seconds"]) for o in killed]
        steps = [o["steps"] for o in killed if o.get("steps")]
        rate = len(killed) / max(1, len(killed) + missed)
        print(f"| {group} | {len(mine)} | {incompetent} | {equivalent} | {len(killed)} | "
              f"{missed} | {rate:.0%} | {statistics.median(times) if times else 0:.1f} s / "
              f"{_pct(times, 0.9):.1f} s ({statistics.median(cpus) if cpus else 0:.1f} s / "
              f"{_pct(cpus, 0.9):.1f} s) | "
              f"{statistics.median(steps) if steps else 0:g} / {max(steps, default=0)} |")


if __name__ == "__main__":
    sys.exit(main())
