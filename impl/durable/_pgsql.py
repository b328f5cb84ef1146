"""The PostgreSQL store's server-side functions: the claim and the applied completion (one and
a batch), each one round trip, run under the store's advisory lock taken SHARED -- so claimers
and completers run side by side, with renewals, which share it too and lock the row they
change -- while every other changing call takes it EXCLUSIVE (it then runs alone, as on
SQLite).

What keeps the shared paths exact (specs/durable.md L7):

* **The limit** is kept by slots: ``dslot`` holds ``max_concurrency`` rows and every RUNNING
  task holds one of them in ``dtask.slot`` (unique); every transition out of RUNNING sets it
  NULL in the same statement. A claim first locks slot rows that look free ``FOR UPDATE SKIP
  LOCKED``, then -- in a new statement, so a new snapshot -- keeps only those no task holds.
  A claim that took a slot committed before it released the slot's row lock, so whoever locks
  that row next sees it held: two claimers never hold one slot, and RUNNING tasks never
  outnumber the slots, at every commit. The slot rows are only locked, never written (no row
  is hot).
* **Tokens** come from the sequence ``dtoken``: a claim that starts after another one ended
  holds a larger token (nextval only grows), and no transaction waits for another's counter.
* **Claims** lock the READY rows they take ``FOR UPDATE SKIP LOCKED``: two claimers never take
  one task, and no claimer waits.
* **Releasing dependents** on a completion: the completer locks every PENDING dependent
  ``FOR UPDATE`` in id order, and only then (a new statement, so a new snapshot) decides which
  have nothing outstanding. Two completions of two dependencies of one task both lock it: the
  later one waits for the earlier one's commit and then sees its SUCCEEDED, so the last
  dependency to complete always releases the task. Completers lock only their own RUNNING rows
  and then PENDING dependents in id order, and claimers never wait: no cycle of waits.
* **The rest** -- an expired lease to reclaim, a closed or not started store, a report that is
  not the APPLIED case -- makes the function answer NULL; the caller then takes the ordinary
  path, a transaction under the exclusive lock.
"""

from __future__ import annotations

__all__ = ["FUNCTIONS"]

#: the dependents of ``ks`` that are PENDING with every dependency SUCCEEDED -> READY, after
#: locking every PENDING dependent in id order (see above)
_RELEASE = """
    IF EXISTS (SELECT 1 FROM dedge WHERE dep = ANY (ks)) THEN
        PERFORM 1 FROM dedge e JOIN dtask d ON d.id = e.dependent
         WHERE e.dep = ANY (ks) AND d.state = 'PENDING' ORDER BY d.id FOR UPDATE OF d;
        UPDATE dtask SET state = 'READY' WHERE state = 'PENDING'
           AND id IN (SELECT dependent FROM dedge WHERE dep = ANY (ks))
           AND NOT EXISTS (SELECT 1 FROM dedge e LEFT JOIN dtask d ON d.id = e.dep
                            WHERE e.dependent = dtask.id
                              AND (d.state IS NULL OR d.state <> 'SUCCEEDED'));
    END IF;"""

#: rule 4's APPLIED case: RUNNING generation ``g`` (with token ``tok`` when given) ->
#: SUCCEEDED, its slot freed, then its dependents released. NULL when that case does not apply:
#: the caller then decides the reply (STALE, DUPLICATE, REJECTED) the ordinary way.
_COMPLETE = f"""
CREATE OR REPLACE FUNCTION dcomplete(k TEXT, g BIGINT, tok BIGINT, lockkey BIGINT)
RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
    ks TEXT[] := ARRAY[k];
BEGIN
    PERFORM pg_advisory_xact_lock_shared(lockkey);
    UPDATE dtask SET state = 'SUCCEEDED', token = NULL, expires = NULL, slot = NULL
     WHERE id = k AND gen = g AND state = 'RUNNING' AND (tok IS NULL OR token = tok);
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;{_RELEASE}
    RETURN 'APPLIED';
END $$"""

#: ``dcomplete`` for several reports in order: 'APPLIED' for each, up to the first that is not
#: that case (NULL, last): the caller decides it and sends the rest again. The dependents of
#: every applied report are locked after the reports' own rows, in one statement.
_COMPLETE_MANY = f"""
CREATE OR REPLACE FUNCTION dcomplete_many(all_ks TEXT[], gs BIGINT[], toks BIGINT[],
                                          lockkey BIGINT)
RETURNS TEXT[] LANGUAGE plpgsql AS $$
DECLARE
    out TEXT[] := '{{}}';
    ks TEXT[] := '{{}}';
BEGIN
    PERFORM pg_advisory_xact_lock_shared(lockkey);
    FOR i IN 1 .. COALESCE(array_length(all_ks, 1), 0) LOOP
        UPDATE dtask SET state = 'SUCCEEDED', token = NULL, expires = NULL, slot = NULL
         WHERE id = all_ks[i] AND gen = gs[i] AND state = 'RUNNING'
           AND (toks[i] IS NULL OR token = toks[i]);
        IF NOT FOUND THEN
            out := out || NULL::TEXT;  -- the caller decides this one, then sends the rest
            EXIT;
        END IF;
        ks := ks || all_ks[i];
        out := out || 'APPLIED'::TEXT;
    END LOOP;{_RELEASE}
    RETURN out;
END $$"""

