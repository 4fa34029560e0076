import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import { openDatabase, type Db } from '../store/open-database';
import { exportOtlp } from './foreign/index';
import { foldRecords } from './native/fold-records';
import { importFile } from './import-file';
import { importPaths } from './import-paths';

let dir = '';
let db: Db | null = null;
afterEach(() => {
  db?.close();
  db = null;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function setup(): Db {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-unchanged-'));
  return (db = openDatabase(path.join(dir, 'traces.db')));
}

const versions = (d: Db) => d.prepare('SELECT run_id, updated_at FROM runs ORDER BY run_id').all();
/** Gives the file the modification time it has when its writer finished a minute ago. */
const writtenAWhileAgo = (file: string) => {
  const then = new Date(Date.now() - 60_000);
  fs.utimesSync(file, then, then);
};

/** Waits until the clock has moved past `ms`, so a write after it is seen as newer than what was stored before. */
const after = (ms: number) => {
  while (Date.now() <= ms + 2);
};

describe('a file read to its end and not written since is not read again', () => {
  it('an OTLP file looked at again (each tb command syncs the inbox) changes no run, and reports the same runs and problems', () => {
    const d = setup();
    const file = path.join(dir, 'trace.otlp.json');
    // A span without a name: a problem the first read records.
    const doc = exportOtlp(foldRecords(syntheticRunRecords({ runId: 'otlp-run', steps: 20 }))[0]) as { resourceSpans: { scopeSpans: { spans: { name?: string }[] }[] }[] };
    delete doc.resourceSpans[0].scopeSpans[0].spans[3].name;
    fs.writeFileSync(file, JSON.stringify(doc));
    writtenAWhileAgo(file);
    const first = importPaths(d, [file], { final: false });
    expect(first.changedRuns).toEqual(['otlp-run']);
    expect(first.errors.length).toBeGreaterThan(0);
    const before = versions(d);
    const again = importPaths(d, [file], { final: false });
    expect(again.changedRuns).toEqual([]);
    expect(again.imported).toEqual(first.imported);
    expect(again.errors).toEqual(first.errors);
    expect(versions(d)).toEqual(before);
  });

  it('is read again when written since, at the same size too, or when it grew; written just before its import, it is read once more', () => {
    const d = setup();
    const file = path.join(dir, 'trace.otlp.json');
    const text = (steps: number, name: string) => JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: name, steps }))[0]));
    fs.writeFileSync(file, text(10, 'run-a'));
    // Its modification time is within the margin of the stored state: a coarse clock could hide a rewrite.
    importFile(d, file, { final: true });
    expect(importFile(d, file, { final: true }).linesRead).toBeGreaterThan(0);
    writtenAWhileAgo(file);
    importFile(d, file, { final: true });
    expect(importFile(d, file, { final: true }).linesRead).toBe(0);
    after(Date.now());
    // The same length, another run id: only the modification time tells.
    fs.writeFileSync(file, text(10, 'run-b'));
    expect(fs.statSync(file).size).toBe(text(10, 'run-a').length);
    expect(importFile(d, file, { final: true }).changedRuns).toEqual(['run-b']);
    after(Date.now());
    fs.writeFileSync(file, text(12, 'run-b'));
    expect(importFile(d, file, { final: true }).changedRuns).toEqual(['run-b']);
    expect((d.prepare("SELECT COUNT(*) AS n FROM steps WHERE run_id = 'run-b'").get() as { n: number }).n).toBe(12);
  });

  it('a native file read to its end writes nothing when looked at again; lines appended later are read', () => {
    const d = setup();
    const file = path.join(dir, 'run.jsonl');
    const records = syntheticRunRecords({ runId: 'native-run', steps: 4, unfinished: true });
    fs.writeFileSync(file, toJsonl(records));
    writtenAWhileAgo(file);
    importFile(d, file, { final: false });
    const state = () => d.prepare('SELECT offset, updated_at FROM import_files').get();
    const stored = state();
    const before = versions(d);
    after(Date.now());
    expect(importFile(d, file, { final: false }).changedRuns).toEqual([]);
    expect(state()).toEqual(stored);
    expect(versions(d)).toEqual(before);
    fs.appendFileSync(file, toJsonl([{ type: 'run-end', run_id: 'native-run', ts: 1_700_000_000_100, status: 'ok' }]));
    expect(importFile(d, file, { final: false }).changedRuns).toEqual(['native-run']);
    expect((d.prepare("SELECT status FROM runs WHERE run_id = 'native-run'").get() as { status: string }).status).toBe('ok');
  });
});
