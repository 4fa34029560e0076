import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../create-engine';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import { foldRecords } from './native/fold-records';
import { exportOtlp } from './foreign/index';
import { importFile } from './import-file';
import { importFileAsync } from './import-file-async';

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

/** A home with one OTLP/JSON document of `steps` spans (~0.9 kB a span), well above the size that streams with turns. */
function setup(steps: number): { file: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-otlp-async-'));
  engine = createEngine({ home, watch: false });
  const file = path.join(home, 'big.otlp.json');
  fs.writeFileSync(file, JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: 'big-otlp', steps }))[0])));
  expect(fs.statSync(file).size).toBeGreaterThan(5 * 1024 * 1024);
  return { file };
}

type Progress = { phase: string; bytesDone: number; bytesTotal: number };

/** Imports `file` through the engine while calling it in a loop: the result, the progress events, and how many calls were answered meanwhile. */
async function importWhileCalling(file: string) {
  const progress: Progress[] = [];
  const off = engine!.events.subscribe((event, p) => {
    if (event === 'import-progress') progress.push(p as Progress);
  });
  let answeredDuring = 0;
  let importing = true;
  const importing$ = engine!.call('importPaths', { paths: [file] }).finally(() => (importing = false));
  // Calls made while the import runs are answered before it ends.
  while (importing) {
    expect((await engine!.call('getInfo', {})).ok).toBe(true);
    if (importing) answeredDuring++;
    await new Promise((r) => setImmediate(r));
  }
  off();
  return { result: await importing$, progress, answeredDuring };
}

describe('the engine importing a big OTLP/JSON file', () => {
  it('answers other calls while the file streams in, and reports progress through both passes', async () => {
    const { file } = setup(8_000);
    const { result, progress, answeredDuring } = await importWhileCalling(file);
    expect(result.ok && result.value.imported[0].runs).toEqual(['big-otlp']);
    expect(answeredDuring).toBeGreaterThan(0);
    expect(new Set(progress.map((p) => p.phase))).toEqual(new Set(['index', 'write']));
    const last = progress[progress.length - 1];
    expect(last.bytesDone).toBeLessThanOrEqual(last.bytesTotal);
    const run = await engine!.call('getRunSkeleton', { runId: 'big-otlp' });
    expect(run.ok && run.value.steps.step_id.length).toBe(8_000);
  });

  it('cancelImport stops it between blocks, keeps what was committed, and importing again completes the run', async () => {
    const { file } = setup(8_000);
    let cancelled = -1;
    const off = engine!.events.subscribe((event, p) => {
      // Cancel once the writing pass is under way.
      if (event === 'import-progress' && (p as { phase: string }).phase === 'write' && cancelled === -1) {
        cancelled = 0;
        void engine!.call('cancelImport', {}).then((r) => (cancelled = r.ok ? r.value.cancelled : -2));
      }
    });
    await engine!.call('importPaths', { paths: [file] });
    off();
    expect(cancelled).toBe(1);
    const partial = engine!.db.prepare("SELECT count(*) AS n FROM steps WHERE run_id = 'big-otlp'").get() as { n: number };
    expect(partial.n).toBeLessThan(8_000);
    const again = await engine!.call('importPaths', { paths: [file] });
    expect(again.ok).toBe(true);
    const whole = engine!.db.prepare("SELECT count(*) AS n FROM steps WHERE run_id = 'big-otlp'").get() as { n: number };
    expect(whole.n).toBe(8_000);
  });
});

/** A home with one native JSON Lines file of `steps` steps, padded to ~1 kB a step: above the size that imports with turns. */
function setupNative(steps: number): { file: string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-native-async-'));
  engine = createEngine({ home, watch: false });
  const file = path.join(home, 'big.jsonl');
  const records = syntheticRunRecords({ runId: 'big-native', steps }).map((r) => (r.type === 'step-end' && r.output ? { ...r, output: { text: `${(r.output as { text: string }).text} ${'padding '.repeat(100)}` } } : r));
  fs.writeFileSync(file, toJsonl(records));
  expect(fs.statSync(file).size).toBeGreaterThan(5 * 1024 * 1024);
  return { file };
}

