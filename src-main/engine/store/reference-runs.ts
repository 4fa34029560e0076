/**
 * Candidates for a blame-confirmation reference: passing, local, unforked runs
 * of a pipeline that can be re-run, newest first. Ordered by import order too,
 * so a trace claiming a future start time cannot jump the queue.
 */
import type { ReadableDb } from './open-database';
import { likeInbox, LOCAL_RUN_CONDITION } from './run-origin';

export function passingLocalRunsOf(db: ReadableDb, pipeline: string, exceptRunId: string, limit: number): { run_id: string; input: string | null }[] {
  return db
    .prepare(
      `SELECT r.run_id, r.input FROM runs r WHERE r.pipeline = @pipeline AND r.run_id <> @run_id AND r.provenance IS NULL AND r.entry IS NOT NULL
         AND json_extract(r.verdict, '$.pass') = 1 AND ${LOCAL_RUN_CONDITION}
       ORDER BY MIN(r.started_at, r.imported_at) DESC LIMIT @limit`,
    )
    .all({ pipeline, run_id: exceptRunId, inbox_like: likeInbox(db), limit }) as { run_id: string; input: string | null }[];
}
