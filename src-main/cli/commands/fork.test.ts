import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../command';
import { runCommand } from '../../../test/support/run-command';
import { createEngine, type Engine } from '../../engine/create-engine';
import { recordStubRun } from '../../../test/support/stub-home';
import type { ExperimentDetail, ExperimentProgress, ExperimentSummary, TrialSummary } from '../../../src-shared/experiments';
import { forkCommand, progressPrinter } from './fork';
import { experimentCommand, experimentsCommand, printCrashes } from './experiments';
import { approvalsCommand } from './approvals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let engine: Engine;
let runId: string;

beforeAll(() => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-fork-cli-'));
  engine = createEngine({ home });
  runId = recordStubRun({ paths: engine.paths, db: engine.db, calls: path.join(home, 'calls') }, ['--fault', 'plan']).run.run_id;
});
afterAll(() => engine.close());

/** Runs a command as `tb` does: usage errors and engine failures become exit codes. */
const tb = (command: Command, argv: string[]) => runCommand(engine, command, argv);

describe('tb fork, tb experiments, tb experiment', () => {
  it('refuses with exit 2, naming the command, until the user approves it', async () => {
    const r = await tb(forkCommand, [runId, '--at', 'search#0', '--output', '["Avalon","Brindle"]', '-n', '1', '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr.join('\n')).toMatch(/stub-pipeline\.ts.*approv/s);
    expect(r.stdout).toEqual([]);
  });

  it('--estimate says what will re-run and that approval is needed, and runs nothing', async () => {
    const r = await tb(forkCommand, [runId, '--at', 'search', '--output', '[]', '-n', '3', '--estimate']);
    expect(r.code).toBe(0);
    const text = r.stdout.join('\n');
    expect(text).toMatch(/re-runs 2 downstream step/);
    expect(text).toMatch(/approval: needed/);
    expect(engine.db.prepare('SELECT COUNT(*) AS n FROM experiments').get()).toEqual({ n: 0 });
  });

  it('--approve alone refuses a command never approved, printing it with the approval hash to pass instead', async () => {
    const r = await tb(forkCommand, [runId, '--at', 'search#0', '--output', '[]', '-n', '1', '--approve']);
    expect(r.code).toBe(2);
    const text = r.stderr.join('\n');
    expect(text).toMatch(/stub-pipeline\.ts/);
    expect(text).toMatch(/--approve-command [0-9a-f]{16}/);
    expect(engine.db.prepare('SELECT COUNT(*) AS n FROM experiments').get()).toEqual({ n: 0 });
  });

  it('runs the experiment once approved and prints the contract JSON; the lists show it with its trials', async () => {
    const refused = await tb(forkCommand, [runId, '--at', 'search#0', '--output', '[]', '-n', '1']);
    const sha = /--approve-command ([0-9a-f]{16})/.exec(refused.stderr.join('\n'))![1];
    const r = await tb(forkCommand, [runId, '--at', 'search#0', '--output', '["Avalon","Brindle"]', '-n', '1', '--parallel', '2', '--approve-command', sha, '--label', 'fix search', '--clopper-pearson', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toHaveLength(1);
    const s = r.json as ExperimentSummary;
    expect(s).toMatchObject({ status: 'done', diverged: 0, crashed: 0, label: 'fix search', at: 'search', run_id: runId });
    expect(s.treatment).toMatchObject({ passed: 1, trials: 1, tokens: 100 });
    expect(s.control).toMatchObject({ passed: 0, trials: 1 });
    expect(s.treatment.wilson).toHaveLength(2);
    expect(s.treatment.clopper_pearson).toHaveLength(2);
    expect(s.p_value).toBe(1);

    const list = (await tb(experimentsCommand, ['--json'])).json as ExperimentSummary[];
    expect(list.map((e) => e.experiment_id)).toContain(s.experiment_id);
    expect(list[0]).toMatchObject({ run_id: runId, at: 'search', label: 'fix search', control: { passed: 0 } });

    const one = (await tb(experimentCommand, [s.experiment_id.slice(0, 10), '--json'])).json as ExperimentDetail;
    expect(one.trials.map((t) => [t.arm, t.outcome])).toEqual([
      ['control', 'fail'],
      ['treatment', 'pass'],
    ]);
    for (const t of one.trials) {
      expect(t.run_id).toMatch(new RegExp(`^${s.experiment_id}-[ct]1$`));
      expect(t.duration_ms).toBeGreaterThan(0);
      expect(t.tokens).toBe(100);
    }
    const human = await tb(experimentCommand, [s.experiment_id]);
    expect(human.stdout.join('\n')).toMatch(/Fisher exact test, two-sided: p = 1/);
  }, 60_000);

  it('tb approvals lists the approved command with its hash, and --revoke makes it need approval again', async () => {
    const list = await tb(approvalsCommand, ['--json']);
    const approvals = list.json as { command_hash: string; pipeline: string; shown: string }[];
    expect(approvals).toHaveLength(1);
    expect(approvals[0].shown).toMatch(/stub-pipeline\.ts/);
    expect((await tb(approvalsCommand, [])).stdout.join('\n')).toContain(approvals[0].command_hash.slice(0, 16));
    expect((await tb(approvalsCommand, ['--revoke', 'xyz'])).code).toBe(2);
    const revoked = await tb(approvalsCommand, ['--revoke', approvals[0].command_hash.slice(0, 16)]);
    expect(revoked.stdout.join()).toMatch(/revoked 1 approval/);
    expect((await tb(approvalsCommand, ['--json'])).json).toEqual([]);
    const again = await tb(forkCommand, [runId, '--at', 'search#0', '--output', '[]', '-n', '1', '--approve']);
    expect(again.code).toBe(2);
  });

  it('bad input is exit 2 with the reason: a non-JSON output, two edits, an unknown step, a bad path oracle', async () => {
    const base = [runId, '-n', '1', '--approve'];
    expect((await tb(forkCommand, [...base, '--at', 'plan#0', '--output', 'not json'])).stderr.join()).toMatch(/--output is not valid JSON/);
    expect((await tb(forkCommand, [...base, '--at', 'plan#0', '--output', '1', '--instructions-file', '/x'])).code).toBe(2);
    const unknown = await tb(forkCommand, [...base, '--at', 'nope', '--output', '1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.join()).toMatch(/has no step "nope"/);
    expect((await tb(forkCommand, [...base, '--at', 'plan#0', '--output', '1', '--expect-json-path', 'noequals'])).code).toBe(2);
    expect((await tb(forkCommand, [...base, '--at', 'plan#0', '--output', '1', '--expect-regex', '('])).stderr.join()).toMatch(/not a valid regular expression/);
  });

  it('progress goes to stderr as one line per finished trial when stderr is not a terminal', () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (t: string) => lines.push(t) } as unknown as NodeJS.WriteStream;
    const p = progressPrinter(stream);
    const base: ExperimentProgress = { experiment_id: 'e', status: 'running', done: 1, total: 4, running: 1, control: { passed: 0, trials: 1 }, treatment: { passed: 0, trials: 0 } };
    p.onEvent({ ...base, trial: { arm: 'control', trial: 1, run_id: 'r', outcome: 'fail', detail: 'verdict fail', started_at: 1, ended_at: 2, duration_ms: 1, tokens: 0, cost_usd: 0, calls: 0, replayed_steps: 0, exit_code: 0, log_file: null, stderr_tail: null, edit_applied: true } });
    p.onEvent({ ...base, trial: { arm: 'treatment', trial: 1, run_id: 'r2', outcome: 'running', detail: null, started_at: 1, ended_at: null, duration_ms: null, tokens: 0, cost_usd: 0, calls: 0, replayed_steps: 0, exit_code: null, log_file: null, stderr_tail: null, edit_applied: null } });
    p.end();
    expect(lines).toEqual(['trial 1/4: control #1 fail — verdict fail\n']);
  });
});

describe('a crashed trial in the terminal', () => {
  const trial = (n: number, stderr: string | null): TrialSummary => ({
    arm: 'treatment', trial: n, run_id: `t${n}`, outcome: 'crashed', detail: 'the process exited 1 before the run ended', started_at: 1, ended_at: 2,
    duration_ms: 1, tokens: 0, cost_usd: 0, calls: 0, replayed_steps: 0, exit_code: 1, log_file: `/tmp/exp/treatment-${n}.log`, stderr_tail: stderr, edit_applied: null,
  });

  it('shows its stderr and log once per distinct crash, and counts the rest', () => {
    const lines: string[] = [];
    const missing = 'ModuleNotFoundError: No module named \'policy_lib\'';
    printCrashes([trial(1, missing), trial(2, missing), trial(3, 'MemoryError')], (l) => lines.push(l));
    expect(lines).toContain('treatment #1 crashed (and 1 more trial(s) with the same stderr): the process exited 1 before the run ended');
    expect(lines).toContain(`    ${missing}`);
    expect(lines).toContain('  full log: /tmp/exp/treatment-1.log');
    expect(lines.at(-1)).toBe('  1 more crashed trial(s): tb experiment ID shows each');
  });
});