#: rule 3's claim when nothing is to be reclaimed (at ``tnow``, NULL: the server's clock): free
#: slots (a READY task still waiting for its retry's ``not_before`` is passed over) (at most
#: ``lim`` -- NULL: no limit --, ``mc`` and the READY tasks there are), as many READY tasks in
#: submission sequence, each made RUNNING with its slot and the next token (ascending in
#: submission sequence). One row with a NULL id when the ordinary path must decide (not started,
#: closed, or an expired lease to reclaim first).
_CLAIM = """
CREATE OR REPLACE FUNCTION dclaim_at(lim BIGINT, tnow DOUBLE PRECISION,
                                     lease DOUBLE PRECISION, mc BIGINT, lockkey BIGINT)
RETURNS TABLE (rid TEXT, rgen BIGINT, rfn TEXT, rtoken BIGINT, rexpires DOUBLE PRECISION)
LANGUAGE plpgsql AS $$
DECLARE
    v_slots BIGINT[];
    v_ids TEXT[];
    v_toks BIGINT[];
BEGIN
    PERFORM pg_advisory_xact_lock_shared(lockkey);
    -- the server's clock, read once the lock is held: one clock for every worker (L6)
    tnow := COALESCE(tnow, extract(epoch FROM clock_timestamp())::float8);
    IF NOT EXISTS (SELECT 1 FROM dmeta m WHERE m.key = 'started' AND m.value = '1')
       OR EXISTS (SELECT 1 FROM dmeta m WHERE m.key = 'closed' AND m.value = '1')
       OR EXISTS (SELECT 1 FROM dtask t WHERE t.state = 'RUNNING' AND t.expires < tnow) THEN
        rid := NULL;
        RETURN NEXT;
        RETURN;
    END IF;
    IF lim IS NOT NULL AND lim <= 0 THEN
        RETURN;
    END IF;
    -- lock slots that look free ...
    SELECT array_agg(f.slot) INTO v_slots FROM (
        SELECT s.slot FROM dslot s
         WHERE (SELECT t.id FROM dtask t WHERE t.slot = s.slot) IS NULL ORDER BY s.slot
         LIMIT (SELECT COUNT(*) FROM (SELECT 1 FROM dtask r WHERE r.state = 'READY'
                                       AND (r.not_before IS NULL OR r.not_before <= tnow)
                                       LIMIT least(lim, mc)) x)
           FOR UPDATE OF s SKIP LOCKED) f;
    IF v_slots IS NULL THEN
        RETURN;
    END IF;
    -- ... and keep those still free now that they are locked (a new snapshot)
    SELECT array_agg(u.slot ORDER BY u.slot) INTO v_slots FROM unnest(v_slots) AS u(slot)
     WHERE (SELECT t.id FROM dtask t WHERE t.slot = u.slot) IS NULL;
    IF v_slots IS NULL THEN
        RETURN;
    END IF;
    SELECT array_agg(p.id ORDER BY p.seq) INTO v_ids FROM (
        -- a retried task waits for its not_before (L8): skipped, it keeps its place
        SELECT t.id, t.seq FROM dtask t WHERE t.state = 'READY'
           AND (t.not_before IS NULL OR t.not_before <= tnow) ORDER BY t.seq
         LIMIT cardinality(v_slots) FOR UPDATE SKIP LOCKED) p;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;
    SELECT array_agg(q.x ORDER BY q.x) INTO v_toks FROM (
        SELECT nextval('dtoken') AS x FROM generate_series(1, cardinality(v_ids))) q;
    -- one primary-key update per task: its plan cannot turn into a scan of the table
    FOR i IN 1 .. cardinality(v_ids) LOOP
        UPDATE dtask t SET state = 'RUNNING', token = v_toks[i], slot = v_slots[i],
               expires = tnow + lease, attempts = t.attempts + 1, not_before = NULL
         WHERE t.id = v_ids[i]
        RETURNING t.id, t.gen, t.fn, t.token, t.expires INTO rid, rgen, rfn, rtoken, rexpires;
        RETURN NEXT;
    END LOOP;
END $$"""

#: run in this order when a store is opened
FUNCTIONS = (_COMPLETE, _COMPLETE_MANY, _CLAIM)
