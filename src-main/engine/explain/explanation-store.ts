/** The agent's answer, stored with its run (migration 0005) and deleted with it. */
import type { Explanation } from '../../../src-shared/explain';
import type { Db, ReadableDb } from '../store/open-database';

export function saveExplanation(db: Db, e: Explanation): void {
  db.prepare(
    `INSERT INTO run_explanations (run_id, body, created_at) VALUES (?, ?, ?)
     ON CONFLICT(run_id) DO UPDATE SET body = excluded.body, created_at = excluded.created_at`,
  ).run(e.run_id, JSON.stringify(e), e.created_at);
}

export function readExplanation(db: ReadableDb, runId: string): Explanation | null {
  const row = db.prepare('SELECT body FROM run_explanations WHERE run_id = ?').get(runId) as { body: string } | undefined;
  return row ? (JSON.parse(row.body) as Explanation) : null;
}
