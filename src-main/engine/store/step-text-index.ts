/**
 * The text index behind the runs list's search (migration 0010, ADR 0010):
 * one FTS5 document per run, holding the name, input, output and error of
 * every step, tokenized in trigrams so that a query keeps the meaning it had
 * as a LIKE scan: a case-insensitive substring of one field. Documents are
 * built lazily, by catchUpStepText, for runs changed since it last ran; the
 * importer never waits for them. A run whose document is missing or older than
 * the run is searched the old way (read-runs.ts), so a stale index is slower,
 * never wrong.
 */
import type { Db } from './open-database';
import { readMark, versionStamp, writeMark } from './catch-up-marks';

/**
 * Between two fields of a document. A query without this character cannot
 * match across fields (each of its trigrams would have to hold it); JSON text
 * holds it only escaped, so it appears raw only in a name or an error.
 */
const FIELD_SEPARATOR = '\u0001';
/**
 * Text on which the trigram index and LIKE agree exactly: printable ASCII,
 * where both fold exactly A–Z. Elsewhere FTS5 folds more (É/é, the Kelvin sign),
 * so a hit in a document or for a query with other characters is checked with LIKE.
 */
const PLAIN = /^[\t\n\r\x20-\x7e]*$/;
/** A time slice of catch-up work: one transaction, so readers between slices see whole documents. */
const SLICE_MS = 50;

export interface StepTextQuery {
  /** The FTS5 query: the user's text as one quoted phrase, so NEAR, AND, * and quotes are text. */
  match: string;
  /** The text is plain (see PLAIN): a hit in a plain document needs no LIKE check. */
  plain: boolean;
}

/**
 * The index query for a search text, or null where the index cannot answer:
 * fewer than 3 characters (no trigram; the caller scans, as before the index)
 * or a NUL character (SQLite reads the query only up to it).
 */
export function stepTextQuery(text: string): StepTextQuery | null {
  if ([...text].length < 3 || text.includes('\u0000')) return null;
  return { match: `"${text.replaceAll('"', '""')}"`, plain: PLAIN.test(text) };
}

export interface CatchUpResult {
  runs: number;
  steps: number;
  /** Every changed run was indexed (false when the time budget ran out first). */
  complete: boolean;
}

/**
 * Indexes the runs changed since the last catch-up, oldest change first, for at
 * most `budgetMs` (whole runs; at least one run per call).
 */
export function catchUpStepText(db: Db, opts: { budgetMs?: number; now?: () => number } = {}): CatchUpResult {
  const clock = opts.now ?? Date.now;
  const started = performance.now();
  const budget = opts.budgetMs ?? Infinity;
  const changed = db
    .prepare(
      `SELECT r.run_id, r.updated_at, d.doc FROM runs r LEFT JOIN step_text_runs d ON d.run_id = r.run_id
       WHERE r.updated_at >= ? AND d.version IS NOT r.updated_at ORDER BY r.updated_at`,
    )
    .all(readMark(db, 'step_text', clock())) as { run_id: string; updated_at: number; doc: number | null }[];
  if (changed.length === 0) return { runs: 0, steps: 0, complete: true };
  const fieldsOf = db.prepare('SELECT name, input, output, error FROM steps WHERE run_id = ?').raw();
  const forget = db.prepare('DELETE FROM step_text WHERE rowid = ?');
  const addDocument = db.prepare('INSERT INTO step_text (rowid, body) VALUES (?, ?)');
  const stampNew = db.prepare('INSERT INTO step_text_runs (run_id, version, plain) VALUES (?, ?, ?)');
  const stampAgain = db.prepare('UPDATE step_text_runs SET version = ?, plain = ? WHERE doc = ?');
  let done = 0;
  let steps = 0;
  // The mark stops at the first run not indexed for good (left for later, or changed this millisecond).
  let mark: number | null = null;
  const indexRun = (run: (typeof changed)[number]) => {
    const parts: string[] = [];
    let plain = 1;
    for (const row of fieldsOf.iterate(run.run_id) as IterableIterator<(string | null)[]>) {
      steps++;
      for (const field of row) {
        if (field === null) continue;
        parts.push(field);
        if (plain === 1 && !PLAIN.test(field)) plain = 0;
      }
    }
    const body = parts.join(FIELD_SEPARATOR);
    const now = clock();
    const version = versionStamp(run.updated_at, now);
    if (version === -1) mark ??= run.updated_at;
    let doc = run.doc;
    if (doc === null) doc = Number(stampNew.run(run.run_id, version, plain).lastInsertRowid);
    else {
      forget.run(doc);
      stampAgain.run(version, plain, doc);
    }
    addDocument.run(doc, body);
  };
  while (done < changed.length && (done === 0 || performance.now() - started < budget)) {
    const sliceStart = performance.now();
    db.transaction(() => {
      do indexRun(changed[done++]);
      while (done < changed.length && performance.now() - sliceStart < SLICE_MS && performance.now() - started < budget);
      writeMark(db, 'step_text', mark ?? (done < changed.length ? changed[done].updated_at : changed[done - 1].updated_at));
    })();
  }
  return { runs: done, steps, complete: done === changed.length };
}
