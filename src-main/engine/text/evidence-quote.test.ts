import { describe, expect, it } from 'vitest';
import type { Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { excerptAround, isVerbatim, QUOTE_MAX, quoteStep, quoteStepBest } from './evidence-quote';
import { termSet } from './text-terms';
import { leafTexts, stringLeaves } from './json-text';

function stepWith(output: Json): Step {
  return {
    run_id: 'r',
    step_id: 's1',
    parent_id: null,
    index: 1,
    name: 'x',
    type: 'prompt',
    replay_key: 'x#0',
    status: 'ok',
    input: null,
    output,
    error: null,
    started_at: 0,
    ended_at: 1,
    duration_ms: 1,
    model: null,
    usage: null,
    metadata: {},
    user_scores: [],
    replayed: false,
    extra: {},
  };
}

const PASSAGE =
  'Passages:\n[1] Troubleshooting sync: If sync is stuck, stop the sync process and start it again with the command nimbus sync --restart. A sync that stays paused usually means the disk is full. Sync logs are written to the folder ~/.nimbus/logs.\n[2] About Nimbus: founded in 2011.';
const PROMPT: Json = [
  { role: 'system', content: 'You are the Nimbus Drive support assistant. Answer only from the passages.' },
  { role: 'user', content: PASSAGE },
];

describe('evidence quotes a person can use', () => {
  it('a matched value is quoted with the sentence that holds it, not a window cut mid-word', () => {
    const ev = quoteStep(stepWith(PROMPT), 'output', 'nimbus sync --restart')!;
    expect(ev.quote).toBe('[1] Troubleshooting sync: If sync is stuck, stop the sync process and start it again with the command nimbus sync --restart.');
  });

  it('a path or an amount with a dot does not end a sentence', () => {
    const ev = quoteStep(stepWith(PASSAGE), 'output', 'logs')!;
    expect(ev.quote).toBe('Sync logs are written to the folder ~/.nimbus/logs.');
    expect(quoteStep(stepWith('It totals $512.40 today. Pay soon.'), 'output', '512')!.quote).toBe('It totals $512.40 today.');
  });

  it('a field quoted whole starts at its text, never at a role name or an id', () => {
    expect(quoteStep(stepWith(PROMPT), 'output')!.quote).toBe('You are the Nimbus Drive support assistant. Answer only from the passages.');
    const passages: Json = [{ id: 'company-history', title: 'About Nimbus', text: 'Nimbus was founded in 2011 in Lisbon by three former network engineers.' }];
    expect(quoteStep(stepWith(passages), 'output')!.quote).toBe('Nimbus was founded in 2011 in Lisbon by three former network engineers.');
    // With nothing that reads as text, the first leaf that is not structure.
    expect(quoteStep(stepWith({ role: 'tool', city: 'Lisbon' }), 'output')!.quote).toBe('Lisbon');
  });

  it('information found by its words is quoted with the sentence holding most of them', () => {
    const ev = quoteStepBest(stepWith(PROMPT), 'output', termSet('How do I restart a stuck sync with nimbus?'))!;
    expect(ev.quote).toContain('nimbus sync --restart');
    expect(quoteStepBest(stepWith(PROMPT), 'output', termSet('volcano eruption'))).toBeNull();
  });

  it('a long sentence is cut around the match within the limit, and every quote stays verbatim', () => {
    const long = `${'word '.repeat(60)}the key value 4471 is here ${'more '.repeat(60)}end.`;
    const step = stepWith(long);
    const ev = quoteStep(step, 'output', '4471')!;
    expect(ev.quote.length).toBeLessThanOrEqual(QUOTE_MAX);
    expect(ev.quote).toContain('4471');
    // Cut between words on both sides.
    expect(long.includes(` ${ev.quote} `)).toBe(true);
    const run = { input: null, output: null, error: null, verdict: null } as never;
    expect(isVerbatim(ev, [step], run)).toBe(true);
  });

  it('a reason shows the part of a long quote around the value', () => {
    const quote = '[1] Troubleshooting sync: If sync is stuck, stop the sync process and start it again with the command nimbus sync --restart.';
    const brief = excerptAround(quote, 'nimbus sync --restart', 50);
    expect(brief).toMatch(/^….*nimbus sync --restart\.$/);
    expect(brief.length).toBeLessThanOrEqual(51);
    expect(quote).toContain(brief.slice(1));
  });
});

describe('quotes around a needle', () => {
  it('read the texts stringLeaves gives, in order, skipping blank ones, exact case before any case', () => {
    const output: Json = { a: '   ', b: ['first Ledger line. Second ledger line.', 42, true], c: { d: 'ledger again' } };
    expect(leafTexts(output)).toEqual(stringLeaves(output).map((l) => l.text));
    // Exact case wins over an earlier case-insensitive match; a blank leaf is never quoted.
    expect(quoteStep(stepWith(output), 'output', 'ledger')?.quote).toBe('Second ledger line.');
    expect(quoteStep(stepWith(output), 'output', 'LEDGER')?.quote).toBe('first Ledger line.');
    expect(quoteStep(stepWith(output), 'output', ' ')?.quote).toBe('first Ledger line.');
    expect(quoteStep(stepWith(output), 'output', '42')?.quote).toBe('42');
    expect(quoteStep(stepWith(output), 'output', 'absent')).toBeNull();
  });
});
