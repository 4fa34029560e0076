/**
 * The importer's bookkeeping rows: how far each file has been read
 * (`import_files`), the problems found in it (`import_errors`), and the runs
 * it produced. The importer decides; these statements only record.
 */
import type { ImportError } from '../../../src-shared/model';
import { nameInvisibleChars } from '../text/invisible-chars';
import type { Db, ReadableDb } from './open-database';
import { statement } from './statement-cache';
import { storeStepCounts } from './step-counts';
import { touchRuns } from './write-records';
import { IN_BATCH, idBatches } from './id-batches';

export interface FileState {
  size?: number;
  offset: number;
  line: number;
  format: string;
  refused: string | null;
  /**
   * When the read that stored this state began (ms): a file changed after it is read again. Saving without it
   * stamps the time of the save.
   */
  updated_at?: number;
}

export function readFileState(db: ReadableDb, file: string): FileState | undefined {
  return statement(db, 'SELECT size, offset, line, format, refused, updated_at FROM import_files WHERE path = ?').get(file) as FileState | undefined;
}

export function saveFileState(db: Db, file: string, s: FileState, size: number): void {
  statement(
    db,
    `INSERT INTO import_files (path, offset, line, size, format, refused, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(path) DO UPDATE SET offset = excluded.offset, line = excluded.line, size = excluded.size,
       format = excluded.format, refused = excluded.refused, updated_at = excluded.updated_at`,
  ).run(file, s.offset, s.line, size, s.format, s.refused === null ? null : nameInvisibleChars(s.refused), s.updated_at ?? Date.now());
}

/**
 * Callers hold a transaction; a problem already recorded for the same line is kept once. Every importer
 * records its problems here, so this is where a message loses the raw control and bidi characters it
 * quotes (each is named by its code: text/invisible-chars.ts says why).
 */
export function insertImportErrors(db: Db, errors: ImportError[]): void {
  if (errors.length === 0) return;
  const stmt = statement(db, 'INSERT OR IGNORE INTO import_errors (path, line, level, message, created_at) VALUES (?, ?, ?, ?, ?)');
  const now = Date.now();
  for (const e of errors) stmt.run(e.file, e.line, e.level, nameInvisibleChars(e.message), now);
}

/**
 * What a file's earlier read left that a new whole read replaces (foreign files are read whole each time they
 * change): the problems recorded for it. Callers hold the transaction of the new read's first write.
 */
export function forgetFileProblems(db: Db, file: string): void {
  statement(db, 'DELETE FROM import_errors WHERE path = ?').run(file);
}

/** The prefix of a synthetic root's id (ingest/foreign/synthetic-parent-id.ts). */
export const SYNTHETIC_PARENT_PREFIX = 'missing-parent:';
/** The first id past every one with that prefix (its last character one up): the prefix's range on the key. */
const PAST_SYNTHETIC_PARENTS = SYNTHETIC_PARENT_PREFIX.slice(0, -1) + String.fromCharCode(SYNTHETIC_PARENT_PREFIX.charCodeAt(SYNTHETIC_PARENT_PREFIX.length - 1) + 1);

/**
 * After a whole read of a file: the synthetic roots an earlier read made up for parents missing then (a file cut
 * or still being written) and this read did not make again, once their children have moved to their real parents.
 * `written` holds the synthetic-looking step ids this read stored in each run (recorded ones included).
 */
export function dropStaleSyntheticSteps(db: Db, written: Map<string, Set<string>>, runs: Iterable<string>): void {
  const stale = statement(db, 'SELECT s.run_id, s.step_id FROM json_each(?) j JOIN steps s ON s.run_id = j.value WHERE s.step_id >= ? AND s.step_id < ?');
  const drop = statement(db, 'DELETE FROM steps WHERE run_id = ? AND step_id = ?');
  for (const batch of idBatches(runs)) {
    for (const { run_id, step_id } of stale.all(batch, SYNTHETIC_PARENT_PREFIX, PAST_SYNTHETIC_PARENTS) as { run_id: string; step_id: string }[]) {
      if (!written.get(run_id)?.has(step_id)) drop.run(run_id, step_id);
    }
  }
}

