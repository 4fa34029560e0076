import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../create-engine';
import { startServer, type RunningServer } from '../../serve/http-server';
import { syntheticRunRecords, toJsonl } from '../../../test/support/synthetic-trace';
import type { RunDetail } from '../../../src-shared/model';
import type { BlameResult } from '../../../src-shared/analysis';
import { detailFromSkeleton, withPayload, type RunSkeleton, type StepPayload } from '../../../src-shared/run-skeleton';

let engine: Engine;
let server: RunningServer;

afterEach(async () => {
  await server?.close();
  await engine?.close();
});

async function setup(steps: number): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-pages-'));
  const rendererDir = path.join(home, 'renderer');
  fs.mkdirSync(rendererDir);
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Traceback</title>');
  engine = createEngine({ home, watch: false });
  server = await startServer(engine, { port: 0, rendererDir });
  const file = path.join(home, 'big.jsonl');
  const records = syntheticRunRecords({ runId: 'big', steps, failAt: 7 });
  // Token usage travels in the skeleton (token totals and the tokens column need it for every step).
  const end3 = records.find((r) => r.type === 'step-end' && r.step_id === 's3');
  if (end3 && end3.type === 'step-end') end3.usage = { input_tokens: 120, output_tokens: 30 };
  // A user score on one step travels in the skeleton.
  records.push({ type: 'score', run_id: 'big', step_id: 's2', name: 'quality', value: 0.25, explanation: 'vague', ts: 1_700_000_000_002 });
  fs.writeFileSync(file, toJsonl(records));
  const imported = await engine.call('importPaths', { paths: [file] });
  if (!imported.ok) throw new Error(imported.error.message);
}

