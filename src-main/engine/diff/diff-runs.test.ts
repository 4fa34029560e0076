import { describe, expect, it } from 'vitest';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import { alignSteps } from './align-steps';
import { diffRuns } from './diff-runs';

const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };
const chat = (t: string) => ({ messages: [{ role: 'user', content: t }] });

function agentRun(runId: string, searches: number, opts: { fail?: boolean; verdict?: boolean } = {}) {
  const b = new TraceBuilder({ runId, pipeline: 'p', input: { q: 'find GNN papers' } });
  const a = b.start('agent', 'agent', { input: { q: 'find GNN papers' } });
  for (let i = 0; i < searches; i++) {
    b.step('search', 'tool', { parent: a, input: { q: `GNN page ${i + 1}` }, output: opts.fail && i === searches - 1 ? { error: 'rate limit exceeded' } : [{ title: `Paper ${i + 1}` }] });
  }
  b.step('answer', 'llm', { parent: a, input: chat('Summarise the papers found.'), output: 'Found several GNN papers.' });
  b.end(a, { output: 'Found several GNN papers.' });
  if (opts.verdict !== undefined) b.verdict(opts.verdict, opts.verdict ? undefined : 'missing papers');
  return b.finish('ok', 'Found several GNN papers.').detail();
}

describe('diff of two runs', () => {
  it('a loop with one more iteration aligns step by step and names the extra iteration as the first divergence', () => {
    const d = diffRuns(agentRun('a', 2), agentRun('b', 3), ctx);
    expect(d.rows.map((r) => `${r.key}:${r.change}`)).toEqual([
      'agent#0:same',
      'agent#0/search#0:same',
      'agent#0/search#1:same',
      'agent#0/search#2:added',
      'agent#0/answer#0:same',
    ]);
    expect(d.first_divergence).toEqual({ key: 'agent#0/search#2', kind: 'structure', description: 'step "search" (agent#0/search#2) appears only in B' });
  });

  it('repeated names are not collapsed into one row', () => {
    const rows = alignSteps(agentRun('a', 3), agentRun('b', 3));
    expect(rows.filter((r) => r.key.includes('search'))).toHaveLength(3);
  });

  it('a run that passed and one that failed make a regression naming the step blamed in B, with its score delta', () => {
    const d = diffRuns(agentRun('a', 2, { verdict: true }), agentRun('b', 2, { fail: true, verdict: false }), ctx);
    expect(d.verdict).toBe('regression');
    expect(d.step).toMatchObject({ key: 'agent#0/search#1', name: 'search' });
    const row = d.rows.find((r) => r.key === 'agent#0/search#1')!;
    expect(row.change).toBe('changed');
    expect(row.delta).toBeLessThan(-0.5);
    expect(d.first_divergence).toMatchObject({ key: 'agent#0/search#1', kind: 'content' });
  });

  it('the fix of a failing run is an improvement naming the step that was blamed', () => {
    const d = diffRuns(agentRun('a', 2, { fail: true, verdict: false }), agentRun('b', 2, { verdict: true }), ctx);
    expect(d.verdict).toBe('improvement');
    expect(d.step?.name).toBe('search');
  });

  it('identical runs are neutral with no divergence', () => {
    const d = diffRuns(agentRun('a', 2), agentRun('b', 2), ctx);
    expect(d.verdict).toBe('neutral');
    expect(d.first_divergence).toBeNull();
    expect(d.rows.every((r) => r.change === 'same' && r.delta === 0)).toBe(true);
  });

  it('runs without usable replay keys are aligned by tree position', () => {
    const a = agentRun('a', 2);
    const b = agentRun('b', 2);
    for (const s of [...a.steps, ...b.steps]) s.replay_key = '';
    expect(alignSteps(a, b).map((r) => r.key)).toEqual(['agent#0', 'agent#0/search#0', 'agent#0/search#1', 'agent#0/answer#0']);
  });
});
