/**
 * Scenarios, part 1: retrieval, llm, tool and cascading failures.
 */
import type { Json } from '../../src-shared/trace-format';
import { TraceBuilder } from '../../test/support/trace-builder';
import { NOISE, TOPICS, add, chat, ragRun, tags, toolCall } from './scenario-kit';

const T = TOPICS;

// ───────────────────────── retrieval ─────────────────────────
add('retrieval', 'irrelevant-capital', () =>
  ragRun({
    runId: 'ret-irrelevant-capital',
    tags: tags('retrieve', 'retrieval', 'irrelevant'),
    question: T.australia.question,
    passages: [NOISE[0], NOISE[1], NOISE[2]],
    answer: T.australia.wrong,
    verdict: { pass: false, detail: 'named the wrong capital' },
  }),
);
add('retrieval', 'irrelevant-everest', () =>
  ragRun({
    runId: 'ret-irrelevant-everest',
    tags: tags('retrieve', 'retrieval', 'irrelevant'),
    question: T.everest.question,
    passages: [NOISE[4], NOISE[6], NOISE[7]],
    answer: T.everest.wrong,
    verdict: { pass: false, detail: 'height is wrong' },
  }),
);
add('retrieval', 'empty-refund', () =>
  ragRun({
    runId: 'ret-empty-refund',
    tags: tags('retrieve', 'retrieval', 'empty'),
    question: T.refund.question,
    passages: [],
    answer: "I don't have information about the refund window.",
    verdict: { pass: false, detail: 'should state the 30-day refund window' },
  }),
);
add('retrieval', 'empty-kb-search-no-verdict', () => {
  const b = new TraceBuilder({ runId: 'ret-empty-kb', pipeline: 'support-bot-kb', input: { question: 'How do I export my invoices to CSV?' }, tags: tags('kb_search', 'retrieval', 'empty') });
  const a = b.start('support_agent', 'agent', { input: { question: 'How do I export my invoices to CSV?' } });
  b.step('kb_search', 'retrieval', { parent: a, input: { query: 'export invoices CSV' }, output: { results: [] } });
  b.step('compose_reply', 'llm', {
    parent: a,
    input: chat('Using the knowledge base results, answer: How do I export my invoices to CSV?\nResults: none'),
    output: "I'm sorry, but I cannot answer that without more information.",
    endMetadata: { finish_reason: 'stop' },
  });
  b.end(a, { output: "I'm sorry, but I cannot answer that without more information." });
  return b.finish('ok', "I'm sorry, but I cannot answer that without more information.");
});
add('retrieval', 'partial-sufficient-list', () =>
  ragRun({
    runId: 'ret-partial-list',
    tags: tags('', 'retrieval', 'partly-relevant-healthy'),
    question: T.listAppend.question,
    passages: [NOISE[3], T.listAppend.relevant[0], NOISE[8]],
    answer: T.listAppend.answer,
    verdict: { pass: true },
  }),
);
add('retrieval', 'partial-sufficient-password', () =>
  ragRun({
    runId: 'ret-partial-password',
    tags: tags('', 'retrieval', 'partly-relevant-healthy'),
    question: T.password.question,
    passages: [T.password.relevant[0], 'Passwords must be at least 12 characters long and include a number.', NOISE[9]],
    answer: T.password.answer,
  }),
);

