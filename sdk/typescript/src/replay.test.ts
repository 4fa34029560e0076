import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPLAY_PLAN_ENV } from './replay-plan.js';
import { buildReplayPlan, type BuildReplayPlanOptions } from '../../../src-main/engine/experiments/build-replay-plan';
import type { TraceRecord } from './trace-format.js';
import { clearMocks, currentStep, ModelChangeRefusedError, pipeline, registerMock, ReplayedError, SideEffectRefusedError, step, tb } from './index.js';
import { resetEnvPlanForTests } from './pipeline.js';
import { foldRun } from './test-support/fold-run.js';
import { onlyRun, readRuns, stepByKey, stepStarts, tempHome } from './test-support/read-runs.js';

afterEach(() => {
  clearMocks();
  delete process.env[REPLAY_PLAN_ENV];
  resetEnvPlanForTests();
});

/** A four-step pipeline whose every function counts its calls. */
function makePipeline(opts: { query?: string; sideEffect?: boolean; model?: string } = {}) {
  const calls = { retrieve: 0, rerank: 0, generate: 0, notify: 0, post: 0 };
  let seenByPost: unknown;
  const retrieve = step('retrieve', 'retrieval', async (q: string) => {
    calls.retrieve++;
    return [`passage about ${q}`, 'unrelated passage'];
  });
  const rerank = step('rerank', 'generic', (passages: string[]) => {
    calls.rerank++;
    return passages.slice(0, 1);
  });
  const generate = step('generate', 'llm', async (ctx: string[]) => {
    calls.generate++;
    currentStep().setModel(opts.model ?? 'sim-a');
    const style = currentStep().instructions('answer briefly');
    return `${style}: ${ctx[0]}`;
  });
  const notify = step('notify', 'tool', async (text: string) => {
    calls.notify++;
    return `sent ${text.length} chars`;
  }, { sideEffect: opts.sideEffect ?? false });
  const post = step('post', 'generic', (answer: string) => {
    calls.post++;
    seenByPost = answer;
    return answer.toUpperCase();
  });
  const run = (home: string, extra: Record<string, unknown> = {}) =>
    pipeline('rag', async () => {
      const passages = rerank(await retrieve(opts.query ?? 'tides'));
      const answer = await generate(passages);
      await notify(answer);
      return post(answer);
    }, { home, ...extra });
  return { calls, run, seen: () => seenByPost };
}

async function recordSource(): Promise<{ records: TraceRecord[]; home: string }> {
  const home = tempHome();
  await makePipeline().run(home);
  return { records: onlyRun(home), home };
}

function planFor(records: TraceRecord[], over: Partial<BuildReplayPlanOptions> & { inbox: string }) {
  return buildReplayPlan(foldRun(records), {
    experimentId: 'exp-1',
    arm: 'treatment',
    trial: 0,
    forkStepKey: 'generate#0',
    edit: { kind: 'output', output: 'EDITED ANSWER' },
    ...over,
  });
}

function provenanceAtEnd(records: TraceRecord[]) {
  const end = records.find((r) => r.type === 'run-end') as { provenance?: { diverged?: boolean; divergence?: string } };
  return end.provenance;
}

