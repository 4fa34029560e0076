import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import { blameRun } from './blame-run';
import { gateDecision } from './gate-decision';
import { inferLineage, upstreamOf } from './lineage';
import { buildRunGraph } from './run-graph';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { newHashScan, scanHashes, scanJson, scanText, valuesOf } from './value-features';

const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };

describe('CI gate', () => {
  it('a healthy run passes the gate', () => {
    const b = new TraceBuilder({ input: { q: 'capital of France?' } });
    b.step('answer', 'llm', { input: 'capital of France?', output: 'Paris.' });
    const d = b.finish('ok', 'Paris.').detail();
    expect(gateDecision(blameRun(d, ctx), d.run, 0.5)).toEqual({ fail: false, reason: expect.stringContaining('healthy') });
  });

  it('a failing verdict fails the gate whatever the threshold', () => {
    const b = new TraceBuilder({ input: { q: 'x' } });
    b.step('answer', 'llm', { input: 'x', output: 'y' });
    const d = b.verdict(false, 'wrong').finish('ok', 'y').detail();
    const decision = gateDecision(blameRun(d, ctx), d.run, 1);
    expect(decision.fail).toBe(true);
    expect(decision.reason).toContain('failed its verdict (wrong)');
  });

  it('a blame score above the threshold fails the gate, one at or below it does not', () => {
    const b = new TraceBuilder({ input: { q: 'x' } });
    b.step('lookup', 'tool', { input: { q: 'x' }, output: { error: 'service unavailable' } });
    b.step('answer', 'llm', { input: 'lookup said: service unavailable', output: 'The service is unavailable.' });
    const d = b.finish('ok', 'The service is unavailable.').detail();
    const blame = blameRun(d, ctx);
    const score = blame.blamed[0].score;
    expect(gateDecision(blame, d.run, score - 0.01).fail).toBe(true);
    expect(gateDecision(blame, d.run, score).fail).toBe(false);
  });

  it('a run that ended in error or never finished fails the gate', () => {
    const b = new TraceBuilder({ input: {} });
    b.step('t', 'tool', { input: {}, error: { type: 'TimeoutError', message: 'timed out' } });
    const d = b.finish('error').detail();
    expect(gateDecision(blameRun(d, ctx), d.run, 1).fail).toBe(true);
    const c = new TraceBuilder({ input: {} });
    c.start('t', 'tool', { input: {} });
    const dc = c.detail({ final: true });
    expect(gateDecision(blameRun(dc, ctx), dc.run, 1).reason).toContain('never finished');
  });
});

describe('value features', () => {
  it('one date in two spellings, one number with and without separators', () => {
    const a = valuesOf('due on March 5, 2024 for 1,200.50 EUR');
    const b = valuesOf('{"due": "2024-03-05", "amount": 1200.5}');
    const key = (vs: typeof a, kind: string) => vs.filter((v) => v.kind === kind).map((v) => v.h);
    expect(key(a, 'date')).toEqual(key(b, 'date'));
    expect(key(b, 'number')).toHaveLength(1);
    expect(key(a, 'number')).toContain(key(b, 'number')[0]);
  });

  it('ids, names and e-mails are recognised; single digits and sentence words are not', () => {
    const vs = valuesOf('Find order ORD-99812 for Dana Whitfield (dana@example.com), top 3.');
    expect(vs.map((v) => `${v.kind}:${v.raw}`).sort()).toEqual(['email:dana@example.com', 'id:ORD-99812', 'name:Dana Whitfield']);
  });

  it('number fields hash the same in hash-only and full scanning (integers take a shortcut)', () => {
    const json = { total: 4800, id: 0, n: 7, big: 12345678901234, ratio: 3.5, neg: -42, text: 'order 4800 of 12345678901234' };
    const full = scanJson(json).values.map((v) => v.h);
    const st = newHashScan();
    scanHashes(json, { values: 'hash' }, st);
    expect(Array.from(st.valueHashes.subarray(0, st.valueCount))).toEqual(full);
    expect(st.contentHash).toBe(scanJson(json, { values: 'none' }).contentHash);
  });

  it('hash-only scanning gives the same hashes as full scanning', () => {
    const text = 'Acme Robotics in Toledo, Ohio employs 1,200 people since 1987-04-01; ticket T-5501.';
    const full = scanText(text).values.map((v) => v.h);
    const hashes = Array.from(scanText(text, { values: 'hash' }).valueHashes);
    expect(hashes).toEqual(full);
  });
});

describe('lineage', () => {
  it('infers which earlier outputs flowed into a step from tool-call ids, state keys and reused text', () => {
    const b = new TraceBuilder({ input: { q: 'weather in Lisbon' } });
    const llm = b.step('agent_llm', 'llm', { input: 'weather in Lisbon', output: { content: '', tool_calls: [{ id: 'call_7', function: { name: 'w', arguments: '{}' } }] } });
    const tool = b.step('get_weather', 'tool', { input: {}, metadata: { tool_call_id: 'call_7' }, output: { sky: 'clear' } });
    const writer = b.step('store', 'generic', { input: { x: 1 }, output: { ok: true }, metadata: { writes: ['profile'] } });
    b.step('unrelated', 'generic', { input: { y: 'zzz' }, output: { z: 'qqq' } });
    const reader = b.step('use_profile', 'generic', { input: {}, metadata: { reads: ['profile'] }, output: 'done' });
    const passage = 'The Aurora X1 electric bicycle launched in 2019 with a 500 Wh battery and a range of 80 km.';
    const ret = b.step('retrieve', 'retrieval', { input: { q: 'aurora' }, output: [passage] });
    const answer = b.step('answer', 'llm', { input: `Context: ${passage}\nQuestion: when?`, output: 'In 2019.' });
    const d = b.finish('ok', 'In 2019.').detail();
    const g = buildRunGraph(d);
    const lin = inferLineage(g, DEFAULT_SETTINGS);
    const at = (id: string) => g.pos.get(id)!;
    expect(lin.inProducers.of(at(tool))).toContain(at(llm));
    expect(lin.inProducers.of(at(reader))).toContain(at(writer));
    expect(lin.inProducers.of(at(answer))).toContain(at(ret));
    expect(lin.finalProducer).toBe(at(answer));
    expect(upstreamOf(g, lin, at(answer)).has(at(ret))).toBe(true);
    expect(upstreamOf(g, lin, at(answer)).has(at(tool))).toBe(false);
  });

  it('lineage of a 10,000-step run is computed without quadratic blow-up', () => {
    const b = new TraceBuilder({ input: { task: 'sync' } });
    const root = b.start('batch', 'agent', { input: { task: 'sync' } });
    for (let i = 0; i < 5000; i++) {
      b.step('call', 'llm', { parent: root, input: `item ${i}`, output: `lookup ITEM-${10000 + i}` });
      b.step('lookup', 'tool', { parent: root, input: { id: `ITEM-${10000 + i}` }, output: { id: `ITEM-${10000 + i}`, ok: true } });
    }
    b.end(root, { output: 'done' });
    const d = b.finish('ok', 'done').detail();
    const g = buildRunGraph(d);
    const lin = inferLineage(g, DEFAULT_SETTINGS);
    // Each lookup is fed by the call just before it, not by any earlier one.
    expect(lin.inProducers.of(g.pos.get('s10000')!)).toEqual([g.pos.get('s9999')!]);
  });
});
