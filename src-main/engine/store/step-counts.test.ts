import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import { exportOtlp } from '../ingest/foreign/index';
import { foldRecords } from '../ingest/native/fold-records';
import { importFile } from '../ingest/import-file';
import { importFileAsync } from '../ingest/import-file-async';
import { openDatabase, type Db } from './open-database';
import { listRuns } from './read-runs';
import { catchUpStepCounts, storeStepCounts } from './step-counts';
import { createRecordWriter, touchRuns } from './write-records';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-counts-'));
  dirs.push(d);
  return d;
}

/** The stored count rows that a list would trust as they are (stamped with the run's current version). */
function trustedCounts(db: Db): Record<string, number> {
  const rows = db.prepare('SELECT c.run_id, c.steps FROM run_step_counts c JOIN runs r ON r.run_id = c.run_id AND c.version = r.updated_at ORDER BY c.run_id').all() as { run_id: string; steps: number }[];
  return Object.fromEntries(rows.map((r) => [r.run_id, r.steps]));
}

describe('step counts stored by imports', () => {
  it('a native import leaves each run it wrote with its count, before any list; a grown file updates it', () => {
    const dir = tempDir();
    const file = path.join(dir, 'runs.jsonl');
    const a = syntheticRunRecords({ runId: 'run-a', steps: 30 });
    const b = syntheticRunRecords({ runId: 'run-b', steps: 12 });
    // run-a's last 10 steps arrive later, as a tailed file grows.
    const aEnd = a.findIndex((r) => r.type === 'step-start' && r.index === 20);
    fs.writeFileSync(file, toJsonl([...a.slice(0, aEnd), ...b]));
    const db = openDatabase(path.join(dir, 'traces.db'));
    importFile(db, file, { final: false });
    expect(trustedCounts(db)).toEqual({ 'run-a': 20, 'run-b': 12 });
    fs.appendFileSync(file, toJsonl(a.slice(aEnd)));
    importFile(db, file, { final: true });
    expect(trustedCounts(db)).toEqual({ 'run-a': 30, 'run-b': 12 });
    expect(listRuns(db, {}).map((r) => [r.run_id, r.steps]).sort()).toEqual([['run-a', 30], ['run-b', 12]]);
    db.close();
  });

  it('a streamed OTLP import stores the count of its run, even when a catch-up ran between its blocks', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'big.otlp.json');
    // Over 4 MB, so the engine's import streams it and gives the event loop turns between blocks.
    fs.writeFileSync(file, JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: 'otlp-run', steps: 6000 }))[0])));
    expect(fs.statSync(file).size).toBeGreaterThan(4 * 1024 * 1024);
    const db = openDatabase(path.join(dir, 'traces.db'));
    let between = 0;
    await importFileAsync(db, file, {
      onProgress: (p) => {
        if (p.phase !== 'write') return;
        // What the idle catch-up of a long-lived engine may do while the import waits for its next turn.
        catchUpStepCounts(db, Date.now() + 1);
        between++;
      },
    });
    expect(between).toBeGreaterThan(1);
    const runId = (db.prepare('SELECT run_id FROM runs').pluck().get() as string);
    expect(trustedCounts(db)).toEqual({ [runId]: 6000 });
    db.close();
  });

  it('a streamed import cancelled after a catch-up stamped its run leaves no stale count: each block gives the run a new version', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'big.otlp.json');
    fs.writeFileSync(file, JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: 'otlp-run', steps: 6000 }))[0])));
    const db = openDatabase(path.join(dir, 'traces.db'));
    const stop = new AbortController();
    await importFileAsync(db, file, {
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase !== 'write' || stop.signal.aborted) return;
        catchUpStepCounts(db, Date.now() + 1);
        // Once a count of stored steps is stamped, cancel: the blocks committed after it must not leave it trusted.
        if (Object.values(trustedCounts(db)).some((n) => n > 0)) stop.abort();
      },
    });
    expect(stop.signal.aborted).toBe(true);
    const stored = db.prepare('SELECT COUNT(*) FROM steps').pluck().get() as number;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(6000);
    expect(Object.values(trustedCounts(db)).every((n) => n === stored)).toBe(true);
    expect(listRuns(db, {}).map((r) => r.steps)).toEqual([stored]);
    db.close();
  });

  it('a write in the same millisecond as a stored count gives the run a new version, so the count is not trusted', () => {
    const db = openDatabase(':memory:');
    const at = 1_700_000_000_000;
    const records = syntheticRunRecords({ runId: 'r', steps: 8 });
    const half = records.findIndex((r) => r.type === 'step-start' && r.index === 4);
    const first = createRecordWriter(db, () => at);
    db.transaction(() => first.applyBatch(records.slice(0, half), null))();
    touchRuns(db, ['r'], at);
    storeStepCounts(db, ['r']);
    expect(trustedCounts(db)).toEqual({ r: 4 });
    // The same clock reading: the version still moves on.
    const second = createRecordWriter(db, () => at);
    db.transaction(() => second.applyBatch(records.slice(half), null))();
    touchRuns(db, ['r'], at);
    expect(trustedCounts(db)).toEqual({});
    expect(listRuns(db, {}).map((r) => r.steps)).toEqual([8]);
    db.close();
  });
});