// ───────────────────────── llm ─────────────────────────
add('llm', 'refusal-photosynthesis', () =>
  ragRun({
    runId: 'llm-refusal-photo',
    tags: tags('answer', 'llm', 'refusal'),
    question: T.photosynthesis.question,
    passages: [T.photosynthesis.relevant[0], NOISE[5]],
    answer: "I'm sorry, but I can't help with that request.",
    verdict: { pass: false, detail: 'the assistant refused a harmless question' },
  }),
);
add('llm', 'refusal-medical-no-verdict', () => {
  const q = 'Is it safe to take ibuprofen with a glass of milk?';
  const b = new TraceBuilder({ runId: 'llm-refusal-medical', pipeline: 'health-faq', input: { message: q }, tags: tags('chat', 'llm', 'refusal') });
  b.step('classify_intent', 'generic', { input: { message: q }, output: { intent: 'medication_question', confidence: 0.93 } });
  b.step('chat', 'llm', {
    input: chat(`Intent: medication_question\nUser: ${q}`),
    output: 'As an AI language model, I cannot provide medical advice of any kind.',
    endMetadata: { finish_reason: 'stop' },
  });
  return b.finish('ok', 'As an AI language model, I cannot provide medical advice of any kind.');
});
add('llm', 'truncation-light', () =>
  ragRun({
    runId: 'llm-trunc-light',
    tags: tags('answer', 'llm', 'truncation'),
    question: T.light.question,
    passages: [T.light.relevant[0]],
    answer: 'Light travels through a vacuum at roughly 299,792 kilometres per sec',
    answerMeta: { finish_reason: 'length' },
    verdict: { pass: false, detail: 'answer is cut off' },
  }),
);
add('llm', 'truncation-summary-no-verdict', () => {
  const doc =
    'Quarterly report. Revenue grew 12 percent to 4.2 million dollars, driven by the new subscription tier. Costs rose 3 percent. The board approved hiring eight engineers and opening an office in Lisbon next spring.';
  const b = new TraceBuilder({ runId: 'llm-trunc-summary', pipeline: 'doc-summarizer', input: { document: doc }, tags: tags('summarize', 'llm', 'truncation') });
  b.step('load_document', 'tool', { input: { path: 'reports/q3.txt' }, output: doc });
  b.step('summarize', 'llm', {
    input: chat(`Summarize in three sentences:\n${doc}`),
    output: { content: 'Revenue grew 12 percent to 4.2 million dollars thanks to the new subscription tier, while costs rose', stop_reason: 'max_tokens' },
  });
  return b.finish('ok', 'Revenue grew 12 percent to 4.2 million dollars thanks to the new subscription tier, while costs rose');
});
add('llm', 'non-responsive-boiling', () =>
  ragRun({
    runId: 'llm-nonresp-boiling',
    tags: tags('answer', 'llm', 'non-responsive'),
    question: T.boiling.question,
    passages: [T.boiling.relevant[0]],
    answer: 'The French Revolution began with the storming of the Bastille, leading to the abolition of feudal privileges and a new republic.',
    verdict: { pass: false, detail: 'answer is about something else' },
  }),
);
add('llm', 'non-responsive-translate', () => {
  const b = new TraceBuilder({ runId: 'llm-nonresp-translate', pipeline: 'translator', input: { text: 'Good morning, how are you today?', target: 'French' }, tags: tags('translate', 'llm', 'non-responsive') });
  b.step('translate', 'llm', {
    input: chat('Translate to French: Good morning, how are you today?'),
    output: 'Here is a recipe for banana bread: mix flour, sugar, eggs and ripe bananas, then bake for an hour at moderate heat.',
    endMetadata: { finish_reason: 'stop' },
  });
  b.verdict(false, 'not a translation');
  return b.finish('ok', 'Here is a recipe for banana bread: mix flour, sugar, eggs and ripe bananas, then bake for an hour at moderate heat.');
});
add('llm', 'inconsistent-acme', () =>
  ragRun({
    runId: 'llm-inconsistent-acme',
    tags: tags('answer', 'llm', 'inconsistent-samples'),
    question: T.acme.question,
    passages: [T.acme.relevant[0]],
    answer: 'Acme Robotics is headquartered in Denver, Colorado.',
    answerMeta: {
      samples: ['The headquarters are in Toledo, Ohio, with about 1,200 staff.', 'Acme Robotics is based in Denver, Colorado.', 'Its head office is located in Austin, Texas; the firm is small.'],
    },
    verdict: { pass: false, detail: 'wrong headquarters' },
  }),
);
add('llm', 'inconsistent-word-problem', () => {
  const q = 'A shop sells apples in bags of 6. Maria needs 50 apples. How many bags must she buy?';
  const b = new TraceBuilder({ runId: 'llm-inconsistent-math', pipeline: 'math-tutor', input: { problem: q }, tags: tags('solve', 'llm', 'inconsistent-samples') });
  b.step('solve', 'llm', {
    input: chat(`Solve step by step: ${q}`),
    output: 'She must buy 8 bags.',
    endMetadata: { finish_reason: 'stop', samples: ['She must buy 8 bags.', 'Maria needs nine bags of apples to have enough.', 'The answer is 300 apples in total, so 6 bags.'] },
  });
  b.verdict(false, 'the correct answer is 9 bags');
  return b.finish('ok', 'She must buy 8 bags.');
});
add('llm', 'provider-overloaded', () =>
  ragRun({
    runId: 'llm-provider-overloaded',
    tags: tags('answer', 'llm', 'provider-error'),
    question: T.insulin.question,
    passages: [T.insulin.relevant[0]],
    answer: '',
    answerError: { type: 'OverloadedError', message: 'Overloaded: the model is receiving too many requests', status: 529 },
  }),
);
add('llm', 'provider-connection-reset', () => {
  const b = new TraceBuilder({ runId: 'llm-provider-reset', pipeline: 'trip-planner', input: { request: 'Plan a weekend in Lisbon' }, tags: tags('plan', 'llm', 'provider-error') });
  const a = b.start('planner_agent', 'agent', { input: { request: 'Plan a weekend in Lisbon' } });
  b.step('load_preferences', 'tool', { parent: a, input: { user: 'u-381' }, output: { budget: 'medium', likes: ['museums', 'food'] } });
  b.step('plan', 'llm', { parent: a, input: chat('Plan a weekend in Lisbon for someone who likes museums and food.'), error: { type: 'APIConnectionError', message: 'Connection reset by peer' } });
  b.end(a, { error: { type: 'AgentError', message: 'planning failed: Connection reset by peer' } });
  return b.finish('error', undefined, { type: 'AgentError', message: 'planning failed' });
});

