import { describe, expect, it } from 'vitest';
import type { BlameResult } from '../../../src-shared/analysis';
import { themeOnlyMatch } from '../scoring/score-retrieval';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { blameChecked, chat, topBlamed } from '../../../test/support/blame-checked';

const blame = blameChecked;
const top = topBlamed;
const signal = (r: BlameResult, name: string) => r.detection?.signals.find((s) => s.name === name);

describe('failures with no verdict and no error status are recognised', () => {
  it('an answer that gives up after a search that found nothing fails the run and blames the search', () => {
    const q = 'Which ferries leave Naxos for Paros on Sunday morning?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('plan', 'llm', { input: chat(q), output: { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ferry_search', arguments: '{"from":"Naxos","to":"Paros"}' } }] } });
    b.step('ferry_search', 'tool', { input: { from: 'Naxos', to: 'Paros', day: 'Sunday' }, output: [], metadata: { tool_call_id: 'c1' } });
    const answer = "I'm sorry, but I couldn't find any ferries for that route.";
    b.step('answer', 'llm', { input: chat(`${q}\nResults: []`), output: answer });
    const r = blame(b.finish('ok', answer));
    expect(r.healthy).toBe(false);
    expect(r.detection?.status).toBe('failed');
    expect(signal(r, 'final-gives-up')).toBeDefined();
    expect(r.failure?.signals?.length).toBeGreaterThan(0);
    expect(top(r).name).toBe('ferry_search');
    expect(r.symptoms.map((s) => s.name)).toContain('answer');
  });

  it('a polite "there are no flights" grounded in an empty result that the user accepted stays healthy', () => {
    const q = 'Any direct flights from Porto to Oslo on 3 March?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('flight_search', 'tool', { input: { from: 'OPO', to: 'OSL', date: '2027-03-03', direct: true }, output: { flights: [] } });
    const answer = 'There are no direct flights from Porto to Oslo on 3 March; connections via Lisbon or Amsterdam are available.';
    b.step('answer', 'llm', { input: chat(`${q}\n{"flights": []}`), output: answer });
    const r = blame(b.finish('ok', answer));
    expect(r.healthy).toBe(true);
    expect(r.blamed).toEqual([]);
  });

  it('a canned refusal of a benign request fails the run and blames the refusing model call', () => {
    const q = 'How do I reset my router to factory settings?';
    const b = new TraceBuilder({ input: { question: q } });
    const answer = "I'm sorry, but I can't help with that request.";
    b.step('answer', 'llm', { input: chat(q), output: answer });
    const r = blame(b.finish('ok', answer));
    expect(r.detection?.status).toBe('failed');
    expect(top(r).name).toBe('answer');
  });

  it('a guardrail that replaced a good draft with a block message is blamed, not the model that wrote the draft', () => {
    const q = 'What was the company revenue in fiscal 2023?';
    const b = new TraceBuilder({ input: { question: q } });
    const draft = 'Revenue in fiscal 2023 was $383.3 billion, down 3% from the year before.';
    b.step('draft', 'llm', { input: chat(q), output: draft });
    const blocked = "I'm sorry, but I can't provide financial advice.";
    b.step('output_guardrail', 'generic', { input: { text: draft }, output: { blocked: true, text: blocked } });
    const r = blame(b.finish('ok', blocked));
    expect(r.detection?.status).toBe('failed');
    expect(signal(r, 'guardrail-block')?.step_id).toBeDefined();
    expect(top(r).name).toBe('output_guardrail');
    expect(top(r).rule).toBe('guardrail-block');
  });

  it('a code tool whose output holds a traceback and a non-zero exit code blames the code writer and co-blames the tool', () => {
    const q = 'Average of the titration readings in readings.csv';
    const b = new TraceBuilder({ input: { question: q } });
    const code = "```python\nimport pandas as pd\ndf = pd.read_csv('readings.csv')\nprint(df['volume'].mean())\n```";
    b.step('write_code', 'llm', { input: chat(q), output: code });
    const out = "exitcode: 1 (execution failed)\nCode output: Traceback (most recent call last):\n  File \"main.py\", line 3, in <module>\n    print(df['volume'].mean())\nKeyError: 'volume'";
    b.step('run_python', 'tool', { input: { code }, output: out });
    const answer = 'The average could not be computed.';
    b.step('answer', 'llm', { input: chat(out), output: answer });
    const r = blame(b.finish('ok', answer));
    expect(r.detection?.status).toBe('failed');
    expect(r.detection?.signals.map((s) => s.name)).toContain('error-payload');
    expect(top(r).name).toBe('write_code');
    expect(r.co_blamed.map((s) => s.name)).toContain('run_python');
  });

  it('an answer stating a number nothing upstream held, while the tool returned another, blames the answering step', () => {
    const q = 'How many US dollars is 2,500 euros today?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('fx_rate', 'tool', { input: { base: 'EUR', quote: 'USD' }, output: { rate: 1.0842 } });
    const answer = '2,500 euros is about 2,968.50 US dollars at today’s rate.';
    b.step('answer', 'llm', { input: chat(`${q}\nrate: 1.0842`), output: answer });
    const r = blame(b.finish('ok', answer));
    expect(r.detection?.status).toBe('failed');
    expect(signal(r, 'ungrounded-fact')?.description).toMatch(/returned "1\.0842"/);
    expect(top(r).name).toBe('answer');
  });

  it('a number the model knows, with nothing upstream to contradict it, is not a failure on its own', () => {
    const q = 'At what temperature does water boil at sea level, in Fahrenheit?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('answer', 'llm', { input: chat(q), output: 'At sea level water boils at 212 °F.' });
    const r = blame(b.finish('ok', 'At sea level water boils at 212 °F.'));
    expect(r.healthy).toBe(true);
    expect(r.detection?.status).not.toBe('failed');
  });

  it('sampled choices that contradict each other fail the run and blame that model call', () => {
    const q = 'Can I take amoxicillin if I am allergic to penicillin?';
    const b = new TraceBuilder({ input: { question: q } });
    const samples = [
      'No. Amoxicillin is a penicillin antibiotic; ask your doctor for an alternative.',
      'Yes, amoxicillin is generally safe to take with a penicillin allergy.',
      'Tomorrow the pharmacy opens at nine and closes at six on weekdays.',
    ];
    b.step('answer', 'llm', { input: chat(q), output: samples[1], metadata: { samples } });
    const r = blame(b.finish('ok', samples[1]));
    expect(signal(r, 'samples-disagree')).toBeDefined();
    expect(r.detection?.status).toBe('failed');
    expect(top(r).name).toBe('answer');
  });

  it('an error a tracing client dropped, quoted in the next model input, blames the step that made the call', () => {
    const q = 'Will it rain in Kyoto tomorrow?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('agent_llm', 'llm', { input: chat(q), output: { role: 'assistant', content: '', tool_calls: [{ id: 'w1', type: 'function', function: { name: 'weather', arguments: '{"city":"Kyoto"}' } }] } });
    b.step('agent_llm', 'llm', {
      input: { messages: [{ role: 'user', content: q }, { role: 'tool', tool_call_id: 'w1', content: 'weather API returned 503 Service Unavailable' }] },
      output: 'Sorry, I was unable to get the forecast for Kyoto.',
      metadata: { upstream_error: 'weather API returned 503 Service Unavailable' },
    });
    const r = blame(b.finish('ok', 'Sorry, I was unable to get the forecast for Kyoto.'));
    expect(r.detection?.signals.map((s) => s.name)).toContain('hidden-error');
    expect(top(r).step_id).toBe('s0');
    expect(top(r).rule).toBe('hidden-error');
  });
});