describe('the engine importing a big native file', () => {
  it('answers other calls between its blocks and reports how far it has got', async () => {
    const { file } = setupNative(8_000);
    const { result, progress, answeredDuring } = await importWhileCalling(file);
    expect(result.ok && result.value.imported[0].runs).toEqual(['big-native']);
    expect(answeredDuring).toBeGreaterThan(0);
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.every((p) => p.phase === 'write' && p.bytesTotal === fs.statSync(file).size)).toBe(true);
    expect(progress.map((p) => p.bytesDone)).toEqual([...progress.map((p) => p.bytesDone)].sort((a, b) => a - b));
    const count = engine!.db.prepare("SELECT count(*) AS n FROM steps WHERE run_id = 'big-native'").get() as { n: number };
    expect(count.n).toBe(8_000);
  });

  it("another file's run of the same id, imported while it streams, stays a run of its own (nothing read waits uncommitted across a turn)", async () => {
    const { file } = setupNative(8_000);
    // The big file's last block also holds a small run "shared"; another file holds a run "shared" too.
    fs.appendFileSync(file, toJsonl(syntheticRunRecords({ runId: 'shared', steps: 3 })));
    const other = path.join(path.dirname(file), 'other.jsonl');
    fs.writeFileSync(other, toJsonl(syntheticRunRecords({ runId: 'shared', steps: 2 })));
    const db = engine!.db;
    let turns = 0;
    let otherDuring = false;
    const result = await importFileAsync(db, file, {
      final: true,
      onProgress: (p) => {
        turns++;
        // A turn given up after the whole file was read: the other file is imported in it (the engine's watcher could).
        if (p.bytesDone >= p.bytesTotal && !otherDuring) {
          otherDuring = true;
          importFile(db, other, { final: true });
        }
      },
    });
    if (!otherDuring) importFile(db, other, { final: true });
    expect(turns).toBeGreaterThan(3);
    const runs = db.prepare("SELECT run_id, source_file, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.run_id) AS steps FROM runs r WHERE run_id LIKE 'shared%' ORDER BY run_id").all();
    expect(runs).toEqual([
      { run_id: 'shared', source_file: result.file, steps: 3 },
      { run_id: 'shared~2', source_file: path.resolve(other), steps: 2 },
    ]);
  });

  it('cancelImport stops it between blocks; importing again goes on from the stored offset and completes the run', async () => {
    const { file } = setupNative(8_000);
    let cancelled = -1;
    const off = engine!.events.subscribe((event, p) => {
      if (event === 'import-progress' && (p as { bytesDone: number }).bytesDone > 2 * 1024 * 1024 && cancelled === -1) {
        cancelled = 0;
        void engine!.call('cancelImport', {}).then((r) => (cancelled = r.ok ? r.value.cancelled : -2));
      }
    });
    const first = await engine!.call('importPaths', { paths: [file] });
    off();
    expect(cancelled).toBe(1);
    expect(first.ok && first.value.errors.map((e) => e.message).join('\n')).toMatch(/import cancelled at byte \d+ of \d+ \(\d+ line\(s\) stored\); import the file again to finish it/);
    const count = () => (engine!.db.prepare("SELECT count(*) AS n FROM steps WHERE run_id = 'big-native'").get() as { n: number }).n;
    const partial = count();
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(8_000);
    const again = await engine!.call('importPaths', { paths: [file] });
    expect(again.ok && again.value.errors.filter((e) => e.level === 'error')).toEqual([]);
    expect(count()).toBe(8_000);
    const ends = engine!.db.prepare("SELECT count(*) AS n FROM steps WHERE run_id = 'big-native' AND status = 'ok'").get() as { n: number };
    expect(ends.n).toBe(8_000);
  });
});
