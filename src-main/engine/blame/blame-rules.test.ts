import { describe, expect, it } from 'vitest';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { blameChecked, chat, topBlamed } from '../../../test/support/blame-checked';

const blame = blameChecked;
const top = topBlamed;

function rag(passages: string[], answer: string, opts: { verdict?: boolean; promptOut?: string } = {}): TraceBuilder {
  const q = 'What is the capital of Australia?';
  const b = new TraceBuilder({ input: { question: q } });
  b.step('retrieve', 'retrieval', { input: { query: q }, output: passages.map((text) => ({ text })) });
  const prompt = opts.promptOut ?? `Context:\n${passages.join('\n')}\nQuestion: ${q}`;
  b.step('build_prompt', 'prompt', { input: { question: q, passages }, output: prompt });
  b.step('answer', 'llm', { input: chat(prompt), output: answer });
  if (opts.verdict !== undefined) b.verdict(opts.verdict, opts.verdict ? undefined : 'wrong answer');
  return b.finish('ok', answer);
}
const GOOD = 'Canberra is the capital city of Australia, chosen in 1908.';
const NOISE = ['Bananas are rich in potassium and widely eaten.', 'The Eiffel Tower was completed in 1889 in Paris.'];

describe('abstention', () => {
  it('a healthy run gets no blamed step at all', () => {
    const r = blame(rag([GOOD], 'Canberra.'));
    expect(r.healthy).toBe(true);
    expect(r.blamed).toEqual([]);
    expect(r.failure).toBeNull();
    expect(r.step_scores).toHaveLength(3);
  });

  it("a passing verdict outranks the heuristics: irrelevant passages on a run the oracle passed are not blamed", () => {
    const r = blame(rag(NOISE, 'Canberra.', { verdict: true }));
    expect(r.healthy).toBe(true);
    expect(r.blamed).toEqual([]);
  });

  it('a soft problem without a verdict does not make a run failed', () => {
    expect(blame(rag(NOISE, 'Canberra.')).healthy).toBe(true);
  });

  it('a failing verdict gets a ranked list with a one-sentence reason quoting the trace', () => {
    const r = blame(rag(NOISE, 'Sydney.', { verdict: false }));
    expect(r.healthy).toBe(false);
    expect(r.failure?.kind).toBe('verdict');
    expect(top(r).name).toBe('retrieve');
    expect(top(r).reason).toMatch(/relevant to "What is the capital of Australia\?"/);
    expect(top(r).evidence.length).toBeGreaterThan(0);
    expect(r.lineage_path[0]).toBe(top(r).step_id);
    expect(r.lineage_path.at(-1)).toBe('s2');
  });
});

describe('recovered errors', () => {
  it('a retry that succeeded is not blamed', () => {
    const b = new TraceBuilder({ input: { question: 'photosynthesis?' } });
    b.step('search_api', 'tool', { input: { q: 'photosynthesis' }, error: { type: 'HTTPError', message: '503 Service Unavailable', status: 503 } });
    b.step('search_api', 'tool', { input: { q: 'photosynthesis' }, output: [{ text: 'Photosynthesis makes glucose and oxygen.' }] });
    b.step('answer', 'llm', { input: chat('Photosynthesis makes glucose and oxygen. What does it make?'), output: "I'm sorry, but I can't answer that." });
    b.verdict(false, 'refused');
    const r = blame(b.finish('ok', "I'm sorry, but I can't answer that."));
    expect(top(r).name).toBe('answer');
    expect(r.blamed.some((x) => x.step_id === 's0')).toBe(false);
    expect(r.recovered?.[0]).toMatchObject({ step_id: 's0', by: 's1' });
  });

  it('an error that was caught and did not reach the output leaves a run healthy', () => {
    const b = new TraceBuilder({ input: { user: 'u-1' } });
    const a = b.start('card', 'agent', { input: { user: 'u-1' } });
    b.step('get_avatar', 'tool', { parent: a, input: { user: 'u-1' }, error: { type: 'HTTPError', message: '500 Internal Server Error', status: 500 } });
    b.step('render', 'llm', { parent: a, input: chat('Dana, Team plan'), output: 'Dana is on the Team plan.' });
    b.end(a, { output: 'Dana is on the Team plan.' });
    const r = blame(b.finish('ok', 'Dana is on the Team plan.'));
    expect(r.healthy).toBe(true);
    expect(r.recovered?.[0].name).toBe('get_avatar');
  });

  it('a caught error that the answer apologises for is blamed', () => {
    const b = new TraceBuilder({ input: { q: 'weather in Lisbon?' } });
    const a = b.start('agent', 'agent', { input: { q: 'weather in Lisbon?' } });
    b.step('get_weather', 'tool', { parent: a, input: { city: 'Lisbon' }, error: { type: 'TimeoutError', message: 'Read timed out after 30s' } });
    b.step('reply', 'llm', { parent: a, input: chat('The weather tool failed.'), output: "Sorry, I couldn't get the weather." });
    b.end(a, { output: "Sorry, I couldn't get the weather." });
    const r = blame(b.finish('ok', "Sorry, I couldn't get the weather."));
    expect(top(r).name).toBe('get_weather');
    expect(top(r).rule).toBe('error-origin');
  });
});

