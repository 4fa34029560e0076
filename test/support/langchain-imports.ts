// What a user could see of a LangChain import, and the check that the streamed import stores what the whole one does.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { ImportError } from '../../src-shared/model';
import { openDatabase, type Db } from '../../src-main/engine/store/open-database';
import { importWhole } from '../../src-main/engine/ingest/import-foreign';
import { importLangChainStreaming } from '../../src-main/engine/ingest/langchain/run-tree-stream-import';

export type Importer = (db: Db, fd: number, file: string, size: number, format: string, errors: ImportError[]) => unknown;

export interface Imported {
  /** Rows of `runs` without the import clock (imported_at, updated_at). */
  runs: Record<string, unknown>[];
  steps: Record<string, unknown>[];
  /** `level line N: message`, in the order reported. */
  problems: string[];
}

/** `file` imported into a new database at `dbFile` (removed afterwards) by `importer`. */
export function importedBy(file: string, importer: Importer, dbFile: string): Imported {
  const db = openDatabase(dbFile);
  const fd = fs.openSync(file, 'r');
  const errors: ImportError[] = [];
  try {
    importer(db, fd, file, fs.fstatSync(fd).size, 'langchain', errors);
    const runs = (db.prepare('SELECT * FROM runs ORDER BY run_id').all() as Record<string, unknown>[]).map(({ imported_at: _i, updated_at: _u, ...rest }) => rest);
    const steps = db.prepare('SELECT * FROM steps ORDER BY run_id, idx, step_id').all() as Record<string, unknown>[];
    return { runs, steps, problems: errors.map((e) => `${e.level} line ${e.line}: ${e.message}`) };
  } finally {
    fs.closeSync(fd);
    db.close();
    for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  }
}

/** Streamed (one round, and a round per waiting run) and whole imports of `file` store the same rows and problems; the whole import's. */
export function expectStreamedSameAsWhole(file: string): Imported {
  const dir = path.dirname(file);
  const whole = importedBy(file, importWhole, path.join(dir, 'whole.db'));
  const rounds: Importer = (db, fd, name, size, format, errors) => importLangChainStreaming(db, fd, name, size, format, errors, { reorderBudgetBytes: 1 });
  for (const [label, importer] of [['streamed', importLangChainStreaming], ['streamed in rounds', rounds]] as [string, Importer][]) {
    const streamed = importedBy(file, importer, path.join(dir, 'streamed.db'));
    expect([...streamed.problems].sort(), label).toEqual([...whole.problems].sort());
    expect(streamed.runs, label).toEqual(whole.runs);
    expect(streamed.steps, label).toEqual(whole.steps);
  }
  return whole;
}