/** Notes in `written` the synthetic-looking step ids of `records` (for dropStaleSyntheticSteps). */
export function noteSyntheticSteps(records: readonly { type: string; run_id: string; step_id?: unknown }[], written: Map<string, Set<string>>): void {
  for (const r of records) {
    if (r.type !== 'step-start' || typeof r.step_id !== 'string' || !r.step_id.startsWith(SYNTHETIC_PARENT_PREFIX)) continue;
    let ids = written.get(r.run_id);
    if (!ids) written.set(r.run_id, (ids = new Set()));
    ids.add(r.step_id);
  }
}

/** Every problem recorded for a file (an absolute path), in line order. */
export function importErrorsOf(db: ReadableDb, file: string): ImportError[] {
  return statement(db, 'SELECT path AS file, line, level, message FROM import_errors WHERE path = ? ORDER BY line, id').all(file) as ImportError[];
}

/**
 * Whether import problem `e` concerns run `r` (SQL over those two aliases): a
 * problem that names a run ("run ID: …", as foreign imports write them)
 * concerns that run only; any other problem of the file concerns every run
 * the file holds (a native file holds one). importProblemsOfRun lists with it;
 * the runs list counts with its twin problemConcernsRun (tested to agree).
 */
const PROBLEM_CONCERNS_RUN = `e.path = r.source_file
  AND (e.message NOT GLOB 'run *'
       OR substr(e.message, 5, length(tb_named(r.run_id)) + 1) IN (tb_named(r.run_id) || ':', tb_named(r.run_id) || ',', tb_named(r.run_id) || ' '))`;

/**
 * The same rule as PROBLEM_CONCERNS_RUN, for a problem already read. A stored problem names the run as
 * insertImportErrors left it (invisible characters named by their code), so the id is compared that way too.
 */
function problemConcernsRun(message: string, runId: string): boolean {
  if (!message.startsWith('run ')) return true;
  const named = nameInvisibleChars(runId);
  return message.startsWith(named, 4) && [':', ',', ' '].includes(message.charAt(4 + named.length));
}

/**
 * (runId, its source file) → how many error and warning problems concern it. The problems are
 * read once per call, not per run: two correlated subqueries per listed run made the runs list
 * ~1.3× slower at 10,000 runs (measured), while stores hold few problems.
 */
export function importProblemCounts(db: ReadableDb): (runId: string, file: string | null) => { errors: number; warnings: number } {
  const byFile = new Map<string, { level: string; message: string }[]>();
  for (const p of statement(db, 'SELECT path, level, message FROM import_errors').all() as { path: string; level: string; message: string }[]) {
    const list = byFile.get(p.path);
    if (list) list.push(p);
    else byFile.set(p.path, [p]);
  }
  return (runId, file) => {
    const counts = { errors: 0, warnings: 0 };
    for (const p of (file !== null && byFile.get(file)) || []) {
      if (!problemConcernsRun(p.message, runId)) continue;
      if (p.level === 'error') counts.errors++;
      else counts.warnings++;
    }
    return counts;
  };
}

/** The import problems that concern one run, in line order. */
export function importProblemsOfRun(db: ReadableDb, runId: string, limit = 500): ImportError[] {
  return db
    .prepare(
      `SELECT e.path AS file, e.line, e.level, e.message FROM runs r JOIN import_errors e ON ${PROBLEM_CONCERNS_RUN}
       WHERE r.run_id = ? ORDER BY e.line, e.id LIMIT ?`,
    )
    .all(runId, limit) as ImportError[];
}

export function runsFromFile(db: ReadableDb, file: string): string[] {
  return (statement(db, 'SELECT run_id FROM runs WHERE source_file = ? ORDER BY started_at').all(file) as { run_id: string }[]).map((r) => r.run_id);
}

/**
 * The end of a foreign import (OTLP, LangChain, transcripts), in its last
 * transaction: a foreign file does not grow, so a run it never ended is
 * incomplete, not running; each run gets a new version (a catch-up between two
 * blocks of a streamed import may have stamped the one its first block gave
 * it) and its stored step count.
 */
export function settleForeignRuns(db: Db, runIds: Iterable<string>): void {
  const ids = [...runIds];
  const mark = statement(db, `UPDATE runs SET status = 'incomplete' WHERE run_id ${IN_BATCH()} AND status = 'running'`);
  for (const batch of idBatches(ids)) mark.run(batch);
  touchRuns(db, ids);
  storeStepCounts(db, ids);
}
