import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import { openDatabase, type Db } from '../store/open-database';
import { getRunDetail, listRuns } from '../store/read-runs';
import { fileErrors, importFile } from './import-file';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tb-imp-'));
}

function counts(db: Db) {
  return {
    runs: (db.prepare('SELECT COUNT(*) n FROM runs').get() as { n: number }).n,
    steps: (db.prepare('SELECT COUNT(*) n FROM steps').get() as { n: number }).n,
    errors: (db.prepare('SELECT COUNT(*) n FROM import_errors').get() as { n: number }).n,
  };
}

describe('importing a native trace file', () => {
  it('a 1,000-line file with one malformed line imports 999 records and names the file and line; a second import changes nothing', () => {
    const dir = tmp();
    const file = path.join(dir, 'run.jsonl');
    const lines = toJsonl(syntheticRunRecords({ runId: 'big', steps: 499 })).trimEnd().split('\n');
    expect(lines.length).toBe(1000);
    lines[500] = '{"type":"step-end","run_id":"big", oops';
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const db = openDatabase(':memory:');
    const first = importFile(db, file);
    expect(first.newErrors).toEqual([expect.objectContaining({ file, line: 501, level: 'error', message: expect.stringMatching(/invalid JSON/) })]);
    expect(first.linesRead).toBe(1000);
    const detail = getRunDetail(db, 'big');
    expect(detail.steps).toHaveLength(499);
    expect(detail.run.status).toBe('ok');
    // 999 records applied: the one broken step-end leaves exactly one step without an end.
    expect(detail.steps.filter((s) => s.status === 'running')).toHaveLength(1);
    const before = counts(db);
    const snapshot = JSON.stringify(getRunDetail(db, 'big').steps);
    const second = importFile(db, file);
    expect(second.newErrors).toEqual([]);
    expect(counts(db)).toEqual(before);
    expect(JSON.stringify(getRunDetail(db, 'big').steps)).toBe(snapshot);
    expect(fileErrors(db, file)).toHaveLength(1);
  });

  it('reading the same file again from scratch into the store gives the same rows (idempotent upserts)', () => {
    const dir = tmp();
    const file = path.join(dir, 'run.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'r', steps: 20, failAt: 7 })));
    const db = openDatabase(':memory:');
    importFile(db, file);
    const snapshot = JSON.stringify(getRunDetail(db, 'r'));
    db.prepare('DELETE FROM import_files').run();
    importFile(db, file);
    const again = JSON.parse(JSON.stringify(getRunDetail(db, 'r')));
    const first = JSON.parse(snapshot);
    expect(again.steps).toEqual(first.steps);
    expect(again.run.status).toBe(first.run.status);
    expect(counts(db).steps).toBe(20);
  });

  it('a growing file is tailed: a partial last line waits for the rest of its bytes', () => {
    const dir = tmp();
    const file = path.join(dir, 'live.jsonl');
    const text = toJsonl(syntheticRunRecords({ runId: 'live', steps: 3 }));
    const cut = text.indexOf('"step-end"') + 5;
    fs.writeFileSync(file, text.slice(0, cut));
    const db = openDatabase(':memory:');
    importFile(db, file);
    expect(getRunDetail(db, 'live').steps.map((s) => s.status)).toEqual(['running']);
    expect(listRuns(db)[0].status).toBe('running');
    fs.appendFileSync(file, text.slice(cut));
    const r = importFile(db, file);
    expect(r.newErrors).toEqual([]);
    expect(getRunDetail(db, 'live').steps.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
    expect(listRuns(db)[0].status).toBe('ok');
  });

  it('a run without run-end shows as running, then incomplete once its writer has been silent for a while', () => {
    const dir = tmp();
    const file = path.join(dir, 'crashed.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'c', steps: 2, unfinished: true })));
    const db = openDatabase(':memory:');
    importFile(db, file);
    expect(listRuns(db)[0].status).toBe('running');
    expect(listRuns(db, {}, Date.now() + 11 * 60 * 1000)[0].status).toBe('incomplete');
  });

  it('an unknown major version is refused with a clear message and nothing of the file is imported', () => {
    const dir = tmp();
    const file = path.join(dir, 'future.jsonl');
    const recs = syntheticRunRecords({ runId: 'f', steps: 2 });
    (recs[0] as { v: string }).v = '2.0';
    fs.writeFileSync(file, toJsonl(recs));
    const db = openDatabase(':memory:');
    const r = importFile(db, file);
    expect(r.newErrors[0]).toMatchObject({ line: 1, message: expect.stringMatching(/version 2\.0 is not supported .*reads 1\.x/) });
    expect(counts(db).runs).toBe(0);
    expect(importFile(db, file).newErrors).toEqual([]);
  });

  it('unknown record types are skipped with a warning and unknown fields are kept', () => {
    const dir = tmp();
    const file = path.join(dir, 'extra.jsonl');
    const recs = syntheticRunRecords({ runId: 'x', steps: 1 }) as unknown as Record<string, unknown>[];
    recs[1].team = 'search';
    recs.splice(2, 0, { type: 'heartbeat', run_id: 'x' });
    fs.writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const db = openDatabase(':memory:');
    const r = importFile(db, file);
    expect(r.newErrors).toEqual([expect.objectContaining({ line: 3, level: 'warning', message: expect.stringMatching(/unknown record type "heartbeat" skipped/) })]);
    expect(getRunDetail(db, 'x').steps[0].extra).toEqual({ team: 'search' });
  });

  it('a huge field is stored truncated with a marker and a warning, and the rest of the run is kept', () => {
    const dir = tmp();
    const file = path.join(dir, 'huge.jsonl');
    const recs = syntheticRunRecords({ runId: 'h', steps: 2 });
    (recs[2] as { output: unknown }).output = 'x'.repeat(3_000_000);
    fs.writeFileSync(file, toJsonl(recs));
    const db = openDatabase(':memory:');
    const r = importFile(db, file);
    expect(r.newErrors).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringMatching(/"output" exceeds the size cap/) })]);
    const steps = getRunDetail(db, 'h').steps;
    expect(steps[0].output).toMatchObject({ $truncated: true, original_chars: 3_000_002 });
    expect(steps[1].output).toEqual({ text: 'output of step 1' });
  });

  it('a file of an unknown shape is reported with the formats Traceback reads', () => {
    const dir = tmp();
    const file = path.join(dir, 'notes.json');
    fs.writeFileSync(file, '{"hello": "world"}\n');
    const db = openDatabase(':memory:');
    expect(importFile(db, file).newErrors[0].message).toMatch(/unknown trace format; supported:/);
  });

  it('killing the importer with SIGKILL mid-file loses nothing committed, and a restart adds no duplicates', async () => {
    const dir = tmp();
    const file = path.join(dir, 'large.jsonl');
    const dbFile = path.join(dir, 'traces.db');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'k', steps: 20_000 })));
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../../test/support/import-until-killed.ts'), dbFile, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let committedLines = 0;
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        const m = /committed (\d+)/.exec(d.toString());
        if (m && committedLines === 0) {
          committedLines = Number(m[1]);
          child.kill('SIGKILL');
        }
      });
      child.on('exit', () => resolve());
      child.on('error', reject);
    });
    expect(committedLines).toBeGreaterThan(0);
    const db = openDatabase(dbFile);
    const stored = (db.prepare('SELECT line FROM import_files').get() as { line: number }).line;
    expect(stored).toBeGreaterThanOrEqual(committedLines);
    expect(stored).toBeLessThan(40_002);
    importFile(db, file);
    expect(counts(db).steps).toBe(20_000);
    expect(getRunDetail(db, 'k').steps.every((s) => s.status === 'ok')).toBe(true);
    expect(getRunDetail(db, 'k').run.status).toBe('ok');
  });
});

