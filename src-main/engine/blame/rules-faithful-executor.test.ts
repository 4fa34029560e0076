import { describe, expect, it } from 'vitest';
import type { Json } from '../../../src-shared/trace-format';
import { numbersIn } from './rules-faithful-executor';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { blameChecked, chat, topBlamed } from '../../../test/support/blame-checked';

const blame = blameChecked;
const top = topBlamed;

const QUESTION = 'Which cities in Aurelia have a population over 1 million?';
const ROWS = [
  { city: 'Port Aurel', population: 2410000, metro_population: 3900000 },
  { city: 'Vessen', population: 1320000, metro_population: 2050000 },
  { city: 'Dunmore', population: 870000, metro_population: 1610000 },
];

/** planner → researcher (agent: query_table tool → summarize llm) → writer, as in the research-team demo. */
function researchRun(plan: Json, rows: typeof ROWS, opts: { parser?: boolean; detail?: string; expected?: Json } = {}): TraceBuilder {
  const b = new TraceBuilder({ input: { question: QUESTION } });
  b.step('planner', 'llm', { input: { question: QUESTION }, output: plan });
  let args = plan;
  if (opts.parser) {
    args = { ...(plan as Record<string, Json>) };
    b.step('parse_plan', 'generic', { input: { text: JSON.stringify(plan) }, output: args });
  }
  const agent = b.start('researcher', 'agent', { input: args });
  b.step('query_table', 'tool', { parent: agent, input: args, output: rows });
  const cities = rows.map((r) => r.city);
  b.step('summarize_findings', 'llm', { parent: agent, input: { plan: args, rows }, output: cities });
  b.end(agent, { output: { cities } });
  const answer = `The cities in Aurelia over the threshold are ${cities.join(', ')}.`;
  b.step('writer', 'llm', { input: { question: QUESTION, findings: { cities } }, output: answer });
  b.verdict(false, opts.detail ?? 'wrongly includes Dunmore', opts.expected ?? ['Port Aurel', 'Vessen']);
  return b.finish('ok', answer);
}

const WRONG_PLAN = { country: 'Aurelia', measure: 'metro_population', op: '>', threshold: 1000000 };
const RIGHT_PLAN = { country: 'Aurelia', measure: 'population', op: '>', threshold: 1000000 };

describe('the origin of bad content is blamed, not the tool that faithfully computed it', () => {
  it('a plan with a wrong field, executed faithfully by a tool, blames the planner and names the tool as where the content entered', () => {
    const r = blame(researchRun(WRONG_PLAN, ROWS));
    expect(top(r)).toMatchObject({ name: 'planner', rule: 'faithful-executor', confidence: 'high' });
    expect(top(r).reason).toContain('"metro_population"');
    expect(top(r).reason).toContain('tool step "query_table"');
    expect(top(r).reason).toContain('"Dunmore"');
    expect(top(r).evidence.map((e) => [e.step_id, e.field])).toEqual([
      ['s0', 'output'],
      ['s2', 'input'],
      ['s2', 'output'],
      ['', 'run'],
    ]);
    expect(r.symptoms.find((s) => s.name === 'query_table')?.caused_by).toBe('s0');
    expect(r.lineage_path[0]).toBe('s0');
  });

  it('the same tool returning wrong data for arguments that match the request is itself to blame', () => {
    const r = blame(researchRun(RIGHT_PLAN, ROWS));
    expect(top(r)).toMatchObject({ name: 'query_table', rule: 'wrong-result' });
    expect(top(r).reason).toContain('"Dunmore"');
    expect(r.blamed.some((x) => x.name === 'planner')).toBe(false);
  });

  it('a step that only passed the plan on is not the origin: the step that first stated the wrong field is', () => {
    const r = blame(researchRun(WRONG_PLAN, ROWS, { parser: true }));
    expect(top(r)).toMatchObject({ name: 'planner', rule: 'faithful-executor' });
    expect(r.blamed.some((x) => x.name === 'parse_plan')).toBe(false);
  });

  it('without a verdict detail, answer values that the expected answer lacks are the wrong content', () => {
    const r = blame(researchRun(WRONG_PLAN, ROWS, { detail: 'the list is wrong', expected: ['Port Aurel', 'Vessen'] }));
    expect(top(r)).toMatchObject({ name: 'planner', rule: 'faithful-executor' });
  });

  it('a verdict detail that states the right answer rejects the answer\'s value of that kind: the tool that returned it for the right arguments is blamed', () => {
    const b = new TraceBuilder({ input: { question: 'Which timezone is Pune in?' } });
    b.step('geo_lookup', 'tool', { input: { place: 'Pune' }, output: { place: 'Pune', timezone: 'Asia/Dubai' } });
    b.step('answer', 'llm', { input: chat('Which timezone is Pune in?\nLookup: Pune -> Asia/Dubai'), output: 'Pune is in the Asia/Dubai timezone.' });
    b.verdict(false, 'Pune is in Asia/Kolkata');
    const r = blame(b.finish('ok', 'Pune is in the Asia/Dubai timezone.'));
    expect(r.blamed[0].name).toBe('geo_lookup');
    expect(r.blamed[0].rule).toBe('wrong-result');
  });

  it('wrong content that a model wrote itself is not traced to a tool', () => {
    const b = new TraceBuilder({ input: { question: QUESTION } });
    b.step('query_table', 'tool', { input: RIGHT_PLAN, output: ROWS.slice(0, 2) });
    b.step('writer', 'llm', { input: chat('Port Aurel, Vessen'), output: 'Port Aurel, Vessen and Dunmore.' });
    b.verdict(false, 'wrongly includes Dunmore');
    const r = blame(b.finish('ok', 'Port Aurel, Vessen and Dunmore.'));
    expect(r.blamed.some((x) => x.rule === 'faithful-executor' || x.rule === 'wrong-result')).toBe(false);
  });

  it('a tool argument that is a rescaled number of the request ("1 million") counts as supported', () => {
    expect(numbersIn('over 1 million and 2.5k, not 1,200')).toEqual([1, 1_000_000, 2.5, 2500, 1200]);
  });
});
