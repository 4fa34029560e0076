/**
 * Opens (creating if needed) the Traceback database: WAL journal, foreign
 * keys, migrations tracked in PRAGMA user_version. A database written by a
 * newer Traceback is refused rather than guessed at.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { EngineError } from '../../../src-shared/result';
import { MIGRATIONS, type Migration } from './migrations/index';

export type Db = Database.Database;

export interface OpenOptions {
  /** Path to a better_sqlite3.node built for another ABI (the Electron copy). */
  nativeBinding?: string;
  readonly?: boolean;
  migrations?: Migration[];
}

export function schemaVersion(db: Db): number {
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

export function openDatabase(file: string, opts: OpenOptions = {}): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { readonly: opts.readonly === true, ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}) });
  try {
    if (!opts.readonly) db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // WAL makes NORMAL durable against application crashes; only an OS crash can lose the last commits.
    db.pragma('synchronous = NORMAL');
    if (!opts.readonly) migrate(db, opts.migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
