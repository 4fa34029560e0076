/**
 * Prepared statements kept per connection, for reads made once per run:
 * better-sqlite3 compiles each `prepare` afresh, and blaming 20,000 imported
 * runs spent 2 s of 9 compiling the same few statements.
 */
import type Database from 'better-sqlite3';
import type { ReadableDb } from './open-database';

type Statement = Database.Statement<unknown[], unknown>;

const cached = new WeakMap<ReadableDb, Map<string, Statement>>();

/** The connection's statement for `sql`, prepared at its first use; `pluck` ones are kept apart. */
export function statement(db: ReadableDb, sql: string, mode: 'rows' | 'pluck' = 'rows'): Statement {
  let forDb = cached.get(db);
  if (!forDb) cached.set(db, (forDb = new Map()));
  const key = mode === 'pluck' ? `pluck ${sql}` : sql;
  let s = forDb.get(key);
  if (!s) {
    s = db.prepare<unknown[], unknown>(sql);
    if (mode === 'pluck') s.pluck();
    forDb.set(key, s);
  }
  return s;
}
