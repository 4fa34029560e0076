/**
 * Fork experiments: what the harness adds to each trial, and what
 * parallelism buys.
 *
 * - Per-trial overhead: the wall time of a trial run by the experiment
 *   runner (plan written, process started, run imported, judged) minus the
 *   wall time of starting the same pipeline directly, measured in the same
 *   run on the same machine. Goal: ≤ 100 ms. Process start-up (node + tsx,
 *   ~0.5–1 s here) is in both and cancels out.
 * - Wall time of an N = 8 experiment (16 trials) at parallelism 1 and 2.
 *
 * Pipeline: the experiment stub (src-main/selfcheck/stub-pipeline.ts).
 */
import { execFileSync } from 'node:child_process';
import { startExperiment } from '../src-main/engine/experiments/run-experiment';
import { makeStubHome, recordStubRun, REPO_ROOT, STUB_PIPELINE, type StubHome } from '../test/support/stub-home';
import type { RunDetail } from '../src-shared/model';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function directRunMs(home: StubHome): number {
  const t0 = performance.now();
  execFileSync(process.execPath, ['--import', 'tsx', STUB_PIPELINE, '--fault', 'plan'], {
    cwd: REPO_ROOT,
    env: { ...process.env, TRACEBACK_HOME: home.paths.home, TRACEBACK_REPLAY_PLAN: '' },
    stdio: 'ignore',
  });
  return performance.now() - t0;
}

interface ExperimentTiming {
  wall: number;
  /** From the runner picking the trial to the trial judged. */
  perTrial: number[];
  /** The trial process alone (spawn to exit), as the runner recorded it. */
  processMs: number[];
}

async function experimentMs(home: StubHome, source: RunDetail, n: number, parallel: number): Promise<ExperimentTiming> {
  const t0 = performance.now();
  const starts = new Map<string, number>();
  const perTrial: number[] = [];
  const processMs: number[] = [];
  const s = await startExperiment(
    {
      db: home.db,
      paths: home.paths,
      onProgress: (p) => {
        if (!p.trial) return;
        // From the moment the runner picks the trial (its plan is written next) to the moment it is judged.
        if (p.trial.outcome === 'running') starts.set(p.trial.run_id, performance.now());
        else if (starts.has(p.trial.run_id)) {
          perTrial.push(performance.now() - starts.get(p.trial.run_id)!);
          if (p.trial.duration_ms !== null) processMs.push(p.trial.duration_ms);
        }
      },
    },
    { source, at: 'search#0', edit: { kind: 'output', output: ['Avalon', 'Brindle'] }, n, parallel, approve: true },
  ).done;
  if (s.status !== 'done' || s.treatment.passed !== n || s.control.passed !== 0) throw new Error(`unexpected experiment result: ${JSON.stringify({ status: s.status, t: s.treatment, c: s.control })}`);
  return { wall: performance.now() - t0, perTrial, processMs };
}

export async function benchFork(): Promise<{ lines: string[] }> {
  const home = makeStubHome('tb-bench-fork-');
  try {
    const source = recordStubRun(home, ['--fault', 'plan']);
    // Warm tsx's transform cache and this process's code paths so neither side pays them.
    directRunMs(home);
    await experimentMs(home, source, 1, 1);

    const direct: number[] = [];
    const harnessed: number[] = [];
    const outside: number[] = [];
    // Alternate direct runs and harnessed trials so machine load drifts over both alike.
    for (let round = 0; round < 5; round++) {
      direct.push(directRunMs(home), directRunMs(home));
      const t = await experimentMs(home, source, 1, 1);
      harnessed.push(...t.perTrial);
      t.perTrial.forEach((ms, i) => outside.push(ms - t.processMs[i]));
    }
    const overhead = median(harnessed) - median(direct);

    const p1 = await experimentMs(home, source, 8, 1);
    const p2 = await experimentMs(home, source, 8, 2);
    return {
      lines: [
        `stub pipeline started directly:        median ${median(direct).toFixed(0)} ms (${direct.length} runs)`,
        `same pipeline as a fork trial (P = 1): median ${median(harnessed).toFixed(0)} ms (${harnessed.length} trials)`,
        `per-trial harness overhead:            ${overhead.toFixed(0)} ms (goal ≤ 100 ms) ${overhead <= 100 ? 'ok' : 'OVER GOAL'}`,
        `  of which outside the trial process (plan, spawn, import, judge, store): median ${median(outside).toFixed(1)} ms`,
        `N = 8 experiment (16 trials), P = 1:   ${(p1.wall / 1000).toFixed(1)} s`,
        `N = 8 experiment (16 trials), P = 2:   ${(p2.wall / 1000).toFixed(1)} s (speed-up ${(p1.wall / p2.wall).toFixed(2)}×)`,
      ],
    };
  } finally {
    home.close();
  }
}
