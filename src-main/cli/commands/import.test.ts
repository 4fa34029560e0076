import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../../engine/create-engine';
import { exportOtlp } from '../../engine/ingest/foreign/index';
import { foldRecords } from '../../engine/ingest/native/fold-records';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import { runCommand } from '../../../test/support/run-command';
import { importCommand, importProgressLine } from './import';
import { AUTO_BLAME_MAX_STEPS } from '../../../src-shared/analysis';

let engine: Engine;
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-import-cli-'));
  engine = createEngine({ home: path.join(dir, 'home') });
});
afterAll(async () => {
  await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('tb import', () => {
  it('names a run too large to blame unasked, which the list shows unblamed until it is asked for', async () => {
    const file = path.join(dir, 'huge-run.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'huge-run', steps: AUTO_BLAME_MAX_STEPS + 1, failAt: 7 })));
    const r = await runCommand(engine, importCommand, [file]);
    expect(r.code, r.stderr.join('\n')).toBe(0);
    expect(r.stdout).toContain(`huge-run: ${(AUTO_BLAME_MAX_STEPS + 1).toLocaleString('en')} steps, not blamed yet (a run of more than ${AUTO_BLAME_MAX_STEPS.toLocaleString('en')} steps is blamed when asked: tb blame huge-run)`);
    expect((await engine.handlers.listRuns({})).find((x) => x.run_id === 'huge-run')!.blame_score).toBeNull();
    fs.rmSync(file);
  }, 60_000);

  it('shows how far a big OTLP file has got, then clears the line before its report', async () => {
    const file = path.join(dir, 'big\u001b[31m.json');
    // Big enough to be streamed (≥ 4 MB) in several turns.
    fs.writeFileSync(file, JSON.stringify(exportOtlp(foldRecords(syntheticRunRecords({ runId: 'big-otlp', steps: 12_000 }))[0])));
    const r = await runCommand(engine, importCommand, [file]);
    expect(r.code, r.stderr.join('\n')).toBe(0);
    const lines = r.progress.filter((l): l is string => l !== null);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[0]).toMatch(/^importing big.*\.json: reading spans \d+% \(\d+(\.\d)? of \d+(\.\d)? MB\)$/);
    expect(lines.some((l) => l.includes('storing steps'))).toBe(true);
    // The file's name is shown as text: no escape sequence from it reaches the terminal.
    expect(lines.every((l) => !l.includes('\u001b'))).toBe(true);
    expect(r.progress.at(-1)).toBeNull();
    expect(r.stdout.join('\n')).toContain('1 run (big-otlp)');
  });

  it('a small native file shows no status line', async () => {
    const file = path.join(dir, 'small.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'small', steps: 3 })));
    const r = await runCommand(engine, importCommand, [file, '--json']);
    expect(r.code).toBe(0);
    expect(r.progress).toEqual([null]);
    expect((r.json as { imported: { runs: string[] }[] }).imported[0].runs).toEqual(['small']);
  });

  it('rounds what it says', () => {
    expect(importProgressLine({ file: '/x/a.json', phase: 'write', bytesDone: 190_400_000, bytesTotal: 463_000_000 })).toBe('importing a.json: storing steps 41% (190 of 463 MB)');
    expect(importProgressLine({ file: 'b.json', phase: 'index', bytesDone: 0, bytesTotal: 0 })).toBe('importing b.json: reading spans 0% (0.0 of 0.0 MB)');
  });
});
