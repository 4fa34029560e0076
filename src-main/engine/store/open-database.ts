/**
 * Opens (creating if needed) the Traceback database: WAL journal, foreign
 * keys, migrations tracked in PRAGMA user_version. A database written by a
 * newer Traceback is refused rather than guessed at, and so is one that fails
 * PRAGMA quick_check or is not a database at all: nothing is written into a
 * damaged file (`tb doctor` runs the full check and says what to do).
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { EngineError } from '../../../src-shared/result';
import { MIGRATIONS, type Migration } from './migrations/index';
import { runOwedCheckpoint, WAL_SIZE_LIMIT_BYTES } from './bulk-write';
import { nameInvisibleChars } from '../text/invisible-chars';

declare const readable: unique symbol;
declare const writable: unique symbol;
/**
 * Read and write handles are different types (as in Signal Desktop): a
 * function that only reads takes a ReadableDb, one that writes a WritableDb,
 * and a handle opened read-only (`tb doctor`) cannot be passed to a writer.
 */
export type ReadableDb = Database.Database & { readonly [readable]: true };
export type WritableDb = ReadableDb & { readonly [writable]: true };
/** The engine's own handle: it reads and writes. */
export type Db = WritableDb;

export interface OpenOptions {
  /** Path to a better_sqlite3.node built for another ABI (the Electron copy). */
  nativeBinding?: string;
  readonly?: boolean;
  migrations?: Migration[];
  /** Skip PRAGMA quick_check (tb doctor opens a damaged database to examine it). */
  skipCheck?: boolean;
}

/** SQLite's answers that mean the file itself is damaged or not a database. */
const DAMAGE = /^SQLITE_(CORRUPT|NOTADB)/;

function isDamageError(err: unknown): boolean {
  return DAMAGE.test(String((err as { code?: unknown })?.code ?? ''));
}

/**
 * quick_check reads the whole file (~5.5 ms per MB here: 190 ms for 34 MB, so
 * seconds for a GB). A file this process family closed cleanly and nobody
 * touched since is not checked again: closeDatabase() stamps it with its
 * size, mtime and inode, and any write, crash (a WAL left behind) or
 * replacement changes one of them. `tb doctor` always runs the full check.
 */
function stampFile(file: string): string {
  return `${file}-verified`;
}

function fileStamp(file: string): string | null {
  try {
    const st = fs.statSync(file);
    return `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return null;
  }
}

function unchangedSinceVerified(file: string): boolean {
  try {
    if (fs.existsSync(`${file}-wal`) && fs.statSync(`${file}-wal`).size > 0) return false;
    const stamp = fileStamp(file);
    return stamp !== null && fs.readFileSync(stampFile(file), 'utf8') === stamp;
  } catch {
    return false;
  }
}

/** Closes a database opened by openDatabase and records that it was left consistent. */
export function closeDatabase(db: ReadableDb): void {
  const file = db.name;
  const writable = !db.readonly && !db.memory;
  // SQLite checkpoints on close only when this is the last connection; with the app open beside `tb import`,
  // the import's pages would wait for the app's next small write.
  if (writable) runOwedCheckpoint(db as Db);
  db.close();
  if (!writable) return;
  const stamp = fileStamp(file);
  if (stamp === null) return;
  try {
    fs.writeFileSync(stampFile(file), stamp);
  } catch {
    // Read-only folder: the next open checks again.
  }
}

/** One line naming the file, for a database that cannot be used. */
function damaged(file: string, detail: string): EngineError {
  return new EngineError('unsupported', `${file} is damaged or is not a Traceback database (${detail}); nothing was written to it — run \`tb doctor\` for a full check and what to do`);
}

export function schemaVersion(db: ReadableDb): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: Db, migrations: Migration[] = MIGRATIONS): void {
  const latest = migrations.length;
  const current = schemaVersion(db);
  if (current > latest) {
    throw new EngineError(
      'unsupported',
      `database ${db.name} has schema version ${current}, newer than this Traceback understands (${latest}); it was written by a newer version — update Traceback or use another TRACEBACK_HOME`,
    );
  }
  for (const m of migrations.slice(current)) {
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}

export function openDatabase(file: string, opts: OpenOptions & { readonly: true }): ReadableDb;
export function openDatabase(file: string, opts?: OpenOptions): WritableDb;
export function openDatabase(file: string, opts: OpenOptions = {}): WritableDb {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  let db: Db;
  try {
    db = new Database(file, { readonly: opts.readonly === true, fileMustExist: opts.readonly === true, ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}) }) as Db;
  } catch (err) {
    if (isDamageError(err)) throw damaged(file, (err as Error).message);
    throw new EngineError('unsupported', `cannot open the database ${file}: ${(err as Error).message}`);
  }
  try {
    if (!opts.skipCheck && file !== ':memory:' && !unchangedSinceVerified(file)) {
      // Before any write (WAL switch, migrations): a damaged file is refused as it is.
      const problems = db.pragma('quick_check(5)', { simple: false }) as { quick_check: string }[];
      const bad = problems.map((p) => p.quick_check).filter((m) => m !== 'ok');
      if (bad.length) throw damaged(file, `quick_check: ${bad.slice(0, 2).join('; ').slice(0, 300)}`);
    }
    if (!opts.readonly) db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // WAL makes NORMAL durable against application crashes; only an OS crash can lose the last commits.
    db.pragma('synchronous = NORMAL');
    // A 64 MB page cache (SQLite's default is 2 MB): on a store of a million steps the runs list and an
    // import otherwise read the same index pages again and again (bench/store-at-size.ts). Memory is taken as used.
    db.pragma('cache_size = -64000');
    // A big import lets the WAL grow (store/bulk-write.ts); the file is cut back when it restarts.
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    // A run id as stored import problems name it (control, format and bidi characters named by their code):
    // store/import-files.ts links a problem to its run with it.
    db.function('tb_named', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? nameInvisibleChars(text) : text) as string);
    if (!opts.readonly) migrate(db, opts.migrations);
    // Statement journals (kept for any statement that may write several rows, such as the import's 32-row
    // inserts) in memory: in temporary files a 50k-step import's inserts took 1.6× as long (write-records.ts).
    // Set after the migrations: with it, SQLite's sorter never spills, and an index built over a million steps
    // would be sorted in ~250 MB of memory.
    db.pragma('temp_store = MEMORY');
    return db;
  } catch (err) {
    db.close();
    if (isDamageError(err)) throw damaged(file, (err as Error).message);
    throw err;
  }
}
