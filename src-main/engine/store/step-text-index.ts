/**
 * The text index behind the runs list's search (migration 0010, ADR 0010):
 * FTS5 documents of a run's steps (one per run, several for a big run) holding
 * the name, input, output and error of every step, in trigram tokens, so that
 * a query keeps the meaning it had as a LIKE scan: a case-insensitive
 * substring of one field. Documents are built lazily, by catchUpStepText, for
 * runs changed since it last ran; the importer never waits for them. A run
 * whose documents are missing or older than the run is searched the old way
 * (read-runs.ts), so a stale index is slower, never wrong.
 */
import type { Db, ReadableDb } from './open-database';
import { readMark, versionStamp, writeMark } from './catch-up-marks';
import { countSteps } from './step-counts';

/**
 * Between two fields of a document. A query without this character cannot
 * match across fields (a trigram spanning two fields holds it); JSON text holds
 * it only escaped, as \u0001.
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

/** Runs changed since the mark whose documents are missing or older (through runs_by_update: checked in the tests). */
export const CHANGED_RUNS_SQL = `SELECT r.run_id, r.updated_at FROM runs r
  WHERE r.updated_at >= ? AND NOT EXISTS (SELECT 1 FROM step_text_runs d WHERE d.run_id = r.run_id AND d.version = r.updated_at)
  ORDER BY r.updated_at`;
/**
 * A run's text is split into documents of about this many characters (whole
 * steps), so a run of 100,000 steps with long prompts is never one string
 * (V8 caps a string near 512 MB) nor one FTS5 document held in memory whole.
 */
const DOCUMENT_CHARS = 4_000_000;
/** Steps read per query while building documents: no statement is left open while documents are written. */
const STEPS_PER_READ = 2_000;

/**
 * The end of every document. Each character of a document then starts a
 * trigram, so a query of one or two characters is found through the trigrams
 * that start with it (migration 0011).
 */
const DOCUMENT_END = FIELD_SEPARATOR + FIELD_SEPARATOR;
/** More trigrams than this start with a short query: it is answered by scanning (a common letter; its hits are found fast). */
const SHORT_QUERY_TERMS = 2_000;

export interface StepTextQuery {
  /** The FTS5 query: the user's text as one quoted phrase, so NEAR, AND, * and quotes are text; null: no document holds it. */
  match: string | null;
  /** The text is plain (see PLAIN): a hit in a plain document needs no LIKE check. */
  plain: boolean;
}

/**
 * The index query for a search text, or null where the index cannot answer:
 * a NUL character (SQLite reads the query only up to it), or fewer than 3
 * characters with a cased letter other than A–Z (FTS5 and JavaScript may fold
 * it differently) or that start too many trigrams (the caller scans, as before
 * the index). Reads the index's terms: call it after a catch-up.
 */
export function stepTextQuery(db: ReadableDb, text: string): StepTextQuery | null {
  if (text.includes('\u0000')) return null;
  const plain = PLAIN.test(text);
  if ([...text].length >= 3) return { match: ftsPhrase(text), plain };
  if (text.includes(FIELD_SEPARATOR) || ![...text].every((c) => PLAIN.test(c) || (c.length === 1 && caseless(c)))) return null;
  // Folded as the index folds it (A–Z; other characters have no case); the terms from it up to the next text after all it starts.
  const from = text.toLowerCase();
  const to = from.slice(0, -1) + String.fromCharCode(from.charCodeAt(from.length - 1) + 1);
  const terms = db.prepare('SELECT term FROM step_text_terms WHERE term >= ? AND term < ? LIMIT ?').pluck().all(from, to, SHORT_QUERY_TERMS + 1) as string[];
  if (terms.length > SHORT_QUERY_TERMS) return null;
  return { match: terms.length === 0 ? null : terms.map(ftsPhrase).join(' OR '), plain };
}

/** Text as one FTS5 phrase: quoted, inner quotes doubled, so NEAR, AND, * and quotes are text. */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** A character of one UTF-16 unit that no case mapping changes (digits, CJK, punctuation): FTS5 folds it to itself. */
function caseless(c: string): boolean {
  return c.toLowerCase() === c && c.toUpperCase() === c && !/[\ud800-\udfff]/.test(c);
}

export interface CatchUpResult {
  runs: number;
  steps: number;
  /** Every changed run was indexed (false when the time budget ran out first). */
  complete: boolean;
}

/**
 * Indexes the runs changed since the last catch-up, oldest change first, for at
 * most `budgetMs` (whole runs; at least one run per call). `skipRunsOver`:
 * runs of more steps are left to a later catch-up without a limit (the next
 * search's), the mark staying before them (the engine's idle catch-up: a
 * 100,000-step run is one ~1 s unit of work).
 */
export function catchUpStepText(db: Db, opts: { budgetMs?: number; now?: () => number; skipRunsOver?: number } = {}): CatchUpResult {
  const clock = opts.now ?? Date.now;
  const started = performance.now();
  const budget = opts.budgetMs ?? Infinity;
  const changed = db.prepare(CHANGED_RUNS_SQL).all(readMark(db, 'step_text', clock())) as { run_id: string; updated_at: number }[];
  if (changed.length === 0) return { runs: 0, steps: 0, complete: true };
  const readSteps = db.prepare('SELECT step_id, name, input, output, error FROM steps WHERE run_id = ? AND step_id > ? ORDER BY step_id LIMIT ?').raw();
  const forgetRun = db.prepare('DELETE FROM step_text_runs WHERE run_id = ?');
  const stampDocument = db.prepare('INSERT INTO step_text_runs (run_id, version, plain) VALUES (?, ?, ?)');
  const addDocument = db.prepare('INSERT INTO step_text (rowid, body) VALUES (?, ?)');
  let done = 0;
  let steps = 0;
  // The mark stops at the first run not indexed for good (left for later, or changed this millisecond).
  let mark: number | null = null;
  const indexRun = (run: (typeof changed)[number]) => {
    if (opts.skipRunsOver !== undefined && countSteps(db, run.run_id) > opts.skipRunsOver) {
      mark ??= run.updated_at;
      return;
    }
    const version = versionStamp(run.updated_at, clock());
    if (version === -1) mark ??= run.updated_at;
    // The trigger on step_text_runs takes the run's old documents out of the index.
    forgetRun.run(run.run_id);
    let parts: string[] = [];
    let chars = 0;
    let plain = 1;
    let documents = 0;
    const addRunDocument = () => {
      const doc = stampDocument.run(run.run_id, version, plain).lastInsertRowid;
      addDocument.run(doc, parts.join(FIELD_SEPARATOR) + DOCUMENT_END);
      documents++;
      parts = [];
      chars = 0;
      plain = 1;
    };
    let after = '';
    for (;;) {
      const page = readSteps.all(run.run_id, after, STEPS_PER_READ) as (string | null)[][];
      for (const row of page) {
        steps++;
        for (let i = 1; i < row.length; i++) {
          const field = row[i];
          if (field === null) continue;
          parts.push(field);
          chars += field.length;
          if (plain === 1 && !PLAIN.test(field)) plain = 0;
        }
        if (chars >= DOCUMENT_CHARS) addRunDocument();
      }
      if (page.length < STEPS_PER_READ) break;
      after = page[page.length - 1][0] as string;
    }
    // A run without steps still gets its (empty) document: the stamp says it is indexed.
    if (parts.length > 0 || documents === 0) addRunDocument();
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
