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
/** Lets the clock move a few ms, so a change after this is later than a read that began before it. */
const tick = () => {
  const until = Date.now() + 3;
  while (Date.now() < until);
};
/** A look at the inbox (skipUnchanged), without the margin for coarse file clocks (tested apart below). */
const look = { skipUnchanged: true, unchangedMarginMs: 0 } as const;
const otlpText = (steps: number, runId: string) => JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId, steps }))[0]));

describe('a file read to its end and not changed since is left alone by a look at the inbox', () => {
  it('an OTLP file looked at again (each tb command syncs the inbox) changes no run, and reports the same runs and problems', () => {
    const d = setup();
    const file = path.join(dir, 'trace.otlp.json');
    // A span without a name: a problem the first read records.
    const doc = exportOtlp(foldRecords(syntheticRunRecords({ runId: 'otlp-run', steps: 20 }))[0]) as { resourceSpans: { scopeSpans: { spans: { name?: string }[] }[] }[] };
    delete doc.resourceSpans[0].scopeSpans[0].spans[3].name;
    fs.writeFileSync(file, JSON.stringify(doc));
    tick();
    const first = importPaths(d, [file], { final: false, ...look });
    expect(first.changedRuns).toEqual(['otlp-run']);
    expect(first.errors.length).toBeGreaterThan(0);
    const before = versions(d);
    const again = importPaths(d, [file], { final: false, ...look });
    expect(again.changedRuns).toEqual([]);
    expect(again.imported).toEqual(first.imported);
    expect(again.errors).toEqual(first.errors);
    expect(versions(d)).toEqual(before);
    // A file the user names is read again (a newer importer may map it differently).
    expect(importPaths(d, [file], { final: false, unchangedMarginMs: 0 }).changedRuns).toEqual(['otlp-run']);
  });

  it('is read again when changed since: rewritten at the same size, replaced by a copy with an old modification time, or grown', () => {
    const d = setup();
    const file = path.join(dir, 'trace.otlp.json');
    fs.writeFileSync(file, otlpText(10, 'run-a'));
    tick();
    importFile(d, file, { final: true });
    tick();
    // The same length, another run id: only the file's times tell.
    fs.writeFileSync(file, otlpText(10, 'run-b'));
    expect(fs.statSync(file).size).toBe(otlpText(10, 'run-a').length);
    expect(importFile(d, file, { final: true, ...look }).changedRuns).toEqual(['run-b']);
    tick();
    // A copy that keeps its source's old modification time (cp -p, tar, rsync -t): its change time is new.
    const copy = path.join(dir, 'copy.otlp.json');
    fs.writeFileSync(copy, otlpText(10, 'run-c'));
    const old = new Date(Date.now() - 3_600_000);
    fs.copyFileSync(copy, file);
    fs.utimesSync(file, old, old);
    expect(importFile(d, file, { final: true, ...look }).changedRuns).toEqual(['run-c']);
    tick();
    fs.writeFileSync(file, otlpText(12, 'run-c'));
    expect(importFile(d, file, { final: true, ...look }).changedRuns).toEqual(['run-c']);
    expect((d.prepare("SELECT COUNT(*) AS n FROM steps WHERE run_id = 'run-c'").get() as { n: number }).n).toBe(12);
  });

  it('a file changed within the margin before its read began is read once more (a file clock kept to the second could hide a rewrite)', () => {
    const d = setup();
    const file = path.join(dir, 'trace.otlp.json');
    fs.writeFileSync(file, otlpText(5, 'run-m'));
    importFile(d, file, { final: true });
    expect(importFile(d, file, { final: true, skipUnchanged: true }).linesRead).toBeGreaterThan(0);
  });

  it('a native file read to its end writes nothing when looked at again; lines appended later, or a last line without newline, are read', () => {
    const d = setup();
    const file = path.join(dir, 'run.jsonl');
    const records = syntheticRunRecords({ runId: 'native-run', steps: 4, unfinished: true });
    fs.writeFileSync(file, toJsonl(records));
    tick();
    importFile(d, file, { final: false, ...look });
    const state = () => d.prepare('SELECT offset, updated_at FROM import_files').get();
    const stored = state();
    const before = versions(d);
    expect(importFile(d, file, { final: false, ...look }).changedRuns).toEqual([]);
    expect(state()).toEqual(stored);
    expect(versions(d)).toEqual(before);
    // The run's end, written without its newline: a look at the inbox leaves it (the SDK may still be writing it),
    // a later look still finds the file not read to its end, and `tb import` (final) reads it.
    fs.appendFileSync(file, JSON.stringify({ type: 'run-end', run_id: 'native-run', ts: 1_700_000_000_100, status: 'ok' }));
    tick();
    importFile(d, file, { final: false, ...look });
    expect(importFile(d, file, { final: false, ...look }).linesRead).toBe(0);
    expect(importFile(d, file, { final: true, ...look }).changedRuns).toEqual(['native-run']);
    expect((d.prepare("SELECT status FROM runs WHERE run_id = 'native-run'").get() as { status: string }).status).toBe('ok');
  });
});