describe('fork provenance', () => {
  it('a forked run that diverged says so: run-end provenance replaces the one from run-start', () => {
    const dir = tmp();
    const file = path.join(dir, 'fork.jsonl');
    const recs = syntheticRunRecords({ runId: 'fk', steps: 1 }) as unknown as Record<string, unknown>[];
    const prov = { source_run_id: 'src', experiment_id: 'e1', arm: 'treatment', fork_step_key: 'a#0', trial: 1 };
    recs[0].provenance = prov;
    recs[recs.length - 1].provenance = { ...prov, diverged: true, divergence: 'input of a#0 changed' };
    fs.writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const db = openDatabase(':memory:');
    importFile(db, file);
    const run = getRunDetail(db, 'fk').run;
    expect(run.forked).toBe(true);
    expect(run.provenance).toMatchObject({ diverged: true, divergence: 'input of a#0 changed' });
    expect(run.extra).toEqual({});
  });
});

describe('a block decoded window by window', () => {
  it('reads a UTF-8 file with CRLF endings, a line longer than a window and bad bytes far into the block with every line and value intact and the bad line named', () => {
    const dir = tmp();
    const file = path.join(dir, 'utf8.jsonl');
    const records = syntheticRunRecords({ runId: 'wide', steps: 400 });
    for (const r of records) if (r.type === 'step-start') r.input = { text: `café ☕ 😀 ${r.step_id} ${'é'.repeat(r.index === 200 ? 40_000 : 20)}` };
    const lines = toJsonl(records).trimEnd().split('\n');
    // CRLF on some lines; two bad bytes in a step-start on line 602, well past the first 32 kB window.
    const bytes = Buffer.concat(lines.map((l, i) => {
      const b = Buffer.from(l + (i % 7 === 0 ? '\r\n' : '\n'));
      if (i === 601) {
        const at = b.indexOf('café') + 3;
        b[at] = 0xff;
        b[at + 1] = 0xff;
      }
      return b;
    }));
    expect(bytes.length).toBeGreaterThan(3 * 32 * 1024);
    fs.writeFileSync(file, bytes);
    const db = openDatabase(':memory:');
    const r = importFile(db, file);
    expect(r.linesRead).toBe(lines.length);
    expect(r.newErrors).toEqual([expect.objectContaining({ line: 602, level: 'warning', message: 'invalid UTF-8: 2 character(s) replaced by U+FFFD' })]);
    const detail = getRunDetail(db, 'wide');
    expect(detail.steps).toHaveLength(400);
    expect((detail.steps[200].input as { text: string }).text).toBe(`café ☕ 😀 s200 ${'é'.repeat(40_000)}`);
    expect((detail.steps[199].input as { text: string }).text).toBe(`café ☕ 😀 s199 ${'é'.repeat(20)}`);
    const broken = detail.steps.filter((s) => (s.input as { text: string }).text.includes('\ufffd'));
    expect(broken).toHaveLength(1);
    expect(importFile(db, file).linesRead).toBe(0);
  });
});