describe('error origin', () => {
  it('in a tree of failing spans the deepest error is the origin and its failing ancestors are symptoms', () => {
    const b = new TraceBuilder({ input: { topic: 'batteries' } });
    const o = b.start('orchestrator', 'agent', { input: { topic: 'batteries' } });
    const r1 = b.start('researcher', 'agent', { parent: o, input: { topic: 'batteries' } });
    b.step('web_fetch', 'tool', { parent: r1, input: { url: 'https://example.org' }, error: { type: 'TimeoutError', message: 'timed out after 20000 ms' } });
    b.end(r1, { error: { type: 'ResearchError', message: 'no sources' } });
    b.end(o, { error: { type: 'CrewError', message: 'researcher failed' } });
    const r = blame(b.finish('error', undefined, { type: 'CrewError', message: 'researcher failed' }));
    expect(top(r).name).toBe('web_fetch');
    expect(top(r).confidence).toBe('high');
    expect(r.symptoms.map((s) => s.name).sort()).toEqual(['orchestrator', 'researcher']);
    expect(r.symptoms.every((s) => s.caused_by === top(r).step_id)).toBe(true);
  });

  it('a tool that fails on generated code blames the step that wrote the code', () => {
    const code = 'data = [3, 5]\nmean = sum(data) / len(data\nprint(mean)';
    const b = new TraceBuilder({ input: { task: 'mean of [3, 5]' } });
    b.step('write_code', 'llm', { input: chat('Write Python for: mean of [3, 5]'), output: code });
    b.step('run_python', 'tool', { input: { code }, error: { type: 'SyntaxError', message: "'(' was never closed (line 2)" } });
    const r = blame(b.finish('error', undefined, { type: 'SyntaxError', message: 'failed' }));
    expect(top(r).name).toBe('write_code');
    expect(top(r).rule).toBe('input-caused-error');
    expect(r.symptoms.find((s) => s.name === 'run_python')?.caused_by).toBe(top(r).step_id);
  });

  it('a tool that times out on a good request is itself to blame', () => {
    const b = new TraceBuilder({ input: { q: 'sales' } });
    b.step('write_sql', 'llm', { input: chat('sales'), output: 'SELECT SUM(amount) FROM sales' });
    b.step('db_query', 'tool', { input: { sql: 'SELECT SUM(amount) FROM sales' }, error: { type: 'OperationalError', message: 'could not connect: Connection refused' } });
    expect(top(blame(b.finish('error')))?.name).toBe('db_query');
  });

  it('a run that stopped mid-step blames the step that never finished', () => {
    const b = new TraceBuilder({ input: { url: 'https://data.example.org/big.csv' } });
    const a = b.start('build', 'agent', { input: {} });
    b.step('check_space', 'tool', { parent: a, input: { path: '/data' }, output: { free_gb: 120 } });
    b.start('download_file', 'tool', { parent: a, input: { url: 'https://data.example.org/big.csv' } });
    const r = blame(b.detail({ final: true }));
    expect(r.failure?.kind).toBe('incomplete');
    expect(top(r)).toMatchObject({ name: 'download_file', rule: 'unfinished' });
  });
});