describe('fork replay', () => {
  it('the replayed prefix makes zero calls to the wrapped functions, and the treatment sees the edited output downstream', async () => {
    const { records } = await recordSource();
    const home = tempHome();
    const p = makePipeline();
    const out = await p.run(home, { replayPlan: planFor(records, { inbox: join(home, 'inbox'), runId: 'fork-t0' }) });

    expect(p.calls).toEqual({ retrieve: 0, rerank: 0, generate: 0, notify: 1, post: 1 });
    expect(p.seen()).toBe('EDITED ANSWER');
    expect(out).toBe('EDITED ANSWER');
    const forked = readRuns(home).get('fork-t0')!;
    expect(forked[0]).toMatchObject({ type: 'run-start', tags: { experiment: 'exp-1', arm: 'treatment' }, provenance: { source_run_id: records[0].run_id, arm: 'treatment', fork_step_key: 'generate#0' } });
    expect(stepByKey(forked, 'retrieve#0').end).toMatchObject({ replayed: true, output: ['passage about tides', 'unrelated passage'] });
    expect(stepByKey(forked, 'generate#0').start.metadata).toMatchObject({ fork_point: true, fork_edit: 'output' });
    expect(stepByKey(forked, 'post#0').end?.replayed).toBeUndefined();
    expect(provenanceAtEnd(forked)?.diverged).toBeUndefined();
  });

  it('the control arm gets the recorded output at the fork point', async () => {
    const { records } = await recordSource();
    const home = tempHome();
    const p = makePipeline();
    await p.run(home, { replayPlan: planFor(records, { inbox: join(home, 'inbox'), arm: 'control' }) });
    expect(p.calls.generate).toBe(0);
    expect(p.seen()).toBe('answer briefly: passage about tides');
  });

  it('an input that changed before the fork marks the run diverged, and strict mode stops replaying', async () => {
    const { records } = await recordSource();
    const home = tempHome();
    const p = makePipeline({ query: 'volcanoes' });
    await p.run(home, { replayPlan: planFor(records, { inbox: join(home, 'inbox') }) });
    const forked = onlyRun(home);
    const prov = provenanceAtEnd(forked);
    expect(prov?.diverged).toBe(true);
    expect(prov?.divergence).toContain('input of step retrieve#0 differs');
    // Strict: from the mismatch on, steps run live instead of returning recorded outputs.
    expect(p.calls.retrieve).toBe(1);
    expect(p.calls.rerank).toBe(1);
  });

  it('in warn mode a changed input is noted but the prefix is still replayed and the run is not diverged', async () => {
    const { records } = await recordSource();
    const home = tempHome();
    const p = makePipeline({ query: 'volcanoes' });
    await p.run(home, { replayPlan: planFor(records, { inbox: join(home, 'inbox'), mode: 'warn' }) });
    const prov = provenanceAtEnd(onlyRun(home));
    expect(prov?.diverged).toBeUndefined();
    expect(prov?.divergence).toContain('retrieve#0');
    expect(p.calls.retrieve).toBe(0);
  });

  it('a step the recording never had, before the fork, marks the run diverged', async () => {
    const { records } = await recordSource();
    const home = tempHome();
    const extraStep = step('surprise', 'tool', () => 1);
    await pipeline('rag', async () => {
      extraStep();
    }, { home, replayPlan: planFor(records, { inbox: join(home, 'inbox') }) });
    const prov = provenanceAtEnd(onlyRun(home));
    expect(prov?.diverged).toBe(true);
    expect(prov?.divergence).toContain('surprise#0');
    expect(prov?.divergence).toContain('never reached');
  });

  it('an instructions edit runs the fork step live, with the new instructions only in the treatment', async () => {
    const { records } = await recordSource();
    const seen: Record<string, unknown> = {};
    for (const arm of ['treatment', 'control'] as const) {
      const home = tempHome();
      const p = makePipeline();
      await p.run(home, { replayPlan: planFor(records, { inbox: join(home, 'inbox'), arm, edit: { kind: 'instructions', instructions: 'answer in French' } }) });
      expect(p.calls.generate).toBe(1);
      expect(p.calls.retrieve).toBe(0);
      seen[arm] = p.seen();
    }
    expect(seen).toEqual({ treatment: 'answer in French: passage about tides', control: 'answer briefly: passage about tides' });
  });

  it('an instructions edit on an agent step reaches the model call inside it', async () => {
    const make = (seen: string[]) => {
      const model = step('model-call', 'llm', () => {
        seen.push(currentStep().instructions('default persona'));
        return 'ok';
      });
      return async () => runStepAgent(model);
    };
    const runStepAgent = (model: () => string) => step('agent', 'agent', () => model())();
    const home0 = tempHome();
    await pipeline('agentic', make([]), { home: home0 });
    const home = tempHome();
    const seen: string[] = [];
    await pipeline('agentic', make(seen), { home, replayPlan: planFor(onlyRun(home0), { inbox: join(home, 'inbox'), forkStepKey: 'agent#0', edit: { kind: 'instructions', instructions: 'new persona' } }) });
    expect(seen).toEqual(['new persona']);
  });

  it('a side-effect tool is refused in a fork unless a mock is registered', async () => {
    const home0 = tempHome();
    await makePipeline({ sideEffect: true }).run(home0);
    const records = onlyRun(home0);

    const home = tempHome();
    const p = makePipeline({ sideEffect: true });
    const outcome = await p.run(home, { replayPlan: planFor(records, { inbox: join(home, 'inbox') }) }).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(SideEffectRefusedError);
    expect(p.calls.notify).toBe(0);
    const forked = onlyRun(home);
    expect(stepByKey(forked, 'notify#0').end).toMatchObject({ status: 'error', error: { type: 'SideEffectRefusedError' } });
    expect(provenanceAtEnd(forked)?.diverged).toBe(true);

    const home2 = tempHome();
    const mocked: string[] = [];
    registerMock('notify', (text: string) => {
      mocked.push(text);
      return 'mock sent';
    });
    const p2 = makePipeline({ sideEffect: true });
    await p2.run(home2, { replayPlan: planFor(records, { inbox: join(home2, 'inbox') }) });
    expect(p2.calls.notify).toBe(0);
    expect(mocked).toEqual(['EDITED ANSWER']);
    expect(stepByKey(onlyRun(home2), 'notify#0').end).toMatchObject({ output: 'mock sent', metadata: { mocked: true } });
  });

  it('a live step that switches to another model than the recorded one is refused unless the plan allows it', async () => {
    const { records } = await recordSource();
    const edit = { kind: 'instructions' as const, instructions: 'x' };
    const home = tempHome();
    const refused = await makePipeline({ model: 'sim-b' }).run(home, { replayPlan: planFor(records, { inbox: join(home, 'inbox'), edit }) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ModelChangeRefusedError);
    expect(provenanceAtEnd(onlyRun(home))?.diverged).toBe(true);

    const home2 = tempHome();
    const allowed = await makePipeline({ model: 'sim-b' }).run(home2, { replayPlan: planFor(records, { inbox: join(home2, 'inbox'), edit, allowModelChange: true }) });
    expect(allowed).toBe('X: PASSAGE ABOUT TIDES');
  });

  it('clock, random and id values drawn before the fork are replayed, so inputs built from them still match', async () => {
    const body = (seenRandom: number[]) => {
      const tagRun = step('tag', 'generic', (x: { r: number; id: string }) => x);
      const fork = step('fork-here', 'llm', () => tb.random());
      return async () => {
        const r = tb.random();
        seenRandom.push(r);
        tagRun({ r, id: tb.id() });
        return fork();
      };
    };
    const home0 = tempHome();
    const recorded: number[] = [];
    await pipeline('nd', body(recorded), { home: home0 });
    const records = onlyRun(home0);

    const home = tempHome();
    const replayed: number[] = [];
    await pipeline('nd', body(replayed), { home, replayPlan: planFor(records, { inbox: join(home, 'inbox'), forkStepKey: 'fork-here#0', edit: { kind: 'instructions', instructions: '' } }) });
    expect(replayed).toEqual(recorded);
    const forked = onlyRun(home);
    expect(provenanceAtEnd(forked)?.diverged).toBeUndefined();
    expect(stepByKey(forked, 'tag#0').end?.replayed).toBe(true);
    // After the fork, values are live again.
    expect(stepByKey(forked, 'fork-here#0').end?.output).not.toBe(stepByKey(records, 'fork-here#0').end?.output);
  });

  it('a step that failed in the recording fails the same way when replayed, sync or async', async () => {
    const failing = () => ({
      asyncFail: step('lookup', 'tool', async () => {
        throw Object.assign(new Error('not found'), { status: 404 });
      }),
      syncFail: step('parse', 'generic', (): number => {
        throw new SyntaxError('bad json');
      }),
      fork: step('final', 'llm', () => 'done'),
    });
    const body = (s: ReturnType<typeof failing>, caught: unknown[]) => async () => {
      try {
        await s.asyncFail();
      } catch (e) {
        caught.push(e);
      }
      try {
        s.syncFail();
      } catch (e) {
        caught.push(e);
      }
      return s.fork();
    };
    const home0 = tempHome();
    await pipeline('errs', body(failing(), []), { home: home0 });
    const home = tempHome();
    const caught: unknown[] = [];
    await pipeline('errs', body(failing(), caught), { home, replayPlan: planFor(onlyRun(home0), { inbox: join(home, 'inbox'), forkStepKey: 'final#0' }) });
    expect(caught).toHaveLength(2);
    expect(caught[0]).toBeInstanceOf(ReplayedError);
    expect(caught[0]).toMatchObject({ name: 'Error', message: 'not found', status: 404 });
    expect(caught[1]).toMatchObject({ name: 'SyntaxError', message: 'bad json' });
  });

  it('the children of a replayed step are written into the forked run as replayed steps', async () => {
    const make = () => {
      const leaf = step('leaf', 'tool', (n: number) => n * 2);
      const agent = step('agent', 'agent', (n: number) => leaf(n) + leaf(n + 1));
      const fork = step('fork', 'llm', (n: number) => n);
      return async () => fork(agent(1));
    };
    const home0 = tempHome();
    await pipeline('tree', make(), { home: home0 });
    const home = tempHome();
    const out = await pipeline('tree', make(), { home, replayPlan: planFor(onlyRun(home0), { inbox: join(home, 'inbox'), forkStepKey: 'fork#0', edit: { kind: 'output', output: 99 } }) });
    expect(out).toBe(99);
    const forked = onlyRun(home);
    const starts = stepStarts(forked);
    expect(starts.map((s) => s.replay_key)).toEqual(['agent#0', 'agent#0/leaf#0', 'agent#0/leaf#1', 'fork#0']);
    expect(starts[1].parent_id).toBe(starts[0].step_id);
    expect(stepByKey(forked, 'agent#0/leaf#1').end).toMatchObject({ replayed: true, output: 4 });
  });

  it('a plan named by TRACEBACK_REPLAY_PLAN is followed by the run it targets, and the trial process records no other run', async () => {
    const { records } = await recordSource();
    const home = tempHome();
    const planPath = join(home, 'plan.json');
    writeFileSync(planPath, JSON.stringify(planFor(records, { inbox: join(home, 'inbox'), runId: 'from-env' })));
    process.env[REPLAY_PLAN_ENV] = planPath;
    resetEnvPlanForTests(); // a trial is a new process: it counts its runs from 0
    const first = makePipeline();
    await first.run(home);
    const second = makePipeline();
    await second.run(home);
    expect(first.calls.retrieve).toBe(0);
    expect(second.calls.retrieve).toBe(1);
    expect(readRuns(home).get('from-env')?.[0]).toMatchObject({ provenance: { experiment_id: 'exp-1' } });
    expect([...readRuns(home).keys()]).toEqual(['from-env']);
  });

  it('an unreadable plan fails the pipeline loudly instead of recording an ordinary run', async () => {
    const home = tempHome();
    const planPath = join(home, 'plan.json');
    writeFileSync(planPath, '{"v": 1, "arm": "sideways"}');
    process.env[REPLAY_PLAN_ENV] = planPath;
    await expect(makePipeline().run(home)).rejects.toThrow(/replay plan.*source_run_id/);
  });
});

describe('a replay plan read by keys a pipeline chose', () => {
  it('finds nothing under a key named like what every object inherits', async () => {
    const { ReplayController } = await import('./replay-controller.js');
    const plan = JSON.parse(
      '{"v":1,"source_run_id":"r","experiment_id":"e","arm":"control","trial":0,"pipeline":"p","fork_step_key":"constructor","edit":{"kind":"output","output":1},"inbox":"/i","mode":"strict","side_effects":"require-mock","steps":{},"recorded_models":{},"nondeterminism":{}}',
    );
    const c = new ReplayController(plan);
    expect(c.recordedModel('constructor')).toBeUndefined();
    expect(c.recordedModel('toString')).toBeUndefined();
    expect(c.take('constructor', 'random')).toBeUndefined();
    expect(c.entry('__proto__')).toBeUndefined();
  });
});
