/**
 * Connection settings while a big file is imported, held by each import and
 * put back by the last one running on the connection.
 *
 * - Checkpoints wait for the end of the import. With SQLite's default (a
 *   checkpoint once the WAL passes 1,000 pages) a 46 MB OTLP import, which
 *   commits ~25 blocks, ran a checkpoint and its fsync after nearly every
 *   block: ~0.5 s of its ~2.6 s (CPU profile: sqliteTransaction's own time),
 *   where the raw insert it is compared with checkpoints once. While the
 *   import runs the WAL may grow to BULK_CHECKPOINT_PAGES; at its end one
 *   passive checkpoint copies what is left. Durability is unchanged: commits
 *   are in the WAL either way, and a checkpoint only moves them to the file.
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

/** Sets `pragma` to `value` while held; the last holder to let go puts the previous value back and runs `onLastRelease`. */
function holdPragma(db: Db, pragma: string, value: number, onLastRelease?: () => void): () => void {
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
    onLastRelease?.();
  };
}

/**
 * Checkpoints wait until the import lets go (or the WAL reaches ~64 MB); then
 * one passive checkpoint runs, so the next small import does not pay for this one's pages.
 */
export function deferCheckpoints(db: Db): () => void {
  return holdPragma(db, 'wal_autocheckpoint', BULK_CHECKPOINT_PAGES, () => {
    // PASSIVE: never waits for a reader; whatever a reader still needs is copied by a later checkpoint.
    // A failure here (the disk filled up during the import) is left to that later checkpoint: the
    // import's own error, if any, is the one to report.
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      /* the next commit past 1,000 WAL pages checkpoints again */
    }
  });
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
