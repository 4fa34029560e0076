/**
 * Trace text is untrusted: `tb import`, `list`, `show`, `blame` and `mark` print run ids,
 * pipelines, step names, models and errors from a hostile trace with every
 * control, bidi and invisible character escaped — nothing a terminal would
 * interpret reaches it.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TB = path.resolve(__dirname, 'tb.ts');
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029]/;

function tb(home: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', TB, ...args], { env: { ...process.env, TRACEBACK_HOME: home }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('raw escape sequences from traces never reach the terminal', () => {
  it('tb import, tb list and tb show escape them in every field they print', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-esc-'));
    const id = 'run\u001b]0;pwned\u0007\r\u001b[2Kok';
    const lines = [
      { type: 'run-start', v: '1.0', run_id: id, pipeline: 'pipe\u001b[31mRED\u202eevil', ts: 1_700_000_000_000, input: 'q\r\u001b[1A' },
      { type: 'step-start', run_id: id, step_id: 's1', parent_id: null, index: 0, name: 'step\u2028\u200bname\u001b[8m', step_type: 'llm', replay_key: 'k#0', ts: 1_700_000_000_001 },
      { type: 'step-end', run_id: id, step_id: 's1', ts: 1_700_000_000_002, status: 'error', model: 'm\u001b[5m', error: { type: 'E\u001b[0m', message: 'boom\r\u001b[2Kall good' } },
      { type: 'bogus\u001b[31m', run_id: id },
      '{"broken json \u001b[31m',
    ];
    const file = path.join(home, 'hostile\u001b[7m.jsonl');
    fs.writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
    const imported = tb(home, 'import', file);
    expect(imported.out).toMatch(/\\u001b/);
    expect(imported.out).not.toMatch(RAW);
    const list = tb(home, 'list');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/run\\u001b/);
    expect(list.out).not.toMatch(RAW);
    const show = tb(home, 'show', 'run');
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/boom/);
    expect(show.out).not.toMatch(RAW);
    // Every command's lines go through one escaping writer: blame and mark print the run id too.
    for (const args of [['blame', 'run'], ['mark', 'run', '--failed'], ['blame', 'run'], ['mark', 'run', '--clear']]) {
      const r = tb(home, ...args);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/run\\u001b/);
      expect(r.out).not.toMatch(RAW);
    }
  }, 120_000);
});

describe('`--json` output carries no raw bidi or format character', () => {
  it('tb import --json writes U+202E in a file name and a bad line as \\u202e, and the JSON reads back the same', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-esc-'));
    const file = path.join(home, 'evil\u202etxt.jsonl');
    const good = JSON.stringify({ type: 'run-start', v: '1.0', run_id: 'r', pipeline: 'p', ts: 1_700_000_000_000 });
    fs.writeFileSync(file, `${good}\n{"type": "step-start\u001b[31m\u202e\n`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', TB, 'import', '--json', file], { env: { ...process.env, TRACEBACK_HOME: home }, encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout).toMatch(/evil\\u202etxt/);
    expect(r.stdout).not.toMatch(RAW);
    const report = JSON.parse(r.stdout) as { errors: { file: string; line: number; message: string }[] };
    expect(report.errors[0]).toMatchObject({ file, line: 2 });
    expect(report.errors[0].message).toContain('step-start[U+001B][31m[U+202E]');
  }, 60_000);
});
