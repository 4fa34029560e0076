import { describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../src-shared/model';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import { blameRun } from './blame-run';
import { inferLineage } from './lineage';
import { lineageEdges } from './lineage-edges';
import { buildRunGraph } from './run-graph';
import { TraceBuilder } from '../../../test/support/trace-builder';

const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };
const edgeSet = (edges: { from: string; to: string; via: string }[] | undefined) => new Set((edges ?? []).map((e) => `${e.from}>${e.to}:${e.via}`));

function agentRun(): RunDetail {
  const b = new TraceBuilder({ input: { q: 'weather in Lisbon' } });
  const a = b.start('agent', 'agent', { input: { q: 'weather in Lisbon' } });
  b.step('agent_llm', 'llm', { parent: a, input: 'weather in Lisbon', output: { content: '', tool_calls: [{ id: 'call_7', function: { name: 'w', arguments: '{}' } }] } });
  b.step('get_weather', 'tool', { parent: a, input: {}, metadata: { tool_call_id: 'call_7' }, output: { sky: 'Clear skies over Lisbon', temp_c: 21.5 } });
  b.step('store', 'generic', { parent: a, input: { x: 1 }, output: { ok: true }, metadata: { writes: ['profile'] } });
  b.step('use_profile', 'generic', { parent: a, input: {}, metadata: { reads: ['profile'] }, output: 'profile loaded' });
  const answer = 'Clear skies over Lisbon today, 21.5 °C.';
  b.step('agent_llm', 'llm', { parent: a, input: 'Tool said: Clear skies over Lisbon, 21.5 C', output: answer });
  b.end(a, { output: answer });
  return b.finish('ok', answer).detail();
}

describe('lineage edges for the UI graph', () => {
  it('a healthy run gets its edges, each saying how the data flowed', () => {
    const r = blameRun(agentRun(), ctx);
    expect(r.healthy).toBe(true);
    const edges = edgeSet(r.lineage_edges);
    expect(edges).toContain('s1>s2:tool_call');
    expect(edges).toContain('s3>s4:state');
    expect(edges).toContain('s2>s5:value');
    // The answer reached the agent's output: a child-to-parent edge because data flowed.
    expect(edges).toContain('s5>s0:parent');
    expect(r.lineage_edges?.find((e) => e.via === 'tool_call')?.detail).toBe('call_7');
    expect(r.lineage_edges?.find((e) => e.via === 'state')?.detail).toBe('state profile');
  });

  it('plain tree structure without data flowing is not an edge', () => {
    const b = new TraceBuilder({ input: { q: 'ping' } });
    const a = b.start('wrapper', 'agent', { input: { q: 'ping' } });
    b.step('noop', 'generic', { parent: a, input: { n: 'alpha' }, output: { m: 'beta' } });
    b.end(a, { output: { status: 'gamma' } });
    const r = blameRun(b.finish('ok', { status: 'gamma' }).detail(), ctx);
    expect(r.lineage_edges).toEqual([]);
  });

  it('edges into one step are capped at the strongest few, and the total is capped', () => {
    const b = new TraceBuilder({ input: { q: 'merge' } });
    const parts: string[] = [];
    for (let i = 0; i < 8; i++) {
      const text = `Report ${i}: region R${100 + i} closed ${1000 + i} orders on 2024-0${1 + (i % 9)}-1${i}.`;
      parts.push(text);
      b.step(`fetch_${i}`, 'tool', { input: { region: `R${100 + i}` }, output: text });
    }
    b.step('merge', 'llm', { input: parts.join('\n'), output: 'merged' });
    const d = b.finish('ok', 'merged').detail();
    const g = buildRunGraph(d);
    const lin = inferLineage(g, DEFAULT_SETTINGS);
    expect(lin.inProducers.of(8)).toHaveLength(8);
    const into = lineageEdges(g, lin).filter((e) => e.to === 's8');
    expect(into).toHaveLength(5);
    expect(lineageEdges(g, lin, 5, 3)).toHaveLength(3);
  });

  it('a parent that ends in the same millisecond its child starts has not ended before it (lineage keeps the child first)', () => {
    const b = new TraceBuilder({ input: { question: 'Which cities in Aurelia are large?' } });
    b.step('planner', 'llm', { input: { question: 'Which cities in Aurelia are large?' }, output: { country: 'Aurelia', measure: 'metro_population' } });
    const a = b.start('researcher', 'agent', { input: { country: 'Aurelia', measure: 'metro_population' } });
    b.step('query_table', 'tool', { parent: a, input: { country: 'Aurelia', measure: 'metro_population' }, output: [{ city: 'Dunmore' }, { city: 'Vessen' }] });
    b.end(a, { output: { cities: ['Dunmore', 'Vessen'] } });
    const d = b.finish('ok', 'Dunmore and Vessen.').detail();
    // All in one millisecond, as a fast pipeline records them.
    for (const s of d.steps) {
      s.started_at = 1000;
      s.ended_at = 1000;
    }
    const g = buildRunGraph(d);
    const lin = inferLineage(g, DEFAULT_SETTINGS);
    const dunmore = [...lin.outHashesOf(2)].find((h) => !lin.inHashesOf(2).has(h) && lin.outHashesOf(1).has(h))!;
    expect(lin.firstSeen.get(dunmore, -2)).toBe(2);
    expect(lin.outProducers.of(1)).toEqual([2]);
  });
});
