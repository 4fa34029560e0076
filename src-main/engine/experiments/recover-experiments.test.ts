import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS } from '../store/migrations/index';
import { migrate, schemaVersion, type Db } from '../store/open-database';
import { getExperimentDetail } from './summarize-experiment';
import { recoverExperiments, RUNNER_TOKEN } from './recover-experiments';
import { isAlive, makeStubHome, recordStubRun, REPO_ROOT, stubPids, type StubHome } from '../../../test/support/stub-home';

const RUNNER = fileURLToPath(new URL('../../../test/support/experiment-runner-script.ts', import.meta.url));
const homes: StubHome[] = [];

afterAll(() => {
  for (const h of homes) {
    for (const pid of stubPids(h)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    h.close();
  }
});

describe('experiments across a restart', () => {
  it('killing the runner mid-experiment leaves it interrupted after a restart, with its finished trials kept', async () => {
    const home = makeStubHome();
    homes.push(home);
    const run = recordStubRun(home, ['--fault', 'plan']);
    // Control trials replay the recorded plan and fail at once; treatment trials hang until killed.
    const edit = { kind: 'output', output: { measure: 'population', threshold: 1_000_000, hang: true } };
    const runner = spawn(process.execPath, ['--import', 'tsx', RUNNER, home.paths.home, run.run.run_id, 'plan#0', JSON.stringify(edit), '2', '1'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const experimentId = await new Promise<string>((resolve) => runner.stdout.once('data', (b: Buffer) => resolve(b.toString().trim().split('\n')[0])));
    const outcomeOf = (arm: string, trial: number) =>
      (home.db.prepare('SELECT outcome FROM trials WHERE experiment_id = ? AND arm = ? AND trial = ?').get(experimentId, arm, trial) as { outcome: string }).outcome;
    await expect.poll(() => outcomeOf('treatment', 1), { timeout: 20_000, interval: 100 }).toBe('running');
    expect(outcomeOf('control', 1)).toBe('fail');
    // Wait for the hanging trial's process to be up (the recording, control 1 and treatment 1 each wrote a pid),
    // so that it can be cleaned up after its runner is gone.
    await expect.poll(() => stubPids(home).length, { timeout: 20_000, interval: 100 }).toBe(3);

    runner.kill('SIGKILL');
    await new Promise((r) => runner.once('exit', r));
    // The runner's own trial process is an orphan now; a real user would find it dead or finishing.
    for (const pid of stubPids(home)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');

    expect(recoverExperiments(home.db)).toEqual([experimentId]);
    const e = getExperimentDetail(home.db, experimentId);
    expect(e.status).toBe('interrupted');
    expect(e.stop_reason).toMatch(/stopped/);
    expect(e.control).toMatchObject({ trials: 1, failed: 1 });
    expect(e.trials.map((t) => [t.arm, t.trial, t.outcome])).toEqual([
      ['control', 1, 'fail'],
      ['treatment', 1, 'interrupted'],
      ['control', 2, 'interrupted'],
      ['treatment', 2, 'interrupted'],
    ]);
    // A second start finds nothing more to recover.
    expect(recoverExperiments(home.db)).toEqual([]);
  }, 60_000);

  it('an experiment another live process is running is left alone', () => {
    const home = makeStubHome();
    homes.push(home);
    home.db
      .prepare(
        `INSERT INTO experiments (experiment_id, source_run_id, pipeline, fork_step_key, fork_step_name, edit, oracle, n_per_arm, parallel, timeout_ms, status, runner_pid, created_at)
         VALUES ('exp-live', 'r', 'p', 'a#0', 'a', '{"kind":"output","output":1}', '{"kind":"verdict"}', 1, 1, 1000, 'running', 4242, 1)`,
      )
      .run();
    expect(recoverExperiments(home.db, (pid) => pid === 4242)).toEqual([]);
    expect(recoverExperiments(home.db, () => false)).toEqual(['exp-live']);
  });

  it('an experiment of an engine that died inside this same process (a crashed worker) is interrupted; this engine\'s own are not', () => {
    const home = makeStubHome();
    homes.push(home);
    const insert = home.db.prepare(
      `INSERT INTO experiments (experiment_id, source_run_id, pipeline, fork_step_key, fork_step_name, edit, oracle, n_per_arm, parallel, timeout_ms, status, runner_pid, options, created_at)
       VALUES (?, 'r', 'p', 'a#0', 'a', '{"kind":"output","output":1}', '{"kind":"verdict"}', 1, 1, 1000, 'running', ?, ?, 1)`,
    );
    insert.run('exp-mine', process.pid, JSON.stringify({ runner_token: RUNNER_TOKEN }));
    insert.run('exp-dead-worker', process.pid, JSON.stringify({ runner_token: 'token-of-a-worker-that-crashed' }));
    expect(recoverExperiments(home.db)).toEqual(['exp-dead-worker']);
  });

  it('migration 0003 adds experiments, trials and approvals to a version-2 database and keeps its runs', () => {
    const db = new Database(':memory:') as Db;
    migrate(db, MIGRATIONS.slice(0, 2));
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('r1', 'p', 'ok', 1, 1, 1)").run();
    migrate(db, MIGRATIONS.slice(0, 3));
    expect(schemaVersion(db)).toBe(3);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['experiments', 'trials', 'command_approvals']));
    expect(db.prepare('SELECT pipeline FROM runs').get()).toEqual({ pipeline: 'p' });
  });
});
