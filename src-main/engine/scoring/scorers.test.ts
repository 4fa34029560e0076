import { describe, expect, it } from 'vitest';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { bm25Relevance, embeddingRelevance } from './relevance';
import { meanPairwiseRougeL, rougeL } from './rouge-l';
import { scoreRun } from './score-run';
import { DEFAULT_SETTINGS } from './settings';
import { classifyError } from './error-class';
import { porterStem } from '../text/porter-stem';

const ctx = { settings: DEFAULT_SETTINGS, toolStats: {} };

function scoresOf(b: TraceBuilder, toolStats = {}) {
  return scoreRun(b.detail(), { ...ctx, toolStats });
}
function check(health: ReturnType<typeof scoresOf>[number], name: string) {
  return health.checks.find((c) => c.name === name);
}

describe('retrieval scorer', () => {
  it('a retriever that returned unrelated passages scores low, and says which query it missed', () => {
    const b = new TraceBuilder();
    b.step('search', 'retrieval', { input: { query: 'capital of Australia' }, output: ['Bananas are rich in potassium.', 'Knitting uses needles.'] });
    const [h] = scoresOf(b);
    expect(h.score).toBeLessThan(0.2);
    expect(check(h, 'retrieval.relevance')?.explanation).toContain('0 of 2 passages relevant to "capital of Australia"');
  });

  it('one relevant passage among noise is enough: the step stays healthy and each passage keeps its own score', () => {
    const b = new TraceBuilder();
    b.step('search', 'retrieval', {
      input: { query: 'capital of Australia' },
      output: [{ text: 'Bananas are rich in potassium.' }, { text: 'Canberra is the capital of Australia.' }],
    });
    const [h] = scoresOf(b);
    expect(h.score).toBeGreaterThan(0.8);
    expect(check(h, 'retrieval.passage[0]')!.value).toBeLessThan(0.2);
    expect(check(h, 'retrieval.passage[1]')!.value).toBeGreaterThan(0.8);
  });

  it('an empty result is flagged as empty, not as irrelevant', () => {
    const b = new TraceBuilder();
    b.step('search', 'retrieval', { input: { query: 'refund window' }, output: { results: [] } });
    const [h] = scoresOf(b);
    expect(check(h, 'retrieval.empty')).toBeDefined();
    expect(h.score).toBe(DEFAULT_SETTINGS.scoring.retrieval.empty_score);
  });

  it('stemming lets "retrieved" match "retrieval"', () => {
    expect(porterStem('retrieved')).toBe(porterStem('retrieving'));
    const [score] = bm25Relevance(DEFAULT_SETTINGS).score('retrieval of documents', ['The documents were retrieved quickly.']);
    expect(score).toBeGreaterThan(0.5);
  });

  it('an embedding provider can replace the lexical relevance', () => {
    const provider = embeddingRelevance({ name: 'toy', embed: (texts) => texts.map((t) => [t.includes('cat') ? 1 : 0, 1]) });
    const [a, b] = provider.score('cat', ['a cat', 'a dog']);
    expect(a).toBeGreaterThan(b);
    const run = new TraceBuilder();
    run.step('search', 'retrieval', { input: { query: 'cat' }, output: ['a dog'] });
    const [h] = scoreRun(run.detail(), { ...ctx, relevance: provider });
    expect(check(h, 'retrieval.relevance')!.explanation).toContain('embedding:toy');
  });
});

describe('llm scorer', () => {
  it('a refusal is a hard failure quoting the refusal', () => {
    const b = new TraceBuilder();
    b.step('answer', 'llm', { input: 'What is 2+2?', output: "I'm sorry, but I can't help with that." });
    const [h] = scoresOf(b);
    const c = check(h, 'llm.refusal')!;
    expect(c.value).toBeLessThan(0.2);
    expect(c.explanation).toContain("I'm sorry, but I can't");
  });

  it('a concise correct answer is complete: one word is enough', () => {
    const b = new TraceBuilder();
    b.step('answer', 'llm', { input: 'Capital of France?', output: 'Paris.' });
    expect(scoresOf(b)[0].score).toBe(1);
  });

  it('an empty answer is incomplete', () => {
    const b = new TraceBuilder();
    b.step('answer', 'llm', { input: 'Capital of France?', output: '  ' });
    expect(check(scoresOf(b)[0], 'llm.empty')).toBeDefined();
  });

  it('a response cut at the token limit is truncated, whether the finish reason is in metadata or in the output', () => {
    const b = new TraceBuilder();
    b.step('a', 'llm', { input: 'x', output: 'Light travels at', endMetadata: { finish_reason: 'length' } });
    b.step('b', 'llm', { input: 'x', output: { content: 'Light travels at', stop_reason: 'max_tokens' } });
    const [a, c] = scoresOf(b);
    expect(check(a, 'llm.truncated')).toBeDefined();
    expect(check(c, 'llm.truncated')).toBeDefined();
  });

  it('samples that disagree lower the score; samples that agree in other words do not', () => {
    const b = new TraceBuilder();
    b.step('bad', 'llm', { input: 'x', output: 'Toledo', endMetadata: { samples: ['It is in Toledo, Ohio.', 'Denver, Colorado is the place.', 'Austin in Texas.'] } });
    b.step('good', 'llm', { input: 'x', output: 'Canberra', endMetadata: { samples: ['The capital of Australia is Canberra.', 'Canberra is the capital of Australia.'] } });
    const [bad, good] = scoresOf(b);
    expect(check(bad, 'llm.consistency')!.value).toBeLessThan(DEFAULT_SETTINGS.scoring.llm.consistency_floor);
    expect(check(good, 'llm.consistency')!.value).toBe(1);
    expect(rougeL(['a', 'b', 'c'], ['a', 'c'])).toBeCloseTo(0.8, 5);
    expect(meanPairwiseRougeL([['x'], ['x'], ['x']])).toBe(1);
  });

  it('a provider error scores 0 and is classified as the provider\'s own fault', () => {
    const b = new TraceBuilder();
    b.step('answer', 'llm', { input: 'x', error: { type: 'OverloadedError', message: 'Overloaded', status: 529 } });
    const [h] = scoresOf(b);
    expect(h.score).toBe(0);
    expect(check(h, 'status.error')!.explanation).toContain('own fault');
  });

  it('an answer about something else is non-responsive', () => {
    const b = new TraceBuilder();
    b.step('translate', 'llm', {
      input: 'Translate to French: Good morning, how are you today?',
      output: 'Here is a recipe for banana bread: mix flour, sugar, eggs and ripe bananas, then bake it slowly.',
    });
    expect(check(scoresOf(b)[0], 'llm.non_responsive')).toBeDefined();
  });
});