describe('the user can say "this run failed"', () => {
  function healthyLooking(): TraceBuilder {
    const q = 'Who painted the ceiling of the Sistine Chapel?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('search', 'retrieval', { input: { query: q }, output: [{ text: 'The Sistine Chapel ceiling was painted by Michelangelo between 1508 and 1512.' }] });
    b.step('rewrite', 'llm', { input: chat(q), output: 'Sistine Chapel ceiling painter' });
    b.step('answer', 'llm', { input: chat(`${q}\nThe Sistine Chapel ceiling was painted by Michelangelo between 1508 and 1512.`), output: 'Raphael painted it.' });
    return b.finish('ok', 'Raphael painted it.');
  }

  it('a run that looks healthy is never answered "healthy" once asserted: three ranked suspects with confidence', () => {
    expect(blame(healthyLooking()).healthy).toBe(true);
    const r = blame(healthyLooking(), { asserted: true });
    expect(r.healthy).toBe(false);
    expect(r.asserted).toBe(true);
    expect(r.failure?.kind).toBe('asserted');
    expect(r.blamed.length).toBe(3);
    expect(r.blamed.every((s) => ['high', 'medium', 'low'].includes(s.confidence))).toBe(true);
    expect(new Set(r.blamed.map((s) => s.step_id)).size).toBe(3);
  });

  it('an expected answer the output lacks makes the run failed without asserting it', () => {
    const r = blame(healthyLooking(), { expected: 'Michelangelo' });
    expect(r.healthy).toBe(false);
    expect(r.asserted).toBe(false);
    expect(r.failure?.kind).toBe('expected-missing');
  });

  it('an expected answer the output holds leaves a healthy run healthy', () => {
    const q = 'What is 6 times 7?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('answer', 'llm', { input: chat(q), output: '42.' });
    const r = blame(b.finish('ok', '42.'), { expected: '42' });
    expect(r.healthy).toBe(true);
  });
});

