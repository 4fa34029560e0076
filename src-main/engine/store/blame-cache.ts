/**
 * Stored blame results, one per run, valid for one settings hash and one
 * state of the run (its updated_at): the list filters and the gate read them
 * without recomputing blame.
 */
import type { Db } from './open-database';

interface BlameCacheEntry {
  healthy: boolean;
  blameScore: number;
  /** The failure detector's answer, for the runs list (src-shared/run-state.ts). */
  detection: 'failed' | 'healthy' | 'unknown' | null;
  /** The BlameResult as JSON. */
  result: string;
}

export interface BlameCache {
  /** The run's updated_at and stored status, or undefined when there is no such run. */
  runState(runId: string): { updated_at: number; status: string } | undefined;
  read(runId: string, settingsHash: string, runUpdated: number): string | undefined;
  write(runId: string, settingsHash: string, runUpdated: number, entry: BlameCacheEntry): void;
  /** Whether the stored blame is of this version of the run and these settings (without reading it). */
  isCurrent(runId: string, settingsHash: string, runUpdated: number): boolean;
  /** Drops the run's stored blame (the list then shows it unblamed rather than as it was). */
  forget(runId: string): void;
}

export function openBlameCache(db: Db): BlameCache {
  const readCached = db.prepare('SELECT result FROM blame_results WHERE run_id = ? AND settings_hash = ? AND run_updated = ?');
  const writeCached = db.prepare(
    `INSERT INTO blame_results (run_id, settings_hash, run_updated, healthy, blame_score, result, computed_at, detection) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(run_id) DO UPDATE SET settings_hash = excluded.settings_hash, run_updated = excluded.run_updated,
       healthy = excluded.healthy, blame_score = excluded.blame_score, result = excluded.result, computed_at = excluded.computed_at,
       detection = excluded.detection`,
  );
  const runState = db.prepare('SELECT updated_at, status FROM runs WHERE run_id = ?');
  const current = db.prepare('SELECT 1 FROM blame_results WHERE run_id = ? AND settings_hash = ? AND run_updated = ?').pluck();
  const forget = db.prepare('DELETE FROM blame_results WHERE run_id = ?');
  return {
    runState: (runId) => runState.get(runId) as { updated_at: number; status: string } | undefined,
    read: (runId, settingsHash, runUpdated) => (readCached.get(runId, settingsHash, runUpdated) as { result: string } | undefined)?.result,
    write: (runId, settingsHash, runUpdated, e) => {
      writeCached.run(runId, settingsHash, runUpdated, e.healthy ? 1 : 0, e.blameScore, e.result, Date.now(), e.detection);
    },
    isCurrent: (runId, settingsHash, runUpdated) => current.get(runId, settingsHash, runUpdated) !== undefined,
    forget: (runId) => {
      forget.run(runId);
    },
  };
}
