import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticRunRecords, toJsonl } from '../../test/support/synthetic-trace';

const TB = path.resolve(__dirname, 'tb.ts');

function tb(home: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', TB, ...args], { env: { ...process.env, TRACEBACK_HOME: home }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

const freshHome = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tb-cli-'));

describe('tb on the demo data', () => {
  let home: string;
  let runs: { run_id: string; pipeline: string; status: string; steps: number; started_at: number; duration_ms: number | null; verdict: { pass: boolean } | null }[];

  beforeAll(() => {
    home = freshHome();
    const demo = tb(home, 'demo');
    expect(demo.code, demo.stderr).toBe(0);
    const list = tb(home, 'list', '--json');
    expect(list.code).toBe(0);
    runs = list.json();
  }, 180_000);

  it('a new user gets at least four demo runs, some of them failed, from `tb demo`', () => {
    expect(runs.length).toBeGreaterThanOrEqual(4);
    for (const r of runs) expect(Object.keys(r)).toEqual(expect.arrayContaining(['run_id', 'pipeline', 'status', 'steps', 'started_at', 'duration_ms']));
    expect(runs.filter((r) => r.verdict && !r.verdict.pass).length).toBeGreaterThanOrEqual(2);
    expect(runs.filter((r) => r.verdict?.pass).length).toBeGreaterThanOrEqual(2);
  });

  it('`show --json` accepts a unique prefix and lists steps in start order with their fields', () => {
    const run = runs[0];
    const r = tb(home, 'show', run.run_id.slice(0, 12), '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = r.json();
    expect(doc.run.run_id).toBe(run.run_id);
    expect(doc.steps.length).toBe(run.steps);
    expect(doc.steps.map((s: { index: number }) => s.index)).toEqual([...doc.steps.map((s: { index: number }) => s.index)].sort((a, b) => a - b));
    for (const key of ['step_id', 'parent_id', 'name', 'type', 'index', 'input', 'output', 'error', 'started_at', 'duration_ms']) expect(doc.steps[0]).toHaveProperty(key);
  });

  it('`blame --json` names steps for a failed run and nothing for a healthy one', () => {
    const failed = runs.find((r) => r.verdict && !r.verdict.pass)!;
    const healthy = runs.find((r) => r.verdict?.pass)!;
    const bad = tb(home, 'blame', failed.run_id, '--json').json();
    expect(bad).toMatchObject({ run_id: failed.run_id, healthy: false });
    expect(bad.blamed.length).toBeGreaterThan(0);
    for (const key of ['step_id', 'name', 'type', 'index', 'score', 'confidence', 'reason', 'evidence']) expect(bad.blamed[0]).toHaveProperty(key);
    const good = tb(home, 'blame', healthy.run_id, '--json').json();
    expect(good).toMatchObject({ run_id: healthy.run_id, healthy: true, blamed: [] });
  });

  it('the gate exits 1 on a failed run and 0 on a healthy one', () => {
    const failed = runs.find((r) => r.verdict && !r.verdict.pass)!;
    const healthy = runs.find((r) => r.verdict?.pass)!;
    expect(tb(home, 'gate', '--fail-on-blame', '0.5', failed.run_id).code).toBe(1);
    expect(tb(home, 'gate', '--fail-on-blame', '0.5', healthy.run_id).code).toBe(0);
    expect(tb(home, 'gate', failed.run_id).code).toBe(2);
  });

  it('`blame --failed --json` ranks three suspects on a healthy run with failure signals, never "healthy"; a plain blame stays silent', () => {
    const healthy = runs.find((r) => r.verdict?.pass && r.steps >= 3)!;
    const plain = tb(home, 'blame', healthy.run_id, '--json').json();
    expect(plain).toMatchObject({ healthy: true, blamed: [], asserted: false, detection: { status: 'healthy' } });
    const asserted = tb(home, 'blame', healthy.run_id, '--failed', '--json');
    expect(asserted.code, asserted.stderr).toBe(0);
    const doc = asserted.json();
    expect(doc).toMatchObject({ run_id: healthy.run_id, healthy: false, asserted: true, failure: { kind: 'asserted', description: expect.any(String), signals: expect.any(Array) } });
    expect(doc.blamed).toHaveLength(3);
    for (const key of ['step_id', 'name', 'type', 'index', 'score', 'confidence', 'reason', 'evidence', 'rule']) expect(doc.blamed[0]).toHaveProperty(key);
    // --failed is not stored: the next blame is the plain one again.
    expect(tb(home, 'blame', healthy.run_id, '--json').json().healthy).toBe(true);
  });

  it('`mark --failed` is stored: blame, the gate and the report see it until `mark --clear`', () => {
    const healthy = runs.find((r) => r.verdict?.pass)!;
    expect(tb(home, 'gate', '--fail-on-blame', '0.99', healthy.run_id).code).toBe(0);
    const marked = tb(home, 'mark', healthy.run_id, '--failed', '--expected', 'something else entirely', '--json');
    expect(marked.code, marked.stderr).toBe(0);
    expect(marked.json()).toMatchObject({ asserted: true, healthy: false, assertion: { failed: true, expected: 'something else entirely' } });
    expect(tb(home, 'blame', healthy.run_id, '--json').json()).toMatchObject({ asserted: true, healthy: false });
    const gate = tb(home, 'gate', '--fail-on-blame', '0.99', healthy.run_id);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/marked as failed by the user/);
    expect(tb(home, 'list', '--filter', 'failed', '--json').json().map((r: { run_id: string }) => r.run_id)).toContain(healthy.run_id);
    expect(tb(home, 'mark', healthy.run_id, '--clear').code).toBe(0);
    expect(tb(home, 'gate', '--fail-on-blame', '0.99', healthy.run_id).code).toBe(0);
    expect(tb(home, 'mark', healthy.run_id).code).toBe(2);
  });

  it('a report is written as self-contained HTML with no script', () => {
    const failed = runs.find((r) => r.verdict && !r.verdict.pass)!;
    const out = path.join(home, 'report.html');
    const r = tb(home, 'report', failed.run_id, '--format', 'html', '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const html = fs.readFileSync(out, 'utf8');
    expect(html).toMatch(/<html/i);
    expect(html).not.toMatch(/<script/i);
  });
});

describe('tb import', () => {
  it('reports a malformed line with file and line, imports the rest, and exits 2; importing again reports the same', () => {
    const home = freshHome();
    const file = path.join(home, 'broken.jsonl');
    const lines = toJsonl(syntheticRunRecords({ runId: 'imp-1', steps: 3 })).trimEnd().split('\n');
    lines[2] = '{not json';
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const first = tb(home, 'import', file, '--json');
    expect(first.code).toBe(2);
    expect(first.json()).toEqual({ imported: [{ file, runs: ['imp-1'] }], errors: [expect.objectContaining({ file, line: 3, message: expect.stringMatching(/invalid JSON/) })], blame_deferred: [] });
    expect(first.stderr).toContain(`${file}:3:`);
    const second = tb(home, 'import', file, '--json');
    expect(second.json()).toEqual(first.json());
    expect(tb(home, 'show', 'imp-1', '--json').json().steps).toHaveLength(3);
  });

  it('a clean file imports with exit 0 and its run shows up in the list', () => {
    const home = freshHome();
    const file = path.join(home, 'ok.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'clean-run', steps: 2 })));
    const r = tb(home, 'import', file, '--json');
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ imported: [{ file, runs: ['clean-run'] }], errors: [], blame_deferred: [] });
    expect(tb(home, 'list', '--json').json().map((x: { run_id: string }) => x.run_id)).toEqual(['clean-run']);
  });
});

describe('every command sees the inbox', () => {
  it('a run the SDK wrote into the inbox appears in `tb list` and `tb show` with no import; --no-sync skips the look; a broken inbox file is one warning line', () => {
    const home = freshHome();
    const inbox = path.join(home, 'inbox');
    fs.mkdirSync(inbox, { recursive: true });
    fs.writeFileSync(path.join(inbox, 'r1.jsonl'), toJsonl(syntheticRunRecords({ runId: 'inbox-run', steps: 2 })));
    expect(tb(home, 'list', '--json', '--no-sync').json()).toEqual([]);
    const listed = tb(home, 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json().map((r: { run_id: string }) => r.run_id)).toEqual(['inbox-run']);
    expect(tb(home, 'show', 'inbox-run', '--json').json().steps).toHaveLength(2);
    // A second file arrives, with one broken line: the good run is there and the problem is one line on stderr.
    const lines = toJsonl(syntheticRunRecords({ runId: 'inbox-run-2', steps: 2 })).trimEnd().split('\n');
    lines.splice(2, 0, '{broken');
    fs.writeFileSync(path.join(inbox, 'r2.jsonl'), lines.join('\n') + '\n');
    const again = tb(home, 'list', '--json');
    expect(again.code).toBe(0);
    expect(again.json().map((r: { run_id: string }) => r.run_id).sort()).toEqual(['inbox-run', 'inbox-run-2']);
    expect(again.stderr).toMatch(/tb: warning: 1 problem\(s\) in inbox files, first .*r2\.jsonl:3:/);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    // Reported when found, not on every later command.
    expect(tb(home, 'list', '--json').stderr).toBe('');
  });
});

describe('fork trials stay in their experiment', () => {
  it('`tb list` hides trial runs unless asked, and `gate --latest` judges the user\'s newest run, not a newer trial', () => {
    const home = freshHome();
    const file = path.join(home, 'runs.jsonl');
    const user = syntheticRunRecords({ runId: 'user-run', steps: 3, pipeline: 'p1', startTs: 1_700_000_000_000 });
    const trial = syntheticRunRecords({ runId: 'trial-run', steps: 3, pipeline: 'p1', startTs: 1_700_000_100_000, failAt: 1 });
    const start = trial[0] as Extract<(typeof trial)[number], { type: 'run-start' }>;
    start.provenance = { source_run_id: 'user-run', experiment_id: 'exp-1', arm: 'control', fork_step_key: 'step#0', trial: 0 };
    fs.writeFileSync(file, toJsonl([...user, ...trial]));
    expect(tb(home, 'import', file).code).toBe(0);
    const ids = (...args: string[]) => tb(home, 'list', '--json', ...args).json().map((r: { run_id: string }) => r.run_id);
    expect(ids()).toEqual(['user-run']);
    expect(ids('--include-trials')).toEqual(['trial-run', 'user-run']);
    expect(ids('--filter', 'forked')).toEqual(['trial-run']);
    const gate = tb(home, 'gate', '--fail-on-blame', '0.5', '--pipeline', 'p1', '--latest', '--json');
    expect(gate.json().run_id).toBe('user-run');
  });
});

describe('tb usage errors', () => {
  it('bad usage and unknown runs exit 2 with a message on stderr and nothing on stdout', () => {
    const home = freshHome();
    const unknownCmd = tb(home, 'frobnicate');
    expect(unknownCmd.code).toBe(2);
    expect(unknownCmd.stderr).toMatch(/unknown command "frobnicate"/);
    const badFlag = tb(home, 'list', '--colour');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/unknown option --colour/);
    const missing = tb(home, 'show', 'no-such-run', '--json');
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/no run matches "no-such-run"/);
    const noRun = tb(home, 'show');
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toMatch(/^tb show: needs a run id/);
    // A file the user names that cannot be written: one line naming it, no stack trace.
    fs.writeFileSync(path.join(home, 'r.jsonl'), toJsonl(syntheticRunRecords({ runId: 'rep-1', steps: 2 })));
    expect(tb(home, 'import', path.join(home, 'r.jsonl')).code).toBe(0);
    const unwritable = tb(home, 'report', 'rep-1', '--format', 'md', '-o', path.join(home, 'no-such-folder', 'r.md'));
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr.trim().split('\n')).toHaveLength(1);
    expect(unwritable.stderr).toMatch(/no-such-folder\/r\.md: no such file or folder/);
    expect(unwritable.stderr).not.toMatch(/at .*\.ts:\d+/);
    const missingFile = tb(home, 'import', path.join(home, 'nope.jsonl'));
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toMatch(/nope\.jsonl:0: error: file not found/);
  });
});

