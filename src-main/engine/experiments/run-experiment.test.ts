import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { ExperimentProgress } from '../../../src-shared/experiments';
import type { RunDetail } from '../../../src-shared/model';
import { EngineError } from '../../../src-shared/result';
import { getRunDetail } from '../store/read-runs';
import { getExperimentDetail, listExperiments } from './summarize-experiment';
import { prepareExperiment, startExperiment } from './run-experiment';
import { fisherExactTwoSided } from './statistics';
import { isAlive, liveCalls, makeStubHome, recordStubRun, stubPids, type StubHome } from '../../../test/support/stub-home';

let home: StubHome;
/** The planner picked a column that does not exist, so search returned every city. */
let failing: RunDetail;

beforeAll(() => {
  home = makeStubHome();
  failing = recordStubRun(home, ['--fault', 'plan']);
});

afterAll(() => {
  for (const pid of stubPids(home)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  home.close();
});

const sourceRow = () => home.db.prepare('SELECT * FROM runs WHERE run_id = ?').get(failing.run.run_id);

describe('a fork experiment on a recorded run', () => {
  it('fixing the search results turns failures into passes, and the replayed prefix makes no model or tool call', async () => {
    const before = sourceRow();
    const events: ExperimentProgress[] = [];
    const changed: string[] = [];
    const r = startExperiment(
      { db: home.db, paths: home.paths, onProgress: (p) => events.push(p), onRunsChanged: (ids) => changed.push(...ids) },
      { source: failing, at: 'search#0', edit: { kind: 'output', output: ['Avalon', 'Brindle'] }, n: 2, parallel: 2, approve: true, label: 'right cities' },
    );
    const s = await r.done;

    expect(s.status).toBe('done');
    expect(s.treatment).toMatchObject({ passed: 2, trials: 2, crashed: 0, diverged: 0 });
    expect(s.control).toMatchObject({ passed: 0, trials: 2, failed: 2 });
    expect(s.p_value).toBeCloseTo(fisherExactTwoSided(2, 0, 0, 2), 12);
    expect(s.effect).toBe(1);
    expect(s.small_n).toBe(true);

    const detail = getExperimentDetail(home.db, s.experiment_id);
    const calls = liveCalls(home);
    expect(detail.trials).toHaveLength(4);
    for (const t of detail.trials) {
      // The stub counts every step body that really ran: only the steps after the fork did.
      expect(calls.get(t.run_id)).toEqual(['write', 'polish']);
      const forked = getRunDetail(home.db, t.run_id);
      const byKey = new Map(forked.steps.map((st) => [st.replay_key, st]));
      expect(byKey.get('plan#0')?.replayed).toBe(true);
      expect(byKey.get('note#0')?.replayed).toBe(true);
      expect(byKey.get('write#0')?.replayed).toBe(false);
      expect(forked.run.provenance).toMatchObject({ source_run_id: failing.run.run_id, experiment_id: s.experiment_id, arm: t.arm });
      expect(t.calls).toBe(2);
      expect(t.tokens).toBe(100);
    }
    // plan (a call with 50 tokens) and note were replayed in each of the 4 trials.
    expect(s.saved).toEqual({ calls: 4, tokens: 200 });
    expect(s.estimate).toMatchObject({ downstream_steps: 2, trials: 4, total: { calls: 8, tokens: 400 }, saved: { calls: 4, tokens: 200 } });
    expect(sourceRow()).toEqual(before);
    expect(changed.sort()).toEqual(detail.trials.map((t) => t.run_id).sort());
    expect(events.at(-1)).toMatchObject({ status: 'done', done: 4, total: 4, running: 0, treatment: { passed: 2, trials: 2 } });
    expect(listExperiments(home.db, { runId: failing.run.run_id }).find((e) => e.experiment_id === s.experiment_id)).toMatchObject({ label: 'right cities', at: 'search' });
  });

  it('a crash after the fork counts as a failure, and a trial past its timeout is killed and counted as failed', async () => {
    const host = { db: home.db, paths: home.paths };
    const crash = startExperiment(host, {
      source: failing,
      at: 'plan#0',
      edit: { kind: 'output', output: { measure: 'population', threshold: 1_000_000, crash: true } },
      n: 1,
      parallel: 2,
      approve: true,
    });
    const hang = startExperiment(host, {
      source: failing,
      at: 'plan#0',
      edit: { kind: 'output', output: { measure: 'population', threshold: 1_000_000, hang: true } },
      n: 1,
      parallel: 2,
      timeoutMs: 4000,
    });
    const [c, h] = await Promise.all([crash.done, hang.done]);

    expect(c.treatment).toMatchObject({ passed: 0, trials: 1, crashed: 1 });
    const crashed = getExperimentDetail(home.db, c.experiment_id).trials.find((t) => t.arm === 'treatment')!;
    expect(crashed.outcome).toBe('crashed');
    expect(crashed.exit_code).toBe(3);
    expect(crashed.detail).toMatch(/before the run ended/);
    // Where to look: the last stderr lines and the whole log, named.
    expect(crashed.stderr_tail).toContain('search backend crashed on the planted plan');
    expect(crashed.detail).toContain(`full log: ${crashed.log_file}`);
    expect(fs.readFileSync(crashed.log_file!, 'utf8')).toContain('search backend crashed');

    expect(h.treatment).toMatchObject({ passed: 0, trials: 1, timeouts: 1 });
    const timedOut = getExperimentDetail(home.db, h.experiment_id).trials.find((t) => t.arm === 'treatment')!;
    expect(timedOut.outcome).toBe('timeout');
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(4000);
    expect(h.control).toMatchObject({ trials: 1, failed: 1 });
    // Killed with its process group: no stub process is left running.
    expect(stubPids(home).filter(isAlive)).toEqual([]);
  });

  it('a changed input before the fork is detected as divergence and the trial counts in neither arm', async () => {
    // Outside the Traceback home: a sandboxed trial does not see the home (only its inbox).
    const topic = path.join(home.calls, 'topic.txt');
    fs.writeFileSync(topic, 'cities over 1 million');
    const recorded = recordStubRun(home, ['--fault', 'plan', '--topic-file', topic]);
    fs.writeFileSync(topic, 'towns over 1 million');
    const s = await startExperiment(
      { db: home.db, paths: home.paths },
      { source: recorded, at: 'search#0', edit: { kind: 'output', output: ['Avalon', 'Brindle'] }, n: 1, parallel: 2, approve: true },
    ).done;

    expect(s.diverged).toBe(2);
    expect(s.treatment).toMatchObject({ trials: 0, diverged: 1, rate: null, wilson: [0, 1] });
    expect(s.control).toMatchObject({ trials: 0, diverged: 1 });
    expect(s.p_value).toBe(1);
    const trials = getExperimentDetail(home.db, s.experiment_id).trials;
    for (const t of trials) expect(t.detail).toMatch(/input of step plan#0 differs/);
  });

  it('an instructions edit at a step that never reads its instructions is flagged as not applied, loudly', async () => {
    const s = await startExperiment(
      { db: home.db, paths: home.paths },
      { source: failing, at: 'search#0', edit: { kind: 'instructions', instructions: 'Only cities over one million.' }, n: 1, parallel: 2, approve: true },
    ).done;

    expect(s.treatment.edit_not_applied).toBe(1);
    expect(s.warnings.join(' ')).toMatch(/Edit not applied in every treatment trial: step "search" never read its instructions/);
    const treatment = getExperimentDetail(home.db, s.experiment_id).trials.find((t) => t.arm === 'treatment')!;
    expect(treatment.edit_applied).toBe(false);
  });

  it('cancelling stops the running trials and kills their processes', async () => {
    const pidsBefore = stubPids(home).length;
    const events: ExperimentProgress[] = [];
    let resolveRunning!: () => void;
    const bothRunning = new Promise<void>((r) => (resolveRunning = r));
    const run = startExperiment(
      {
        db: home.db,
        paths: home.paths,
        onProgress: (p) => {
          events.push(p);
          if (p.running === 2) resolveRunning();
        },
      },
      { source: failing, at: 'plan#0', edit: { kind: 'output', output: { measure: 'population', threshold: 1, hang: true } }, n: 2, parallel: 2, approve: true },
    );
    await bothRunning;
    // Started, but wait until the stub processes are really up (they write their pid first thing).
    await expect.poll(() => stubPids(home).length - pidsBefore, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    run.cancel();
    const s = await run.done;
    expect(s.status).toBe('cancelled');
    expect(s.stop_reason).toBe('cancelled by the user');
    const trials = getExperimentDetail(home.db, s.experiment_id).trials;
    // The treatment hangs, so it was running when cancelled; the control replays the recorded plan and may have failed first.
    expect(trials.find((t) => t.arm === 'treatment' && t.trial === 1)).toMatchObject({ outcome: 'cancelled', detail: 'cancelled while running' });
    expect(trials.find((t) => t.arm === 'treatment' && t.trial === 2)?.outcome).toBe('cancelled');
    expect(trials.every((t) => t.outcome === 'cancelled' || t.outcome === 'fail')).toBe(true);
    expect(stubPids(home).filter(isAlive)).toEqual([]);
  });
});

describe('what a fork refuses to do', () => {
  it('runs a command found in a trace only after the user approves it, once per pipeline and command', async () => {
    const fresh = makeStubHome();
    try {
      const run = recordStubRun(fresh, ['--fault', 'plan']);
      const req = { source: run, at: 'plan#0', edit: { kind: 'output' as const, output: { measure: 'population', threshold: 1_000_000 } }, n: 1 };
      expect(prepareExperiment(fresh.db, req).estimate.approval_needed).toBe(true);
      let refusal: unknown;
      try {
        startExperiment({ db: fresh.db, paths: fresh.paths }, req);
      } catch (err) {
        refusal = err;
      }
      expect(refusal).toBeInstanceOf(EngineError);
      expect((refusal as Error).message).toContain('stub-pipeline.ts');
      expect((refusal as Error).message).toMatch(/approv/);
      expect(fresh.db.prepare('SELECT COUNT(*) AS n FROM experiments').get()).toEqual({ n: 0 });
      expect(fs.existsSync(fresh.paths.experiments) ? fs.readdirSync(fresh.paths.experiments) : []).toEqual([]);

      const started = startExperiment({ db: fresh.db, paths: fresh.paths }, { ...req, approve: true });
      started.cancel();
      expect(prepareExperiment(fresh.db, req).estimate.approval_needed).toBe(false);
      // Another command (here: one more argument) is another approval.
      const changed: RunDetail = { ...run, run: { ...run.run, entry: { ...run.run.entry!, command: [...run.run.entry!.command, '--flaky', '0.5'] } } };
      expect(prepareExperiment(fresh.db, { ...req, source: changed }).estimate.approval_needed).toBe(true);
      expect((await started.done).status).toBe('cancelled');
    } finally {
      fresh.close();
    }
  });

  it('a run imported from another tool has no command to re-run: it is view-only', () => {
    const foreign: RunDetail = { ...failing, run: { ...failing.run, entry: null, source_format: 'otlp' } };
    expect(() => prepareExperiment(home.db, { source: foreign, at: 'plan#0', edit: { kind: 'output', output: 1 }, n: 1 })).toThrow(/cannot be forked: it was imported from a otlp file/);
  });

  it('edits are checked: unknown steps, repeated names, bad JSON and oversized edits are refused', () => {
    const base = { source: failing, n: 1 };
    expect(() => prepareExperiment(home.db, { ...base, at: 'nope', edit: { kind: 'output', output: 1 } })).toThrow(/has no step "nope"/);
    expect(() => prepareExperiment(home.db, { ...base, at: 'plan#0', edit: { kind: 'output', output: Number.NaN } })).toThrow(/JSON cannot represent/);
    expect(() => prepareExperiment(home.db, { ...base, at: 'plan#0', edit: { kind: 'output', output: 'x'.repeat(1_000_001) } })).toThrow(/the limit is 1000000/);
    expect(() => prepareExperiment(home.db, { ...base, at: 'plan#0', edit: { kind: 'instructions', instructions: '  ' } })).toThrow(/non-empty/);
    expect(() => prepareExperiment(home.db, { ...base, at: 'plan#0', edit: { kind: 'output', output: 1 }, n: 0 })).toThrow(/trials per arm/);
    const est = prepareExperiment(home.db, { ...base, at: 'plan', edit: { kind: 'output', output: { measure: 'population', threshold: 1_000_000 } } }).estimate;
    expect(est.fork_step.key).toBe('plan#0');
    expect(est.downstream_steps).toBe(4);
    expect(est.replayed_steps).toBe(0);
  });
});
