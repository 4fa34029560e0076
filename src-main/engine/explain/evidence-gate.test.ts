import { describe, expect, it } from 'vitest';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import type { RootCauseCandidate } from '../../../src-shared/explain';
import { gateCandidates } from './evidence-gate';

const gate = {
  min_confidence: DEFAULT_SETTINGS.explain.min_confidence,
  min_quote_overlap: DEFAULT_SETTINGS.explain.min_quote_overlap,
  min_quote_words: DEFAULT_SETTINGS.explain.min_quote_words,
  min_quote_chars: DEFAULT_SETTINGS.explain.min_quote_chars,
  vague_words: DEFAULT_SETTINGS.explain.vague_words,
};

function plannerRun() {
  const b = new TraceBuilder({ input: { question: 'Which cities in Aurelia have a population over 1 million?' } });
  b.step('planner', 'llm', {
    id: 'p1',
    input: { question: 'Which cities in Aurelia have a population over 1 million?' },
    output: { country: 'Aurelia', measure: 'metro_population', op: '>', threshold: 1000000 },
    metadata: { instructions: "Turn the question into one filter.  Measure a city's size by metro_population." },
  });
  b.step('writer', 'llm', { id: 'w1', output: 'The cities in Aurelia with a population over the threshold are Dunmore and Lenhal.' });
  b.verdict(false, 'wrongly includes Dunmore').finish('ok', 'Dunmore and Lenhal');
  return b.detail();
}

const candidate = (over: Partial<RootCauseCandidate>): RootCauseCandidate => ({
  step_id: 'p1',
  category: 'instruction_violation',
  confidence: 0.9,
  hypothesis: 'The planner measured by the wrong column.',
  evidence: [{ step_id: 'p1', field: 'metadata', quote: "Measure a city's size by metro_population." }],
  proposed_edit: null,
  ...over,
});

describe('the evidence gate', () => {
  it('accepts a candidate whose quote is verbatim in the named field, even with other white space', () => {
    const run = plannerRun();
    const { accepted, rejected } = gateCandidates(run, [candidate({ evidence: [{ step_id: 'p1', field: 'metadata', quote: 'Turn the question into one filter. Measure' }] })], gate);
    expect(rejected).toEqual([]);
    expect(accepted[0].evidence[0]).toMatchObject({ grounded: true, match: 'exact' });
    expect(accepted[0].step_name).toBe('planner');
  });

  it('accepts a quote the model re-typed from the JSON it was shown ("measure": "metro_population")', () => {
    const { accepted } = gateCandidates(plannerRun(), [candidate({ evidence: [{ step_id: 'p1', field: 'output', quote: '"measure": "metro_population"' }] })], gate);
    expect(accepted).toHaveLength(1);
    expect(accepted[0].evidence[0].grounded).toBe(true);
  });

  it('rejects a hallucinated quote and says it was not found in that field', () => {
    const { accepted, rejected } = gateCandidates(plannerRun(), [candidate({ evidence: [{ step_id: 'p1', field: 'output', quote: 'sorted by land area in square kilometres' }] })], gate);
    expect(accepted).toEqual([]);
    expect(rejected[0].evidence[0]).toMatchObject({ grounded: false, match: 'not_found' });
    expect(rejected[0].rejected_because.join(' ')).toMatch(/no quote from step p1 itself is grounded.*not found in that field/);
  });

  it('a real quote attributed to the wrong step does not count', () => {
    const { rejected } = gateCandidates(plannerRun(), [candidate({ evidence: [{ step_id: 'w1', field: 'output', quote: "Measure a city's size by metro_population." }] })], gate);
    expect(rejected).toHaveLength(1);
  });

  it('tolerates small differences (≥ 70% of the words in one window) but not a paraphrase', () => {
    const run = plannerRun();
    const near = gateCandidates(run, [candidate({ step_id: 'w1', evidence: [{ step_id: 'w1', field: 'output', quote: 'the cities in Aurelia with population over threshold are Dunmore' }] })], gate);
    expect(near.accepted[0].evidence[0]).toMatchObject({ grounded: true, match: 'overlap' });
    const para = gateCandidates(run, [candidate({ step_id: 'w1', evidence: [{ step_id: 'w1', field: 'output', quote: 'the writer listed two towns that are too small' }] })], gate);
    expect(para.rejected).toHaveLength(1);
    // The quote's words in another order are not the step's sentence.
    const shuffled = gateCandidates(run, [candidate({ step_id: 'w1', evidence: [{ step_id: 'w1', field: 'output', quote: 'Dunmore are the threshold over population with Aurelia in cities' }] })], gate);
    expect(shuffled.rejected).toHaveLength(1);
  });

  it('one common word, or a JSON key name, found in the field proves nothing', () => {
    for (const quote of ['the', 'measure', 'threshold']) {
      const { rejected } = gateCandidates(plannerRun(), [candidate({ evidence: [{ step_id: 'p1', field: 'output', quote }] })], gate);
      expect(rejected[0].evidence[0].match).toBe('too_short');
    }
  });

  it('a candidate grounded only by quotes from other steps or the run is dropped', () => {
    const { rejected } = gateCandidates(
      plannerRun(),
      [candidate({ step_id: 'p1', evidence: [{ step_id: 'w1', field: 'output', quote: 'The cities in Aurelia with a population' }, { step_id: 'anything', field: 'run', quote: 'Dunmore and Lenhal' }] })],
      gate,
    );
    expect(rejected).toHaveLength(1);
    expect(rejected[0].rejected_because.join(' ')).toMatch(/quotes only other steps or the run, never step p1 itself/);
  });

  it('a quote from a step the model saw only as a summary line is a guess, not evidence', () => {
    const shown = { fullTextSteps: new Set(['w1']), fullTextChars: 4000 };
    const { rejected } = gateCandidates(plannerRun(), [candidate({})], gate, undefined, shown);
    expect(rejected[0].evidence[0].match).toBe('not_shown');
  });

  it('a hedging quote ("the task implies", "likely") is never evidence, even when it is in the trace', () => {
    const b = new TraceBuilder();
    b.step('note', 'llm', { id: 'n1', output: 'The task implies the user likely wants metro figures.' });
    b.finish('ok', 'x');
    const { rejected } = gateCandidates(b.detail(), [candidate({ step_id: 'n1', evidence: [{ step_id: 'n1', field: 'output', quote: 'The task implies the user likely wants metro figures.' }] })], gate);
    expect(rejected[0].evidence[0].match).toBe('vague');
  });

  it('drops a candidate below the confidence threshold and shows why, with its quotes still checked', () => {
    const { rejected } = gateCandidates(plannerRun(), [candidate({ confidence: 0.55 })], gate);
    expect(rejected[0].rejected_because).toEqual(['confidence 0.55 is below 0.70']);
    expect(rejected[0].evidence[0].grounded).toBe(true);
  });

  it('the thresholds come from settings: a stricter confidence threshold drops what the default accepts', () => {
    expect(gateCandidates(plannerRun(), [candidate({ confidence: 0.75 })], { ...gate, min_confidence: 0.8 }).rejected).toHaveLength(1);
  });
});
