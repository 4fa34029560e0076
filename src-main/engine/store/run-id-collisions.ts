/**
 * Two files that claim the same run id are two runs, not one: without this, a
 * second file's records would merge into (and overwrite) the first's — its
 * entry command included. The first file keeps the id; each other file's run
 * is stored as `<id>~2`, `<id>~3`… and the import says so. The mapping is
 * found again from the store (runs.source_file), so a tailed file keeps
 * writing to the same renamed run across imports and restarts.
 */
import type { Db } from './open-database';
import { statement } from './statement-cache';

/** Separator of the suffix; a character SDK run ids (uuid-like) never hold. */
const COLLISION_SEPARATOR = '~';

export interface RunIdResolver {
  /** The id this file's records of `runId` are stored under, and a warning the first time it is renamed. */
  resolve(runId: string): { runId: string; renamedFrom?: { owner: string } };
}

export function createRunIdResolver(db: Db, file: string): RunIdResolver {
  const owner = statement(db, 'SELECT source_file FROM runs WHERE run_id = ?');
  const mine = statement(db, `SELECT run_id FROM runs WHERE source_file = ? AND substr(run_id, 1, ?) = ? ORDER BY length(run_id), run_id LIMIT 1`);
  const cache = new Map<string, string>();
  return {
    resolve(runId) {
      const known = cache.get(runId);
      if (known !== undefined) return { runId: known };
      const row = owner.get(runId) as { source_file: string | null } | undefined;
      if (!row || row.source_file === null || row.source_file === file) {
        cache.set(runId, runId);
        return { runId };
      }
      const prefix = `${runId}${COLLISION_SEPARATOR}`;
      const existing = mine.get(file, prefix.length, prefix) as { run_id: string } | undefined;
      if (existing) {
        cache.set(runId, existing.run_id);
        return { runId: existing.run_id };
      }
      let n = 2;
      while (owner.get(`${prefix}${n}`) !== undefined) n += 1;
      const renamed = `${prefix}${n}`;
      cache.set(runId, renamed);
      return { runId: renamed, renamedFrom: { owner: row.source_file } };
    },
  };
}

export function collisionMessage(original: string, renamed: string, owner: string): string {
  return `run id "${original}" is already used by a run from ${owner}; this file's run is kept separately as "${renamed}"`;
}