describe('tb export', () => {
  it('exports a run as OTLP/JSON that imports back with the same steps', () => {
    const home = freshHome();
    const file = path.join(home, 'native.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'exp-1', steps: 4, failAt: 2 })));
    expect(tb(home, 'import', file).code).toBe(0);
    const out = path.join(home, 'exported.json');
    const r = tb(home, 'export', 'exp-1', '--format', 'otlp', '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(doc.resourceSpans[0].scopeSpans[0].spans).toHaveLength(4);
    const other = freshHome();
    const back = tb(other, 'import', out, '--json');
    expect(back.code, back.stderr).toBe(0);
    const [runId] = back.json().imported[0].runs;
    const original = tb(home, 'show', 'exp-1', '--json').json().steps;
    const roundTrip = tb(other, 'show', runId, '--json').json().steps;
    const shape = (steps: { name: string; type: string; status: string; error: { message: string } | null }[]) =>
      steps.map((s) => [s.name, s.type, s.status, s.error?.message ?? null]);
    expect(shape(roundTrip)).toEqual(shape(original));
  });
});

describe('tb report --format pdf', () => {
  it.skipIf(!fs.existsSync('/usr/bin/chromium'))('prints the blame report to a PDF through headless Chromium', () => {
    const home = freshHome();
    const file = path.join(home, 'r.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'pdf-run', steps: 3, failAt: 1 })));
    expect(tb(home, 'import', file).code).toBe(0);
    const out = path.join(home, 'report.pdf');
    const r = tb(home, 'report', 'pdf-run', '--format', 'pdf', '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const bytes = fs.readFileSync(out);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.length).toBeGreaterThan(1000);
  });
});

describe('tb settings problems', () => {
  it('a typo in settings.json is named in one stderr line, and --json stdout stays one document', () => {
    const home = freshHome();
    fs.writeFileSync(path.join(home, 'settings.json'), JSON.stringify({ scoring: { unhealthy_belo: 0.9 } }));
    const r = tb(home, 'list', '--json');
    expect(r.code).toBe(0);
    expect(r.json()).toEqual([]);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(path.join(home, 'settings.json'));
    expect(lines[0]).toMatch(/unhealthy_belo: unknown setting/);
  });
});
