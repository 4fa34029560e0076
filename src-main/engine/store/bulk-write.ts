/**
 * Connection settings while a big file is imported, held by each import and
 * put back by the last one running on the connection.
 *
 * - Checkpoints wait for the end of the import. With SQLite's default (a
 *   checkpoint once the WAL passes 1,000 pages) a 46 MB OTLP import, which
 *   commits ~25 blocks, ran a checkpoint and its fsync after nearly every
 *   block: ~0.5 s of its ~2.6 s (CPU profile: sqliteTransaction's own time),
 *   where the raw insert it is compared with checkpoints once. While the
 *   import runs the WAL may grow to BULK_CHECKPOINT_PAGES; one passive
 *   checkpoint copies what is left when the engine is next idle (or the
 *   connection closes), off the import's path as it is off the raw insert's.
 *   Durability is unchanged: commits are in the WAL either way, and a
 *   checkpoint only moves them to the file.
 * - A streamed foreign import can lower the page cache (it writes fresh rows
 *   and gains little from 64 MB; a 500 MB OTLP file peaked ~75 MB higher with
 *   it, bench/otlp-large-file.ts, goal ≤ 300 MB).
 */
import type { Db } from './open-database';

/** A native file with at least this many new bytes is imported with checkpoints deferred (~20,000 SDK lines). */
export const BULK_IMPORT_MIN_BYTES = 4 * 1024 * 1024;
/** WAL pages (4 kB each) a bulk import may leave before a checkpoint runs anyway: ~64 MB. */
const BULK_CHECKPOINT_PAGES = 16_384;
/** The page cache of a streamed import (KiB). */
const IMPORT_CACHE_KIB = 16_000;
/**
 * The WAL file is cut back to this size when it restarts after a checkpoint
 * (SQLite otherwise keeps the largest it ever grew to: 64 MB on disk after
 * one big import). Normal commits never reach it (they checkpoint at ~4 MB).
 */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

interface Held {
  count: number;
  previous: number;
}

/** Per connection and setting: how many holders, and the value to put back. */
const holds = new WeakMap<Db, Map<string, Held>>();

/** Sets `pragma` to `value` while held; the last holder to let go puts the previous value back. */
function holdPragma(db: Db, pragma: string, value: number): () => void {
  let byPragma = holds.get(db);
  if (!byPragma) holds.set(db, (byPragma = new Map()));
  let held = byPragma.get(pragma);
  if (!held) {
    held = { count: 0, previous: db.pragma(pragma, { simple: true }) as number };
    byPragma.set(pragma, held);
    db.pragma(`${pragma} = ${value}`);
  }
  held.count++;
  const mine = held;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--mine.count > 0) return;
    byPragma.delete(pragma);
    // Run from `finally` blocks: a connection closed meanwhile must not replace the import's own error.
    if (!db.open) return;
    db.pragma(`${pragma} = ${Number(mine.previous)}`);
  };
}

/** Per connection: a hold on the raised autocheckpoint that outlives the imports, let go by runOwedCheckpoint. */
const owedHolds = new WeakMap<Db, () => void>();

/**
 * Checkpoints wait while the import runs (or until the WAL reaches ~64 MB),
 * and after it too: the pages it left are copied by `runOwedCheckpoint`,
 * which the long-lived engine calls when it is idle (idle-catch-up.ts), so
 * neither the import nor the next small write pays for them. A one-shot `tb`
 * command runs it when it closes the database (closeDatabase).
 */
export function deferCheckpoints(db: Db): () => void {
  if (!owedHolds.has(db)) owedHolds.set(db, holdPragma(db, 'wal_autocheckpoint', BULK_CHECKPOINT_PAGES));
  return holdPragma(db, 'wal_autocheckpoint', BULK_CHECKPOINT_PAGES);
}

/** True while the pages of a finished bulk import wait for `runOwedCheckpoint`. */
export function checkpointOwed(db: Db): boolean {
  // Every import has let go: the owed checkpoint's hold is the only one left.
  return owedHolds.has(db) && holds.get(db)?.get('wal_autocheckpoint')?.count === 1;
}

/**
 * Copies what the finished bulk imports left in the WAL into the database
 * file and puts the usual checkpoints back. Nothing to do (false) while an
 * import still runs or none left pages. PASSIVE: never waits for a reader;
 * whatever a reader still needs is copied by a later checkpoint.
 */
export function runOwedCheckpoint(db: Db): boolean {
  if (!db.open || !checkpointOwed(db)) return false;
  const release = owedHolds.get(db)!;
  owedHolds.delete(db);
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The disk filled up, or another connection holds the write lock: the next commit past 1,000 WAL pages checkpoints again.
  }
  release();
  return true;
}

/** The smaller page cache of a streamed import, put back when the last one ends. */
function lowerPageCache(db: Db): () => void {
  return holdPragma(db, 'cache_size', -IMPORT_CACHE_KIB);
}

/** Both, for a streamed foreign import (OTLP, LangChain run trees). */
export function beginStreamedImport(db: Db): () => void {
  const restoreCache = lowerPageCache(db);
  let restoreCheckpoints: () => void;
  try {
    restoreCheckpoints = deferCheckpoints(db);
  } catch (err) {
    restoreCache();
    throw err;
  }
  return () => {
    try {
      restoreCheckpoints();
    } finally {
      restoreCache();
    }
  };
}