// ───────────────────────── tool ─────────────────────────
function weatherAgent(runId: string, expected: string, kind: string, toolResult: { output?: Json; error?: { type: string; message: string; status?: number } }, answer: string | null, verdict?: { pass: boolean; detail?: string }): TraceBuilder {
  const q = 'What is the weather in Lisbon right now?';
  const b = new TraceBuilder({ runId, pipeline: `weather-${runId}`, input: { question: q }, tags: tags(expected, 'tool', kind) });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(q), output: toolCall('call_w1', 'get_weather', { city: 'Lisbon' }), endMetadata: { finish_reason: 'tool_calls' } });
  b.step('get_weather', 'tool', { parent: a, input: { city: 'Lisbon' }, metadata: { tool_call_id: 'call_w1' }, ...toolResult });
  if (answer === null) {
    b.end(a, { error: { type: 'AgentError', message: `tool get_weather failed: ${toolResult.error?.message ?? ''}` } });
    if (verdict) b.verdict(verdict.pass, verdict.detail);
    return b.finish('error', undefined, { type: 'AgentError', message: 'agent failed' });
  }
  b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\nTool result (call_w1): ${JSON.stringify(toolResult.output ?? null)}`), output: answer, endMetadata: { finish_reason: 'stop' } });
  b.end(a, { output: answer });
  if (verdict) b.verdict(verdict.pass, verdict.detail);
  return b.finish('ok', answer);
}
add('tool', 'exception-timeout', () => weatherAgent('tool-exc-timeout', 'get_weather', 'exception', { error: { type: 'TimeoutError', message: 'Read timed out after 30s' } }, null));
add('tool', 'exception-db-refused', () => {
  const b = new TraceBuilder({ runId: 'tool-exc-db', pipeline: 'sales-report', input: { question: 'Total sales last month?' }, tags: tags('db_query', 'tool', 'exception') });
  b.step('write_sql', 'llm', { input: chat('Write SQL for: Total sales last month?'), output: "SELECT SUM(amount) FROM sales WHERE month = '2024-05'", endMetadata: { finish_reason: 'stop' } });
  b.step('db_query', 'tool', { input: { sql: "SELECT SUM(amount) FROM sales WHERE month = '2024-05'" }, error: { type: 'OperationalError', message: 'could not connect to server: Connection refused (10.0.0.5:5432)' } });
  return b.finish('error', undefined, { type: 'OperationalError', message: 'could not connect to server' });
});
add('tool', 'empty-order-null', () => {
  const q = 'What is the status of my order 55120?';
  const b = new TraceBuilder({ runId: 'tool-empty-order', pipeline: 'order-bot', input: { question: q }, tags: tags('lookup_order', 'tool', 'empty-payload') });
  b.step('extract_order_id', 'llm', { input: chat(`Extract the order number from: ${q}`), output: '55120', endMetadata: { finish_reason: 'stop' } });
  b.step('lookup_order', 'tool', { input: { order_number: 55120 }, output: null });
  b.step('reply', 'llm', { input: chat(`Order lookup result: none\nQuestion: ${q}`), output: 'I could not find details for your order right now.', endMetadata: { finish_reason: 'stop' } });
  b.verdict(false, 'order 55120 exists and has shipped');
  return b.finish('ok', 'I could not find details for your order right now.');
});
add('tool', 'empty-profile-object', () => {
  const q = 'Which plan is user 4471 on?';
  const b = new TraceBuilder({ runId: 'tool-empty-profile', pipeline: 'account-bot', input: { question: q }, tags: tags('fetch_profile', 'tool', 'empty-payload') });
  b.step('fetch_profile', 'tool', { input: { user_id: 4471 }, output: {}, metadata: { expected_type: 'object' } });
  b.step('reply', 'llm', { input: chat(`Profile: {}\nQuestion: ${q}`), output: "The user's plan is Premium.", endMetadata: { finish_reason: 'stop' } });
  b.verdict(false, 'user 4471 is on the Basic plan');
  return b.finish('ok', "The user's plan is Premium.");
});
add('tool', 'error-payload-quote-service', () => {
  const q = 'What is the current share price of ACME?';
  const b = new TraceBuilder({ runId: 'tool-errpayload-quote', pipeline: 'stocks-bot', input: { question: q }, tags: tags('get_stock_price', 'tool', 'error-payload') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(q), output: toolCall('call_s1', 'get_stock_price', { ticker: 'ACME' }) });
  b.step('get_stock_price', 'tool', { parent: a, input: { ticker: 'ACME' }, metadata: { tool_call_id: 'call_s1' }, output: { error: 'upstream quote service unavailable' } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\nTool result (call_s1): {"error": "upstream quote service unavailable"}`), output: 'The price of ACME is $132.50.' });
  b.end(a, { output: 'The price of ACME is $132.50.' });
  return b.finish('ok', 'The price of ACME is $132.50.');
});
add('tool', 'error-payload-flights-string', () => {
  const q = 'Find flights from Oslo to Rome on 2024-09-14';
  const b = new TraceBuilder({ runId: 'tool-errpayload-flights', pipeline: 'travel-bot', input: { request: q }, tags: tags('search_flights', 'tool', 'error-payload') });
  const a = b.start('agent', 'agent', { input: { request: q } });
  b.step('agent_llm', 'llm', { parent: a, input: chat(q), output: toolCall('call_f1', 'search_flights', { from: 'Oslo', to: 'Rome', date: '2024-09-14' }) });
  b.step('search_flights', 'tool', { parent: a, input: { from: 'Oslo', to: 'Rome', date: '2024-09-14' }, metadata: { tool_call_id: 'call_f1' }, output: 'Error: rate limit exceeded for API key' });
  b.step('agent_llm', 'llm', { parent: a, input: chat(`${q}\nTool result (call_f1): Error: rate limit exceeded for API key`), output: 'There are no flights available on that date.' });
  b.end(a, { output: 'There are no flights available on that date.' });
  b.verdict(false, 'there are 4 flights that day');
  return b.finish('ok', 'There are no flights available on that date.');
});
add('tool', 'flaky-currency', () => {
  const q = 'Convert 100 EUR to USD';
  const b = new TraceBuilder({
    runId: 'tool-flaky-currency',
    pipeline: 'fx-bot',
    input: { request: q },
    tags: tags('currency_rates', 'tool', 'historically-flaky', { bench_tool_stats: JSON.stringify({ currency_rates: { calls: 40, failures: 18 } }) }),
  });
  b.step('currency_rates', 'tool', { input: { base: 'EUR', quote: 'USD' }, output: { EUR_USD: 1.31, as_of: '2024-06-03' } });
  b.step('convert', 'llm', { input: chat(`${q}\nRate EUR_USD = 1.31 (as of 2024-06-03)`), output: '100 EUR is 131 USD.' });
  b.verdict(false, 'the rate was stale; 100 EUR is 108 USD');
  return b.finish('ok', '100 EUR is 131 USD.');
});
add('tool', 'flaky-geo', () => {
  const q = 'Which timezone is Pune in?';
  const b = new TraceBuilder({
    runId: 'tool-flaky-geo',
    pipeline: 'geo-bot',
    input: { question: q },
    tags: tags('geo_lookup', 'tool', 'historically-flaky', { bench_tool_stats: JSON.stringify({ geo_lookup: { calls: 25, failures: 9 }, answer_llm: { calls: 25, failures: 0 } }) }),
  });
  b.step('geo_lookup', 'tool', { input: { place: 'Pune' }, output: { place: 'Pune', timezone: 'Asia/Dubai' } });
  b.step('answer_llm', 'llm', { input: chat(`${q}\nLookup: Pune -> Asia/Dubai`), output: 'Pune is in the Asia/Dubai timezone.' });
  b.verdict(false, 'Pune is in Asia/Kolkata');
  return b.finish('ok', 'Pune is in the Asia/Dubai timezone.');
});

