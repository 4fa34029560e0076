/**
 * Step counts per run (run_step_counts, migration 0010), so the runs list does
 * not count every run's steps on each read: counting them was half the time of
 * listing 10,000 runs (bench/store-at-size.ts).
 */
import type { Db, ReadableDb } from './open-database';
import { readMark, versionStamp, writeMark } from './catch-up-marks';
import { statement } from './statement-cache';
import { idBatches } from './id-batches';

/** Runs changed since the mark whose count is missing or older (through runs_by_update: checked in the tests). */
export const CHANGED_RUNS_SQL = `SELECT r.run_id, r.updated_at FROM runs r LEFT JOIN run_step_counts c ON c.run_id = r.run_id
  WHERE r.updated_at >= ? AND c.version IS NOT r.updated_at ORDER BY r.updated_at`;

/** Counts again the steps of runs changed since the last catch-up. */
export function catchUpStepCounts(db: Db, now = Date.now()): void {
  const mark = readMark(db, 'step_counts', now);
  const changed = statement(db, CHANGED_RUNS_SQL).all(mark) as { run_id: string; updated_at: number }[];
  if (changed.length === 0) return;
  const upsert = statement(
    db,
    `INSERT INTO run_step_counts (run_id, version, steps) VALUES (@run_id, @version, (SELECT COUNT(*) FROM steps WHERE run_id = @run_id))
     ON CONFLICT(run_id) DO UPDATE SET version = excluded.version, steps = excluded.steps`,
  );
  db.transaction(() => {
    let next: number | null = null;
    for (const r of changed) {
      const version = versionStamp(r.updated_at, now);
      upsert.run({ run_id: r.run_id, version });
      if (version === -1) next ??= r.updated_at;
    }
    writeMark(db, 'step_counts', next ?? changed[changed.length - 1].updated_at);
  })();
}

/**
 * Stores the step count of each run an import wrote, stamped with the run's
 * version, at the end of the import: the first list after a bulk import then
 * reads the counts instead of counting (10,000 runs: 171 ms counted,
 * bench/store-at-size.ts). The stamp needs no same-millisecond guard
 * (versionStamp): every later write gives the run a larger version
 * (write-records.ts), and the count and the version are read in one
 * transaction.
 */
export function storeStepCounts(db: Db, runIds: Iterable<string>): void {
  // Each run's count and version are read together, a batch of runs a statement (id-batches.ts).
  const store = statement(
    db,
    `INSERT INTO run_step_counts (run_id, version, steps)
     SELECT r.run_id, r.updated_at, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.run_id) FROM json_each(?) j JOIN runs r ON r.run_id = j.value WHERE true
     ON CONFLICT(run_id) DO UPDATE SET version = excluded.version, steps = excluded.steps`,
  );
  for (const batch of idBatches(runIds)) store.run(batch);
}

/** A run's step count as the import stored it for this version of the run (storeStepCounts), else counted. */
export function stepsOfVersion(db: ReadableDb, runId: string, version: number): number {
  const stored = statement(db, 'SELECT steps FROM run_step_counts WHERE run_id = ? AND version = ?', 'pluck').get(runId, version) as number | undefined;
  return stored ?? countSteps(db, runId);
}

/** How many steps a run has (by its full id), without reading them (the text index's catch-up asks it for every run it looks at). */
export function countSteps(db: ReadableDb, runId: string): number {
  return statement(db, 'SELECT COUNT(*) FROM steps WHERE run_id = ?', 'pluck').get(runId) as number;
}