describe('retrieval relevance by what tells passages apart', () => {
  it('passages sharing only the general words of the query are not relevant to it', () => {
    const m = themeOnlyMatch('What is the electronics return policy?', [
      'Gift card return policy: gift cards cannot be returned or exchanged.',
      'Furniture return policy: furniture can be returned within 14 days in its original packaging.',
    ]);
    expect(m?.missing).toEqual(['electronics']);
  });

  it('passages that answer the question are not caught by it', () => {
    expect(
      themeOnlyMatch('What is the electronics return policy?', [
        'Electronics return policy: unopened electronics can be returned within 30 days.',
        'Opened electronics may be returned within 15 days with a restocking fee.',
      ]),
    ).toBeNull();
  });

  it('a word every question of the pipeline asks about (the product name) is background, not a missing topic', () => {
    const background = { isBackground: (t: string) => t === 'nimbu' || t === 'nimbus' };
    expect(themeOnlyMatch('Nimbus refund window?', ['Refunds: the refund window is 30 days.', 'Refund window for annual plans: 14 days.'], background)).toBeNull();
  });
});

describe('content errors', () => {
  it('a tool chosen for another question blames the step that called it', () => {
    const q = 'How many Japanese yen is 120 Swiss francs?';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('router', 'llm', { input: chat(q), output: 'get_weather {"city": "Denver"}' });
    b.step('get_weather', 'tool', { input: { city: 'Denver' }, output: { forecast: 'snow', high_c: -2 } });
    b.step('answer', 'llm', { input: chat('Denver forecast: snow, high -2 C'), output: 'It will snow in Denver with a high of -2 C.' });
    b.verdict(false, 'did not answer the conversion');
    const r = blame(b.finish('ok', 'It will snow in Denver with a high of -2 C.'));
    expect(top(r).name).toBe('router');
    expect(top(r).rule).toBe('wrong-tool');
  });
});

describe('content errors the rules name', () => {
  it('a run whose retriever returned passages sharing only the question\'s general words blames the retriever', () => {
    const q = 'What is the electronics return policy?';
    const passages = [
      'Gift card return policy: gift cards cannot be returned or exchanged for cash.',
      'Furniture return policy: furniture can be returned within 14 days in its original packaging.',
    ];
    const b = new TraceBuilder({ input: { question: q } });
    b.step('plan', 'llm', { input: chat(q), output: 'search the policy knowledge base for: electronics return policy (customer C-88213)' });
    b.step('kb_search', 'retrieval', { input: { query: 'electronics return policy' }, output: passages.map((text) => ({ text })) });
    const answer = 'Electronics can be returned within 14 days in their original packaging.';
    b.step('answer', 'llm', { input: chat(`${q}\n${passages.join('\n')}`), output: answer });
    b.verdict(false, 'electronics have a 30-day window');
    const r = blame(b.finish('ok', answer));
    expect(top(r).name).toBe('kb_search');
    expect(top(r).reason).toMatch(/none mentions "electronics"/);
  });

  it('a plan whose step the executor skipped names the executor (weakly) when nothing stronger explains the failure', () => {
    const q = 'Compare the fees of fund A and fund B and recommend one.';
    const b = new TraceBuilder({ input: { question: q } });
    b.step('planner', 'llm', { input: chat(q), output: 'Plan:\n1. Look up the expense ratio of fund A\n2. Look up the expense ratio of fund B\n3. Recommend the cheaper fund' });
    b.step('executor', 'llm', { input: chat('Plan:\n1. Look up the expense ratio of fund A\n2. Look up the expense ratio of fund B\n3. Recommend the cheaper fund'), output: 'fund_lookup A' });
    b.step('fund_lookup', 'tool', { input: { fund: 'A', field: 'expense ratio' }, output: { expense_ratio: 0.03 } });
    const answer = 'Fund A has an expense ratio of 0.03%.';
    b.step('answer', 'llm', { input: chat('fund A expense ratio 0.03'), output: answer });
    b.verdict(false, 'no recommendation');
    const r = blame(b.finish('ok', answer), { asserted: true });
    expect(top(r).name).toBe('executor');
    // The skipped plan item is quoted as evidence beside the executor's own output.
    expect(top(r).evidence.map((e) => e.quote)).toContain('Recommend the cheaper fund');
  });
});
