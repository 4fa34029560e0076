import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TRACE_FORMAT_VERSION } from './trace-format.js';
import { currentStep, pipeline, runStep, score, step, verdict } from './index.js';
import { onlyRun, readRecords, readRuns, recordProblems, runFiles, stepByKey, stepEnd, stepStarts, tempHome } from './test-support/read-runs.js';

afterEach(() => vi.restoreAllMocks());

describe('recording a pipeline', () => {
  it('a nested pipeline writes a header, steps whose parents start first, and a run-end, all valid records', async () => {
    const home = tempHome();
    const search = step('search', 'retrieval', async (q: string) => [`about ${q}`]);
    const answer = step('answer', 'llm', (ctx: string[]) => `answer from ${ctx.length} passages`);
    const agent = step('agent', 'agent', async (q: string) => answer(await search(q)));

    const out = await pipeline('qa', async () => agent('tides'), { home, input: { question: 'tides' }, tags: { team: 'x' } });

    expect(out).toBe('answer from 1 passages');
    const files = runFiles(home);
    expect(files).toHaveLength(1);
    const records = readRecords(files[0]);
    for (const r of records) expect(recordProblems(r as never)).toEqual([]);
    const runId = records[0].run_id;
    expect(files[0].endsWith(`${runId}.jsonl`)).toBe(true);
    expect(records.every((r) => r.run_id === runId)).toBe(true);
    expect(records[0]).toMatchObject({ type: 'run-start', v: TRACE_FORMAT_VERSION, pipeline: 'qa', input: { question: 'tides' }, tags: { team: 'x' } });
    expect(records.at(-1)).toMatchObject({ type: 'run-end', status: 'ok', output: 'answer from 1 passages' });

    const starts = stepStarts(records);
    expect(starts.map((s) => [s.index, s.name, s.replay_key])).toEqual([
      [0, 'agent', 'agent#0'],
      [1, 'search', 'agent#0/search#0'],
      [2, 'answer', 'agent#0/answer#0'],
    ]);
    expect(starts[1].parent_id).toBe(starts[0].step_id);
    expect(starts[2].parent_id).toBe(starts[0].step_id);
    expect(starts[0].parent_id).toBeNull();
    expect(stepEnd(records, starts[1].step_id)?.output).toEqual(['about tides']);
  });

  it('a sync step stays sync: its wrapper returns the value, not a promise', async () => {
    const home = tempHome();
    const double = step('double', 'generic', (n: number) => n * 2);
    let seen: unknown;
    await pipeline('sync', () => {
      seen = double(21);
    }, { home });
    expect(seen).toBe(42);
  });

  it('two pipelines interleaved with Promise.all write two files that never mix their steps', async () => {
    const home = tempHome();
    const tick = () => new Promise((r) => setImmediate(r));
    const leaf = step('leaf', 'tool', async (tag: string) => {
      await tick();
      return tag;
    });
    const branch = step('branch', 'agent', async (tag: string) => {
      const a = await leaf(tag);
      await tick();
      const b = await leaf(tag);
      return a + b;
    });
    const body = (tag: string) => async () => {
      await tick();
      return Promise.all([branch(tag), branch(tag)]);
    };
    await Promise.all([pipeline('p', body('A'), { home, input: 'A' }), pipeline('p', body('B'), { home, input: 'B' })]);

    const runs = readRuns(home);
    expect(runs.size).toBe(2);
    expect(runFiles(home)).toHaveLength(2);
    for (const records of runs.values()) {
      const tag = (records[0] as { input: string }).input;
      const starts = stepStarts(records);
      expect(starts).toHaveLength(6);
      const ids = new Map(starts.map((s) => [s.step_id, s]));
      for (const s of starts) {
        if (s.name === 'branch') expect(s.parent_id).toBeNull();
        else expect(ids.get(s.parent_id!)?.name).toBe('branch');
        if (s.name === 'leaf') expect(s.input).toBe(tag);
      }
      expect(starts.map((s) => s.replay_key).sort()).toEqual(
        ['branch#0', 'branch#1', 'branch#0/leaf#0', 'branch#0/leaf#1', 'branch#1/leaf#0', 'branch#1/leaf#1'].sort(),
      );
      expect(starts.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
    }
  });

  it('a step in a loop gets #0, #1, #2 under its parent, the same on every re-run', async () => {
    const keysOfRun = async () => {
      const home = tempHome();
      const attempt = step('attempt', 'llm', async (i: number) => i);
      const loop = step('retry-loop', 'agent', async () => {
        for (let i = 0; i < 3; i++) await attempt(i);
      });
      await pipeline('loops', async () => {
        await loop();
        await attempt(9);
      }, { home });
      return stepStarts(onlyRun(home)).map((s) => s.replay_key);
    };
    const first = await keysOfRun();
    expect(first).toEqual(['retry-loop#0', 'retry-loop#0/attempt#0', 'retry-loop#0/attempt#1', 'retry-loop#0/attempt#2', 'attempt#0']);
    expect(await keysOfRun()).toEqual(first);
  });

  it('a step that throws is recorded with type, message, stack and status, and the very same error reaches the caller', async () => {
    const home = tempHome();
    class HttpError extends Error {
      status = 503;
      override name = 'HttpError';
    }
    const thrown = new HttpError('upstream unavailable');
    const fetchRates = step('fetch-rates', 'tool', async () => {
      throw thrown;
    });
    const parse = step('parse', 'generic', () => {
      throw thrown;
    });
    let caughtAsync: unknown;
    let caughtSync: unknown;
    await pipeline('errors', async () => {
      try {
        await fetchRates();
      } catch (e) {
        caughtAsync = e;
      }
      try {
        parse();
      } catch (e) {
        caughtSync = e;
      }
    }, { home });
    expect(caughtAsync).toBe(thrown);
    expect(caughtSync).toBe(thrown);
    const records = onlyRun(home);
    for (const key of ['fetch-rates#0', 'parse#0']) {
      const { end } = stepByKey(records, key);
      expect(end?.status).toBe('error');
      expect(end?.error).toMatchObject({ type: 'HttpError', message: 'upstream unavailable', status: 503 });
      expect(end?.error?.stack).toContain('upstream unavailable');
    }
  });

  it('a pipeline that throws writes run-end with status error and rejects with the same error', async () => {
    const home = tempHome();
    const boom = new TypeError('bad plan');
    await expect(pipeline('fails', async () => {
      throw boom;
    }, { home })).rejects.toBe(boom);
    const end = onlyRun(home).at(-1);
    expect(end).toMatchObject({ type: 'run-end', status: 'error', error: { type: 'TypeError', message: 'bad plan' } });
  });

  it('usage, model and metadata set from inside a step, or by an extract option, land on its step-end', async () => {
    const home = tempHome();
    const callModel = step('call-model', 'llm', async (prompt: string) => {
      currentStep().setUsage({ input_tokens: 12 }).setModel('sim-1').setMetadata({ temperature: 0.2 });
      currentStep().setUsage({ output_tokens: 3 });
      return { text: prompt.toUpperCase(), tokens: { in: 12, out: 3 } };
    });
    const extracted = step('extracted', 'llm', async () => ({ text: 'ok', tokens: { in: 5, out: 1 }, model: 'sim-2' }), {
      extract: (r) => ({ output: r.text, usage: { input_tokens: r.tokens.in, output_tokens: r.tokens.out }, model: r.model, metadata: { finish_reason: 'stop' } }),
    });
    let returned: unknown;
    await pipeline('usage', async () => {
      await callModel('hi');
      returned = await extracted();
    }, { home });
    const records = onlyRun(home);
    expect(stepByKey(records, 'call-model#0').end).toMatchObject({
      model: 'sim-1',
      usage: { input_tokens: 12, output_tokens: 3 },
      metadata: { temperature: 0.2 },
    });
    const ex = stepByKey(records, 'extracted#0').end;
    expect(ex).toMatchObject({ output: 'ok', model: 'sim-2', usage: { input_tokens: 5, output_tokens: 1 }, metadata: { finish_reason: 'stop' } });
    // extract changes what is recorded, never what the caller gets.
    expect(returned).toEqual({ text: 'ok', tokens: { in: 5, out: 1 }, model: 'sim-2' });
  });

  it('scores land on the current step or on the run, and the verdict carries detail and expected', async () => {
    const home = tempHome();
    await pipeline('judged', async (run) => {
      await runStep('grade', 'llm', async (s) => {
        s.score('faithfulness', 0.25, 'cites a passage that was not retrieved');
        score('relevance', 0.75);
        return 'x';
      });
      score('overall', 0.5);
      run.score('latency_ok', 1);
      verdict(false, { detail: 'answered 1888, expected 1889', expected: '1889' });
    }, { home });
    const records = onlyRun(home);
    const gradeId = stepByKey(records, 'grade#0').start.step_id;
    const scores = records.filter((r) => r.type === 'score');
    expect(scores).toEqual([
      expect.objectContaining({ name: 'faithfulness', value: 0.25, step_id: gradeId, explanation: 'cites a passage that was not retrieved' }),
      expect.objectContaining({ name: 'relevance', value: 0.75, step_id: gradeId }),
      expect.objectContaining({ name: 'overall', value: 0.5 }),
      expect.objectContaining({ name: 'latency_ok', value: 1 }),
    ]);
    expect(scores[2]).not.toHaveProperty('step_id');
    expect(records.find((r) => r.type === 'verdict')).toMatchObject({ pass: false, detail: 'answered 1888, expected 1889', expected: '1889' });
  });

  it('a run is readable while it grows: a step still waiting on I/O already has its start line on disk', async () => {
    const home = tempHome();
    let midway: string[] = [];
    await pipeline('growing', async () => {
      await runStep('first', 'tool', async () => 1);
      await runStep('slow-call', 'llm', async () => {
        // Any real I/O wait gives the event loop a turn, which is when buffered lines are written.
        await new Promise((r) => setImmediate(r));
        midway = readFileSync(runFiles(home)[0], 'utf8').trim().split('\n');
        return 2;
      });
    }, { home });
    expect(midway.map((l) => [JSON.parse(l).type, JSON.parse(l).name ?? ''])).toEqual([
      ['run-start', ''],
      ['step-start', 'first'],
      ['step-end', ''],
      ['step-start', 'slow-call'],
    ]);
  });

  it('a process that exits in the middle of a step still leaves every record written before the exit on disk', () => {
    const home = tempHome();
    const script = join(home, 'crash.mts');
    const sdk = pathToFileURL(join(__dirname, 'index.ts')).href;
    writeFileSync(
      script,
      `import { pipeline, runStep } from '${sdk}';
await pipeline('crashes', async () => {
  runStep('before', 'tool', () => 1);
  runStep('exits', 'tool', () => process.exit(3));
}, { home: ${JSON.stringify(home)} });`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: join(__dirname, '..', '..', '..'), encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
    const records = onlyRun(home);
    expect(records.map((r) => r.type)).toEqual(['run-start', 'step-start', 'step-end', 'step-start']);
  });

  it('records the command line and working directory as the entry to re-run, unless one is given', async () => {
    const home = tempHome();
    await pipeline('entry', () => 1, { home });
    await pipeline('entry2', () => 1, { home, entry: { command: ['node', 'x.js', '--variant', 'a'], cwd: '/srv' } });
    const starts = [...readRuns(home).values()].map((r) => r[0]).sort((a, b) => ((a as { pipeline: string }).pipeline < (b as { pipeline: string }).pipeline ? -1 : 1));
    expect(starts[0]).toMatchObject({ entry: { command: [process.execPath, ...process.execArgv, ...process.argv.slice(1)], cwd: process.cwd() } });
    expect(starts[1]).toMatchObject({ entry: { command: ['node', 'x.js', '--variant', 'a'], cwd: '/srv' } });
  });

  it('with recording disabled the pipeline and its steps run, nothing is written and nothing is printed', async () => {
    const home = tempHome();
    const writes = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const triple = step('triple', 'generic', (n: number) => n * 3);
    expect(await pipeline('off', () => triple(2), { home, enabled: false })).toBe(6);
    expect(writes).not.toHaveBeenCalled();
    expect(existsSync(join(home, 'inbox'))).toBe(false);
  });

  it('a step called outside any pipeline still runs, unrecorded', () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const add = step('add', 'generic', (a: number, b: number) => a + b);
    expect(add(2, 3)).toBe(5);
  });
});