describe('tool scorer', () => {
  it('an exception scores 0 with its message', () => {
    const b = new TraceBuilder();
    b.step('get_weather', 'tool', { input: { city: 'Lisbon' }, error: { type: 'TimeoutError', message: 'Read timed out' } });
    expect(check(scoresOf(b)[0], 'status.error')!.explanation).toContain('TimeoutError: Read timed out');
  });

  it('a tool that "succeeds" with {"error": ...} is caught as an error payload', () => {
    const b = new TraceBuilder();
    b.step('quote', 'tool', { input: { t: 'ACME' }, output: { error: 'service unavailable' } });
    b.step('flights', 'tool', { input: {}, output: 'Error: rate limit exceeded' });
    b.step('lookup', 'tool', { input: {}, output: { success: false, data: null } });
    for (const h of scoresOf(b)) expect(check(h, 'tool.error_payload')).toBeDefined();
  });

  it('an empty payload is flagged, an empty list less so, and a side-effect tool returning nothing is fine', () => {
    const b = new TraceBuilder();
    b.step('a', 'tool', { input: {}, output: null });
    b.step('b', 'tool', { input: {}, output: [] });
    b.step('send_email', 'tool', { input: {}, output: null, metadata: { side_effect: true } });
    const [a, list, mail] = scoresOf(b);
    expect(a.score).toBe(DEFAULT_SETTINGS.scoring.tool.empty_score);
    expect(list.score).toBe(DEFAULT_SETTINGS.scoring.tool.empty_list_score);
    expect(mail.score).toBe(1);
  });

  it('a declared expected type that the output does not have is a mismatch', () => {
    const b = new TraceBuilder();
    b.step('count', 'tool', { input: {}, output: 'twelve', metadata: { expected_type: 'integer' } });
    b.step('count2', 'tool', { input: {}, output: 12, metadata: { expected_type: { type: 'number' } } });
    const [bad, good] = scoresOf(b);
    expect(check(bad, 'tool.type_mismatch')).toBeDefined();
    expect(check(good, 'tool.type_mismatch')).toBeUndefined();
  });

  it('a tool that failed often in past runs carries its failure rate', () => {
    const b = new TraceBuilder();
    b.step('geo_lookup', 'tool', { input: { place: 'Pune' }, output: { tz: 'Asia/Kolkata' } });
    const [h] = scoresOf(b, { geo_lookup: { calls: 20, failures: 8 } });
    expect(check(h, 'tool.flaky')!.value).toBeCloseTo(0.6, 5);
    const [few] = scoresOf(b, { geo_lookup: { calls: 2, failures: 2 } });
    expect(check(few, 'tool.flaky')).toBeUndefined();
  });
});

describe('user scores and duplicates', () => {
  it('a score the user recorded on a step counts like any check', () => {
    const b = new TraceBuilder();
    const id = b.step('answer', 'llm', { input: 'x', output: 'fine answer' });
    b.score('helpfulness', 0.2, id, 'missed the point');
    const [h] = scoresOf(b);
    expect(h.score).toBe(0.2);
    expect(check(h, 'user.helpfulness')!.source).toBe('user');
  });

  it('an LLM call recorded twice is scored once', () => {
    const b = new TraceBuilder();
    const first = b.step('answer', 'llm', { input: 'x', output: "I'm sorry, but I can't help with that." });
    b.step('answer', 'llm', { input: 'x', output: "I'm sorry, but I can't help with that.", metadata: { duplicate_of: first } });
    const [a, dup] = scoresOf(b);
    expect(a.score).toBeLessThan(0.5);
    expect(dup.score).toBeNull();
  });
});

describe('error classification', () => {
  it('tells input faults from the step\'s own faults', () => {
    expect(classifyError({ type: 'SyntaxError', message: 'invalid syntax' }).origin).toBe('input');
    expect(classifyError({ type: 'HTTPError', message: 'Order not found', status: 404 }).origin).toBe('input');
    expect(classifyError({ type: 'KeyError', message: "'amount'" }).origin).toBe('input');
    expect(classifyError({ type: 'TimeoutError', message: 'Read timed out' }).origin).toBe('own');
    expect(classifyError({ type: 'HTTPError', message: 'Bad Gateway', status: 502 }).origin).toBe('own');
    expect(classifyError({ type: 'Error', message: 'connection reset by peer' }).origin).toBe('own');
    expect(classifyError({ type: 'AgentError', message: 'Agent stopped: max iterations (60) reached' }).origin).toBe('budget');
    expect(classifyError({ type: 'RuntimeError', message: 'something odd' }).origin).toBe('unknown');
  });
});
