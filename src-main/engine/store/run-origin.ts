/**
 * Where a run came from, derived from what the importer itself recorded (the
 * file's real path and format), never from anything inside the trace: a run
 * is local when it was read from a native file in this home's inbox (where
 * the local SDK and the experiment runner write), and foreign otherwise.
 * Foreign runs are never chosen automatically as a reference or used as live
 * input (docs/security.md). Anyone able to write into the inbox already runs
 * as the user, so the inbox is trusted.
 */
import path from 'node:path';
import type { ReadableDb } from './open-database';

/** This database's inbox folder, with a trailing separator; null for an in-memory database. */
function inboxPrefix(db: ReadableDb): string | null {
  if (!db.name || db.name === ':memory:' || db.memory) return null;
  return path.join(path.dirname(path.resolve(db.name)), 'inbox') + path.sep;
}

export function runOrigin(db: ReadableDb, row: { source_format: string; source_file: string | null }): 'local' | 'foreign' {
  const inbox = inboxPrefix(db);
  return inbox !== null && row.source_format === 'native' && row.source_file !== null && row.source_file.startsWith(inbox) ? 'local' : 'foreign';
}

/** SQL condition (with @inbox_like bound to likeInbox(db)) true for local runs of table alias `r`. */
export const LOCAL_RUN_CONDITION = `(r.source_format = 'native' AND r.source_file LIKE @inbox_like ESCAPE '\\')`;

export function likeInbox(db: ReadableDb): string {
  const inbox = inboxPrefix(db);
  // A pattern nothing matches for an in-memory database.
  return inbox === null ? '\u0000' : `${inbox.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