describe('cause before symptom', () => {
  it('a refusal that follows an empty retrieval blames the retrieval, and the refusal is its symptom', () => {
    const q = 'How long is the warranty?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('retrieve', 'retrieval', { input: { query: q }, output: [] });
    b.step('answer', 'llm', { input: chat(`Context: none\n${q}`), output: "I don't have enough information to answer that." });
    const r = blame(b.finish('ok', "I don't have enough information to answer that."));
    expect(r.failure?.kind).toBe('bad-output');
    expect(top(r).name).toBe('retrieve');
    expect(r.symptoms.find((s) => s.name === 'answer')?.caused_by).toBe(top(r).step_id);
  });

  it('a wrong argument produced by a model and faithfully executed by a tool blames the model', () => {
    const q = 'How many sales did we make on 2024-03-15?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('plan_query', 'llm', { input: chat(q), output: '{"date": "2023-03-15"}' });
    b.step('sales_db', 'tool', { input: { date: '2023-03-15' }, output: { count: 42 } });
    b.step('answer', 'llm', { input: chat('sales on 2023-03-15 = 42'), output: 'We made 42 sales on 2023-03-15.' });
    b.verdict(false, 'wrong day');
    const r = blame(b.finish('ok', 'We made 42 sales on 2023-03-15.'));
    expect(top(r)).toMatchObject({ name: 'plan_query', rule: 'wrong-argument' });
    expect(top(r).reason).toContain('"2023-03-15"');
    expect(top(r).reason).toContain('"2024-03-15"');
  });

  it('good passages retrieved and then dropped by the prompt step blame the prompt step', () => {
    const r = blame(rag([GOOD, NOISE[0]], 'Sydney.', { verdict: false, promptOut: 'Answer the question.\nQuestion: What is the capital of Australia?' }));
    expect(top(r)).toMatchObject({ name: 'build_prompt', rule: 'dropped-context' });
  });

  it('a value in the answer that no upstream step supplied is a fabrication by the answering step', () => {
    const r = blame(rag([GOOD], 'Canberra has been the capital since 1927 and has 467,000 people.', { verdict: false }));
    expect(top(r)).toMatchObject({ name: 'answer', rule: 'fabrication' });
    expect(top(r).reason).toContain('"467,000"');
  });

  it('a value the answer computed from its inputs is not a fabrication', () => {
    const b = new TraceBuilder({ input: { request: 'Convert 100 EUR to USD' } });
    b.step('rates', 'tool', { input: { base: 'EUR' }, output: { EUR_USD: 1.31 } });
    b.step('convert', 'llm', { input: chat('Convert 100 EUR to USD. Rate 1.31'), output: '100 EUR is 131 USD.' });
    b.verdict(false, 'stale rate');
    const r = blame(b.finish('ok', '100 EUR is 131 USD.'), { toolStats: { rates: { calls: 30, failures: 12 } } });
    expect(r.blamed.some((x) => x.rule === 'fabrication')).toBe(false);
    expect(top(r).name).toBe('rates');
    expect(top(r).confidence).not.toBe('high');
  });

  it('an upstream plan that filtered away part of the request is blamed', () => {
    const q = 'Compare the Q3 2024 revenue of Germany and France.';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('planner', 'llm', { input: chat(q), output: '{"lookups": [{"country": "Germany"}]}' });
    b.step('revenue_db', 'tool', { input: { country: 'Germany' }, output: { revenue: 18400000 } });
    b.step('answer', 'llm', { input: chat('Germany revenue 18400000'), output: 'Germany had 18.4 million.' });
    b.verdict(false, 'France missing');
    const r = blame(b.finish('ok', 'Germany had 18.4 million.'));
    expect(top(r)).toMatchObject({ name: 'planner', rule: 'information-lost' });
    expect(top(r).reason).toContain('"France"');
  });
});

describe('expected answer', () => {
  it('traces where the expected information was present and where it was lost', () => {
    const b = new TraceBuilder({ input: { question: 'How long is the X200 warranty?' } });
    b.step('retrieve', 'retrieval', { input: { query: 'X200 warranty' }, output: [{ text: 'The X200 warranty lasts 24 months and covers the motor.' }] });
    b.step('condense', 'llm', { input: chat('Condense: The X200 warranty lasts 24 months and covers the motor.'), output: 'The warranty covers the motor.' });
    b.step('answer', 'llm', { input: chat('The warranty covers the motor.'), output: 'It covers the motor.' });
    b.verdict(false, 'no duration');
    const r = blame(b.finish('ok', 'It covers the motor.'), { expected: '24 months' });
    expect(top(r)).toMatchObject({ name: 'condense', rule: 'expected-lost' });
  });

  it('when no step ever held the expected information, the lookup that should have brought it in is blamed', () => {
    const b = new TraceBuilder({ input: { question: 'When did Apollo 11 land?' } });
    b.step('retrieve', 'retrieval', { input: { query: 'Apollo 11 landing' }, output: [{ text: 'Apollo 14 launched in 1971 and landed at Fra Mauro.' }] });
    b.step('answer', 'llm', { input: chat('Apollo 14 launched in 1971. When did Apollo 11 land?'), output: 'In 1971.' });
    b.verdict(false, 'wrong year', 'It landed in 1969.');
    const r = blame(b.finish('ok', 'In 1971.'));
    expect(top(r)).toMatchObject({ name: 'retrieve', rule: 'expected-never-present' });
  });
});