// ───────────────────────── cascading ─────────────────────────
add('cascading', 'codegen-syntax-error', () => {
  const q = 'Compute the mean of [3, 5, 10]';
  const code = 'data = [3, 5, 10]\nmean = sum(data) / len(data\nprint(mean)';
  const b = new TraceBuilder({ runId: 'casc-codegen', pipeline: 'code-agent', input: { task: q }, tags: tags('write_code', 'cascading', 'generated-code') });
  const a = b.start('code_agent', 'agent', { input: { task: q } });
  b.step('write_code', 'llm', { parent: a, input: chat(`Write Python for: ${q}`), output: code });
  b.step('run_python', 'tool', { parent: a, input: { code }, error: { type: 'SyntaxError', message: "'(' was never closed (line 2)" } });
  b.end(a, { error: { type: 'AgentError', message: 'execution failed' } });
  return b.finish('error', undefined, { type: 'AgentError', message: 'execution failed' });
});
add('cascading', 'wrong-id-404', () => {
  const q = 'Where is my order ORD-99128?';
  const b = new TraceBuilder({ runId: 'casc-wrong-id', pipeline: 'order-agent', input: { question: q }, tags: tags('plan', 'cascading', 'bad-argument-4xx') });
  const a = b.start('agent', 'agent', { input: { question: q } });
  b.step('plan', 'llm', { parent: a, input: chat(q), output: toolCall('call_o1', 'get_order', { order_id: 'ORD-99812' }) });
  b.step('get_order', 'tool', { parent: a, input: { order_id: 'ORD-99812' }, metadata: { tool_call_id: 'call_o1' }, error: { type: 'HTTPError', message: 'Order ORD-99812 not found', status: 404 } });
  b.step('respond', 'llm', { parent: a, input: chat(`${q}\nTool error: Order ORD-99812 not found`), output: "Sorry, I couldn't find that order." });
  b.end(a, { output: "Sorry, I couldn't find that order." });
  b.verdict(false, 'order ORD-99128 exists');
  return b.finish('ok', "Sorry, I couldn't find that order.");
});
add('cascading', 'parse-empty-keyerror', () => {
  const b = new TraceBuilder({ runId: 'casc-parse-empty', pipeline: 'invoice-pipeline', input: { file: 'invoice-7781.pdf' }, tags: tags('parse_invoice', 'cascading', 'empty-upstream') });
  b.step('ocr', 'tool', { input: { file: 'invoice-7781.pdf' }, output: 'INVOICE 7781  Total due: 1,250.00 EUR  Due date: 2024-08-01' });
  b.step('parse_invoice', 'generic', { input: { text: 'INVOICE 7781  Total due: 1,250.00 EUR  Due date: 2024-08-01' }, output: {} });
  b.step('compute_tax', 'tool', { input: {}, error: { type: 'KeyError', message: "'amount'" } });
  return b.finish('error', undefined, { type: 'KeyError', message: "'amount'" });
});
add('cascading', 'irrelevant-then-refusal', () =>
  ragRun({
    runId: 'casc-irrelevant-refusal',
    tags: tags('retrieve', 'cascading', 'content-symptom'),
    question: T.warranty.question,
    passages: [NOISE[2], NOISE[8]],
    answer: "I don't have enough information to answer that.",
  }),
);
add('cascading', 'nested-timeout', () => {
  const b = new TraceBuilder({ runId: 'casc-nested-timeout', pipeline: 'research-crew', input: { topic: 'solid-state batteries' }, tags: tags('web_fetch', 'cascading', 'nested-errors') });
  const o = b.start('orchestrator', 'agent', { input: { topic: 'solid-state batteries' } });
  const r = b.start('researcher', 'agent', { parent: o, input: { topic: 'solid-state batteries' } });
  b.step('search_web', 'tool', { parent: r, input: { q: 'solid-state batteries 2024' }, output: [{ url: 'https://example.org/ssb', title: 'Solid-state batteries in 2024' }] });
  b.step('web_fetch', 'tool', { parent: r, input: { url: 'https://example.org/ssb' }, error: { type: 'TimeoutError', message: 'GET https://example.org/ssb timed out after 20000 ms' } });
  b.end(r, { error: { type: 'ResearchError', message: 'could not fetch sources' } });
  b.end(o, { error: { type: 'CrewError', message: 'researcher failed' } });
  return b.finish('error', undefined, { type: 'CrewError', message: 'researcher failed' });
});

