// What a user could see of an import: the rows it stored and the problems it reported.
import fs from 'node:fs';
import type { ImportError } from '../../src-shared/model';
import { openDatabase, type Db } from '../../src-main/engine/store/open-database';

export type Importer = (db: Db, fd: number, file: string, size: number, format: string, errors: ImportError[]) => unknown;

export interface Imported {
  /** Rows of `runs` without the import clock (imported_at, updated_at). */
  runs: Record<string, unknown>[];
  steps: Record<string, unknown>[];
  /** `level line N: message`, in the order reported. */
  problems: string[];
}

/** `file` imported as `format` into a new database at `dbFile` (removed afterwards) by `importer`. */
export function importedBy(file: string, importer: Importer, dbFile: string, format: string): Imported {
  const db = openDatabase(dbFile);
  const fd = fs.openSync(file, 'r');
  const errors: ImportError[] = [];
  try {
    importer(db, fd, file, fs.fstatSync(fd).size, format, errors);
    const runs = (db.prepare('SELECT * FROM runs ORDER BY run_id').all() as Record<string, unknown>[]).map(({ imported_at: _i, updated_at: _u, ...rest }) => rest);
    const steps = db.prepare('SELECT * FROM steps ORDER BY run_id, idx, step_id').all() as Record<string, unknown>[];
    return { runs, steps, problems: errors.map((e) => `${e.level} line ${e.line}: ${e.message}`) };
  } finally {
    fs.closeSync(fd);
    db.close();
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  }
}
