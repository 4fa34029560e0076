import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPLAY_PLAN_ENV, type ForkEdit } from '../../src-shared/replay-plan';
import { buildReplayPlan } from '../engine/experiments/build-replay-plan';
import type { RunDetail } from '../../src-shared/model';
import { importedRun, stepOf, tempHome } from '../../test/support/demo-runs';
import { correctedPlan, FIXED_PLANNER_INSTRUCTIONS, runResearchTeam } from './research-team';

async function recordPlanted(): Promise<{ home: string; detail: RunDetail }> {
  const home = tempHome();
  const r = await runResearchTeam({ home });
  return { home, detail: importedRun(home, r.runId!) };
}

/** Runs `trials` paired trials in-process, as the experiment runner would through the entry command. */
async function experiment(detail: RunDetail, forkStepKey: string, edit: ForkEdit, trials = 8) {
  const passes = { treatment: 0, control: 0 };
  let diverged = 0;
  for (let trial = 1; trial <= trials; trial++) {
    for (const arm of ['treatment', 'control'] as const) {
      const home = tempHome();
      const plan = buildReplayPlan(detail, { experimentId: 'exp', arm, trial, forkStepKey, edit, inbox: join(home, 'inbox') });
      const r = await runResearchTeam({ home, replayPlan: plan, entry: null });
      const forked = importedRun(home, r.runId!);
      expect(forked.run.provenance).toMatchObject({ source_run_id: detail.run.run_id, arm, trial });
      if (forked.run.verdict?.pass) passes[arm]++;
      if ((forked.run.extra.provenance as { diverged?: boolean } | undefined)?.diverged || forked.run.provenance?.diverged) diverged++;
    }
  }
  return { passes, diverged };
}

describe('the research-team demo', () => {
  it('the planted run fails only at the end: the planner chose metro_population, and the answer wrongly names Dunmore and Lenhal', async () => {
    const { detail } = await recordPlanted();
    expect(detail.run.verdict).toMatchObject({ pass: false, expected: ['Port Aurel', 'Vessen', 'Kaltra'] });
    expect(detail.run.verdict?.detail).toContain('wrongly includes Dunmore, Lenhal');
    expect(stepOf(detail, 'planner#0').output).toMatchObject({ measure: 'metro_population' });
    // Every later agent did its job faithfully: the critic even approved.
    expect(stepOf(detail, 'critic#0').output).toMatchObject({ approved: true });
    expect(detail.steps.map((s) => s.replay_key)).toEqual([
      'planner#0', 'researcher#0', 'researcher#0/query_table#0', 'researcher#0/summarize_findings#0', 'writer#0', 'critic#0',
    ]);
  });

  it('the fixed variant passes', async () => {
    const home = tempHome();
    const r = await runResearchTeam({ home, variant: 'fixed' });
    expect(r.pass).toBe(true);
    expect(importedRun(home, r.runId!).run.verdict?.pass).toBe(true);
  });

  it('forking at the planner with the corrected plan: the treatment passes at least 7 of 8 trials, the control at most 1', async () => {
    const { detail } = await recordPlanted();
    const { passes, diverged } = await experiment(detail, 'planner#0', { kind: 'output', output: correctedPlan() as never });
    expect(diverged).toBe(0);
    expect(passes.treatment).toBeGreaterThanOrEqual(7);
    expect(passes.control).toBeLessThanOrEqual(1);
  });

  it('forking at the planner with corrected instructions works the same way', async () => {
    const { detail } = await recordPlanted();
    const { passes, diverged } = await experiment(detail, 'planner#0', { kind: 'instructions', instructions: FIXED_PLANNER_INSTRUCTIONS });
    expect(diverged).toBe(0);
    expect(passes.treatment).toBeGreaterThanOrEqual(7);
    expect(passes.control).toBeLessThanOrEqual(1);
  });

  it('forking at the writer with a cosmetic edit (same cities as a bullet list) changes nothing: both arms fail', async () => {
    const { detail } = await recordPlanted();
    const recorded = stepOf(detail, 'researcher#0').output as { cities: string[] };
    const bullets = `Cities in Aurelia over the threshold:\n${recorded.cities.map((c) => `- ${c}`).join('\n')}`;
    const { passes } = await experiment(detail, 'writer#0', { kind: 'output', output: bullets });
    expect(passes).toEqual({ treatment: 0, control: 0 });
  });

  it('the recorded entry command re-runs the pipeline as a fork trial from TRACEBACK_REPLAY_PLAN', async () => {
    const { detail } = await recordPlanted();
    const entry = detail.run.entry!;
    const home = tempHome();
    const plan = buildReplayPlan(detail, {
      experimentId: 'exp-spawn', arm: 'treatment', trial: 3, forkStepKey: 'planner#0', edit: { kind: 'output', output: correctedPlan() as never },
      inbox: join(home, 'inbox'), runId: 'spawned-trial',
    });
    const planPath = join(home, 'plan.json');
    writeFileSync(planPath, JSON.stringify(plan));
    const child = spawnSync(entry.command[0], entry.command.slice(1), {
      cwd: entry.cwd,
      env: { ...process.env, [REPLAY_PLAN_ENV]: planPath, TRACEBACK_HOME: join(home, 'unused-home') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.stderr).toBe('');
    expect(readdirSync(join(home, 'inbox'))).toEqual(['spawned-trial.jsonl']);
    const forked = importedRun(home, 'spawned-trial');
    expect(forked.run.provenance).toMatchObject({ experiment_id: 'exp-spawn', arm: 'treatment', trial: 3 });
    expect(stepOf(forked, 'planner#0')).toMatchObject({ replayed: true, output: correctedPlan() });
    expect(forked.run.verdict?.pass).toBe(true);
  });
});
