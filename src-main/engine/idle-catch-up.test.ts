import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src-shared/trace-format';
import { syntheticRunRecords } from '../../test/support/synthetic-trace';
import { openDatabase, type Db } from './store/open-database';
import { createRecordWriter, touchRuns } from './store/write-records';
import { listRuns } from './store/read-runs';
import { startIdleCatchUp, type IdleCatchUp } from './idle-catch-up';
import { BULK_IMPORT_MIN_BYTES, checkpointOwed } from './store/bulk-write';
import { importFile } from './ingest/import-file';
import { toJsonl } from '../../test/support/synthetic-trace';

let idle: IdleCatchUp | null = null;
afterEach(() => idle?.stop());

/** Writes runs as an import does, a second in the past (a run changed this millisecond is indexed again later). */
function storeWith(...runs: TraceRecord[][]): Db {
  const db = openDatabase(':memory:');
  writeRuns(db, ...runs);
  return db;
}

function writeRuns(db: Db, ...runs: TraceRecord[][]): void {
  const at = Date.now() - 1000;
  const w = createRecordWriter(db, () => at);
  db.transaction(() => {
    w.applyBatch(runs.flat(), null);
    touchRuns(db, w.touchedRuns(), at);
  })();
}

const indexedRuns = (db: Db) => (db.prepare('SELECT DISTINCT run_id FROM step_text_runs ORDER BY run_id').pluck().all() as string[]);
const countedRuns = (db: Db) => (db.prepare('SELECT run_id FROM run_step_counts ORDER BY run_id').pluck().all() as string[]);

describe('the idle catch-up', () => {
  it('indexes changed runs and counts their steps once the engine is idle, before any search', async () => {
    const db = storeWith(syntheticRunRecords({ runId: 'a', steps: 3 }), syntheticRunRecords({ runId: 'b', steps: 4 }));
    idle = startIdleCatchUp(db, { idleMs: 30, pauseMs: 5 });
    idle.poke();
    await expect.poll(() => indexedRuns(db), { timeout: 5000 }).toEqual(['a', 'b']);
    expect(countedRuns(db)).toEqual(['a', 'b']);
  });

  it('waits while calls keep coming', async () => {
    const db = storeWith(syntheticRunRecords({ runId: 'a', steps: 3 }));
    idle = startIdleCatchUp(db, { idleMs: 200, pauseMs: 5 });
    idle.poke();
    for (let i = 0; i < 20; i++) {
      idle.busy();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(indexedRuns(db)).toEqual([]);
    await expect.poll(() => indexedRuns(db), { timeout: 5000 }).toEqual(['a']);
  });

  it('leaves a run too big for one slice to the first search, indexing the others', async () => {
    const db = storeWith(syntheticRunRecords({ runId: 'big', steps: 60 }), syntheticRunRecords({ runId: 'small', steps: 3, pipeline: 'other' }));
    idle = startIdleCatchUp(db, { idleMs: 30, pauseMs: 5, bigRunSteps: 50 });
    idle.poke();
    await expect.poll(() => indexedRuns(db), { timeout: 5000 }).toEqual(['small']);
    await new Promise((r) => setTimeout(r, 100));
    expect(indexedRuns(db)).toEqual(['small']);
    // The search indexes it (its catch-up has no size limit) and finds its text.
    expect(listRuns(db, { search: 'output of step 55' }).map((r) => r.run_id)).toEqual(['big']);
    expect(indexedRuns(db)).toEqual(['big', 'small']);
  });

  it('copies the pages a big import left in the WAL into the database file once idle, and puts the usual checkpoints back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-idle-'));
    try {
      const trace = path.join(dir, 'big.jsonl');
      fs.writeFileSync(trace, toJsonl(syntheticRunRecords({ runId: 'big', steps: 20_000 })));
      expect(fs.statSync(trace).size).toBeGreaterThan(BULK_IMPORT_MIN_BYTES);
      const dbFile = path.join(dir, 'traces.db');
      const db = openDatabase(dbFile);
      expect(importFile(db, trace, { final: true }).newErrors).toEqual([]);
      expect(checkpointOwed(db)).toBe(true);
      const walOnly = fs.statSync(dbFile).size;
      idle = startIdleCatchUp(db, { idleMs: 30, pauseMs: 5, bigRunSteps: 100 });
      idle.poke();
      await expect.poll(() => checkpointOwed(db), { timeout: 10_000 }).toBe(false);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect(fs.statSync(dbFile).size).toBeGreaterThan(walOnly * 10);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('catches up a run that changed while its checkpoint slice waited', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-idle-'));
    try {
      const trace = path.join(dir, 'big.jsonl');
      fs.writeFileSync(trace, toJsonl(syntheticRunRecords({ runId: 'big', steps: 20_000 })));
      const db = openDatabase(path.join(dir, 'traces.db'));
      importFile(db, trace, { final: true });
      writeRuns(db, syntheticRunRecords({ runId: 'a', steps: 3, pipeline: 'other' }));
      // A long pause: the checkpoint's slice waits 1 s after the catch-up that indexed 'a' (room for a loaded machine).
      idle = startIdleCatchUp(db, { idleMs: 0, pauseMs: 1000, bigRunSteps: 100 });
      idle.poke();
      await expect.poll(() => indexedRuns(db), { timeout: 5000, interval: 5 }).toEqual(['a']);
      expect(checkpointOwed(db)).toBe(true);
      // An import lands meanwhile; its poke finds the checkpoint slice's timer already set.
      writeRuns(db, syntheticRunRecords({ runId: 'b', steps: 3, pipeline: 'other' }));
      idle.poke();
      await expect.poll(() => indexedRuns(db), { timeout: 5000 }).toEqual(['a', 'b']);
      expect(checkpointOwed(db)).toBe(false);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
