import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPLAY_PLAN_ENV, type ForkEdit } from './replay-plan.js';
import { buildReplayPlan } from '../../../src-main/engine/experiments/build-replay-plan';
import type { Provenance, RunEndRecord, RunStartRecord, TraceRecord } from './trace-format.js';
import { currentStep, pipeline, step } from './index.js';
import { resetEnvPlanForTests } from './pipeline.js';
import { foldRun } from './test-support/fold-run.js';
import { onlyRun, readRuns, tempHome } from './test-support/read-runs.js';

afterEach(() => {
  delete process.env[REPLAY_PLAN_ENV];
  resetEnvPlanForTests();
});

const answer = step('answer', 'llm', async (q: string) => `answer to ${q}`);
const answerWithPersona = step('answer', 'llm', async (q: string) => `[${currentStep().instructions('You are terse.')}] ${q}`);

/** An evaluation loop: one process, one run per question. */
async function evaluationLoop(home: string, body = answer): Promise<void> {
  for (const q of ['alpha', 'beta', 'gamma']) await pipeline('eval-item', () => body(q), { home, input: { question: q } });
}

/** Runs `body` as a fork trial would: a new process (run counters from 0) with the plan in the environment. */
async function asTrial(records: TraceRecord[], edit: ForkEdit, body: (home: string) => Promise<void>): Promise<Map<string, TraceRecord[]>> {
  const home = tempHome();
  const plan = buildReplayPlan(foldRun(records), { experimentId: 'exp-1', arm: 'treatment', trial: 1, forkStepKey: 'answer#0', edit, inbox: join(home, 'inbox'), runId: 'fork-1' });
  const planPath = join(home, 'plan.json');
  writeFileSync(planPath, JSON.stringify(plan));
  process.env[REPLAY_PLAN_ENV] = planPath;
  resetEnvPlanForTests();
  await body(home);
  return readRuns(home);
}

const endOf = (records: TraceRecord[]) => records.find((r) => r.type === 'run-end') as RunEndRecord & { provenance: Provenance };

describe('forking one run of a process that records several', () => {
  it('a fork of the second run of an evaluation loop forks that run, and the trial process records no other', async () => {
    const home = tempHome();
    await evaluationLoop(home);
    const second = [...readRuns(home).values()].find((r) => ((r[0] as RunStartRecord).input as { question: string }).question === 'beta')!;
    expect((second[0] as RunStartRecord).entry).toMatchObject({ run_index: 1, input_fingerprint: expect.stringMatching(/^sha256:/) });

    const written = await asTrial(second, { kind: 'output', output: 'EDITED' }, (h) => evaluationLoop(h));

    expect([...written.keys()]).toEqual(['fork-1']);
    const forked = written.get('fork-1')!;
    expect((forked[0] as RunStartRecord).input).toEqual({ question: 'beta' });
    expect(endOf(forked)).toMatchObject({ output: 'EDITED', provenance: { edit_applied: true } });
    expect(endOf(forked).provenance.diverged).toBeUndefined();
  });
});

describe('an edit the pipeline never consumed', () => {
  it('an instructions edit at a step that never reads its instructions is reported as not applied', async () => {
    const home = tempHome();
    await pipeline('eval-item', () => answer('alpha'), { home, input: { question: 'alpha' } });
    const written = await asTrial(onlyRun(home), { kind: 'instructions', instructions: 'Be verbose.' }, async (h) => {
      await pipeline('eval-item', () => answer('alpha'), { home: h, input: { question: 'alpha' } });
    });
    expect(endOf(written.get('fork-1')!).provenance.edit_applied).toBe(false);
  });

  it('an instructions edit at a step that reads its instructions is applied and reaches the step', async () => {
    const home = tempHome();
    await pipeline('persona', () => answerWithPersona('alpha'), { home, input: { question: 'alpha' } });
    const written = await asTrial(onlyRun(home), { kind: 'instructions', instructions: 'Be verbose.' }, async (h) => {
      await pipeline('persona', () => answerWithPersona('alpha'), { home: h, input: { question: 'alpha' } });
    });
    expect(endOf(written.get('fork-1')!)).toMatchObject({ output: '[Be verbose.] alpha', provenance: { edit_applied: true } });
  });
});

describe('the environment a re-run needs', () => {
  it('the entry keeps the interpreter path with its value and needed secrets by name only', async () => {
    const home = tempHome();
    process.env.NODE_PATH = '/opt/my-pipeline/node_modules';
    process.env.MY_PROVIDER_KEY = 'sk-live-do-not-record';
    try {
      await pipeline('needs-key', () => 1, { home, needsEnv: ['MY_PROVIDER_KEY'] });
    } finally {
      delete process.env.NODE_PATH;
      delete process.env.MY_PROVIDER_KEY;
    }
    const [file] = [...readRuns(home).keys()];
    const start = onlyRun(home)[0] as RunStartRecord;
    expect(start.entry?.env).toMatchObject({ NODE_PATH: '/opt/my-pipeline/node_modules', MY_PROVIDER_KEY: '[REDACTED]' });
    expect(readFileSync(join(home, 'inbox', `${file}.jsonl`), 'utf8')).not.toContain('sk-live-do-not-record');
  });
});
