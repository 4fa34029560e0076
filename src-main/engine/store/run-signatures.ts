/**
 * Each run's distinct step signatures (computed by blame/spectrum.ts), kept
 * for the across-runs spectrum rule: blame of one run reads per-signature
 * counts over its pipeline's recent runs with verdicts instead of loading
 * those runs whole. A run's signatures are valid for the run version
 * (runs.updated_at) they were computed from; a later import makes them stale
 * and they are computed again on next use.
 */
import type { Json } from '../../../src-shared/trace-format';
import type { ReadableDb, WritableDb } from './open-database';
import { statement } from './statement-cache';

/** Per-signature counts over the history runs (the runs the spectrum rule compares against). */
interface SignatureCounts {
  failingRuns: number;
  passingRuns: number;
  /** Signature → how many failing (ef) / passing (ep) history runs hold it. */
  ef: Map<string, number>;
  ep: Map<string, number>;
}

// A pipeline's runs with verdicts, newest first: the spectrum rule's history (once loaded whole).
const HISTORY_SQL = `
SELECT run_id, updated_at, verdict, input FROM runs
WHERE pipeline = ? AND verdict IS NOT NULL
ORDER BY started_at DESC LIMIT ?`;

export interface HistoryRow {
  run_id: string;
  updated_at: number;
  verdict: string;
  input: string | null;
}

/**
 * The newest `limit` + 1 runs with verdicts of a pipeline: the history of each of its runs is these without
 * itself, the first `limit` (historyFor). A refresh of many runs reads them once per pipeline.
 */
export function pipelineHistory(db: ReadableDb, pipeline: string, limit: number): HistoryRow[] {
  return statement(db, HISTORY_SQL).all(pipeline, limit + 1) as HistoryRow[];
}

/** A run's history from its pipeline's (pipelineHistory): the same runs, in the same order, as read for it alone. */
export function historyFor(rows: HistoryRow[], runId: string, limit: number): HistoryRow[] {
  const out: HistoryRow[] = [];
  for (const r of rows) {
    if (out.length === limit) break;
    if (r.run_id !== runId) out.push(r);
  }
  return out;
}

/** History runs whose stored signatures are missing or older than the run. */
export function unsignedHistoryRuns(db: ReadableDb, rows: HistoryRow[]): string[] {
  const signedAt = statement(db, 'SELECT updated_at FROM signed_runs WHERE run_id = ?');
  return rows.filter((r) => (signedAt.get(r.run_id) as { updated_at: number } | undefined)?.updated_at !== r.updated_at).map((r) => r.run_id);
}

/** Replaces a run's signatures, stamped with the run version they describe (`updatedAt`, read with its steps). */
export function saveRunSignatures(db: WritableDb, runId: string, updatedAt: number, signatures: Iterable<string>): void {
  db.transaction(() => {
    db.prepare('DELETE FROM run_signatures WHERE run_id = ?').run(runId);
    const insert = db.prepare('INSERT OR IGNORE INTO run_signatures (run_id, signature) VALUES (?, ?)');
    for (const sig of signatures) insert.run(runId, sig);
    db.prepare('INSERT INTO signed_runs (run_id, updated_at) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET updated_at = excluded.updated_at').run(runId, updatedAt);
  })();
}

/**
 * Signature counts over the pipeline's history runs, and the history runs' inputs (for the term
 * background of relevance scoring). Callers sign stale runs first (unsignedHistoryRuns).
 */
export function historySignatureCounts(db: ReadableDb, rows: HistoryRow[]): { counts: SignatureCounts; inputs: (Json | null)[] } {
  const counts: SignatureCounts = { failingRuns: 0, passingRuns: 0, ef: new Map(), ep: new Map() };
  const sigsOf = statement(db, 'SELECT signature FROM run_signatures WHERE run_id = ?', 'pluck');
  for (const r of rows) {
    const pass = (JSON.parse(r.verdict) as { pass?: unknown }).pass;
    const into = pass ? counts.ep : counts.ef;
    if (pass) counts.passingRuns += 1;
    else counts.failingRuns += 1;
    for (const sig of sigsOf.all(r.run_id) as string[]) into.set(sig, (into.get(sig) ?? 0) + 1);
  }
  return { counts, inputs: rows.map((r) => (r.input === null ? null : (JSON.parse(r.input) as Json))) };
}