async function call<T>(name: string, args: unknown): Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }> {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/call/${name}`, {
    method: 'POST',
    headers: { 'x-traceback-token': server.token, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return res.json();
}

async function value<T>(name: string, args: unknown): Promise<T> {
  const r = await call<T>(name, args);
  if (!r.ok) throw new Error(`${name}: ${r.error.message}`);
  return r.value;
}

describe('a run read in pages over HTTP', () => {
  it('opens as a skeleton of every step without payloads; payloads by id and by position complete it to exactly getRun', async () => {
    await setup(2_500);
    const whole = await value<RunDetail>('getRun', { runId: 'big' });
    const skeleton = await value<RunSkeleton>('getRunSkeleton', { runId: 'big' });
    expect(skeleton.run).toEqual(whole.run);
    expect(skeleton.steps.step_id).toEqual(whole.steps.map((s) => s.step_id));
    const steps = detailFromSkeleton(skeleton).steps;
    expect([steps[7].status, steps[7].parent_id, steps[7].name]).toEqual(['error', 's0', 'generate']);
    expect(skeleton.steps).not.toHaveProperty('input');
    expect(skeleton.steps.user_scores).toEqual({ 2: [{ name: 'quality', value: 0.25, explanation: 'vague', source: 'user' }] });
    expect(skeleton.steps.usage).toEqual({ 3: { input_tokens: 120, output_tokens: 30 } });
    expect(detailFromSkeleton(skeleton).steps[3].usage).toEqual(whole.steps[3].usage);
    // The skeleton is a fraction of the whole run on the wire.
    expect(JSON.stringify(skeleton).length).toBeLessThan(JSON.stringify(whole).length * 0.5);

    const byId = await value<StepPayload[]>('getStepPayloads', { runId: 'big', stepIds: ['s7', 'nope', 's2'] });
    expect(byId.map((p) => p.step_id)).toEqual(['s7', 's2']);
    expect(byId[0].error).toEqual(whole.steps[7].error);

    const pages: StepPayload[] = [];
    for (let from = 0; from < 2_500; from += 1_000) pages.push(...(await value<StepPayload[]>('getStepPayloads', { runId: 'big', from, count: 1_000 })));
    // The renderer's own rebuild (detailFromSkeleton + withPayload) must give exactly getRun's steps.
    const rebuilt = detailFromSkeleton(skeleton).steps.map((step, i) => withPayload(step, pages[i]));
    expect(rebuilt).toEqual(whole.steps);
  });

  it('refuses a payload request that names neither steps nor a position, or asks for too many', async () => {
    await setup(3);
    expect(await call('getStepPayloads', { runId: 'big' })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(await call('getStepPayloads', { runId: 'big', from: 0, count: 5_000 })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(await call('getRunSkeleton', { runId: 'missing' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('getRun with maxSteps ships a run within it whole and refuses a bigger one, so the UI reads that one in pages', async () => {
    await setup(40);
    const small = await call<RunDetail>('getRun', { runId: 'big', maxSteps: 40 });
    expect(small.ok && small.value.steps.length).toBe(40);
    expect(await call('getRun', { runId: 'big', maxSteps: 39 })).toMatchObject({ ok: false, error: { code: 'unsupported', message: expect.stringMatching(/has 40 steps, more than 39/) } });
  });

  it('cuts a parent cycle exactly as getRun does, so the skeleton\'s tree is the same forest', async () => {
    await setup(0);
    const file = path.join(os.tmpdir(), `tb-cycle-${process.pid}.jsonl`);
    const at = (i: number) => 1_700_000_000_000 + i;
    const step = (id: string, parent: string | null, i: number) => [
      { type: 'step-start', run_id: 'loop', step_id: id, parent_id: parent, index: i - 1, name: id, step_type: 'tool', replay_key: `${id}#0`, ts: at(i), input: i },
      { type: 'step-end', run_id: 'loop', step_id: id, status: 'ok', ts: at(i) + 1, output: i },
    ];
    const records = [
      { type: 'run-start', v: '1.0', run_id: 'loop', pipeline: 'cycles', ts: at(0), input: 'x' },
      ...step('a', 'c', 1),
      ...step('b', 'a', 2),
      ...step('c', 'b', 3),
      ...step('d', null, 4),
      ...step('e', 'd', 5),
      { type: 'run-end', run_id: 'loop', status: 'ok', ts: at(9), output: 'y' },
    ];
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const imported = await engine.call('importPaths', { paths: [file] });
    if (!imported.ok) throw new Error(imported.error.message);
    const whole = await value<RunDetail>('getRun', { runId: 'loop' });
    const skeleton = await value<RunSkeleton>('getRunSkeleton', { runId: 'loop' });
    expect(whole.run.extra.$parent_cycles_broken).toHaveLength(1);
    expect(skeleton.run.extra).toEqual(whole.run.extra);
    const parents = detailFromSkeleton(skeleton).steps.map((s) => s.parent_id);
    expect(parents).toEqual(whole.steps.map((s) => s.parent_id));
    expect(parents.filter((p) => p === null)).toHaveLength(2);
  });

  it('a run of odd steps (written out of start order, an orphaned parent, indexes from 10 in steps of 3, times with fractions and one near 0) rebuilds exactly getRun', async () => {
    await setup(0);
    const file = path.join(os.tmpdir(), `tb-odd-${process.pid}.jsonl`);
    const base = 1_700_000_000_000.25;
    const step = (id: string, parent: string | null, index: number, ts: number, end: number | null) => [
      { type: 'step-start', run_id: 'odd', step_id: id, parent_id: parent, index, name: `n-${id}`, step_type: index % 2 ? 'tool' : 'llm', replay_key: `${id}#0`, ts, input: index },
      ...(end === null ? [] : [{ type: 'step-end', run_id: 'odd', step_id: id, status: id === 'c' ? 'error' : 'ok', ts: end, output: index }]),
    ];
    const records = [
      { type: 'run-start', v: '1.0', run_id: 'odd', pipeline: 'odd', ts: base, input: 'x' },
      ...step('d', 'a', 19, base + 7.125, base + 9),
      ...step('b', 'a', 13, base + 1.1, base + 2.2),
      ...step('a', null, 10, base, base + 10.5),
      ...step('c', 'ghost', 16, 0.1, 0.30000000000000004),
      ...step('e', 'd', 22, base + 8, null),
      { type: 'run-end', run_id: 'odd', status: 'ok', ts: base + 11, output: 'y' },
    ];
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const imported = await engine.call('importPaths', { paths: [file] });
    if (!imported.ok) throw new Error(imported.error.message);
    const whole = await value<RunDetail>('getRun', { runId: 'odd' });
    const skeleton = await value<RunSkeleton>('getRunSkeleton', { runId: 'odd' });
    const payloads = await value<StepPayload[]>('getStepPayloads', { runId: 'odd', from: 0, count: 10 });
    expect(whole.steps.map((s) => s.step_id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(detailFromSkeleton(skeleton).steps.map((st, i) => withPayload(st, payloads[i]))).toEqual(whole.steps);
    expect(whole.steps[2].parent_id).toBe('ghost');
    // The step near 0 would not add back exactly onto an origin of 1.7e12: times go as they are.
    expect(skeleton.steps.time_origin).toBe(0);
  });

  it('times go as deltas from the run start and durations when they add back exactly, parents as distances back', async () => {
    await setup(30);
    const skeleton = await value<RunSkeleton>('getRunSkeleton', { runId: 'big' });
    expect(skeleton.steps.time_origin).toBe(1_700_000_000_000);
    expect(skeleton.steps.time_deltas).toBe(true);
    expect(skeleton.steps.started_at.slice(0, 3)).toEqual([0, 1, 1]);
    expect(skeleton.steps.ended_at.slice(0, 3)).toEqual([0.5, 0.5, 0.5]);
    expect(skeleton.steps.parent.slice(0, 3)).toEqual([0, 1, 2]);
    expect(skeleton.steps.words.length).toBeLessThan(10);
  });

  it('blame with notable step scores keeps every failing or partial score whole and lists fully passing steps by id', async () => {
    await setup(400);
    const all = await value<BlameResult>('blameRun', { runId: 'big' });
    const notable = await value<BlameResult>('blameRun', { runId: 'big', stepScores: 'notable' });
    const passed = new Set(notable.step_scores_passed);
    for (const s of all.step_scores) {
      const fullPass = s.score === 1 && s.checks.length > 0 && s.checks.every((c) => c.value === 1);
      if (fullPass) expect(passed.has(s.step_id)).toBe(true);
      else if (s.score !== null || s.checks.length) expect(notable.step_scores).toContainEqual(s);
    }
    expect(notable.step_scores.find((s) => s.step_id === 's7')?.score).toBeLessThan(1);
    expect({ ...notable, step_scores: undefined, step_scores_passed: undefined }).toEqual({ ...all, step_scores: undefined });
    expect(JSON.stringify(notable).length).toBeLessThan(JSON.stringify(all).length / 3);
    expect(await call('blameRun', { runId: 'big', stepScores: 'some' })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });

  it('the checks of steps listed by id only come on request, exactly as the whole blame scored them', async () => {
    await setup(400);
    const all = await value<BlameResult>('blameRun', { runId: 'big' });
    const notable = await value<BlameResult>('blameRun', { runId: 'big', stepScores: 'notable' });
    const ids = [...notable.step_scores_passed!.slice(0, 3), 's7', 'no-such-step'];
    const scores = await value<BlameResult['step_scores']>('getStepScores', { runId: 'big', stepIds: ids });
    expect(scores.map((s) => s.step_id).sort()).toEqual(ids.slice(0, 4).sort());
    for (const s of scores) expect(s).toEqual(all.step_scores.find((a) => a.step_id === s.step_id));
    expect(scores.find((s) => s.step_id === notable.step_scores_passed![0])!.checks.length).toBeGreaterThan(0);
    expect(await call('getStepScores', { runId: 'big', stepIds: [] })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });
});
