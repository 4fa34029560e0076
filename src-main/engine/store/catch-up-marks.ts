/**
 * Tables derived from a run's steps (run_step_counts, step_text) are brought up
 * to date lazily, by "catch-ups" that look only at runs changed since they last
 * ran: every change to a run's steps moves `runs.updated_at` to the time of the
 * change, or one more than its last version (write-records.ts, touchRuns), and
 * `runs_by_update` finds those runs. Imports also store the step counts of the
 * runs they wrote as they end (step-counts.ts, storeStepCounts).
 * A derived row is stamped with the run version it was built from; readers
 * trust it only while the stamp equals `runs.updated_at`, so a catch-up that
 * has not run yet makes a read slower, never wrong.
 */
import type { Db, ReadableDb } from './open-database';

export type CatchUp = 'step_counts' | 'step_text';

/**
 * Another process (`tb import` while the app runs) stamps a run when it writes
 * and commits a moment later: a catch-up in between may already have moved its
 * mark past that stamp. Runs changed this long before the mark are looked at
 * again (each costs one index lookup when it is up to date).
 */
const MARK_SLACK_MS = 60_000;

/**
 * Where a catch-up should start: every run last changed before it is up to
 * date. A mark later than the clock (the clock was set back) is not trusted:
 * every run is looked at again.
 */
export function readMark(db: ReadableDb, name: CatchUp, now: number): number {
  const row = db.prepare('SELECT at FROM catch_up_marks WHERE name = ?').get(name) as { at: number } | undefined;
  return row === undefined || row.at > now ? 0 : row.at - MARK_SLACK_MS;
}

export function writeMark(db: Db, name: CatchUp, at: number): void {
  db.prepare('INSERT INTO catch_up_marks (name, at) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET at = excluded.at').run(name, at);
}

/**
 * The stamp for a row derived from a run at version `updatedAt`. Writes give a
 * run a larger version each time (write-records.ts), even within one
 * millisecond; as a second guard, a run changed in the current millisecond (or
 * with a version ahead of the clock) is stamped as outdated (-1) and built again
 * next time.
 */
export function versionStamp(updatedAt: number, now: number): number {
  return updatedAt < Math.floor(now) ? updatedAt : -1;
}

/**
 * Runs a catch-up unless another connection (`tb import` beside the app) is
 * writing: the list it serves is right without it, so it neither waits for the
 * write lock nor fails; the next list catches up.
 */
export function catchUpUnlessBusy(db: Db, catchUp: () => unknown): void {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    catchUp();
  } catch (err) {
    if (!String((err as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY')) throw err;
  } finally {
    db.pragma(`busy_timeout = ${Number(timeout)}`);
  }
}
