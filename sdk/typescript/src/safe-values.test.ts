import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pipeline, runStep, step } from './index.js';
import { resetWriteWarningForTests } from './trace-writer.js';
import { onlyRun, stepByKey, tempHome } from './test-support/read-runs.js';

afterEach(() => {
  vi.restoreAllMocks();
  resetWriteWarningForTests();
});

describe('values a user might hand the SDK', () => {
  it('a 5 MB tool output is cut to the field cap with a visible truncation marker, and the caller still gets all of it', async () => {
    const home = tempHome();
    const big = 'x'.repeat(5_000_000);
    const dump = step('dump', 'tool', () => ({ body: big, rows: Array.from({ length: 200 }, (_, i) => i) }));
    let got: { body: string } | undefined;
    await pipeline('big', () => {
      got = dump();
    }, { home });
    expect(got?.body.length).toBe(5_000_000);
    const out = stepByKey(onlyRun(home), 'dump#0').end?.output as { body: string; rows: unknown[] };
    expect(JSON.stringify(out).length).toBeLessThan(1_000_000);
    expect(out.body).toMatch(/…\[truncated 4998000 chars\]$/);
    expect(out.rows).toHaveLength(51);
    expect(out.rows.at(-1)).toBe('…[truncated 150 items]');
  });

  it('a key named __proto__ (a value parsed from JSON can hold one) is written like any other key', async () => {
    const home = tempHome();
    const fromApi = JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as unknown;
    await pipeline('proto', () => runStep('s', 'tool', () => fromApi), { home });
    const out = stepByKey(onlyRun(home), 's#0').end?.output as Record<string, unknown>;
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"ok":1}');
  });

  it('a smaller cap can be configured per pipeline', async () => {
    const home = tempHome();
    await pipeline('capped', () => runStep('s', 'generic', () => 'y'.repeat(5_000)), { home, maxFieldBytes: 1_000 });
    const out = stepByKey(onlyRun(home), 's#0').end?.output as string;
    expect(out.length).toBeLessThan(1_000);
    expect(out).toContain('…[truncated');
  });

  it('BigInt, cycles, functions, Errors, Maps, Sets, Buffers and NaN are written as readable JSON', async () => {
    const home = tempHome();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const weird = {
      big: 12345678901234567890n,
      cyclic,
      fn: function helper() {},
      err: Object.assign(new RangeError('too far'), { status: 416 }),
      map: new Map<unknown, unknown>([['a', 1], [2, 'two']]),
      set: new Set([1, 2]),
      text: Buffer.from('hello'),
      bytes: Buffer.from([0xff, 0x00, 0xfe]),
      nan: Number.NaN,
      when: new Date('2024-01-02T03:04:05Z'),
      missing: undefined,
    };
    await pipeline('weird', () => runStep('s', 'generic', () => weird), { home });
    expect(stepByKey(onlyRun(home), 's#0').end?.output).toEqual({
      big: '12345678901234567890',
      cyclic: { name: 'loop', self: '[circular]' },
      fn: '[function helper]',
      err: { type: 'RangeError', message: 'too far', status: 416 },
      map: { a: 1, '2': 'two' },
      set: [1, 2],
      text: 'hello',
      bytes: 'base64:/wD+',
      nan: 'NaN',
      when: '2024-01-02T03:04:05.000Z',
    });
  });
});

describe('secrets', () => {
  const key = 'sk-ant-api03-' + 'A'.repeat(40);

  it('API-key-shaped strings, bearer headers and credential-named keys are redacted before they reach the disk', async () => {
    const home = tempHome();
    const call = step('call', 'llm', (_req: object) => `used ${key}`);
    await pipeline('secret', () => call({ headers: { Authorization: `Bearer ${'t'.repeat(30)}` }, api_key: 'hunter2', password: 'pw', max_tokens: 100, note: `key=${key}` }), {
      home,
      input: { openai: 'sk-proj-' + 'b'.repeat(30) },
    });
    const records = onlyRun(home);
    const text = JSON.stringify(records);
    expect(text).not.toContain(key);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('t'.repeat(30));
    expect(text).not.toContain('b'.repeat(30));
    const { start, end } = stepByKey(records, 'call#0');
    expect(start.input).toEqual({ headers: { Authorization: '[REDACTED]' }, api_key: '[REDACTED]', password: '[REDACTED]', max_tokens: 100, note: 'key=[REDACTED]' });
    expect(end?.output).toBe('used [REDACTED]');
  });

  it('redaction can be extended with a pattern of your own, or switched off', async () => {
    const home = tempHome();
    await pipeline('custom', () => runStep('s', 'tool', () => 'employee id EMP-99887766 and ' + key), {
      home,
      redact: { extraPatterns: [/EMP-\d{8}/g] },
    });
    expect(stepByKey(onlyRun(home), 's#0').end?.output).toBe('employee id [REDACTED] and [REDACTED]');

    const home2 = tempHome();
    await pipeline('off', () => runStep('s', 'tool', () => key), { home: home2, redact: false });
    expect(stepByKey(onlyRun(home2), 's#0').end?.output).toBe(key);
  });
});

describe('when the disk write fails', () => {
  it('the pipeline still runs and returns, and the SDK warns once on stderr, then stays quiet', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const home = tempHome();
    // A file where the inbox directory should be: mkdir and open both fail.
    writeFileSync(join(home, 'inbox'), 'not a directory');
    const work = step('work', 'tool', async (n: number) => n + 1);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await pipeline('unwritable', async () => work(i), { home }));
    expect(results).toEqual([1, 2, 3]);
    const warnings = writes.filter((w) => w.includes('traceback:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('not being recorded');
  });

  it('a full disk (every write fails with ENOSPC) does not disturb the pipeline, and warns once', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const home = tempHome();
    mkdirSync(join(home, 'inbox'));
    // The run file opens fine but is /dev/full: the failure happens at the first write, not at open.
    symlinkSync('/dev/full', join(home, 'inbox', 'full-disk.jsonl'));
    const out = await pipeline('full', async () => {
      const a = await runStep('a', 'tool', async () => 1);
      return a + (await runStep('b', 'tool', async () => 2));
    }, { home, runId: 'full-disk' });
    expect(out).toBe(3);
    const warnings = writes.filter((w) => w.includes('traceback:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ENOSPC/);
  });
});
