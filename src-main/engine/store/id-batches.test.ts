import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './open-database';
import { ID_BATCH, idBatches } from './id-batches';
import { settleForeignRuns } from './import-files';
import { touchRuns } from './write-records';

let db: Db | null = null;
afterEach(() => {
  db?.close();
  db = null;
});

/** A store of `n` runs, each still running, at version 1,000 (from a file), with one step each. */
function storeOfRuns(n: number): Db {
  const d = openDatabase(':memory:');
  const run = d.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at, source_file, source_format) VALUES (?, 'p', 'running', 0, 0, 1000, 'f', 'otlp')");
  const step = d.prepare("INSERT INTO steps (run_id, step_id, idx, name, type, replay_key, status, started_at) VALUES (?, 's', 0, 's', 'generic', 's', 'ok', 0)");
  d.transaction(() => {
    for (let i = 0; i < n; i++) {
      run.run(`r-${i}`);
      step.run(`r-${i}`);
    }
  })();
  return d;
}

describe('run ids a statement at a time (id-batches.ts)', () => {
  it('cuts the ids into JSON arrays of at most ID_BATCH, in order, repeats kept', () => {
    const ids = Array.from({ length: 2 * ID_BATCH + 1 }, (_, i) => `id-${i % (ID_BATCH + 3)}`);
    const batches = [...idBatches(ids)].map((b) => JSON.parse(b) as string[]);
    expect(batches.map((b) => b.length)).toEqual([ID_BATCH, ID_BATCH, 1]);
    expect(batches.flat()).toEqual(ids);
    expect([...idBatches([])]).toEqual([]);
  });

  it('a file of more runs than a batch holds: every run is marked incomplete, versioned and counted at the end, the others left alone', () => {
    db = storeOfRuns(ID_BATCH + 2);
    const settled = Array.from({ length: ID_BATCH + 1 }, (_, i) => `r-${i}`);
    settleForeignRuns(db, settled);
    const rows = db.prepare('SELECT r.run_id, r.status, r.updated_at, c.steps, c.version FROM runs r LEFT JOIN run_step_counts c USING (run_id) ORDER BY r.rowid').all() as {
      run_id: string;
      status: string;
      updated_at: number;
      steps: number | null;
      version: number | null;
    }[];
    const last = rows.pop()!;
    expect(rows.every((r) => r.status === 'incomplete' && r.updated_at > 1000 && r.steps === 1 && r.version === r.updated_at)).toBe(true);
    expect(last).toEqual({ run_id: `r-${ID_BATCH + 1}`, status: 'running', updated_at: 1000, steps: null, version: null });
  });

  it('touching a run twice in one millisecond gives it two new versions; an id named twice in one call counts once', () => {
    db = storeOfRuns(2);
    touchRuns(db, ['r-0', 'r-0'], 5);
    touchRuns(db, ['r-0'], 5);
    expect(db.prepare('SELECT run_id, updated_at FROM runs ORDER BY run_id').all()).toEqual([
      { run_id: 'r-0', updated_at: 1002 },
      { run_id: 'r-1', updated_at: 1000 },
    ]);
  });
});
