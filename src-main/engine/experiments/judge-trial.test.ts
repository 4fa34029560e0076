import { describe, expect, it } from 'vitest';
import type { Run } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { judgeRun, parseJsonPath } from './judge-trial';

function runWith(output: Json | null, verdict: Run['verdict'] = null): Run {
  return {
    run_id: 'r',
    pipeline: 'p',
    status: 'ok',
    steps: 0,
    started_at: 0,
    duration_ms: 1,
    verdict,
    source_format: 'native',
    forked: true,
    ended_at: 1,
    input: null,
    output,
    error: null,
    tags: {},
    entry: null,
    provenance: null,
    sdk: null,
    source_file: null,
    user_scores: [],
    extra: {},
  };
}

describe('judging a trial', () => {
  it('by default trusts the verdict the pipeline recorded, and a run without one fails', async () => {
    expect(await judgeRun(runWith('x', { pass: true, detail: 'all cities named' }), { kind: 'verdict' })).toEqual({ pass: true, detail: 'verdict pass: all cities named' });
    expect((await judgeRun(runWith('x', { pass: false }), { kind: 'verdict' })).pass).toBe(false);
    expect(await judgeRun(runWith('x'), { kind: 'verdict' })).toEqual({ pass: false, detail: 'the pipeline recorded no verdict' });
  });

  it('checks the final output by equality, containment, pattern or a value at a JSON path', async () => {
    const out = { answer: 'Avalon and Brindle', cities: ['Avalon', 'Brindle'], meta: { 'odd key': 3 } };
    expect((await judgeRun(runWith(out), { kind: 'equals', value: { meta: { 'odd key': 3 }, cities: ['Avalon', 'Brindle'], answer: 'Avalon and Brindle' } })).pass).toBe(true);
    expect((await judgeRun(runWith(out), { kind: 'equals', value: { answer: 'Avalon' } })).pass).toBe(false);
    expect((await judgeRun(runWith('Avalon and Brindle'), { kind: 'equals', value: 'Avalon and Brindle' })).pass).toBe(true);
    expect((await judgeRun(runWith(out), { kind: 'contains', text: 'Brindle' })).pass).toBe(true);
    expect((await judgeRun(runWith(out), { kind: 'contains', text: 'Dunmore' })).pass).toBe(false);
    expect((await judgeRun(runWith('Cities: Avalon, Brindle.'), { kind: 'regex', pattern: '^cities:', flags: 'i' })).pass).toBe(true);
    expect((await judgeRun(runWith(out), { kind: 'json-path', path: '$.cities[1]', value: 'Brindle' })).pass).toBe(true);
    expect((await judgeRun(runWith(out), { kind: 'json-path', path: 'meta["odd key"]', value: 3 })).pass).toBe(true);
    expect(await judgeRun(runWith(out), { kind: 'json-path', path: 'cities.5', value: 'x' })).toEqual({ pass: false, detail: 'the output has nothing at cities.5' });
  });

  it('an oracle command gets the final output as JSON on stdin and passes on exit 0', async () => {
    const cmd = `"${process.execPath}" -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);console.log('saw',o.cities.length);process.exit(o.cities.includes('Dunmore')?1:0)})"`;
    const good = await judgeRun(runWith({ cities: ['Avalon', 'Brindle'] }), { kind: 'command', command: cmd });
    expect(good).toEqual({ pass: true, detail: 'the oracle command exited 0: saw 2' });
    const bad = await judgeRun(runWith({ cities: ['Avalon', 'Dunmore', 'Brindle'] }), { kind: 'command', command: cmd });
    expect(bad).toEqual({ pass: false, detail: 'the oracle command exited 1: saw 3' });
  });

  it('a malformed JSON path or pattern is reported as bad input', async () => {
    expect(() => parseJsonPath('a..b')).toThrow(/cannot read the JSON path/);
    await expect(judgeRun(runWith('x'), { kind: 'regex', pattern: '(' })).rejects.toThrow(/not a valid regular expression/);
  });
});
