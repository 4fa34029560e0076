/**
 * The last run skeleton read, kept while its run is unchanged: reopening a
 * big run (back to the list and in again, another window) skips reading
 * 100,000 rows again (~0.7 s). One entry, so memory stays bounded (~40 MB
 * for a 100,000-step run); a change to the run (its updated_at) or another
 * run's skeleton replaces it. A running run is never kept.
 */
import type { RunSkeleton } from '../../../src-shared/run-skeleton';
import type { ReadableDb } from './open-database';
import { getRunSkeleton } from './read-run-pages';
import { resolveRunId } from './read-runs';

export interface SkeletonCache {
  get(idOrPrefix: string): RunSkeleton;
}

export function createSkeletonCache(db: ReadableDb): SkeletonCache {
  let last: { runId: string; updatedAt: number; skeleton: RunSkeleton } | null = null;
  const stateOf = db.prepare('SELECT updated_at, status FROM runs WHERE run_id = ?');
  return {
    get(idOrPrefix) {
      const runId = resolveRunId(db, idOrPrefix);
      const state = stateOf.get(runId) as { updated_at: number; status: string };
      if (last && last.runId === runId && last.updatedAt === state.updated_at) return last.skeleton;
      const skeleton = getRunSkeleton(db, runId);
      // A running run's shown status depends on the clock (rows.ts displayStatus): read it fresh each time.
      last = state.status === 'running' ? null : { runId, updatedAt: state.updated_at, skeleton };
      return skeleton;
    },
  };
}