describe('across runs', () => {
  it('a step signature that goes with failure across runs is blamed (Ochiai)', () => {
    const run = (i: number, region: boolean) => {
      const b = new TraceBuilder({ runId: `r${i}`, pipeline: 'pricing', input: { q: `price of SKU-${100 + i}` } });
      b.step('parse', 'generic', { input: { q: `price of SKU-${100 + i}` }, output: { sku: `SKU-${100 + i}` } });
      b.step('pricing_api', 'tool', { input: region ? { sku: `SKU-${100 + i}`, region: 'eu' } : { sku: `SKU-${100 + i}` }, output: { price: 10 + i } });
      b.step('answer', 'llm', { input: chat(`price ${10 + i}`), output: `It costs ${10 + i}.` });
      b.verdict(region, region ? undefined : 'wrong currency');
      return b.finish('ok', `It costs ${10 + i}.`).detail();
    };
    const history = [run(1, true), run(2, false), run(3, true), run(4, false), run(5, true)];
    const failing = run(6, false);
    const r = blame(failing, { history });
    expect(top(r)).toMatchObject({ name: 'pricing_api', rule: 'spectrum' });
    expect(top(r).reason).toContain('Ochiai 1.00');
    const alone = blame(failing, { history: [] });
    expect(alone.blamed.some((x) => x.rule === 'spectrum')).toBe(false);
  });
});

describe('loops and repeats', () => {
  it('a failure repeated in a loop is blamed once, at its first occurrence, and the iteration limit is a symptom', () => {
    const b = new TraceBuilder({ input: { q: 'papers on GNNs' } });
    const a = b.start('agent', 'agent', { input: { q: 'papers on GNNs' } });
    for (let i = 0; i < 20; i++) {
      b.step('agent_llm', 'llm', { parent: a, input: chat(`papers on GNNs, attempt ${i}`), output: { content: '', tool_calls: [{ id: `c${i}`, function: { name: 'search', arguments: '{"q":"GNN"}' } }] } });
      b.step('search', 'tool', { parent: a, input: { q: 'GNN' }, metadata: { tool_call_id: `c${i}` }, output: { error: 'rate limit exceeded' } });
    }
    b.end(a, { error: { type: 'AgentError', message: 'Agent stopped: max iterations (20) reached' } });
    const r = blame(b.finish('error'));
    expect(top(r).step_id).toBe('s2');
    expect(r.blamed.filter((x) => x.name === 'search')).toHaveLength(1);
    expect(r.symptoms.find((s) => s.name === 'agent')?.caused_by).toBe('s2');
    expect(r.loops?.some((l) => l.name === 'search' && l.count === 20)).toBe(true);
  });
});

describe('duplicates', () => {
  it('an LLM call recorded by two instrumentation layers is never blamed twice', () => {
    const b = new TraceBuilder({ input: { q: 'capital?' } });
    const first = b.step('answer', 'llm', { input: chat('capital?'), output: "I'm sorry, but I can't help with that." });
    b.step('answer', 'llm', { input: chat('capital?'), output: "I'm sorry, but I can't help with that.", metadata: { duplicate_of: first } });
    b.verdict(false, 'refused');
    const r = blame(b.finish('ok', "I'm sorry, but I can't help with that."));
    expect(top(r).step_id).toBe(first);
    expect([...r.blamed, ...r.co_blamed].map((x) => x.step_id)).not.toContain('s1');
  });
});

describe('confidence', () => {
  it('two findings in a near tie give low confidence and a co-blame', () => {
    const b = new TraceBuilder({ input: { q: 'two things' } });
    b.step('tool_a', 'tool', { input: { q: 'a' }, error: { type: 'TimeoutError', message: 'timed out' } });
    b.step('tool_b', 'tool', { input: { q: 'b' }, error: { type: 'TimeoutError', message: 'timed out too' } });
    const r = blame(b.finish('error'));
    expect(top(r).confidence).toBe('low');
    expect(r.co_blamed.map((x) => x.name)).toEqual(['tool_b']);
    expect(top(r).name).toBe('tool_a');
  });
});
