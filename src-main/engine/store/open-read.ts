/**
 * A read transaction around many small reads (a run's owner looked up as each new run id is seen): outside a
 * transaction every statement opens and closes a read of its own (WAL locks, the index header), which cost
 * ~10× the lookup itself. Nothing is written inside it.
 */
import type { Db } from './open-database';

/** Opens a read transaction unless one is open; `end` closes the one it opened. */
export function openRead(db: Db): { end(): void } {
  if (db.inTransaction) return { end() {} };
  db.exec('BEGIN');
  return {
    end() {
      if (db.inTransaction) db.exec('COMMIT');
    },
  };
}
