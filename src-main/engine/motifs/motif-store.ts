/**
 * Failure motifs in SQLite (migration 0005). A learned motif goes with its
 * source run (ON DELETE CASCADE); an imported one stays until forgotten.
 */
import { randomBytes } from 'node:crypto';
import type { FailureMotif } from '../../../src-shared/motifs';
import { EngineError } from '../../../src-shared/result';
import type { Db, ReadableDb } from '../store/open-database';

export function newMotifId(): string {
  return `motif-${randomBytes(6).toString('hex')}`;
}

export function saveMotif(db: Db, motif: FailureMotif): FailureMotif {
  // A motif whose source run is not in this database cannot point at it (imported from a teammate).
  const localRun = motif.source_run_id !== null && db.prepare('SELECT 1 FROM runs WHERE run_id = ?').get(motif.source_run_id) !== undefined;
  const experiment = motif.proof?.experiment_id ?? null;
  const localExperiment = experiment !== null && db.prepare('SELECT 1 FROM experiments WHERE experiment_id = ?').get(experiment) !== undefined;
  const stored: FailureMotif = { ...motif, source_run_id: localRun ? motif.source_run_id : null };
  db.prepare(
    `INSERT INTO failure_motifs (motif_id, origin, source_run_id, experiment_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(motif_id) DO UPDATE SET origin = excluded.origin, source_run_id = excluded.source_run_id,
       experiment_id = excluded.experiment_id, body = excluded.body`,
  ).run(stored.motif_id, stored.origin, stored.source_run_id, localExperiment ? experiment : null, JSON.stringify(stored), stored.created_at);
  return stored;
}

export function listMotifs(db: ReadableDb): FailureMotif[] {
  const rows = db.prepare('SELECT body, source_run_id FROM failure_motifs ORDER BY created_at DESC, motif_id').all() as { body: string; source_run_id: string | null }[];
  return rows.map((r) => ({ ...(JSON.parse(r.body) as FailureMotif), source_run_id: r.source_run_id }));
}

/** Removes one motif by id or unique prefix; returns the removed motif. */
export function forgetMotif(db: Db, idOrPrefix: string): FailureMotif {
  const hits = listMotifs(db).filter((m) => m.motif_id === idOrPrefix || m.motif_id.startsWith(idOrPrefix));
  const exact = hits.find((m) => m.motif_id === idOrPrefix);
  if (!exact && hits.length === 0) throw new EngineError('not_found', `no motif ${idOrPrefix}`);
  if (!exact && hits.length > 1) throw new EngineError('ambiguous', `motif prefix ${idOrPrefix} is ambiguous (${hits.length} motifs)`);
  const motif = exact ?? hits[0];
  db.prepare('DELETE FROM failure_motifs WHERE motif_id = ?').run(motif.motif_id);
  return motif;
}
