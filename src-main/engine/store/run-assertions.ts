/**
 * What the user said about a run: "this run failed", optionally with the
 * answer it should have given. Stored apart from the imported run, so a
 * re-import never loses it, and deleted with the run.
 */
import type { RunAssertion } from '../../../src-shared/analysis';
import type { Db, ReadableDb } from './open-database';
import { statement } from './statement-cache';

interface AssertionRow {
  failed: number;
  expected: string | null;
  note: string | null;
  asserted_at: number;
}

export function getRunAssertion(db: ReadableDb, runId: string): RunAssertion | null {
  const row = statement(db, 'SELECT failed, expected, note, asserted_at FROM run_assertions WHERE run_id = ?').get(runId) as AssertionRow | undefined;
  return row ? { failed: row.failed === 1, expected: row.expected, note: row.note, asserted_at: row.asserted_at } : null;
}

/** Stores the assertion (null clears it) and drops the run's stored blame, in one transaction. */
export function setRunAssertion(db: Db, runId: string, assertion: Omit<RunAssertion, 'asserted_at'> | null, now = Date.now()): void {
  db.transaction(() => {
    if (assertion === null) db.prepare('DELETE FROM run_assertions WHERE run_id = ?').run(runId);
    else {
      db.prepare(
        `INSERT INTO run_assertions (run_id, failed, expected, note, asserted_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(run_id) DO UPDATE SET failed = excluded.failed, expected = excluded.expected, note = excluded.note, asserted_at = excluded.asserted_at`,
      ).run(runId, assertion.failed ? 1 : 0, assertion.expected, assertion.note, now);
    }
    db.prepare('DELETE FROM blame_results WHERE run_id = ?').run(runId);
  })();
}
